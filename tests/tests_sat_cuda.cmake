# CUDA SAT: exactness (u8), precision (f32), concurrency/repetition, large shapes. Without CUDA
# (build or device) each prints "no CUDA device" and is listed as skipped.
# SATFEAT_TEST_SMALL=1 keeps every size small (compute-sanitizer runs).
set(SATFEAT_SAT_CUDA_TESTS test_sat_cuda test_sat_cuda_f32 test_sat_cuda_stress test_sat_cuda_large)
foreach(t ${SATFEAT_SAT_CUDA_TESTS})
  if(SATFEAT_HAVE_CUDA)
    satfeat_add_test(${t} ${t}.c sat_cuda_check.c GPU TIMEOUT 300)
    target_compile_definitions(${t} PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
    target_link_libraries(${t} PRIVATE CUDA::cudart_static)
  else()
    satfeat_add_test(${t} ${t}.c GPU)
  endif()
endforeach()
# The SAT seam (sat/sat.h): work sizing on the host (runs without a device), tables into
# caller-owned work memory on a device (skipped without one). CUDA builds only.
if(SATFEAT_HAVE_CUDA)
  satfeat_add_test(test_sat_seam_sizing test_sat_seam.c)
  satfeat_add_test(test_sat_seam_cuda test_sat_seam.c GPU TIMEOUT 300)
  target_compile_definitions(test_sat_seam_cuda PRIVATE SATFEAT_TEST_SAT_SEAM_DEVICE=1
                             SATFEAT_TEST_HAVE_CUDA=1)
  target_link_libraries(test_sat_seam_cuda PRIVATE CUDA::cudart_static)
endif()
# Forward progress beside a persistent kernel: a short tools/skss_stress run (SKSS-LB launches of
# random sizes on two streams while a kernel spins on all but two SMs until the end, every table
# checked exactly). A device-wide synchronisation anywhere in the SAT calls (the work memory's
# growth had one) never returns there: the run hangs and ctest's timeout fails it. Run alone: the
# occupier would slow every other GPU test. (Its last H200 run, before the program loaded its
# kernels eagerly, hung in lazy module loading; the fixed program has not run on a GPU yet.)
if(SATFEAT_HAVE_CUDA AND TARGET skss_stress)
  add_test(NAME skss_stress_short COMMAND skss_stress --launches 300 --max-side 1024 --free-sms 2)
  set_tests_properties(skss_stress_short PROPERTIES LABELS gpu TIMEOUT 120 RUN_SERIAL TRUE
                       SKIP_REGULAR_EXPRESSION "no CUDA device")
endif()
