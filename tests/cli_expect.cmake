# cli_expect.cmake - ctest helper: runs one command, then checks its exit code and that its
# stdout + stderr match a regular expression. Run as
#   cmake -DCMD=prog|arg|... -DEXPECT_EXIT=N -DEXPECT_REGEX=re -P cli_expect.cmake
# ('|' separates the arguments, so neither the arguments nor the regex may contain it).
# With -DSTDOUT_FILE=path stdout goes to that file (e.g. /dev/full) and only stderr is matched.
# With -DREQUIRE=path (data outside the repository) a missing path prints "shared data not found"
# and runs nothing: the test's SKIP_REGULAR_EXPRESSION makes ctest list it as skipped.
if(DEFINED REQUIRE AND NOT EXISTS "${REQUIRE}")
  message("shared data not found: ${REQUIRE} (skipped)")
  return()
endif()
string(REPLACE "|" ";" cmd "${CMD}")
if(DEFINED STDOUT_FILE)
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_FILE "${STDOUT_FILE}" ERROR_VARIABLE err)
  set(out "")
else()
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
endif()
message("${out}${err}")
if(NOT "${rc}" STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "exit status '${rc}', expected ${EXPECT_EXIT}")
endif()
if(NOT "${out}${err}" MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match: ${EXPECT_REGEX}")
endif()
