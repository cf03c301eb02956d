# Evaluation through the public API: repeatability under a homography (Mikolajczyk et al.), the
# matching score, homography files.
satfeat_add_module(eval MAY_INCLUDE src
  C ${CMAKE_CURRENT_LIST_DIR}/eval_ellipse.c
    ${CMAKE_CURRENT_LIST_DIR}/eval_repeatability.c
    ${CMAKE_CURRENT_LIST_DIR}/homography_io.c
    ${CMAKE_CURRENT_LIST_DIR}/eval_matching.c)
