# `satfeat track` run as a user would: the frame sources (list file, directory in natural order,
# arguments), the output format, --motion, --draw, -o, bad frames with and without --keep-going.
if(NOT TARGET satfeat_cli)
  return()
endif()
set(dune ${SATFEAT_TEST_DATA_DIR}/dune)
include(${CMAKE_CURRENT_LIST_DIR}/cli_frame_fixtures.cmake)
set(tdir ${frames_dir})

# satfeat_track_cli_test(NAME EXIT REGEX [VAR=value...] -- ARGS...): `satfeat track ARGS...`
# with the file checks of track_cli_files.cmake (satfeat_cli_files_test, tests_cli.cmake).
function(satfeat_track_cli_test name exit_code regex)
  satfeat_cli_files_test(${name} ${exit_code} "${regex}" track ${ARGN})
endfunction()

set(cpu --backend cpu --threads 2)
# format: header, then "frame id x y size angle age missed inlier" lines; frame 1 has only
# newborn tracks (age 0, inlier 0); frame 5 exists with tracks of age 4 (followed from frame 1)
set(line "[0-9]+ [0-9]+ [0-9]+\\.[0-9][0-9][0-9] [0-9]+\\.[0-9][0-9][0-9] [0-9]+\\.[0-9][0-9][0-9] [0-9]+\\.[0-9][0-9][0-9][0-9] [0-9]+ [0-9]+ [01]\n")
satfeat_track_cli_test(cli_track_list 0
  "^# satfeat track: 5 frames\n# frame id x y size angle age missed inlier\n1 1 [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ 0 0 0\n(${line})+.*\n5 [0-9]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ 4 0 1\n"
  -- ${tdir}/dune5.txt ${cpu})
# --motion: one line per frame; frame 1 the identity; later frames valid with estimated h_ref
string(REPEAT " -?[0-9][-0-9.e]*" 9 h9)
satfeat_track_cli_test(cli_track_motion 0
  "# motion frame 1 valid 0 ref_valid 0 matches 0 inliers 0 h_ref 1 0 0 0 1 0 0 0 1 h_prev 1 0 0 0 1 0 0 0 1\n.*# motion frame 2 valid 1 ref_valid 1 matches [1-9][0-9]+ inliers [1-9][0-9]+ h_ref${h9} h_prev${h9}\n.*# motion frame 5 valid 1 ref_valid 1 "
  -- ${tdir}/dune5.txt ${cpu} --motion)
# --draw: one PNG per frame, written into a directory it creates
satfeat_track_cli_test(cli_track_draw 0 "# motion frame 5 valid 1"
  CLEAN=${tdir}/draw "COUNT_GLOB=${tdir}/draw/frame*.png" EXPECT_COUNT=5
  -- ${tdir}/dune5.txt ${cpu} --motion --draw ${tdir}/draw)
# -o: the file is written, no temporary left; the other tracker flags are accepted
satfeat_track_cli_test(cli_track_output 0 "^$"
  CHECK_FILE=${tdir}/out.txt "CHECK_REGEX=^# satfeat track: 3 frames\n.*\n3 [0-9]+ " "NONE_GLOB=${tdir}/out.txt.tmp*"
  -- ${dune}/frame001.png ${dune}/frame002.png ${dune}/frame003.png ${cpu} -o ${tdir}/out.txt
  --radius 20 --max-missed 2 --model affine --max-tracks 500 --ratio 0.9 --guided-radius 4)
# --keep-outliers: matches off the motion continue their tracks flagged inlier 0 (some track seen
# in frame 5, age >= 1, missed 0, inlier 0); without it no such line exists (cli_track_list)
satfeat_track_cli_test(cli_track_keep_outliers 0
  "\n5 [0-9]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ [1-9][0-9]* 0 0\n"
  -- ${tdir}/dune5.txt ${cpu} --keep-outliers --guided-radius 0)
satfeat_track_cli_test(cli_track_no_outlier_steps 0 "# satfeat track: 5 frames"
  "NOT_REGEX=\n[0-9]+ [0-9]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ [1-9][0-9]* 0 0\n"
  -- ${tdir}/dune5.txt ${cpu})
satfeat_track_cli_test(cli_track_bad_guided_radius 2 "--guided-radius" -- ${tdir}/dune5.txt --guided-radius -1)
# a bad frame stops the run: exit 1, the frame named; -o leaves an existing file alone
satfeat_track_cli_test(cli_track_bad_frame 1 "frame 2 \\([^)]*bad\\.png\\): cannot read.*1 of 3 frames could not be tracked\n"
  SEED_FILE=${tdir}/keep.txt SEED_TEXT=precious CHECK_FILE=${tdir}/keep.txt "CHECK_REGEX=^precious$"
  "NONE_GLOB=${tdir}/keep.txt.tmp*"
  -- ${dune}/frame001.png ${tdir}/bad.png ${dune}/frame002.png ${cpu} -o ${tdir}/keep.txt)
# --keep-going: frame 3 is still tracked, the exit status is 1 at the end
satfeat_track_cli_test(cli_track_bad_frame_keep_going 1
  "\n3 [0-9]+ [0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+ 1 .*frame 2 \\([^)]*bad\\.png\\): cannot read.*1 of 3 frames could not be tracked \\(skipped\\)"
  -- ${dune}/frame001.png ${tdir}/bad.png ${dune}/frame002.png ${cpu} --keep-going)
# -q: the bad frame is still reported, the summary is not; -v: a line per frame
satfeat_track_cli_test(cli_track_quiet 1 "frame 2 \\([^)]*bad\\.png\\): cannot read"
  "NOT_REGEX=could not be tracked"
  -- ${dune}/frame001.png ${tdir}/bad.png ${dune}/frame002.png ${cpu} --keep-going -q)
satfeat_track_cli_test(cli_track_verbose 0
  "satfeat: frame 1 \\([^)]*frame001\\.png\\): [0-9]+ tracks, 0 matches, 0 inliers, [0-9]+ born, 0 ended\nsatfeat: frame 2 \\([^)]*frame002\\.png\\): [0-9]+ tracks, [1-9][0-9]* matches, [1-9][0-9]* inliers"
  -- ${dune}/frame001.png ${dune}/frame002.png ${cpu} -v)
# the progress line: on a pseudo-terminal only; -q turns it off there too (few keypoints: the
# checker reads stdout after the terminal, so stdout must fit a pipe's buffer)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_track_progress_tty COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_LIST_DIR}/cli_progress_check.py $<TARGET_FILE:satfeat_cli> track
           ${dune}/frame001.png ${dune}/frame002.png ${dune}/frame003.png ${cpu} --max-keypoints 20)
  set_tests_properties(cli_track_progress_tty PROPERTIES LABELS cli TIMEOUT 300)
  add_test(NAME cli_track_progress_quiet COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_LIST_DIR}/cli_progress_check.py $<TARGET_FILE:satfeat_cli> track
           ${dune}/frame001.png ${dune}/frame002.png ${dune}/frame003.png ${cpu} --max-keypoints 20 -q)
  set_tests_properties(cli_track_progress_quiet PROPERTIES LABELS cli TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "no progress line on the terminal")
endif()
# a frame of another size: reported with both sizes
satfeat_track_cli_test(cli_track_other_size 1 "frame 2 \\([^)]*small\\.pgm\\): size 8x8 differs from the first frame's 640x480"
  -- ${dune}/frame001.png ${tdir}/small.pgm ${cpu})
# a directory: images only, natural order (f10 third)
satfeat_track_cli_test(cli_track_directory 1 "# satfeat track: 3 frames\n.*\n2 [0-9]+ .*frame 3 \\([^)]*f10\\.pgm\\): size 8x8 differs"
  -- ${tdir}/natural ${cpu} --keep-going)
# usage errors
satfeat_track_cli_test(cli_track_no_frames 2 "no frames given" -- ${cpu})
satfeat_track_cli_test(cli_track_bad_model 2 "--model must be homography, affine or similarity" -- ${tdir}/dune5.txt --model projective)
satfeat_track_cli_test(cli_track_no_descriptor 2 "track needs descriptors" -- ${tdir}/dune5.txt --descriptor none)
satfeat_track_cli_test(cli_track_missing_list 1 "frame list: .*no-such-list.txt: cannot open for reading" -- ${tdir}/no-such-list.txt)
satfeat_track_cli_test(cli_track_help 0 "usage: satfeat track FRAME.*--keep-going.*--max-missed.*--init-step" -- --help)
