# Robust motion estimation: small linear algebra, solvers, sampling (internal), and the public
# satfeat_estimate_motion (accuracy under outliers, determinism, PROSAC, bad input, timing).
satfeat_add_test(test_motion_solvers test_motion_solvers.c)
satfeat_add_test(test_motion test_motion.c)
foreach(t test_motion_solvers test_motion)
  target_include_directories(${t} PRIVATE ${PROJECT_SOURCE_DIR})
endforeach()
