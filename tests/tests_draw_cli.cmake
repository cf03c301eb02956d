# `satfeat draw` run as a user would (issue 14): the PNGs it writes (size, RGB, decodable, drawn
# on) and its errors.
if(NOT TARGET satfeat_cli)
  return()
endif()
set(dune ${SATFEAT_TEST_DATA_DIR}/dune)
set(scene ${SATFEAT_TEST_DATA_DIR}/scene.png)
set(wdir ${CMAKE_CURRENT_BINARY_DIR}/draw_cli)
file(MAKE_DIRECTORY ${wdir})

# satfeat_draw_test(NAME OUT SIZE DIFFERS_FROM|"" ARGS...): `satfeat draw ARGS...` writes OUT.
function(satfeat_draw_test name out size differs)
  string(JOIN "|" cmd "$<TARGET_FILE:satfeat_cli>" draw ${ARGN})
  set(d "")
  if(differs)
    set(d "-DDIFFERS_FROM=${differs}")
  endif()
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} "-DCMD=${cmd}" -DSATFEAT=$<TARGET_FILE:satfeat_cli>
           -DOUT=${out} -DEXPECT_SIZE=${size} ${d} -P ${CMAKE_CURRENT_LIST_DIR}/cli_draw_check.cmake)
  set_tests_properties(${name} PROPERTIES LABELS cli TIMEOUT 120)
endfunction()
satfeat_draw_test(cli_draw_keypoints ${wdir}/scene.png 640x480 ${scene}
                  ${scene} -o ${wdir}/scene.png --max 50 --backend cpu)
satfeat_draw_test(cli_draw_upright ${wdir}/upright.png 640x480 ${scene}
                  ${scene} --output=${wdir}/upright.png --upright 1 --backend cpu -q)
satfeat_draw_test(cli_draw_matches ${wdir}/pair.png 1280x480 ""
                  ${dune}/frame001.png ${dune}/frame005.png --matches -o ${wdir}/pair.png --backend cpu)
satfeat_draw_test(cli_draw_matches_h ${wdir}/pair_h.png 1280x480 ""
                  ${dune}/frame001.png ${dune}/frame005.png --matches -H ${dune}/H1to005p
                  -o ${wdir}/pair_h.png --max 100 --backend cpu)
# the summary: with -H the drawn matches correct under H (ground truth) and the others
satfeat_cli_test(cli_draw_matches_summary 0 "100 matches drawn into [^\n]*pair_s\\.png \\(1280x480\\), [0-9]+ correct under H \\(green\\) and [0-9]+ not \\(red\\)"
                 draw ${dune}/frame001.png ${dune}/frame005.png --matches -H ${dune}/H1to005p
                 -o ${wdir}/pair_s.png --max 100 --backend cpu)
satfeat_cli_test(cli_draw_summary 0 "50 of [0-9]+ keypoints of [^\n]*scene\\.png drawn into [^\n]*s\\.png \\(640x480\\)"
                 draw ${scene} -o ${wdir}/s.png --max 50 --backend cpu)
# errors
satfeat_cli_test(cli_draw_no_output 2 "draw needs -o OUT\\.png" draw ${scene})
satfeat_cli_test(cli_draw_two_without_matches 2 "two images need --matches" draw ${scene} ${scene} -o ${wdir}/x.png)
satfeat_cli_test(cli_draw_matches_one_image 2 "--matches needs IMG1 IMG2" draw ${scene} --matches -o ${wdir}/x.png)
satfeat_cli_test(cli_draw_h_without_matches 2 "-H colours matches: it needs --matches" draw ${scene} -H ${dune}/H1to005p -o ${wdir}/x.png)
satfeat_cli_test(cli_draw_bad_max 2 "--max must be an integer" draw ${scene} -o ${wdir}/x.png --max -1)
satfeat_cli_test(cli_draw_bad_image 1 "cannot load image: .*README\\.md: not a PNG, JPEG, PGM or PPM" draw ${SATFEAT_TEST_DATA_DIR}/README.md -o ${wdir}/x.png)
satfeat_cli_test(cli_draw_missing_h 1 "cannot read the homography" draw ${scene} ${scene} --matches -H ${wdir}/no-such-H -o ${wdir}/x.png)
satfeat_cli_test(cli_draw_unwritable 1 "cannot write .*/no-such-dir/x\\.png: the directory .*/no-such-dir does not exist" draw ${scene} -o ${wdir}/no-such-dir/x.png --backend cpu)
satfeat_cli_test(cli_draw_help 0 "usage: satfeat draw IMAGE -o OUT\\.png.*--matches.*example:" draw --help)
