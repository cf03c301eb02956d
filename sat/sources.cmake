# SAT core: CPU path, dispatch, box helpers; CUDA kernels when enabled.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/sat_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/sat_dispatch.c
  ${CMAKE_CURRENT_LIST_DIR}/box.c)
