# Fast-Hessian detector: CPU stages, selection, repeatability evaluation.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/detector.c
  ${CMAKE_CURRENT_LIST_DIR}/response_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/extrema_cpu.c
  ${CMAKE_CURRENT_LIST_DIR}/select.c)
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/eval_ellipse.c
  ${CMAKE_CURRENT_LIST_DIR}/eval_repeatability.c
  ${CMAKE_CURRENT_LIST_DIR}/homography_io.c)
