# Fuzz harnesses (tests/fuzz): the image readers, the detector, the CLI list-file parser, the
# homography reader with the CLI's check and the AR target file loader. Every build replays the seed corpus and the
# regression files of past findings through each harness (ctest fuzz_replay_*); with SATFEAT_FUZZ=ON (clang)
# the libFuzzer programs fuzz_* are built too, which tools/fuzz.sh runs for a bounded time.
set(SATFEAT_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR}/fuzz)
set(SATFEAT_FUZZ_HARNESSES png pnm jpeg detect match_motion tracker list homography ar_target)
if(SATFEAT_HAVE_VIDEO)
  list(APPEND SATFEAT_FUZZ_HARNESSES video) # the video frame source (FFmpeg)
endif()
set(fuzz_png_SOURCES fuzz_png.c fuzz_file.c fuzz_image_common.c)
set(fuzz_pnm_SOURCES fuzz_pnm.c fuzz_file.c fuzz_image_common.c)
set(fuzz_jpeg_SOURCES fuzz_jpeg.c fuzz_file.c fuzz_image_common.c)
set(fuzz_detect_SOURCES fuzz_detect.c)
set(fuzz_match_motion_SOURCES fuzz_match_motion.c)
set(fuzz_tracker_SOURCES fuzz_tracker.c)
set(fuzz_ar_target_SOURCES fuzz_ar_target.c fuzz_file.c)
# the CLI's parsers are CLI code: their harnesses compile the CLI files in
set(fuzz_list_SOURCES fuzz_list.c ../../cli/frame_list.c)
set(fuzz_homography_SOURCES fuzz_homography.c fuzz_file.c ../../cli/homography_check.c
    ../../cli/name_escape.c ../../cli/cli_util.c)
set(fuzz_video_SOURCES fuzz_video.c fuzz_file.c)
foreach(h IN LISTS SATFEAT_FUZZ_HARNESSES)
  list(TRANSFORM fuzz_${h}_SOURCES PREPEND ${SATFEAT_FUZZ_DIR}/ OUTPUT_VARIABLE srcs)
  add_executable(fuzz_replay_${h} ${srcs} ${SATFEAT_FUZZ_DIR}/replay_main.c)
  target_link_libraries(fuzz_replay_${h} PRIVATE satfeat_static m)
  target_include_directories(fuzz_replay_${h} PRIVATE ${PROJECT_SOURCE_DIR}/src
                             ${PROJECT_SOURCE_DIR}/detect ${PROJECT_SOURCE_DIR}/match ${PROJECT_SOURCE_DIR}/cli)
  target_compile_options(fuzz_replay_${h} PRIVATE ${SATFEAT_C_FLAGS})
  add_test(NAME fuzz_replay_${h} COMMAND fuzz_replay_${h} ${SATFEAT_FUZZ_DIR}/corpus/${h}
           ${SATFEAT_FUZZ_DIR}/regressions/${h})
  set_tests_properties(fuzz_replay_${h} PROPERTIES LABELS fuzz TIMEOUT 300)
  if(SATFEAT_FUZZ)
    add_executable(fuzz_${h} ${srcs})
    target_link_libraries(fuzz_${h} PRIVATE satfeat_static m)
    target_include_directories(fuzz_${h} PRIVATE ${PROJECT_SOURCE_DIR}/src
                               ${PROJECT_SOURCE_DIR}/detect ${PROJECT_SOURCE_DIR}/match ${PROJECT_SOURCE_DIR}/cli)
    target_compile_options(fuzz_${h} PRIVATE ${SATFEAT_C_FLAGS})
    target_link_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
  endif()
endforeach()
