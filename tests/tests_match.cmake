# Descriptor matching (CPU reference, gates, determinism, shifted image) and its evaluation;
# the CUDA matcher against the CPU (skipped without a device).
satfeat_add_test(test_match test_match.c match_testutil.c)
target_include_directories(test_match PRIVATE ${PROJECT_SOURCE_DIR})
satfeat_add_test(test_match_eval test_match_eval.c match_testutil.c)
satfeat_add_test(test_match_cuda test_match_cuda.c match_testutil.c GPU TIMEOUT 600)
target_include_directories(test_match_cuda PRIVATE ${PROJECT_SOURCE_DIR})
if(SATFEAT_HAVE_CUDA)
  target_compile_definitions(test_match_cuda PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
  target_link_libraries(test_match_cuda PRIVATE CUDA::cudart_static)
endif()
