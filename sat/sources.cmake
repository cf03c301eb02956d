# SAT core: CPU path, dispatch, box helpers; CUDA kernels when enabled.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sat_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/sat_dispatch.c
  ${CMAKE_CURRENT_LIST_DIR}/box.c)
# CUDA SAT: the kernels, and the host code that picks and launches them.
list(APPEND SATFEAT_CUDA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sat_2r1w.cu
  ${CMAKE_CURRENT_LIST_DIR}/sat_skss_lb.cu)
list(APPEND SATFEAT_CUDA_HOST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sat_cuda_host.c)
