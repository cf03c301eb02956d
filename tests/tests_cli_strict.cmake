# The command line's strictness (issue 16, items 6, 8 and 9): write errors on stdout are failures,
# --threads is capped at a multiple of the cores, number options parse strictly, usage errors
# exit 2. Each test failed before the fix.
if(NOT TARGET satfeat_cli)
  return()
endif()
set(scene ${SATFEAT_TEST_DATA_DIR}/scene.png)

# satfeat_cli_full_test(NAME ARGS...): `satfeat ARGS...` with stdout on /dev/full must exit 1
# and say why on stderr. The /dev/full is a private node (tests/private_dev.sh: a mount
# namespace of its own; skipped where none can be made), never the machine's.
function(satfeat_cli_full_test name)
  string(JOIN "|" cmd "$<TARGET_FILE:satfeat_cli>" ${ARGN})
  add_test(NAME ${name} COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/private_dev.sh
           ${CMAKE_COMMAND} "-DCMD=${cmd}" -DEXPECT_EXIT=1
           "-DEXPECT_REGEX=cannot write to standard output"
           -DSTDOUT_FILE=/dev/full -P ${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cli TIMEOUT 120 SKIP_RETURN_CODE 77)
endfunction()
satfeat_cli_full_test(cli_full_help --help)
satfeat_cli_full_test(cli_full_version --version)
satfeat_cli_full_test(cli_full_sat sat ${scene} --backend cpu --repeat 1)
satfeat_cli_full_test(cli_full_sat_help sat --help)
satfeat_cli_full_test(cli_full_eval eval ${scene} ${scene} ${SATFEAT_TEST_DATA_DIR}/dune/H1to001p
                      --backend cpu --max-keypoints 20)
satfeat_cli_full_test(cli_full_detect detect ${scene} --backend cpu --max-keypoints 5)

# --threads: at most 4 per online core; 100000 is far above that on any machine this runs on
satfeat_cli_test(cli_threads_cap 2 "--threads must be an integer in \\[0, [0-9]+\\] \\(at most 4 per core, [0-9]+ cores online\\), got '100000'"
                 sat ${scene} --threads 100000)
satfeat_cli_test(cli_threads_cap_detect 2 "--threads must be an integer in \\[0, [0-9]+\\] \\(at most 4 per core"
                 detect ${scene} --threads 4096)
satfeat_cli_test(cli_threads_help 0 "--threads N .*at most 4 per online core" sat --help)

# strict numbers: blanks, '+', hex, octal-looking junk, inf/nan and trailing junk are usage errors
satfeat_cli_test(cli_number_leading_space 2 "--octaves must be an integer in \\[1, 6\\], got ' 3'"
                 detect ${scene} --octaves " 3")
satfeat_cli_test(cli_number_plus 2 "--octaves must be an integer in \\[1, 6\\], got '\\+3'"
                 detect ${scene} --octaves +3)
satfeat_cli_test(cli_number_hex 2 "--max-keypoints must be an integer in \\[0, [0-9]+\\], got '0x10'"
                 detect ${scene} --max-keypoints 0x10)
satfeat_cli_test(cli_number_trailing 2 "--repeat must be an integer in \\[1, [0-9]+\\], got '3abc'"
                 sat ${scene} --repeat 3abc)
satfeat_cli_test(cli_number_hex_float 2 "--threshold must be a number in \\[0, 1e\\+06\\], got '0x1p-3'"
                 detect ${scene} --threshold 0x1p-3)
satfeat_cli_test(cli_number_nan 2 "--threshold must be a number.*got 'nan'" detect ${scene} --threshold nan)
satfeat_cli_test(cli_number_exponent 0 "^# frame 1 " detect ${scene} --threshold 4e-4 --max-keypoints 1 --backend cpu)
satfeat_cli_test(cli_number_threads_plus 2 "--threads must be an integer.*got '\\+2'" sat ${scene} --threads +2)

# --grid without --per-cell is a usage error (it was reported by the detector, exit 1)
satfeat_cli_test(cli_grid_without_per_cell 2 "--grid 4 needs --per-cell K" detect ${scene} --grid 4)
