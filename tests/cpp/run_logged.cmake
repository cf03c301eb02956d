# run_logged.cmake - ctest helper: runs one program with its stdout and stderr in a log file of
# its own, then checks that it exited with 0 and that the log matches a regular expression. The
# test's own output is one line naming the log, or the whole log when a check failed.
#   cmake -DCMD=prog|arg|... -DLOG=file -DREGEX=re -P run_logged.cmake
# ('|' separates the arguments, so neither they nor the regex may contain it).
string(REPLACE "|" ";" cmd "${CMD}")
execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_FILE "${LOG}" ERROR_FILE "${LOG}")
file(READ "${LOG}" text)
if(NOT "${rc}" STREQUAL "0")
  message("${text}")
  message(FATAL_ERROR "exit status '${rc}' (log: ${LOG})")
endif()
if(NOT text MATCHES "${REGEX}")
  message("${text}")
  message(FATAL_ERROR "no line of the log matches '${REGEX}' (log: ${LOG})")
endif()
message("ok, output in ${LOG}")
