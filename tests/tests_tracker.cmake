# The tracker (track/tracker*.c): synthetic translation, leave and return, determinism, the dune
# sequence against its ground truth, bad input; the CPU/CUDA identity (skipped without a device);
# many trackers in one call (satfeat_trackers_track), threaded (label tsan), on CPU and CUDA.
satfeat_add_test(test_tracker test_tracker.c tracker_testutil.c)
# track life: features gone for 2 and 12 frames keep their ids, displaced ones continue no track,
# one-frame features start none (birth confirmation).
satfeat_add_test(test_tracker_life test_tracker_life.c tracker_testutil.c)
# the last-chance pass (continue_threshold): faded features keep being seen, faded ones off the
# motion continue no track.
satfeat_add_test(test_tracker_weak test_tracker_weak.c tracker_testutil.c)
satfeat_add_test(test_spatial_grid test_spatial_grid.c)
target_include_directories(test_spatial_grid PRIVATE ${PROJECT_SOURCE_DIR})
satfeat_add_test(test_tracker_cuda test_tracker_cuda.c tracker_testutil.c GPU TIMEOUT 600)
if(SATFEAT_HAVE_CUDA)
  target_compile_definitions(test_tracker_cuda PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
  target_link_libraries(test_tracker_cuda PRIVATE CUDA::cudart_static)
endif()
satfeat_add_test(test_trackers_many test_trackers_many.c tracker_testutil.c LABELS tsan)
satfeat_add_test(test_trackers_many_cuda test_trackers_many.c tracker_testutil.c GPU TIMEOUT 600)
target_compile_definitions(test_trackers_many_cuda PRIVATE SATFEAT_TEST_MANY_CUDA=1)
