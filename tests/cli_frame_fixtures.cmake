# cli_frame_fixtures.cmake - the frame lists and bad frames the sequence commands' tests share
# (`satfeat track`, `satfeat detect`), written into ${frames_dir} at configure time.
set(dune ${SATFEAT_TEST_DATA_DIR}/dune)
set(frames_dir ${CMAKE_CURRENT_BINARY_DIR}/cli_frames)
file(MAKE_DIRECTORY ${frames_dir})
# The first 5 dune frames as a list file with paths relative to the list (and a comment line).
file(RELATIVE_PATH rel ${frames_dir} ${dune})
file(WRITE ${frames_dir}/dune5.txt "# first five dune frames\n${rel}/frame001.png\n${rel}/frame002.png\n\n${rel}/frame003.png\n${rel}/frame004.png\n${rel}/frame005.png\n")
# A valid image of another size (8 x 8 ASCII PGM) and a file that is no image.
string(REPEAT "0 64 128 255 0 64 128 255\n" 8 rows)
file(WRITE ${frames_dir}/small.pgm "P2\n8 8\n255\n${rows}")
file(WRITE ${frames_dir}/bad.png "this is not an image\n")
# A directory whose natural order (f1, f2, f10) differs from byte order (f1, f10, f2): f10 is the
# odd-sized one, so only the natural order reports it as frame 3. notes.txt is not an image.
file(MAKE_DIRECTORY ${frames_dir}/natural)
file(COPY_FILE ${dune}/frame001.png ${frames_dir}/natural/f1.png)
file(COPY_FILE ${dune}/frame002.png ${frames_dir}/natural/f2.png)
file(COPY_FILE ${frames_dir}/small.pgm ${frames_dir}/natural/f10.pgm)
file(WRITE ${frames_dir}/natural/notes.txt "not a frame\n")

# A frame named as dune's first in another directory (two frames, one --out-dir file name).
file(MAKE_DIRECTORY ${frames_dir}/copy)
file(COPY_FILE ${dune}/frame001.png ${frames_dir}/copy/frame001.png)
