# Robust motion estimation (small linear algebra, minimal and least-squares solvers, RANSAC /
# PROSAC sampling, MSAC scoring) and the tracker (detection, matching, motion and track
# bookkeeping per frame, through the public calls).
satfeat_add_module(track MAY_INCLUDE src
  C ${CMAKE_CURRENT_LIST_DIR}/linalg_small.c
    ${CMAKE_CURRENT_LIST_DIR}/motion_solvers.c
    ${CMAKE_CURRENT_LIST_DIR}/motion_lm.c
    ${CMAKE_CURRENT_LIST_DIR}/motion_sampling.c
    ${CMAKE_CURRENT_LIST_DIR}/motion_score.c
    ${CMAKE_CURRENT_LIST_DIR}/motion_search.c
    ${CMAKE_CURRENT_LIST_DIR}/motion.c
    ${CMAKE_CURRENT_LIST_DIR}/motion_matches.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker.c
    ${CMAKE_CURRENT_LIST_DIR}/spatial_grid.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker_motion.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker_frame.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker_confirm.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker_weak.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker_pipeline.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker_many.c
    ${CMAKE_CURRENT_LIST_DIR}/tracker_detect.c
  CUDA ${CMAKE_CURRENT_LIST_DIR}/motion_kernels.cu
  CUDA_HOST ${CMAKE_CURRENT_LIST_DIR}/motion_cuda_host.c)
