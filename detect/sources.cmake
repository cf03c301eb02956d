# Fast-Hessian detector: CPU stages, selection, sequences, pools, batches.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/detector.c
  ${CMAKE_CURRENT_LIST_DIR}/responses_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/extrema_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/select_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/sequence.c
  ${CMAKE_CURRENT_LIST_DIR}/pool.c
  ${CMAKE_CURRENT_LIST_DIR}/batch.c
  ${CMAKE_CURRENT_LIST_DIR}/twin.c
  ${CMAKE_CURRENT_LIST_DIR}/frame_plan.c) # the CUDA detector's per-frame plan: plain C, tested
# CUDA detector: kernels, ordering (CUB) and the host side (graphs, slots).
list(APPEND SATFEAT_CUDA_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/octave_kernel.cu
  ${CMAKE_CURRENT_LIST_DIR}/order_kernels.cu)
list(APPEND SATFEAT_CUDA_HOST_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/detector_cuda.c
  ${CMAKE_CURRENT_LIST_DIR}/detector_cuda_profile.c)
if(NOT SATFEAT_HAVE_CUDA)
  list(APPEND SATFEAT_C_SOURCES ${CMAKE_CURRENT_LIST_DIR}/detector_cuda_none.c)
endif()
# Orientation and SURF descriptors from the u32 table (CPU; CUDA kernels below).
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/describe_weights.c
  ${CMAKE_CURRENT_LIST_DIR}/describe_cpu.c)
list(APPEND SATFEAT_CUDA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/describe_kernels.cu)
# describe_vec.h passes 32-byte vectors between always-inlined helpers: GCC's ABI note is moot.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/describe_cpu.c PROPERTIES
                              COMPILE_OPTIONS -Wno-psabi)
endif()
