# `satfeat detect` run as a user would (issue 14): every format read back and compared with the
# library's own lists, sequences (directory, list, bad frames with and without --keep-going),
# -o and --out-dir, the progress line on a terminal only.
if(NOT TARGET satfeat_cli)
  return()
endif()
find_package(Python3 COMPONENTS Interpreter)
set(dune ${SATFEAT_TEST_DATA_DIR}/dune)
set(scene ${SATFEAT_TEST_DATA_DIR}/scene.png)
set(ddir ${CMAKE_CURRENT_BINARY_DIR}/detect_cli)
file(MAKE_DIRECTORY ${ddir})
set(frames4 ${dune}/frame001.png ${dune}/frame002.png ${dune}/frame003.png ${dune}/frame004.png)

# The library's lists, exact, for the round trips (public header only, as any client).
add_executable(cli_reference_keypoints cli_reference_keypoints.c)
target_link_libraries(cli_reference_keypoints PRIVATE satfeat_static)
target_compile_options(cli_reference_keypoints PRIVATE ${SATFEAT_C_FLAGS})

# satfeat_format_roundtrip(NAME FORMAT DIM MAX OUTPUT-FILES -- DETECT-ARGS...): runs
# `satfeat detect DETECT-ARGS...` on the four dune frames, then checks OUTPUT-FILES ('|'-joined).
function(satfeat_format_roundtrip name format dim max files)
  if(NOT Python3_Interpreter_FOUND)
    return()
  endif()
  list(FIND ARGN "--" sep)
  math(EXPR first "${sep} + 1")
  list(SUBLIST ARGN ${first} -1 args)
  string(JOIN "|" cmd "$<TARGET_FILE:satfeat_cli>" detect ${frames4} --backend cpu ${args})
  string(JOIN "|" ref "$<TARGET_FILE:cli_reference_keypoints>" ${dim} ${max} ${frames4})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -DCLEAN=${ddir}/${name} "-DCMD=${cmd}"
           "-DREF=${ref}" -DPY=${Python3_EXECUTABLE} -DCHECK=${CMAKE_CURRENT_LIST_DIR}/cli_formats_check.py
           -DFORMAT=${format} "-DFILES=${files}" -DREF_OUT=${ddir}/${name}.ref
           -P ${CMAKE_CURRENT_LIST_DIR}/cli_formats_roundtrip.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cli TIMEOUT 300)
endfunction()
set(o ${ddir})
satfeat_format_roundtrip(cli_detect_roundtrip_text text 0 0 ${o}/cli_detect_roundtrip_text/k.txt
  -- -o ${o}/cli_detect_roundtrip_text/k.txt)
satfeat_format_roundtrip(cli_detect_roundtrip_text_desc text 64 40 ${o}/cli_detect_roundtrip_text_desc/k.txt
  -- --descriptors --max-keypoints 40 -o ${o}/cli_detect_roundtrip_text_desc/k.txt)
satfeat_format_roundtrip(cli_detect_roundtrip_csv csv 64 0 ${o}/cli_detect_roundtrip_csv/k.csv
  -- --format csv --descriptors -o ${o}/cli_detect_roundtrip_csv/k.csv)
satfeat_format_roundtrip(cli_detect_roundtrip_json json 128 0 ${o}/cli_detect_roundtrip_json/k.json
  -- --format=json --descriptors --descriptor surf128 -o ${o}/cli_detect_roundtrip_json/k.json)
satfeat_format_roundtrip(cli_detect_roundtrip_json_nodesc json 0 0 ${o}/cli_detect_roundtrip_json_nodesc/k.json
  -- --format json -o ${o}/cli_detect_roundtrip_json_nodesc/k.json)
set(ox ${o}/cli_detect_roundtrip_oxford)
satfeat_format_roundtrip(cli_detect_roundtrip_oxford oxford 0 0
  "${ox}/frame001.oxford|${ox}/frame002.oxford|${ox}/frame003.oxford|${ox}/frame004.oxford"
  -- --format oxford --out-dir ${ox})
set(ox ${o}/cli_detect_roundtrip_oxford_desc)
satfeat_format_roundtrip(cli_detect_roundtrip_oxford_desc oxford 64 100
  "${ox}/frame001.oxford|${ox}/frame002.oxford|${ox}/frame003.oxford|${ox}/frame004.oxford"
  -- --format oxford --out-dir ${ox} --descriptors --max-keypoints 100)

# The progress line: on a pseudo-terminal only (the same run with stderr on a pipe has none).
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_detect_progress_tty COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_LIST_DIR}/cli_progress_check.py $<TARGET_FILE:satfeat_cli> detect
           ${frames4} --backend cpu --max-keypoints 10)
  set_tests_properties(cli_detect_progress_tty PROPERTIES LABELS cli TIMEOUT 300)
endif()
# -q turns it off even on a terminal (the check then finds no line and fails, as it must)
if(Python3_Interpreter_FOUND)
  add_test(NAME cli_detect_progress_quiet COMMAND ${Python3_EXECUTABLE}
           ${CMAKE_CURRENT_LIST_DIR}/cli_progress_check.py $<TARGET_FILE:satfeat_cli> detect
           ${frames4} --backend cpu --max-keypoints 10 -q)
  set_tests_properties(cli_detect_progress_quiet PROPERTIES LABELS cli TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "no progress line on the terminal")
endif()

# Sequences: a list file (relative paths), a directory in natural order, bad frames
# (cli_frame_fixtures.cmake).
include(${CMAKE_CURRENT_LIST_DIR}/cli_frame_fixtures.cmake)
set(f ${frames_dir})

# satfeat_detect_files_test(NAME EXIT REGEX [VAR=value...] -- ARGS...): `satfeat detect ARGS...`
# with the file checks of track_cli_files.cmake (satfeat_cli_files_test, tests_cli.cmake).
function(satfeat_detect_files_test name exit_code regex)
  satfeat_cli_files_test(${name} ${exit_code} "${regex}" detect ${ARGN})
endfunction()
set(cpu --backend cpu --max-keypoints 5)
satfeat_detect_files_test(cli_detect_list 0
  "^# frame 1 640x480 5 keypoints: [^\n]*frame001\\.png\n.*# frame 2 640x480 5 keypoints: [^\n]*frame002\\.png\n.*# frame 3 640x480 5 keypoints: [^\n]*frame003\\.png\n"
  -- ${f}/dune5.txt ${cpu})
satfeat_detect_files_test(cli_detect_directory_natural 1
  "# frame 1 [^\n]*f1\\.png\n.*# frame 2 [^\n]*f2\\.png\n.*frame 3 \\([^)]*f10\\.pgm\\): size 8x8 differs from the first frame's 640x480.*1 of 3 frames could not be detected\n"
  -- ${f}/natural ${cpu})
# a bad frame stops the run (frames before it are written), -o keeps the existing file
satfeat_detect_files_test(cli_detect_bad_frame 1 "frame 2 \\([^)]*bad\\.png\\): cannot read.*1 of 3 frames could not be detected\n"
  SEED_FILE=${ddir}/keep.txt SEED_TEXT=precious CHECK_FILE=${ddir}/keep.txt "CHECK_REGEX=^precious$"
  "NONE_GLOB=${ddir}/keep.txt.tmp*"
  -- ${dune}/frame001.png ${f}/bad.png ${dune}/frame002.png ${cpu} -o ${ddir}/keep.txt)
satfeat_detect_files_test(cli_detect_bad_frame_stdout 1 "^# frame 1 [^\n]*\n# x[^\n]*\n([0-9][^\n]*\n)+satfeat: frame 2 \\([^)]*bad\\.png\\): cannot read"
  -- ${dune}/frame001.png ${f}/bad.png ${dune}/frame002.png ${cpu})
# --keep-going: frame 3 is still written (to the file), the exit status is 1 at the end
satfeat_detect_files_test(cli_detect_bad_frame_keep_going 1
  "frame 2 \\([^)]*bad\\.png\\): cannot read.*1 of 3 frames could not be detected \\(skipped\\)"
  CHECK_FILE=${ddir}/kept.csv "CHECK_REGEX=^frame,image,x,y,[^\n]*\n1,[^\n]*frame001\\.png,.*\n3,[^\n]*frame002\\.png,"
  "NONE_GLOB=${ddir}/kept.csv.tmp*"
  -- ${dune}/frame001.png ${f}/bad.png ${dune}/frame002.png ${cpu} --keep-going --format csv -o ${ddir}/kept.csv)
# --out-dir: one file per frame, named after it; -v says a line per frame
satfeat_detect_files_test(cli_detect_out_dir 0
  "frame 1 \\([^)]*frame001\\.png\\): 5 keypoints\n.*frame 5 \\([^)]*frame005\\.png\\): 5 keypoints\n"
  CLEAN=${ddir}/outdir "COUNT_GLOB=${ddir}/outdir/frame00*.json" EXPECT_COUNT=5
  CHECK_FILE=${ddir}/outdir/frame002.json "CHECK_REGEX=^\\{\"frame\":2,\"image\":\"[^\"]*frame002\\.png\",\"width\":640,\"height\":480,.*\"count\":5,"
  -- ${f}/dune5.txt ${cpu} --out-dir ${ddir}/outdir --format json -v)
# usage errors (exit 2)
satfeat_detect_files_test(cli_detect_oxford_sequence 2 "--format oxford holds one frame per file: use --out-dir"
  -- ${f}/dune5.txt --format oxford)
satfeat_detect_files_test(cli_detect_bad_format 2 "--format must be text, csv, json or oxford, got 'xml'"
  -- ${scene} --format xml)
satfeat_detect_files_test(cli_detect_devices_twice 2 "--devices names device 0 twice"
  -- ${scene} --devices 0,0)
satfeat_detect_files_test(cli_detect_devices_bad 2 "--devices entry must be an integer in \\[0, 1023\\], got 'x'"
  -- ${scene} --devices 1,x)
satfeat_detect_files_test(cli_detect_devices_empty 2 "--devices must be 'all' or a list like 0,1"
  -- ${scene} --devices 0,)
satfeat_detect_files_test(cli_detect_output_and_dir 2 "-o and --out-dir exclude each other"
  -- ${scene} -o ${ddir}/x.txt --out-dir ${ddir}/x)
satfeat_detect_files_test(cli_detect_same_names 2 "two frames would both write [^\n]*/frame001\\.txt"
  -- ${dune}/frame001.png ${f}/copy/frame001.png --out-dir ${ddir}/same)
satfeat_detect_files_test(cli_detect_missing_list 1 "frame list: .*no-such-list.txt: cannot open for reading" -- ${ddir}/no-such-list.txt)
satfeat_detect_files_test(cli_detect_repeat_sequence 2 "--repeat times one image, not a sequence"
  -- ${f}/dune5.txt --repeat 3)
satfeat_detect_files_test(cli_detect_repeat 0 "^# frame 1 .*satfeat: 5 keypoints in 640x480, median [0-9.]+ ms of 2 detections"
  -- ${scene} ${cpu} --repeat 2)

# The sequence on the GPU: the CUDA backend writes the CPU backend's bytes (skipped without one).
string(JOIN "|" frames_arg ${frames4})
add_test(NAME cli_detect_cuda_equals_cpu COMMAND ${CMAKE_COMMAND} -DSATFEAT=$<TARGET_FILE:satfeat_cli>
         -DDIR=${ddir}/backends "-DFRAMES=${frames_arg}" -P ${CMAKE_CURRENT_LIST_DIR}/cli_backends_equal.cmake)
set_tests_properties(cli_detect_cuda_equals_cpu PROPERTIES LABELS "cli;gpu" TIMEOUT 300
                     SKIP_REGULAR_EXPRESSION "no CUDA device")
# --devices all: the frames spread over every GPU through satfeat_pool write the CPU's bytes.
add_test(NAME cli_detect_devices_equals_cpu COMMAND ${CMAKE_COMMAND} -DSATFEAT=$<TARGET_FILE:satfeat_cli>
         -DDIR=${ddir}/devices "-DFRAMES=${frames_arg}" "-DCUDA_ARGS=--devices|all"
         -P ${CMAKE_CURRENT_LIST_DIR}/cli_backends_equal.cmake)
set_tests_properties(cli_detect_devices_equals_cpu PROPERTIES LABELS "cli;gpu" TIMEOUT 300
                     SKIP_REGULAR_EXPRESSION "no CUDA device")
