# The satfeat command-line tool, run as a user would: exit status and output of each command.
if(NOT TARGET satfeat_cli)
  return()
endif()

# satfeat_cli_test(NAME EXIT REGEX ARGS...): runs `satfeat ARGS...`, expects exit status EXIT and
# output (stdout + stderr) matching REGEX.
function(satfeat_cli_test name exit_code regex)
  string(JOIN "|" cmd "$<TARGET_FILE:satfeat_cli>" ${ARGN})
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT_EXIT=${exit_code}"
           "-DEXPECT_REGEX=${regex}" -P ${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cli TIMEOUT 120)
endfunction()

# satfeat_cli_files_test(NAME EXIT REGEX COMMAND [VAR=value...] -- ARGS...): `satfeat COMMAND
# ARGS...` with the checks of track_cli_files.cmake on the files it leaves (VAR=value: CLEAN,
# SEED_FILE, COUNT_GLOB, NONE_GLOB, CHECK_FILE... as that script describes).
function(satfeat_cli_files_test name exit_code regex command)
  list(FIND ARGN "--" sep)
  list(SUBLIST ARGN 0 ${sep} defs)
  math(EXPR first "${sep} + 1")
  list(SUBLIST ARGN ${first} -1 args)
  string(JOIN "|" cmd "$<TARGET_FILE:satfeat_cli>" ${command} ${args})
  set(d "")
  foreach(v ${defs})
    list(APPEND d "-D${v}")
  endforeach()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT_EXIT=${exit_code}"
           "-DEXPECT_REGEX=${regex}" ${d} -P ${CMAKE_CURRENT_LIST_DIR}/track_cli_files.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cli TIMEOUT 300)
endfunction()

set(scene ${SATFEAT_TEST_DATA_DIR}/scene.png)
# Pinned checksums of data/scene.png: see tests_io.cmake.
set(u32_result "641x481 entries.*checksum +fnv1a64:${SATFEAT_SCENE_U32_FNV}\nbottom-right ${SATFEAT_SCENE_PIXEL_SUM}\n")
set(f32_result "641x481 entries.*checksum +fnv1a64:${SATFEAT_SCENE_F32_FNV}\nbottom-right 41058232\n")

satfeat_cli_test(cli_version 0 "^satfeat ${PROJECT_VERSION_MAJOR}\\.${PROJECT_VERSION_MINOR}\\.${PROJECT_VERSION_PATCH} \\(CUDA backend: " --version)
satfeat_cli_test(cli_help 0 "sat +compute an image's summed area table" --help)
satfeat_cli_test(cli_no_arguments 2 "usage: satfeat")
satfeat_cli_test(cli_unknown_command 2 "unknown command 'bogus'" bogus)

satfeat_cli_test(cli_sat_help 0 "usage: satfeat sat IMAGE.*64-bit FNV-1a" sat --help)
satfeat_cli_test(cli_sat_scene 0 "image +.*scene.png \\(640x480\\).*${u32_result}time .* ms median of 3 calls"
                 sat ${scene} --backend cpu --repeat 3)
satfeat_cli_test(cli_sat_scene_default 0 "${u32_result}" sat ${scene})
satfeat_cli_test(cli_sat_scene_1_thread 0 "cpu \\(1 thread\\).*algorithm +cpu\n.*${u32_result}"
                 sat ${scene} --backend=cpu --algo=cpu --threads=1 --repeat=1)
satfeat_cli_test(cli_sat_scene_3_threads 0 "cpu \\(3 threads\\).*${u32_result}"
                 sat --threads 3 --backend cpu ${scene})
satfeat_cli_test(cli_sat_scene_f32 0 "type +f32 -> f32\n.*${f32_result}"
                 sat ${scene} --backend cpu --type f32 --repeat 2)

satfeat_cli_test(cli_sat_missing_file 1 "cannot load image: input/output error: .*no-such-image\\.png: cannot open"
                 sat ${CMAKE_CURRENT_BINARY_DIR}/no-such-image.png)
satfeat_cli_test(cli_sat_not_an_image 1 "cannot load image: .*README\\.md: not a PNG, JPEG, PGM or PPM file"
                 sat ${SATFEAT_TEST_DATA_DIR}/README.md)
satfeat_cli_test(cli_sat_gpu_algo_on_cpu 1 "the GPU algorithms need a CUDA context"
                 sat ${scene} --backend cpu --algo skss)
satfeat_cli_test(cli_sat_bad_flag 2 "unknown option '--bogus'" sat ${scene} --bogus)
satfeat_cli_test(cli_sat_bad_algo 2 "algo must be auto, cpu, 2r1w or skss" sat ${scene} --algo fast)
satfeat_cli_test(cli_sat_bad_backend 2 "backend must be auto, cpu or cuda" sat ${scene} --backend gpu)
satfeat_cli_test(cli_sat_bad_type 2 "type must be u8 or f32" sat ${scene} --type u16)
satfeat_cli_test(cli_sat_bad_repeat 2 "--repeat must be an integer in \\[1, " sat ${scene} --repeat 0)
satfeat_cli_test(cli_sat_bad_threads 2 "--threads must be an integer" sat ${scene} --threads x)
satfeat_cli_test(cli_sat_missing_value 2 "--threads needs a value" sat ${scene} --threads)
satfeat_cli_test(cli_sat_no_image 2 "no image given" sat --repeat 2)
satfeat_cli_test(cli_sat_two_images 2 "more than one image" sat ${scene} ${scene})

# The generator reproduces the committed scene pixel for pixel (same table checksum).
if(TARGET satfeat_gen_scene)
  set(regen ${CMAKE_CURRENT_BINARY_DIR}/scene_regenerated.png)
  add_test(NAME gen_scene_regenerate COMMAND satfeat_gen_scene ${regen})
  set_tests_properties(gen_scene_regenerate PROPERTIES FIXTURES_SETUP scene_regenerated LABELS cli)
  satfeat_cli_test(cli_sat_regenerated_scene 0 "${u32_result}" sat ${regen} --backend cpu)
  set_tests_properties(cli_sat_regenerated_scene PROPERTIES FIXTURES_REQUIRED scene_regenerated)
endif()
