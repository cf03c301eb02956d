# Frame scheduling over detectors: sequences (frames in flight), batches (many frames of one
# detector per call), pools (frames over several devices) and the detector twins they run on,
# through detect/'s seam only (detect/detect.h: frame slots and the detector's accessors).
satfeat_add_module(frames MAY_INCLUDE src detect/detect.h
  C ${CMAKE_CURRENT_LIST_DIR}/sequence.c
    ${CMAKE_CURRENT_LIST_DIR}/pool.c
    ${CMAKE_CURRENT_LIST_DIR}/batch.c
    ${CMAKE_CURRENT_LIST_DIR}/twin.c)
