# Orientation and SURF descriptors: shared math, CPU behaviour, CUDA bit identity.
satfeat_add_test(test_describe_math test_describe_math.c)
satfeat_add_test(test_describe test_describe.c describe_util.c)
satfeat_add_test(test_describe_fast test_describe_fast.c describe_util.c)
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  target_compile_options(test_describe_fast PRIVATE -Wno-psabi) # see describe/describe_vec.h
endif()
satfeat_add_test(test_describe_cuda test_describe_cuda.c describe_util.c GPU TIMEOUT 600)
if(SATFEAT_HAVE_CUDA)
  target_compile_definitions(test_describe_cuda PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
  target_link_libraries(test_describe_cuda PRIVATE CUDA::cudart_static)
endif()
