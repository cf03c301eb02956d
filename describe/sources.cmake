# Orientations and SURF descriptors from the u32 table: the CPU stage and the CUDA kernels.
satfeat_add_module(describe MAY_INCLUDE src
  C ${CMAKE_CURRENT_LIST_DIR}/describe_weights.c
    ${CMAKE_CURRENT_LIST_DIR}/describe_cpu.c
    ${CMAKE_CURRENT_LIST_DIR}/haar_block.c
  CUDA ${CMAKE_CURRENT_LIST_DIR}/describe_kernels.cu)
# describe_vec.h passes 32-byte vectors between always-inlined helpers: GCC's ABI note is moot.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/describe_cpu.c
                              TARGET_DIRECTORY satfeat_describe_objects
                              PROPERTIES COMPILE_OPTIONS -Wno-psabi)
endif()
