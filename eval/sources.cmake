# Evaluation: repeatability of keypoints under a homography (Mikolajczyk et al. protocol).
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/eval_ellipse.c
  ${CMAKE_CURRENT_LIST_DIR}/eval_repeatability.c
  ${CMAKE_CURRENT_LIST_DIR}/homography_io.c)
# Evaluation through the public API: matching score under a homography.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/eval_matching.c)
