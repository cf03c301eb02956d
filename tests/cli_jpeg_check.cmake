# cli_jpeg_check.cmake - ctest helper: `satfeat detect` on a JPEG gives exactly the keypoints of
# the pixels libjpeg decodes from it, given as a PGM (both made by satfeat_test_jpeg_fixture from
# SRC); a directory holding .JPG, .jpeg, .pgm and other files gives the three images in natural
# order and skips the rest. Run as
#   cmake -DSATFEAT=satfeat -DFIXTURE=fixture -DSRC=image -DDIR=work_dir -P cli_jpeg_check.cmake
file(REMOVE_RECURSE ${DIR})
file(MAKE_DIRECTORY ${DIR}/frames)
execute_process(COMMAND ${FIXTURE} ${SRC} ${DIR}/x.jpg ${DIR}/x.pgm RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the fixture program failed (${rc})")
endif()

# Runs `satfeat detect ARGS...` into OUT, failing on a non-zero exit.
function(detect out)
  execute_process(COMMAND ${SATFEAT} detect ${ARGN} --backend cpu -o ${out}
                  RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "satfeat detect ${ARGN} failed (${rc}): ${err}")
  endif()
endfunction()

detect(${DIR}/jpg.txt ${DIR}/x.jpg)
detect(${DIR}/pgm.txt ${DIR}/x.pgm)
file(READ ${DIR}/jpg.txt jpg)
file(READ ${DIR}/pgm.txt pgm)
# the frame header names the file: the rest must be byte-identical
string(REPLACE "${DIR}/x.jpg" "IMAGE" jpg "${jpg}")
string(REPLACE "${DIR}/x.pgm" "IMAGE" pgm "${pgm}")
if(NOT jpg STREQUAL pgm)
  message(FATAL_ERROR "keypoints of the JPEG and of its decoded PGM differ:\n${jpg}\n---\n${pgm}")
endif()
if(NOT jpg MATCHES "# frame 1 [0-9]+x[0-9]+ ([1-9][0-9]*) keypoints")
  message(FATAL_ERROR "no keypoints in:\n${jpg}")
endif()
set(n ${CMAKE_MATCH_1})

# A directory: f1.JPG, f2.jpeg and f10.pgm are frames 1, 2, 3 (natural order, any case);
# notes.txt and clip.gif are skipped by name.
file(COPY_FILE ${DIR}/x.jpg ${DIR}/frames/f1.JPG)
file(COPY_FILE ${DIR}/x.jpg ${DIR}/frames/f2.jpeg)
file(COPY_FILE ${DIR}/x.pgm ${DIR}/frames/f10.pgm)
file(WRITE ${DIR}/frames/notes.txt "not a frame\n")
file(WRITE ${DIR}/frames/clip.gif "GIF89a")
detect(${DIR}/dir.txt ${DIR}/frames)
file(READ ${DIR}/dir.txt out)
foreach(k 1 2 3)
  if(NOT out MATCHES "# frame ${k} [0-9]+x[0-9]+ ${n} keypoints")
    message(FATAL_ERROR "frame ${k} of the directory is missing or differs:\n${out}")
  endif()
endforeach()
if(out MATCHES "# frame 4" OR NOT out MATCHES "f1\\.JPG.*f2\\.jpeg.*f10\\.pgm")
  message(FATAL_ERROR "the directory's frames are not f1.JPG, f2.jpeg, f10.pgm in order:\n${out}")
endif()
message("satfeat detect: ${n} keypoints from the JPEG and from its decoded PGM, equal")
