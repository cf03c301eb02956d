# The CLI's messages agree with its help: "did you mean" for near-miss options, commands and
# benchmarks (and none for far ones), each command's help showing the defaults that apply to
# it, range errors worded as the help words the range (satfeat_cli_test: tests_cli.cmake).
if(NOT TARGET satfeat_cli)
  return()
endif()
set(scene ${SATFEAT_TEST_DATA_DIR}/scene.png)
set(dune ${SATFEAT_TEST_DATA_DIR}/dune)

satfeat_cli_test(cli_suggest_option 2 "unknown option '--treshold'; did you mean --threshold\\?\n"
  detect ${scene} --treshold 0.001)
satfeat_cli_test(cli_suggest_option_value 2
  "unknown option '--max-keypionts=5'; did you mean --max-keypoints\\?\n"
  detect ${scene} --max-keypionts=5)
satfeat_cli_test(cli_suggest_single_dash 2 "unknown option '-threshold'; did you mean --threshold\\?"
  detect ${scene} -threshold 0.001)
satfeat_cli_test(cli_suggest_track_option 2 "unknown option '--motin'; did you mean --motion\\?"
  track ${dune} --motin)
satfeat_cli_test(cli_suggest_match_option 2 "unknown option '--ration'; did you mean --ratio\\?"
  match ${scene} ${scene} --ration 0.7)
satfeat_cli_test(cli_suggest_sat_option 2 "sat: unknown option '--algoo'; did you mean --algo\\?"
  sat ${scene} --algoo cpu)
satfeat_cli_test(cli_suggest_none 2 "unknown option '--zzzzzzz'\n$" detect ${scene} --zzzzzzz)
satfeat_cli_test(cli_suggest_none_short 2 "unknown option '-x'\n$" detect ${scene} -x)
satfeat_cli_test(cli_suggest_command 2 "unknown command 'detcet'; did you mean detect\\?\n" detcet)
satfeat_cli_test(cli_suggest_command_version 2 "unknown command '--versoin'; did you mean --version\\?"
  --versoin)
satfeat_cli_test(cli_suggest_command_none 2 "unknown command 'frobnicate'\nusage: satfeat" frobnicate)
satfeat_cli_test(cli_suggest_bench 2 "bench: unknown benchmark 'batc'; did you mean batch\\?" bench batc)

# each command's help states the defaults that apply to it: the detector's threshold 0.0004,
# the tracker's 0.0002 (with its keypoint cap and grid)
satfeat_cli_test(cli_detect_help_defaults 0
  "--threshold T +minimum normalised response \\(default 0\\.0004\\)\n.*--max-keypoints N +keep the N strongest, 0 = all \\(default 0\\)"
  detect --help)
satfeat_cli_test(cli_track_help_defaults 0
  "--threshold T +minimum normalised response \\(default 0\\.0002\\)\n.*--max-keypoints N +keep the N strongest, 0 = all \\(default 1500\\)\n.*\\(default 8\\)\n +--per-cell K +at most K keypoints per grid cell \\(default 32\\)"
  track --help)
satfeat_cli_test(cli_track_ratio_range 2 "--ratio must be a number in \\(0, 1\\], got '2'"
  track ${dune} --ratio 2)
satfeat_cli_test(cli_track_ratio_help 0 "--ratio R +Lowe's ratio test, in \\(0, 1\\]" track --help)
satfeat_cli_test(cli_detect_max_offset_range 2 "--max-offset must be a number in \\(0, 1\\], got '0'"
  detect ${scene} --max-offset 0)
