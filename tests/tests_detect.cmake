# Fast-Hessian detector and repeatability evaluator.
satfeat_add_test(test_detect_math test_detect_math.c)
satfeat_add_test(test_detect_cpu_stages test_detect_cpu_stages.c)
satfeat_add_test(test_detect_blob test_detect_blob.c detect_synth.c)
satfeat_add_test(test_detect_transform test_detect_transform.c detect_synth.c)
satfeat_add_test(test_detect_select test_detect_select.c detect_synth.c)
satfeat_add_test(test_detect_dedup test_detect_dedup.c detect_synth.c)
satfeat_add_test(test_detect_args test_detect_args.c)
# Hostile calls (issue 16): overflowing strides, masks of another size.
satfeat_add_test(test_detect_hostile test_detect_hostile.c detect_synth.c)
satfeat_add_test(test_detect_features test_detect_features.c)
# satfeat_describe_keypoints: given keypoints described as the detector describes its own; the
# GPU variant with a CUDA detector's keypoints (skipped without a CUDA device).
satfeat_add_test(test_describe_given test_describe_given.c)
satfeat_add_test(test_describe_given_cuda test_describe_given.c GPU)
target_compile_definitions(test_describe_given_cuda PRIVATE SATFEAT_TEST_DESCRIBE_CUDA=1)
# CUDA detector: bit-identical to the CPU, device entry point, sequences, errors.
# SATFEAT_TEST_SMALL=1 keeps the inputs small (compute-sanitizer runs).
foreach(t test_detect_cuda_equal test_detect_cuda_api)
  satfeat_add_test(${t} ${t}.c detect_cuda_util.c detect_synth.c GPU TIMEOUT 600)
  if(SATFEAT_HAVE_CUDA)
    target_compile_definitions(${t} PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
    target_link_libraries(${t} PRIVATE CUDA::cudart_static)
  endif()
endforeach()
# The boat images through the same comparison: skipped without a GPU or without the shared data.
add_test(NAME test_detect_cuda_equal_boat COMMAND test_detect_cuda_equal boat)
set_tests_properties(test_detect_cuda_equal_boat PROPERTIES LABELS gpu TIMEOUT 600
  SKIP_RETURN_CODE 77 SKIP_REGULAR_EXPRESSION "no CUDA device")
# The sequence API on a CPU detector, from the same source, as a plain (never skipped) test.
satfeat_add_test(test_detect_sequence_cpu test_detect_cuda_api.c detect_cuda_util.c detect_synth.c)
target_compile_definitions(test_detect_sequence_cpu PRIVATE SATFEAT_TEST_CPU_SEQUENCE=1)
# The profiling API (stage times), on a CPU detector and on a CUDA detector.
satfeat_add_test(test_detect_profile_cpu test_detect_profile.c detect_cuda_util.c detect_synth.c)
satfeat_add_test(test_detect_profile_cuda test_detect_profile.c detect_cuda_util.c detect_synth.c GPU)
target_compile_definitions(test_detect_profile_cuda PRIVATE SATFEAT_TEST_PROFILE_CUDA=1)
if(SATFEAT_HAVE_CUDA)
  target_compile_definitions(test_detect_profile_cuda PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
endif()
satfeat_add_test(test_detect_eval test_detect_eval.c)
# The Oxford boat sequence of the shared data: exit status 77 (ctest: Skipped) without it.
satfeat_add_test(test_detect_boat test_detect_boat.c)
set_tests_properties(test_detect_boat PROPERTIES SKIP_RETURN_CODE 77)

# The detect and eval subcommands, run as a user would (same checker as tests_cli.cmake).
if(TARGET satfeat_cli)
  # REQUIRE=path (first argument after the regex, optional): skipped when path is absent
  function(satfeat_detect_cli_test name exit_code regex)
    set(args ${ARGN})
    set(require "")
    list(GET args 0 first)
    if(first MATCHES "^REQUIRE=")
      list(REMOVE_AT args 0)
      set(require "-D${first}")
    endif()
    string(JOIN "|" cmd "$<TARGET_FILE:satfeat_cli>" ${args})
    add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" "-DEXPECT_EXIT=${exit_code}"
             "-DEXPECT_REGEX=${regex}" ${require} -P ${CMAKE_CURRENT_LIST_DIR}/cli_expect.cmake)
    set_tests_properties(${name} PROPERTIES LABELS cli TIMEOUT 120)
    if(require)
      set_tests_properties(${name} PROPERTIES SKIP_REGULAR_EXPRESSION "shared data not found: ")
    endif()
  endfunction()
  set(scene ${SATFEAT_TEST_DATA_DIR}/scene.png)
  satfeat_detect_cli_test(cli_detect_scene 0
    "^# frame 1 640x480 [0-9]+ keypoints: [^\n]*scene\.png\n# x y size response sigma laplacian octave layer\n[0-9.]+ [0-9.]+ [0-9.]+ [0-9.]+e[-+][0-9]+ [0-9.]+ -?1 [0-3] [1-4]\n"
    detect ${scene} --backend cpu --threads 2)
  # --descriptors: the 8 keypoint fields, then 64 (surf64) or 128 (surf128) values per line
  # (CMake regexes have no {n} and few groups: the repeats are spelled out with string(REPEAT))
  string(REPEAT " [^ \n]+" 7 f7)
  string(REPEAT " -?[0-9][-0-9.e]*" 64 d64)
  string(REPEAT " -?[0-9][-0-9.e]*" 128 d128)
  satfeat_detect_cli_test(cli_detect_descriptors 0
    "\n# x y size response sigma laplacian octave layer d0..d63\n[^ \n]+${f7}${d64}\n"
    detect ${scene} --backend cpu --max-keypoints 5 --descriptors)
  satfeat_detect_cli_test(cli_detect_descriptors_128 0 "d0..d127\n[^ \n]+${f7}${d128}\n"
    detect ${scene} --backend cpu --max-keypoints 5 --descriptors --descriptor surf128)
  satfeat_detect_cli_test(cli_detect_descriptors_none 2 "--descriptors needs a descriptor"
    detect ${scene} --descriptors --descriptor none)
  satfeat_detect_cli_test(cli_detect_bad_descriptor 2 "--descriptor must be surf64, surf128 or none"
    detect ${scene} --descriptor sift)
  # match: an image against itself matches every kept keypoint to itself at distance 0
  satfeat_detect_cli_test(cli_match_self 0 "^# keypoints 50 50, matches [1-9][0-9]*\n# i j distance\n0 0 0\.000000\n1 1 0\.000000\n"
    match ${scene} ${scene} --backend cpu --max-keypoints 50)
  satfeat_detect_cli_test(cli_match_missing 2 "match needs IMG1 IMG2" match ${scene})
  satfeat_detect_cli_test(cli_match_bad_ratio 2 "--ratio must be a number in \\(0, 1\\], got '0'"
    match ${scene} ${scene} --ratio 0)
  satfeat_detect_cli_test(cli_match_ratio_above_1 2 "--ratio must be a number in \\(0, 1\\], got '1\\.5'"
    match ${scene} ${scene} --ratio 1.5)
  satfeat_detect_cli_test(cli_match_no_descriptor 2 "match needs descriptors"
    match ${scene} ${scene} --descriptor none)
  satfeat_detect_cli_test(cli_match_missing_h 1 "cannot read the homography"
    match ${scene} ${scene} -H ${CMAKE_CURRENT_BINARY_DIR}/no-such-H)
  satfeat_detect_cli_test(cli_match_help 0 "usage: satfeat match IMG1 IMG2.*--ratio" match --help)
  satfeat_detect_cli_test(cli_detect_scene_top3 0 "^#[^\n]*\n#[^\n]*\n[^\n]+\n[^\n]+\n[^\n]+\n$"
    detect ${scene} --backend cpu --max-keypoints 3 --grid 2 --per-cell 1 --init-step 2)
  satfeat_detect_cli_test(cli_detect_bad_octaves 2 "--octaves must be an integer in \\[1, 6\\]"
    detect ${scene} --octaves 0)
  satfeat_detect_cli_test(cli_detect_bad_orientation_filter 2
    "--orientation-filter must be scharr or haar" detect ${scene} --orientation-filter sobel)
  satfeat_detect_cli_test(cli_detect_no_image 2 "no image given" detect --threshold 0.001)
  satfeat_detect_cli_test(cli_detect_help 0 "usage: satfeat detect FRAME.*--init-step.*example:" detect --help)
  satfeat_detect_cli_test(cli_eval_missing_files 2 "eval needs IMG1 IMG2 H" eval ${scene})
  satfeat_detect_cli_test(cli_eval_missing_h 1 "cannot read the homography: input/output error"
    eval ${scene} ${scene} ${CMAKE_CURRENT_BINARY_DIR}/no-such-H)
  # the Oxford boat pair of the shared data (skipped when absent)
  set(boat ${SATFEAT_SHARED_DATA_DIR}/oxford-boat)
  set(need_boat REQUIRE=${boat}/H1to2p)
  # the first round's settings: the repeatability pinned then (cross-checked against OpenCV)
  satfeat_detect_cli_test(cli_eval_boat_1_2 0
    "keypoints 2286 2532\ncommon 2274 2190\ncorrespondences 1373\nrepeatability 0\\.6269\n"
    ${need_boat} eval ${boat}/img1.pgm ${boat}/img2.pgm ${boat}/H1to2p --threshold 0.0007 --layers 4
    --max-offset 0.5 --unique-scales 1 --suppress-duplicates 0 --descriptor none)
  # the defaults at ~2000 keypoints: repeatability, then the matching evaluation with the
  # refined orientations from the Scharr filter, root-normalised descriptors and the Haar side 4s
  # of the descriptor (docs/EVALUATION.md, "Levers measured")
  satfeat_detect_cli_test(cli_eval_boat_1_2_defaults 0
    "keypoints 1993 2089\ncommon 1991 1854\ncorrespondences 1314\nrepeatability 0\\.7087\nvisible 1991 1907\nmatches 842\ncorrect 730\nprecision 0\\.8670\nmatching_score 0\\.3828\n"
    ${need_boat} eval ${boat}/img1.pgm ${boat}/img2.pgm ${boat}/H1to2p --threshold 0.0019923557)
  # the orientation from Haar pairs of side 4s (the defaults before)
  satfeat_detect_cli_test(cli_eval_boat_1_2_haar4 0
    "keypoints 1993 2089\ncommon 1991 1854\ncorrespondences 1314\nrepeatability 0\\.7087\nvisible 1991 1907\nmatches 822\ncorrect 698\nprecision 0\\.8491\nmatching_score 0\\.3660\n"
    ${need_boat} eval ${boat}/img1.pgm ${boat}/img2.pgm ${boat}/H1to2p --threshold 0.0019923557
    --orientation-filter haar)
  # the Haar sides 3s in the descriptor and the orientation (the defaults before those)
  satfeat_detect_cli_test(cli_eval_boat_1_2_haar3 0
    "keypoints 1993 2089\ncommon 1991 1854\ncorrespondences 1314\nrepeatability 0\\.7087\nvisible 1991 1907\nmatches 805\ncorrect 691\nprecision 0\\.8584\nmatching_score 0\\.3623\n"
    ${need_boat} eval ${boat}/img1.pgm ${boat}/img2.pgm ${boat}/H1to2p --threshold 0.0019923557
    --descriptor-haar 3 --orientation-haar 3 --orientation-filter haar)
  # SURF's unit L2 descriptors, the unrefined orientation and the Haar sides 3s (the defaults
  # before those; docs/DESCRIPTORS.md, "Matching quality")
  satfeat_detect_cli_test(cli_eval_boat_1_2_l2 0
    "keypoints 1993 2089\ncommon 1991 1854\ncorrespondences 1314\nrepeatability 0\\.7087\nvisible 1991 1907\nmatches 859\ncorrect 742\nprecision 0\\.8638\nmatching_score 0\\.3891\n"
    ${need_boat} eval ${boat}/img1.pgm ${boat}/img2.pgm ${boat}/H1to2p --threshold 0.0019923557
    --descriptor-norm l2 --orientation-refine 0 --descriptor-haar 3 --orientation-haar 3
    --orientation-filter haar)
  satfeat_detect_cli_test(cli_match_boat_1_2 0 "\n# matching_score 0\\.[0-9]+\n$"
    ${need_boat} match ${boat}/img1.pgm ${boat}/img2.pgm -H ${boat}/H1to2p --threshold 0.0025325445)
endif()
# CUDA features (angles and descriptors) equal to the CPU's through every entry point.
satfeat_add_test(test_detect_cuda_features test_detect_cuda_features.c detect_cuda_util.c
                 detect_synth.c describe_util.c GPU TIMEOUT 900)
if(SATFEAT_HAVE_CUDA)
  target_compile_definitions(test_detect_cuda_features PRIVATE SATFEAT_TEST_HAVE_CUDA=1)
  target_link_libraries(test_detect_cuda_features PRIVATE CUDA::cudart_static)
endif()
# Device pool: frames spread over workers, output in input order, equal to one detector.
satfeat_add_test(test_pool test_pool.c pool_testutil.c detect_synth.c LABELS tsan)
satfeat_add_test(test_pool_cuda test_pool_cuda.c pool_testutil.c detect_synth.c GPU)
# Batches: many frames of one detector per call, equal to one-at-a-time calls (issue 12).
satfeat_add_test(test_batch test_batch.c batch_testutil.c detect_synth.c)
satfeat_add_test(test_batch_cuda test_batch_cuda.c batch_testutil.c detect_synth.c
                 detect_cuda_util.c GPU)
satfeat_add_test(test_order_buckets test_order_buckets.c)
