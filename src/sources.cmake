# Glue: context, status strings, CUDA state, image I/O.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/status.c
  ${CMAKE_CURRENT_LIST_DIR}/clock.c
  ${CMAKE_CURRENT_LIST_DIR}/context.c
  ${CMAKE_CURRENT_LIST_DIR}/memory_budget.c
  ${CMAKE_CURRENT_LIST_DIR}/errno_text.c
  ${CMAKE_CURRENT_LIST_DIR}/file_replace.c
  ${CMAKE_CURRENT_LIST_DIR}/file_input.c)
if(SATFEAT_HAVE_CUDA)
  list(APPEND SATFEAT_C_SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_state.c)
else()
  list(APPEND SATFEAT_C_SOURCES ${CMAKE_CURRENT_LIST_DIR}/cuda_state_none.c)
endif()
# Image I/O: PNG (libpng, streamed), JPEG (libjpeg-turbo, streamed), PGM/PPM, conversion to gray.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/image_io.c
  ${CMAKE_CURRENT_LIST_DIR}/image_gray.c
  ${CMAKE_CURRENT_LIST_DIR}/image_pnm.c
  ${CMAKE_CURRENT_LIST_DIR}/image_png.c
  ${CMAKE_CURRENT_LIST_DIR}/image_jpeg.c
  ${CMAKE_CURRENT_LIST_DIR}/image_exif.c)
# Video frames through FFmpeg (optional: SATFEAT_WITH_VIDEO); without it the calls say so.
if(SATFEAT_HAVE_VIDEO)
  list(APPEND SATFEAT_C_SOURCES ${CMAKE_CURRENT_LIST_DIR}/video_ffmpeg.c
    ${CMAKE_CURRENT_LIST_DIR}/video_probe.c)
else()
  list(APPEND SATFEAT_C_SOURCES ${CMAKE_CURRENT_LIST_DIR}/video_none.c)
endif()
