# AR (ar/, docs/AR.md): pose math against synthetic ground truth.
satfeat_add_test(test_ar_pose test_ar_pose.c)
# The renderer of the AR test sequences (tools/ar_render.c) against the conventions it models.
satfeat_add_test(test_ar_render test_ar_render.c ${PROJECT_SOURCE_DIR}/tools/ar_render.c
                 ${PROJECT_SOURCE_DIR}/tools/ar_paths.c)
target_include_directories(test_ar_render PRIVATE ${PROJECT_SOURCE_DIR}/tools)
# The AR session on rendered sequences with exact poses.
satfeat_add_test(test_ar_session test_ar_session.c ar_sequence_eval.c
                 ${PROJECT_SOURCE_DIR}/tools/ar_render.c ${PROJECT_SOURCE_DIR}/tools/ar_paths.c
                 TIMEOUT 1200)
target_include_directories(test_ar_session PRIVATE ${PROJECT_SOURCE_DIR}/tools)
# Targets: building, the target file round trip, hostile target files.
satfeat_add_test(test_ar_target test_ar_target.c)
