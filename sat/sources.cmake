# SAT: the CPU path, dispatch, box helpers; the CUDA kernels and the host code that picks and
# launches them.
satfeat_add_module(sat MAY_INCLUDE src
  C ${CMAKE_CURRENT_LIST_DIR}/sat_cpu.c
    ${CMAKE_CURRENT_LIST_DIR}/sat_dispatch.c
    ${CMAKE_CURRENT_LIST_DIR}/box.c
  CUDA ${CMAKE_CURRENT_LIST_DIR}/sat_2r1w.cu
       ${CMAKE_CURRENT_LIST_DIR}/sat_skss_lb.cu
  CUDA_HOST ${CMAKE_CURRENT_LIST_DIR}/sat_cuda_host.c)
