/* fuzz_file.h - the fuzz harnesses' one helper: the library reads images from paths, so each
 * input is written to a file of this process first. */
#ifndef SATFEAT_FUZZ_FILE_H
#define SATFEAT_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/**
 * Writes `prefix` (may be NULL) then `data` to this process's scratch file ($TMPDIR or /tmp,
 * named after the harness and the process id) and returns its path (static storage), or NULL
 * when the file cannot be written.
 */
const char *fuzz_file_write(const char *harness, const char *prefix, size_t prefix_len,
                            const uint8_t *data, size_t size);

#endif
