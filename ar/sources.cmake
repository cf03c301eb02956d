# Augmented reality (docs/AR.md): the camera model, planar pose (IPPE + Levenberg-Marquardt),
# targets and the AR session. A client of the public detector, matcher and motion calls, which
# it reaches through one adapter (ar_features.c) only.
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ar_rotation.c
  ${CMAKE_CURRENT_LIST_DIR}/ar_linsolve.c
  ${CMAKE_CURRENT_LIST_DIR}/ar_camera.c
  ${CMAKE_CURRENT_LIST_DIR}/ar_pose.c
  ${CMAKE_CURRENT_LIST_DIR}/ar_refine.c)
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ar_features.c
  ${CMAKE_CURRENT_LIST_DIR}/ar_target.c
  ${CMAKE_CURRENT_LIST_DIR}/ar_target_io.c)
list(APPEND SATFEAT_C_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/ar_locate.c
  ${CMAKE_CURRENT_LIST_DIR}/ar_session.c)
