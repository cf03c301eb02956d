# The Fast-Hessian detector: the public detector calls (a façade over a backend), the CPU
# backend and its stages, the CUDA backend (kernels, ordering with CUB, graphs, slots). It runs
# each frame's whole pipeline, so it reads the seams of sat/ and describe/; frames/ reads its
# seam detect/detect.h.
set(satfeat_detect_none)
if(NOT SATFEAT_HAVE_CUDA)
  set(satfeat_detect_none ${CMAKE_CURRENT_LIST_DIR}/detector_cuda_none.c)
endif()
satfeat_add_module(detect
  MAY_INCLUDE src sat/sat.h describe/describe.h describe/describe_weights.h
  C ${CMAKE_CURRENT_LIST_DIR}/detector.c
    ${CMAKE_CURRENT_LIST_DIR}/describe_given.c # satfeat_describe_keypoints (CPU, any backend)
    ${CMAKE_CURRENT_LIST_DIR}/layers.c
    ${CMAKE_CURRENT_LIST_DIR}/detector_cpu.c
    ${CMAKE_CURRENT_LIST_DIR}/responses_cpu.c
    ${CMAKE_CURRENT_LIST_DIR}/extrema_cpu.c
    ${CMAKE_CURRENT_LIST_DIR}/select_cpu.c
    ${CMAKE_CURRENT_LIST_DIR}/frame_plan.c # the CUDA detector's per-frame plan: plain C, tested
    ${satfeat_detect_none}
  CUDA ${CMAKE_CURRENT_LIST_DIR}/octave_kernel.cu
       ${CMAKE_CURRENT_LIST_DIR}/order_kernels.cu
  CUDA_HOST ${CMAKE_CURRENT_LIST_DIR}/detector_cuda.c
            ${CMAKE_CURRENT_LIST_DIR}/detector_cuda_slots.c
            ${CMAKE_CURRENT_LIST_DIR}/detector_cuda_profile.c)
