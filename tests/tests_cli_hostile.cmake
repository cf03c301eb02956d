# Hostile inputs and outputs at the CLI (docs/TESTING.md, "Hostile CLI cases"): one ctest per
# case of cli_hostile.sh. Device nodes only ever exist in a private mount namespace
# (private_dev.sh); a case that cannot make one is skipped (exit 77), never run on the real /dev.
if(NOT TARGET satfeat_cli)
  return()
endif()
find_program(SATFEAT_BASH bash)
if(NOT SATFEAT_BASH)
  message(STATUS "bash not found: the cli_hostile_* tests are not registered")
  return()
endif()
set(SATFEAT_HOSTILE_CASES
    out_device_full out_device_null out_dev_stdout out_fifo out_symlink out_mode_kept
    out_mode_new out_checks_first out_sigterm fifo_list_file fifo_list_entry fifo_dir_member
    fifo_homography h_singular h_zero h_behind name_newline name_json_utf8 list_quoted
    memory_limit ar_outputs)
foreach(c IN LISTS SATFEAT_HOSTILE_CASES)
  add_test(NAME cli_hostile_${c}
           COMMAND ${SATFEAT_BASH} ${CMAKE_CURRENT_LIST_DIR}/cli_hostile.sh ${c}
                   $<TARGET_FILE:satfeat_cli> ${SATFEAT_TEST_DATA_DIR}
                   ${CMAKE_CURRENT_BINARY_DIR}/hostile)
  set_tests_properties(cli_hostile_${c} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 240 LABELS cli)
endforeach()

# The library's failed write to a device (test_io_hardening) runs inside a private /dev only.
if(TARGET test_io_hardening)
  add_test(NAME test_io_hardening_private_dev
           COMMAND sh ${CMAKE_CURRENT_LIST_DIR}/private_dev.sh $<TARGET_FILE:test_io_hardening>)
  set_tests_properties(test_io_hardening_private_dev PROPERTIES SKIP_RETURN_CODE 77)
endif()
