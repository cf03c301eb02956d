# README.md's command lines run as written (tests/readme_commands.sh): one ctest per line of the
# blocks marked <!-- readme-commands -->, against the bundled data in a scratch directory with
# the built satfeat first on PATH. Editing README.md re-runs the configure step.
if(NOT TARGET satfeat_cli)
  return()
endif()
set(readme ${PROJECT_SOURCE_DIR}/README.md)
set(readme_script ${CMAKE_CURRENT_LIST_DIR}/readme_commands.sh)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${readme} ${readme_script})
execute_process(COMMAND sh ${readme_script} count ${readme} OUTPUT_VARIABLE readme_n
                OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE readme_rc)
if(NOT readme_rc EQUAL 0 OR NOT readme_n GREATER 0)
  message(FATAL_ERROR "README.md: no command lines found after <!-- readme-commands -->")
endif()
foreach(k RANGE 1 ${readme_n})
  add_test(NAME readme_command_${k} COMMAND sh ${readme_script} run ${readme} ${k}
           $<TARGET_FILE_DIR:satfeat_cli> ${SATFEAT_TEST_DATA_DIR} ${SATFEAT_SHARED_DATA_DIR}
           ${CMAKE_CURRENT_BINARY_DIR}/readme/${k})
  set_tests_properties(readme_command_${k} PROPERTIES LABELS "cli;readme" TIMEOUT 300
                       SKIP_RETURN_CODE 77)
endforeach()
