# Context, status, CPU SAT, the host/device arithmetic of the GPU SAT (SKSS-LB) and box helpers.
satfeat_add_test(test_context test_context.c)
satfeat_add_test(test_sat_cpu test_sat_cpu.c)
satfeat_add_test(test_sat_skss_arith test_sat_skss_arith.c)
satfeat_add_test(test_box test_box.c)
# An out-of-memory GPU gives SATFEAT_ERR_ALLOC and leaves the context usable.
satfeat_add_test(test_cuda_oom test_cuda_oom.c GPU)
set_tests_properties(test_cuda_oom PROPERTIES RUN_SERIAL TRUE) # it takes nearly all device memory
if(SATFEAT_HAVE_CUDA)
  target_compile_definitions(test_cuda_oom PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
  target_link_libraries(test_cuda_oom PRIVATE CUDA::cudart_static)
endif()

# The documented limits (sides, pixels, threads, keypoints, memory), each just under and over.
satfeat_add_test(test_limits test_limits.c png_testutil.c)

# GPU faults as ordinary errors (issue 16): memory exhaustion at every creation and inside calls,
# a CUDA error inside a call; skipped ("no CUDA device") without a GPU.
satfeat_add_test(test_cuda_faults test_cuda_faults.c detect_synth.c GPU TIMEOUT 900)
set_tests_properties(test_cuda_faults PROPERTIES RUN_SERIAL TRUE) # it takes nearly all device memory
if(SATFEAT_HAVE_CUDA)
  target_compile_definitions(test_cuda_faults PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
  target_link_libraries(test_cuda_faults PRIVATE CUDA::cudart_static)
endif()

# Threads with contexts of their own (POSIX threads) give the serial results: the header's
# promise, and under ThreadSanitizer (SATFEAT_TSAN) a check for shared state in the library.
find_package(Threads REQUIRED)
satfeat_add_test(test_threads_ctx test_threads_ctx.c detect_synth.c LABELS tsan)
target_link_libraries(test_threads_ctx PRIVATE Threads::Threads)

# Every strong global symbol of the static and the shared library is ours (satfeat_ or
# satfeat::), so none can collide with an application's (tests/symbols_check.cmake).
add_test(NAME symbols_static COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM}
         -DLIB=$<TARGET_FILE:satfeat_static> -P ${CMAKE_CURRENT_LIST_DIR}/symbols_check.cmake)
add_test(NAME symbols_shared COMMAND ${CMAKE_COMMAND} -DNM=${CMAKE_NM}
         -DLIB=$<TARGET_FILE:satfeat> -DDYNAMIC=1 -P ${CMAKE_CURRENT_LIST_DIR}/symbols_check.cmake)
