# AR (ar/, docs/AR.md): pose math against synthetic ground truth.
satfeat_add_test(test_ar_pose test_ar_pose.c)
target_include_directories(test_ar_pose PRIVATE ${PROJECT_SOURCE_DIR}/ar)
# The renderer of the AR test sequences (tools/ar_render.c) against the conventions it models.
satfeat_add_test(test_ar_render test_ar_render.c ${PROJECT_SOURCE_DIR}/tools/ar_render.c
                 ${PROJECT_SOURCE_DIR}/tools/ar_paths.c)
target_include_directories(test_ar_render PRIVATE ${PROJECT_SOURCE_DIR}/ar ${PROJECT_SOURCE_DIR}/tools)
