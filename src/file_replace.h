/* file_replace.h - writing a file so that a failed write never loses what was there: the data
 * goes to a new file in the target's directory, renamed over the target only on success. */
#ifndef SATFEAT_FILE_REPLACE_H
#define SATFEAT_FILE_REPLACE_H

#include "src/context_internal.h"

#include <stdio.h>

/** One file being written; filled by satfeat_replace_open, finished by satfeat_replace_close. */
typedef struct satfeat_replace {
    FILE *file;        /* where the data goes: the temporary file, or the target itself */
    char *target;      /* the path renamed over (a symbolic link's final target), malloc'd */
    char *temp;        /* the temporary file's path, malloc'd; NULL when writing in place */
} satfeat_replace;

/**
 * Opens `path` for writing. A regular file (or a path that does not exist yet) is written
 * through a new temporary file "<target>.<pid>-<n>.tmp" created exclusively in the same
 * directory, with an existing file's permission bits (a new file: 0666 less the umask); a
 * symbolic link is followed to its final target so the link stays. Anything else that exists
 * (a device, a FIFO) and a path through /proc or /dev/fd (as /dev/stdout) is written in place,
 * never truncated by a rename. Failure: SATFEAT_ERR_IO with the reason, nothing created or changed.
 */
satfeat_status satfeat_replace_open(satfeat_ctx *ctx, const char *path, satfeat_replace *out);

/**
 * Finishes a write: `ok` 1 when every write succeeded. Flushes and closes the file; then, on
 * success, renames the temporary file over the target; on any failure removes the temporary
 * file (never the target) and returns SATFEAT_ERR_IO with "<path>: <what> failed: <reason>"
 * (`what` names the writer, e.g. "PNG write"; `reason` may be NULL for the errno text).
 */
satfeat_status satfeat_replace_close(satfeat_ctx *ctx, const char *path, satfeat_replace *w,
                                     int ok, const char *what, const char *reason);

#endif
