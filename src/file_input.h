/* file_input.h - opening a file the library reads: never blocks on a FIFO or a device, and
 * refuses anything that is not a regular file with a message that says what it is. */
#ifndef SATFEAT_FILE_INPUT_H
#define SATFEAT_FILE_INPUT_H

#include "src/context_internal.h"

#include <stdio.h>

/**
 * Opens `path` for binary reading. The open itself is non-blocking (O_NONBLOCK), so a FIFO
 * without a writer or a device that waits for data cannot hang the caller; the descriptor is
 * then fstat'ed and anything but a regular file (a FIFO, a character or block device, a socket,
 * a directory) is refused with SATFEAT_ERR_IO "<what>: <path>: is a <kind>, not a regular file".
 * `what` names the reader in messages (e.g. "image", "homography"). On success *out is a stream
 * positioned at offset 0 in blocking mode; the caller fcloses it.
 */
satfeat_status satfeat_open_input(satfeat_ctx *ctx, const char *what, const char *path,
                                  FILE **out);

/** Names the kind of file a stat mode describes ("FIFO", "directory", ...). */
const char *satfeat_file_kind(unsigned mode);

#endif
