# AR (ar/, docs/AR.md): pose math against synthetic ground truth.
satfeat_add_test(test_ar_pose test_ar_pose.c)
# The renderer of the AR test sequences (tools/ar_render.c) against the conventions it models.
satfeat_add_test(test_ar_render test_ar_render.c ${PROJECT_SOURCE_DIR}/tools/ar_render.c
                 ${PROJECT_SOURCE_DIR}/tools/ar_paths.c)
target_include_directories(test_ar_render PRIVATE ${PROJECT_SOURCE_DIR}/tools)
# The AR session on rendered sequences with exact poses: short sequences by default; the long
# ones of docs/AR.md (about 200 s on 2 shared cores) only with -DSATFEAT_SLOW_TESTS=ON, label
# slow (docs/TESTING.md).
satfeat_add_test(test_ar_session test_ar_session.c ar_sequence_eval.c ar_reference.c
                 ${PROJECT_SOURCE_DIR}/tools/ar_render.c ${PROJECT_SOURCE_DIR}/tools/ar_paths.c
                 TIMEOUT 300)
target_include_directories(test_ar_session PRIVATE ${PROJECT_SOURCE_DIR}/tools)
option(SATFEAT_SLOW_TESTS "register the slow tests (label slow: test_ar_session_long)" OFF)
if(SATFEAT_SLOW_TESTS)
  add_test(NAME test_ar_session_long COMMAND test_ar_session long)
  set_tests_properties(test_ar_session_long PROPERTIES TIMEOUT 1800 LABELS slow)
endif()
# Targets: building, the target file round trip, hostile target files.
satfeat_add_test(test_ar_target test_ar_target.c ar_reference.c)
