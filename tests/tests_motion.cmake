# Robust motion estimation: small linear algebra, solvers, sampling (internal), and the public
# satfeat_estimate_motion (accuracy under outliers, determinism, PROSAC, bad input, timing); the
# arithmetic and the batched search the CUDA path shares with the CPU (on the CPU), and the CUDA
# path against the CPU bit for bit (skipped without a device).
satfeat_add_test(test_motion_solvers test_motion_solvers.c)
satfeat_add_test(test_motion test_motion.c)
satfeat_add_test(test_motion_shared test_motion_shared.c motion_testutil.c)
satfeat_add_test(test_motion_cuda test_motion_cuda.c motion_testutil.c tracker_testutil.c GPU
                 TIMEOUT 600)
foreach(t test_motion_solvers test_motion test_motion_shared)
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR})
endforeach()
