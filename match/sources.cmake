# Descriptor matching: public calls and the CPU matcher; the CUDA kernels and their host side.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/match.c
  ${CMAKE_CURRENT_LIST_DIR}/match_cpu.c)
list(APPEND SATFEAT_CUDA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/match_kernels.cu)
list(APPEND SATFEAT_CUDA_HOST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/match_cuda_host.c)
