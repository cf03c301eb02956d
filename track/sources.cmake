# Robust motion estimation (CPU): small linear algebra, minimal and least-squares solvers,
# RANSAC / PROSAC sampling, MSAC scoring and the public satfeat_estimate_motion.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/linalg_small.c
  ${CMAKE_CURRENT_LIST_DIR}/motion_solvers.c
  ${CMAKE_CURRENT_LIST_DIR}/motion_sampling.c
  ${CMAKE_CURRENT_LIST_DIR}/motion_score.c
  ${CMAKE_CURRENT_LIST_DIR}/motion.c)
# The tracker object: detection, matching, motion and track bookkeeping per frame.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/tracker.c
  ${CMAKE_CURRENT_LIST_DIR}/spatial_grid.c
  ${CMAKE_CURRENT_LIST_DIR}/tracker_motion.c
  ${CMAKE_CURRENT_LIST_DIR}/tracker_frame.c
  ${CMAKE_CURRENT_LIST_DIR}/tracker_pipeline.c)
