# cli_backends_equal.cmake - `satfeat detect` over a sequence on the CUDA backend (several frames
# in flight through the sequence entry point, buffers regrown on the way) writes exactly the bytes
# the CPU backend writes. Prints "no CUDA device" (ctest then reports it skipped) when the CUDA
# context cannot be created. Run as
#   cmake -DSATFEAT=satfeat -DDIR=workdir -DFRAMES=a|b|... [-DCUDA_ARGS=--devices|all]
#         -P cli_backends_equal.cmake
# CUDA_ARGS replaces "--backend cuda" for the GPU run (for example the device pool).
string(REPLACE "|" ";" frames "${FRAMES}")
if(DEFINED CUDA_ARGS)
  string(REPLACE "|" ";" cuda_args "${CUDA_ARGS}")
else()
  set(cuda_args --backend cuda)
endif()
file(MAKE_DIRECTORY "${DIR}")
set(args detect ${frames} --format csv --descriptors -q)
execute_process(COMMAND ${SATFEAT} ${args} ${cuda_args} -o ${DIR}/cuda.csv
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  if(err MATCHES "cannot create a CUDA context|no CUDA backend|no usable CUDA device|no CUDA device")
    message("no CUDA device: ${err}")
    return()
  endif()
  message(FATAL_ERROR "${cuda_args} exited with ${rc}: ${err}")
endif()
execute_process(COMMAND ${SATFEAT} ${args} --backend cpu -o ${DIR}/cpu.csv RESULT_VARIABLE rc)
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${DIR}/cuda.csv ${DIR}/cpu.csv
                RESULT_VARIABLE differ)
if(NOT rc EQUAL 0 OR differ)
  message(FATAL_ERROR "the CUDA and CPU outputs differ (${DIR}/cuda.csv, ${DIR}/cpu.csv)")
endif()
message("CUDA (${cuda_args}) and CPU backends wrote identical CSV for ${FRAMES}")
