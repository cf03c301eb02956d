# man_page_check.cmake - regenerates satfeat(1) from the built tool into OUT and fails unless it
# equals the COMMITTED page. Run as
#   cmake -DSATFEAT=satfeat -DOUT=file -DCOMMITTED=docs/satfeat.1 -P man_page_check.cmake
get_filename_component(root "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
execute_process(COMMAND ${CMAKE_COMMAND} -DSATFEAT=${SATFEAT} -DOUT=${OUT}
                -P ${root}/cmake/satfeat_man.cmake RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake/satfeat_man.cmake failed")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${OUT}" "${COMMITTED}" RESULT_VARIABLE differ)
if(differ)
  execute_process(COMMAND diff -u "${COMMITTED}" "${OUT}")
  message(FATAL_ERROR "docs/satfeat.1 disagrees with satfeat's --help texts; regenerate it:\n"
          "  cmake -DSATFEAT=build/cli/satfeat -DOUT=docs/satfeat.1 -P cmake/satfeat_man.cmake")
endif()
message("docs/satfeat.1 matches every --help text")
