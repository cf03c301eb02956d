# cli_video_compare.cmake - ctest helper: `satfeat COMMAND` on a video must print exactly what it
# prints on the same frames given as PNG files. Run as
#   cmake -DVIDEO_CMD=prog|arg|... -DIMAGE_CMD=prog|arg|... [-DMAP=n1|n2|...] -DNEED=regex
#         -P cli_video_compare.cmake
# Frame names (the video's path, the PNG paths) are removed from the '# frame K ...: NAME' lines.
# MAP renumbers the image run's frames: its frame i (1-based) becomes MAP's i-th number, the
# video's own frame number (for --start / --step runs). NEED must match the video run's output
# (so that an empty output cannot pass).
foreach(which VIDEO IMAGE)
  string(REPLACE "|" ";" cmd "${${which}_CMD}")
  execute_process(COMMAND ${cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${which} run failed (exit ${rc}): ${err}")
  endif()
  string(REGEX REPLACE "(# frame [0-9]+ [0-9]+x[0-9]+ [0-9]+ keypoints): [^\n]*" "\\1" out "${out}")
  set(${which}_OUT "${out}")
endforeach()
if(DEFINED MAP)
  string(REPLACE "|" ";" map "${MAP}")
  list(LENGTH map n)
  set(out "${IMAGE_OUT}")
  foreach(i RANGE 1 ${n})
    # '# frame i ', '# motion frame i ', and track lines 'i id ...'
    string(REPLACE "# frame ${i} " "# frame @${i}@ " out "${out}")
    string(REPLACE "# motion frame ${i} " "# motion frame @${i}@ " out "${out}")
    string(REPLACE "\n${i} " "\n@${i}@ " out "${out}")
  endforeach()
  foreach(i RANGE 1 ${n})
    math(EXPR j "${i} - 1")
    list(GET map ${j} to)
    string(REPLACE "@${i}@" "${to}" out "${out}")
  endforeach()
  set(IMAGE_OUT "${out}")
endif()
if(NOT VIDEO_OUT MATCHES "${NEED}")
  message(FATAL_ERROR "the video run's output does not match ${NEED}:\n${VIDEO_OUT}")
endif()
if(NOT VIDEO_OUT STREQUAL IMAGE_OUT)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/video_out.txt "${VIDEO_OUT}")
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/image_out.txt "${IMAGE_OUT}")
  message(FATAL_ERROR "the video and the PNG frames give different outputs (see "
                      "${CMAKE_CURRENT_BINARY_DIR}/video_out.txt and image_out.txt)")
endif()
string(LENGTH "${VIDEO_OUT}" len)
message("identical outputs, ${len} bytes")
