# Descriptor matching: public calls and the CPU matcher; the CUDA kernels and their host side.
satfeat_add_module(match MAY_INCLUDE src
  C ${CMAKE_CURRENT_LIST_DIR}/match.c
    ${CMAKE_CURRENT_LIST_DIR}/match_cpu.c
    ${CMAKE_CURRENT_LIST_DIR}/match_cpu_grid.c
  CUDA ${CMAKE_CURRENT_LIST_DIR}/match_kernels.cu
  CUDA_HOST ${CMAKE_CURRENT_LIST_DIR}/match_cuda_host.c)
