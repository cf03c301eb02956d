# cli_backends_equal.cmake - `satfeat detect` over a sequence on the CUDA backend (several frames
# in flight through the sequence entry point, buffers regrown on the way) writes exactly the bytes
# the CPU backend writes. Prints "no CUDA device" (ctest then reports it skipped) when the CUDA
# context cannot be created. Run as
#   cmake -DSATFEAT=satfeat -DDIR=workdir -DFRAMES=a|b|... -P cli_backends_equal.cmake
string(REPLACE "|" ";" frames "${FRAMES}")
file(MAKE_DIRECTORY "${DIR}")
set(args detect ${frames} --format csv --descriptors -q)
execute_process(COMMAND ${SATFEAT} ${args} --backend cuda -o ${DIR}/cuda.csv
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  if(err MATCHES "cannot create a CUDA context")
    message("no CUDA device: ${err}")
    return()
  endif()
  message(FATAL_ERROR "--backend cuda exited with ${rc}: ${err}")
endif()
execute_process(COMMAND ${SATFEAT} ${args} --backend cpu -o ${DIR}/cpu.csv RESULT_VARIABLE rc)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/cuda.csv ${DIR}/cpu.csv
                RESULT_VARIABLE differ)
if(NOT rc EQUAL 0 OR differ)
  message(FATAL_ERROR "the CUDA and CPU outputs differ (${DIR}/cuda.csv, ${DIR}/cpu.csv)")
endif()
message("CUDA and CPU backends wrote identical CSV for ${FRAMES}")
