# Augmented reality (docs/AR.md): the camera model, planar pose (IPPE + Levenberg-Marquardt),
# targets and the AR session. A client of the public detector, matcher and motion calls, which
# it reaches through one adapter (ar_features.c) only.
satfeat_add_module(ar MAY_INCLUDE src
  C ${CMAKE_CURRENT_LIST_DIR}/ar_rotation.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_linsolve.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_camera.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_pose.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_refine.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_photo.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_features.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_target.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_target_io.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_locate.c
    ${CMAKE_CURRENT_LIST_DIR}/ar_session.c)
