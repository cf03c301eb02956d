# AR (ar/, docs/AR.md): pose math against synthetic ground truth.
satfeat_add_test(test_ar_pose test_ar_pose.c)
target_include_directories(test_ar_pose PRIVATE ${PROJECT_SOURCE_DIR}/ar)
