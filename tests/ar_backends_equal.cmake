# ar_backends_equal.cmake - an AR session on the CUDA backend gives the CPU backend's poses bit
# for bit: satfeat_ar_eval's digest (FNV-1a 64 of every pose line, doubles in full) on the
# shipped sample with three targets, two of them never in view (so the frames run the joint
# match of the lost targets, the guided passes of the tracked one and the robust homographies
# on the host and on the device). Prints "no CUDA device" (ctest then reports it skipped) when
# no CUDA context can be made. Run as
#   cmake -DAR_EVAL=satfeat_ar_eval -DSAMPLE=data/ar_sample -DPHOTOS=data/photos
#         -P ar_backends_equal.cmake
foreach(backend cuda cpu)
  execute_process(COMMAND ${AR_EVAL} --dir ${SAMPLE} --photo ${PHOTOS}/Astronaut.jpg
                          --photos ${PHOTOS} --target-width 0.2 --targets 3 --backend ${backend}
                          --threads 2
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    if(backend STREQUAL cuda AND err MATCHES "no cuda context")
      message("no CUDA device: ${err}")
      return()
    endif()
    message(FATAL_ERROR "satfeat_ar_eval --backend ${backend} exited with ${rc}: ${err}")
  endif()
  if(NOT out MATCHES "found=([0-9]+) .*digest=([0-9a-f]+)")
    message(FATAL_ERROR "no result line from --backend ${backend}: ${out}")
  endif()
  if(CMAKE_MATCH_1 EQUAL 0)
    message(FATAL_ERROR "--backend ${backend} found the target in no frame: ${out}")
  endif()
  set(digest_${backend} ${CMAKE_MATCH_2})
endforeach()
if(NOT digest_cuda STREQUAL digest_cpu)
  message(FATAL_ERROR "CUDA poses ${digest_cuda} differ from the CPU's ${digest_cpu}")
endif()
message("same poses on both backends: digest ${digest_cpu}")
