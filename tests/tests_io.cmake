# Image I/O: PNG/PGM/PPM round trips, gray conversion, malformed files, API misuse.
satfeat_add_test(test_image_io test_image_io.c)

# data/scene.png (rendered by tools/gen_scene.c). Its SAT checksum and pixel sum, as defined by
# `satfeat sat --help`, were computed independently by tools/sat_checksum_reference.py (its own
# PNG decoder, table and hash); the CLI tests in tests_cli.cmake use the same values.
set(SATFEAT_SCENE_U32_FNV "1c9808eca24fd2e4")
set(SATFEAT_SCENE_F32_FNV "393e0c11c087a86e")
set(SATFEAT_SCENE_PIXEL_SUM 41058234)
satfeat_add_test(test_scene test_scene.c)
target_compile_definitions(test_scene PRIVATE SATFEAT_SCENE_U32_FNV=0x${SATFEAT_SCENE_U32_FNV}ull
                           SATFEAT_SCENE_PIXEL_SUM=${SATFEAT_SCENE_PIXEL_SUM}u)

# Hostile files and failing writes (issue 16): streaming, true sizes, the memory limit, writes
# that never lose the existing file, errno texts.
satfeat_add_test(test_io_hardening test_io_hardening.c png_testutil.c)

# The library builds errno messages with strerror_r only (strerror is not thread-safe).
add_test(NAME no_strerror COMMAND ${CMAKE_COMMAND} -DROOT=${PROJECT_SOURCE_DIR}
         -P ${CMAKE_CURRENT_LIST_DIR}/no_strerror_check.cmake)

# Readers refuse FIFOs and directories at once, with a message naming them (never block).
satfeat_add_test(test_input_files test_input_files.c)

# JPEG reading (issue 34): files made at test time by libjpeg-turbo's encoder, checked against
# its own decoder and against `djpeg -grayscale` (skipped without libjpeg-turbo-progs).
satfeat_add_test(test_image_jpeg test_image_jpeg.c jpeg_testutil.c)

# A colour JPEG of an image and the PGM of libjpeg's own gray decode of it: the CLI and Python
# JPEG tests compare satfeat's reading of the one with the other.
add_executable(satfeat_test_jpeg_fixture jpeg_fixture.c jpeg_testutil.c)
target_link_libraries(satfeat_test_jpeg_fixture PRIVATE satfeat_static)
target_compile_options(satfeat_test_jpeg_fixture PRIVATE ${SATFEAT_C_FLAGS})
if(TARGET satfeat_cli)
  add_test(NAME cli_detect_jpeg COMMAND ${CMAKE_COMMAND} -DSATFEAT=$<TARGET_FILE:satfeat_cli>
           -DFIXTURE=$<TARGET_FILE:satfeat_test_jpeg_fixture> -DSRC=${SATFEAT_TEST_DATA_DIR}/scene.png
           -DDIR=${CMAKE_CURRENT_BINARY_DIR}/cli_jpeg -P ${CMAKE_CURRENT_LIST_DIR}/cli_jpeg_check.cmake)
  set_tests_properties(cli_detect_jpeg PROPERTIES LABELS cli TIMEOUT 300)
endif()
