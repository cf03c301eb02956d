# cli_formats_roundtrip.cmake - ctest helper: `satfeat detect` writes a format, the library's own
# lists are dumped exactly (cli_reference_keypoints), and cli_formats_check.py reads the format
# back and compares. Run as
#   cmake -DCLEAN=dir -DCMD=satfeat|detect|... -DREF=cli_reference_keypoints|DIM|MAX|FRAME...
#         -DPY=python3 -DCHECK=cli_formats_check.py -DFORMAT=f -DFILES=a|b... -DREF_OUT=file -P ...
# ('|' separates arguments).
file(REMOVE_RECURSE "${CLEAN}")
file(MAKE_DIRECTORY "${CLEAN}")
foreach(v CMD REF FILES)
  string(REPLACE "|" ";" ${v} "${${v}}")
endforeach()
execute_process(COMMAND ${CMD} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "satfeat exited with ${rc}: ${err}")
endif()
execute_process(COMMAND ${REF} RESULT_VARIABLE rc OUTPUT_FILE "${REF_OUT}" ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cli_reference_keypoints exited with ${rc}: ${err}")
endif()
execute_process(COMMAND "${PY}" "${CHECK}" "${FORMAT}" "${REF_OUT}" ${FILES}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the ${FORMAT} output does not read back to the library's keypoints")
endif()
