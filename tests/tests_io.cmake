# Image I/O: PNG/PGM/PPM round trips, gray conversion, malformed files, API misuse.
satfeat_add_test(test_image_io test_image_io.c)
