# Evaluation through the public API: matching score under a homography.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/eval_matching.c)
