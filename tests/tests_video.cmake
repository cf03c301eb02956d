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

# The CLI on a video: the fixture program writes video.mkv (12 FFV1 gray frames of 160x120),
# the same frames as frame001..012.png, a truncated copy, the NUT file, a NUT under a name that
# only the probe recognises, a text file named .mkv and a FIFO.
if(NOT TARGET satfeat_cli)
  return()
endif()
add_executable(make_test_video make_test_video.c)
target_link_libraries(make_test_video PRIVATE satfeat_video_testutil satfeat_static)
target_compile_options(make_test_video PRIVATE ${SATFEAT_C_FLAGS})
set(vdir ${CMAKE_CURRENT_BINARY_DIR}/cli_video)
add_test(NAME cli_video_fixtures COMMAND make_test_video ${vdir} 12 160 120)
set_tests_properties(cli_video_fixtures PROPERTIES FIXTURES_SETUP video_files LABELS cli)

set(cpu --backend cpu --threads 2 -q)
set(pngs "")
foreach(k RANGE 1 12)
  string(LENGTH "${k}" l)
  if(l EQUAL 1)
    set(k "00${k}")
  else()
    set(k "0${k}")
  endif()
  list(APPEND pngs ${vdir}/frame${k}.png)
endforeach()
# satfeat_video_compare(NAME COMMAND "VIDEO ARGS" "IMAGE ARGS" NEED [MAP]): cli_video_compare.cmake
function(satfeat_video_compare name command video_args image_args need)
  string(JOIN "|" vcmd "$<TARGET_FILE:satfeat_cli>" ${command} ${video_args})
  string(JOIN "|" icmd "$<TARGET_FILE:satfeat_cli>" ${command} ${image_args})
  set(extra "")
  if(ARGC GREATER 5)
    string(JOIN "|" map ${ARGV5})
    set(extra "-DMAP=${map}")
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DVIDEO_CMD=${vcmd}" "-DIMAGE_CMD=${icmd}"
           "-DNEED=${need}" ${extra} -P ${CMAKE_CURRENT_LIST_DIR}/cli_video_compare.cmake)
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED video_files LABELS cli TIMEOUT 300)
endfunction()

# every frame: detect (text, with descriptors) and track (with motion) as on the PNG frames
satfeat_video_compare(cli_video_detect_equal detect "${vdir}/video.mkv;${cpu};--descriptors"
  "${pngs};${cpu};--descriptors" "# frame 1 160x120 [1-9][0-9]* keypoints.*# frame 12 160x120 [1-9][0-9]* keypoints")
satfeat_video_compare(cli_video_track_equal track "${vdir}/video.mkv;${cpu};--motion"
  "${pngs};${cpu};--motion" "^# satfeat track: 12 frames\n.*\n12 [0-9]+ [0-9.]+ [0-9.]+ [0-9.]+ [-0-9.]+ [1-9][0-9]* 0 1\n")
# --start 3 --frames 4 --step 2: the video's frames 4, 6, 8, 10 (1-based), numbered so
list(GET pngs 3 f4)
list(GET pngs 5 f6)
list(GET pngs 7 f8)
list(GET pngs 9 f10)
satfeat_video_compare(cli_video_detect_range detect "${vdir}/video.mkv;--start;3;--frames;4;--step;2;${cpu}"
  "${f4};${f6};${f8};${f10};${cpu}" "^# frame 4 160x120 [1-9][0-9]* keypoints\n.*# frame 6 .*# frame 8 .*# frame 10 " "4;6;8;10")
satfeat_video_compare(cli_video_track_range track "${vdir}/video.mkv;--start;3;--frames;4;--step;2;${cpu};--motion"
  "${f4};${f6};${f8};${f10};${cpu};--motion" "^# satfeat track: 4 frames\n.*# motion frame 4 .*# motion frame 10 valid 1 " "4;6;8;10")
# --start alone, to the end; NUT, and a NUT file only the probe recognises (no video extension)
list(SUBLIST pngs 9 3 last3)
satfeat_video_compare(cli_video_detect_start detect "${vdir}/video.nut;--start;9;${cpu}"
  "${last3};${cpu}" "^# frame 10 .*# frame 12 " "10;11;12")
satfeat_video_compare(cli_video_detect_probe detect "${vdir}/clip.data;${cpu}" "${pngs};${cpu}"
  "# frame 12 160x120")

# satfeat_video_expect(NAME EXIT REGEX ARGS...): cli_expect.cmake on the fixtures
function(satfeat_video_expect name exit_code regex)
  string(JOIN "|" cmd "$<TARGET_FILE:satfeat_cli>" ${ARGN})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT_EXIT=${exit_code}"
           "-DEXPECT_REGEX=${regex}" -P ${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
  set_tests_properties(${name} PROPERTIES FIXTURES_REQUIRED video_files LABELS cli TIMEOUT 60)
endfunction()
satfeat_video_expect(cli_video_truncated 1
  "frame [0-9]+ \\([^)]*truncated\\.mkv\\): cannot decode: .*truncated or damaged"
  detect ${vdir}/truncated.mkv ${cpu})
satfeat_video_expect(cli_video_track_truncated 1 "truncated or damaged" track ${vdir}/truncated.mkv ${cpu})
satfeat_video_expect(cli_video_fifo 1 "fifo\\.mkv: is a FIFO, not a regular file"
  detect ${vdir}/fifo.mkv ${cpu})
satfeat_video_expect(cli_video_not_video 1 "notes\\.mkv: not a video FFmpeg can read"
  track ${vdir}/notes.mkv ${cpu})
satfeat_video_expect(cli_video_range_images 2 "--start, --frames and --step select frames of a video"
  detect ${vdir}/frame001.png --start 2)
satfeat_video_expect(cli_video_out_dir 2 "a video takes neither --out-dir"
  detect ${vdir}/video.mkv --out-dir ${vdir}/kp)
satfeat_video_expect(cli_video_bad_step 2 "--step" track ${vdir}/video.mkv --step 0)
satfeat_video_expect(cli_video_past_end 0 "^# satfeat track: 0 frames\n# frame id[^\n]*\n$"
  track ${vdir}/video.mkv --start 50 ${cpu})
