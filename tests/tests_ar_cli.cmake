# `satfeat ar` run as a user would (docs/AR.md, the CLI contract of satfeat ar --help): rendered
# sequences with exact poses checked by cli_ar_check.py, and bad command lines.
if(NOT TARGET satfeat_cli)
  return()
endif()
set(ar_ref ${SATFEAT_TEST_DATA_DIR}/dune/frame001.png)
set(ar_dune2 ${SATFEAT_TEST_DATA_DIR}/dune/frame002.png)
set(ar_cam --camera 554.3,554.3,319.5,239.5)
set(ar_t --target ${ar_ref} --target-width 0.3)
set(ar_cpu --backend cpu --threads 2)

if(Python3_Interpreter_FOUND AND TARGET satfeat_gen_ar_sequence)
  set(ar_work ${CMAKE_CURRENT_BINARY_DIR}/ar_cli)
  # satfeat_ar_cli_check(NAME PATH FRAMES [FLAGS...]): cli_ar_check.py on a rendered path
  function(satfeat_ar_cli_check name path frames)
    add_test(NAME ${name} COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/cli_ar_check.py
             $<TARGET_FILE:satfeat_cli> $<TARGET_FILE:satfeat_gen_ar_sequence> ${ar_ref}
             ${ar_work}/${name} ${path} ${frames} ${ARGN})
    set_tests_properties(${name} PROPERTIES LABELS cli TIMEOUT 300)
  endfunction()
  # the target leaves the view and comes back: lost with nan fields in between, found again
  satfeat_ar_cli_check(cli_ar_leave leave 30 --absent --tracked --draw)
  # distortion (--distortion) and the camera given as a field of view; a distant target first
  # (measured recall 7 of 13 frames)
  satfeat_ar_cli_check(cli_ar_fov_distortion sample 16 --fov 60 --min-recall 0.45)
  # --photometric 0: the features' poses alone still meet the same pose errors
  satfeat_ar_cli_check(cli_ar_photometric_off leave 30 --absent --tracked --photometric 0)
endif()

# the frame itself as the target: found in frame 1, tracked in frame 2, one line each
set(ar_num "-?[0-9]+\\.[0-9]+")
satfeat_cli_test(cli_ar_two_frames 0
  "# frame target state tx ty tz rx ry rz inliers reproj_px\n1 0 found ${ar_num} ${ar_num} ${ar_num} ${ar_num} ${ar_num} ${ar_num} [0-9]+ [0-9.]+\n2 0 (found|tracked) "
  ar ${ar_t} ${ar_cam} ${ar_ref} ${ar_dune2} ${ar_cpu})
# two targets: one line per frame and target, in --target order
satfeat_cli_test(cli_ar_two_targets 0 "\n1 0 found [^\n]*\n1 1 found [^\n]*\n"
  ar ${ar_t} --target ${ar_dune2} --target-width 0.25 ${ar_cam} ${ar_ref} ${ar_cpu})
satfeat_cli_test(cli_ar_help 0 "usage: satfeat ar --target REF.*frame target state tx ty tz rx ry rz inliers reproj_px"
  ar --help)
# --photometric 0 (no refinement by the frame's pixels) runs like the default
satfeat_cli_test(cli_ar_photometric_0 0 "\n1 0 found [^\n]*\n2 0 (found|tracked) "
  ar ${ar_t} ${ar_cam} --photometric 0 ${ar_ref} ${ar_dune2} ${ar_cpu})
# bad command lines: exit status 2 and a message
satfeat_cli_test(cli_ar_no_target 2 "no --target given" ar ${ar_cam} ${ar_ref})
satfeat_cli_test(cli_ar_no_width 2 "has no --target-width" ar --target ${ar_ref} ${ar_cam} ${ar_ref})
satfeat_cli_test(cli_ar_width_first 2 "each --target-width follows its own --target"
  ar --target-width 0.3 ${ar_t} ${ar_cam} ${ar_ref})
satfeat_cli_test(cli_ar_bad_width 2 "--target-width must be above 0"
  ar --target ${ar_ref} --target-width 0 ${ar_cam} ${ar_ref})
satfeat_cli_test(cli_ar_no_camera 2 "either --camera FX,FY,CX,CY or --fov" ar ${ar_t} ${ar_ref})
satfeat_cli_test(cli_ar_two_cameras 2 "either --camera FX,FY,CX,CY or --fov"
  ar ${ar_t} ${ar_cam} --fov 60 ${ar_ref})
satfeat_cli_test(cli_ar_camera_short 2 "--camera takes 4 comma-separated numbers"
  ar ${ar_t} --camera 500,500,320 ${ar_ref})
satfeat_cli_test(cli_ar_camera_junk 2 "--camera" ar ${ar_t} --camera 500,500,x,240 ${ar_ref})
satfeat_cli_test(cli_ar_camera_zero 2 "FX and FY must be above 0" ar ${ar_t} --camera 0,500,320,240 ${ar_ref})
satfeat_cli_test(cli_ar_bad_fov 2 "--fov must be in \\(0, 180\\)" ar ${ar_t} --fov 180 ${ar_ref})
satfeat_cli_test(cli_ar_bad_distortion 2 "--distortion takes 2 comma-separated numbers"
  ar ${ar_t} ${ar_cam} --distortion 0.1 ${ar_ref})
satfeat_cli_test(cli_ar_bad_photometric 2 "--photometric must be an integer in \\[0, 1\\], got '2'"
  ar ${ar_t} ${ar_cam} --photometric 2 ${ar_ref})
satfeat_cli_test(cli_ar_photometric_junk 2 "--photometric must be an integer in \\[0, 1\\], got 'on'"
  ar ${ar_t} ${ar_cam} --photometric on ${ar_ref})
satfeat_cli_test(cli_ar_no_frames 2 "no frames given" ar ${ar_t} ${ar_cam})
satfeat_cli_test(cli_ar_no_descriptor 2 "ar needs descriptors" ar ${ar_t} ${ar_cam} --descriptor none ${ar_ref})
satfeat_cli_test(cli_ar_missing_value 2 "--camera needs a value" ar ${ar_t} ${ar_ref} --camera)
# the work fails: exit status 1 with the reason
satfeat_cli_test(cli_ar_missing_target 1 "target 0 \\([^)]*no-such\\.png\\): "
  ar --target ${SATFEAT_TEST_DATA_DIR}/no-such.png --target-width 0.3 ${ar_cam} ${ar_ref} ${ar_cpu})
satfeat_cli_test(cli_ar_folding_distortion 1 "cannot start the AR session: .*"
  ar ${ar_t} ${ar_cam} --distortion -2,0 ${ar_ref} ${ar_cpu})
