# The manual page docs/satfeat.1 (installed by cmake --install) must be what
# cmake/satfeat_man.cmake makes of the current --help texts: a help text changed without
# regenerating the page fails here, with the command that regenerates it.
if(NOT TARGET satfeat_cli)
  return()
endif()
add_test(NAME cli_man_page_current COMMAND ${CMAKE_COMMAND}
         -DSATFEAT=$<TARGET_FILE:satfeat_cli> -DOUT=${CMAKE_CURRENT_BINARY_DIR}/satfeat.1
         -DCOMMITTED=${PROJECT_SOURCE_DIR}/docs/satfeat.1
         -P ${CMAKE_CURRENT_LIST_DIR}/man_page_check.cmake)
set_tests_properties(cli_man_page_current PROPERTIES LABELS cli TIMEOUT 120)
