# Image I/O: PNG (libpng, streamed), JPEG (libjpeg-turbo, streamed, EXIF orientation), PGM/PPM,
# conversion to gray; video frames through FFmpeg (optional: SATFEAT_WITH_VIDEO), or calls that
# say video is not built.
set(satfeat_image_video video_none.c)
set(satfeat_image_libs PNG::PNG JPEG::JPEG ZLIB::ZLIB)
set(satfeat_image_defines)
if(SATFEAT_HAVE_VIDEO)
  set(satfeat_image_video video_ffmpeg.c video_probe.c)
  list(APPEND satfeat_image_libs PkgConfig::SATFEAT_FFMPEG)
  if(SATFEAT_HAVE_AVDEVICE)
    list(APPEND satfeat_image_libs PkgConfig::SATFEAT_AVDEVICE)
    list(APPEND satfeat_image_defines SATFEAT_HAVE_AVDEVICE=1)
  endif()
endif()
list(TRANSFORM satfeat_image_video PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
satfeat_add_module(image MAY_INCLUDE src
  C ${CMAKE_CURRENT_LIST_DIR}/image_io.c
    ${CMAKE_CURRENT_LIST_DIR}/image_gray.c
    ${CMAKE_CURRENT_LIST_DIR}/image_pnm.c
    ${CMAKE_CURRENT_LIST_DIR}/image_png.c
    ${CMAKE_CURRENT_LIST_DIR}/image_jpeg.c
    ${CMAKE_CURRENT_LIST_DIR}/image_exif.c
    ${satfeat_image_video}
  LIBS ${satfeat_image_libs}
  DEFINES ${satfeat_image_defines})
