# Core: context, status strings, memory budget, the library's file opening and replacing, the
# CUDA state of a context; headers every module may include (hd.h, clock.h, cuda_state.h,
# land_dst.h, pdl.cuh).
set(satfeat_core_cuda_state cuda_state_none.c)
if(SATFEAT_HAVE_CUDA)
  set(satfeat_core_cuda_state cuda_state.c)
endif()
list(TRANSFORM satfeat_core_cuda_state PREPEND ${CMAKE_CURRENT_LIST_DIR}/)
satfeat_add_module(src
  C ${CMAKE_CURRENT_LIST_DIR}/status.c
    ${CMAKE_CURRENT_LIST_DIR}/thread_team.c
    ${CMAKE_CURRENT_LIST_DIR}/clock.c
    ${CMAKE_CURRENT_LIST_DIR}/context.c
    ${CMAKE_CURRENT_LIST_DIR}/memory_budget.c
    ${CMAKE_CURRENT_LIST_DIR}/errno_text.c
    ${CMAKE_CURRENT_LIST_DIR}/file_replace.c
    ${CMAKE_CURRENT_LIST_DIR}/file_input.c
    ${CMAKE_CURRENT_LIST_DIR}/features.c
    ${satfeat_core_cuda_state})
