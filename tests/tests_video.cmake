# Video input (issue 34): the frame source on files encoded at test time by libavcodec (so no
# video data files), and `satfeat detect` / `satfeat track` on a video against the same frames
# as PNG files.
if(NOT SATFEAT_HAVE_VIDEO)
  # the calls exist and say "video support was not built"; test_video checks that answer
  satfeat_add_test(test_video test_video.c)
  target_compile_definitions(test_video PRIVATE SATFEAT_TEST_NO_VIDEO=1)
  return()
endif()
add_library(satfeat_video_testutil STATIC video_testutil.c)
target_link_libraries(satfeat_video_testutil PUBLIC PkgConfig::SATFEAT_FFMPEG m)
target_compile_options(satfeat_video_testutil PRIVATE ${SATFEAT_C_FLAGS})
satfeat_add_test(test_video test_video.c)
target_link_libraries(test_video PRIVATE satfeat_video_testutil)
