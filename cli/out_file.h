/* out_file.h - where a command's text output goes: stdout, or a file written through a
 * temporary file beside it and renamed over it only when the command succeeds, so a failed run
 * never leaves a half-written file nor destroys the one that was there. */
#ifndef SATFEAT_CLI_OUT_FILE_H
#define SATFEAT_CLI_OUT_FILE_H

#include <stdio.h>

/** An open output. */
typedef struct cli_out {
    FILE *f;          /* stdout or the temporary file; NULL when closed */
    const char *path; /* the final path, NULL for stdout */
    char *tmp_path;   /* the temporary file (malloc'd), NULL for stdout */
} cli_out;

/**
 * Opens `path` for writing (NULL: stdout) as a temporary file "PATH.tmp.XXXXXX". Prints the
 * error and returns 0 on failure (nothing to close then).
 */
int cli_out_open(cli_out *o, const char *path);

/**
 * Closes the output. With `success` and no write error, a file output is renamed over its path
 * and stdout is flushed; otherwise the temporary file is removed. Returns 1 when the output was
 * committed, 0 after printing why not (nothing printed when `success` was 0 already, nor for
 * stdout, whose failure main() reports).
 */
int cli_out_close(cli_out *o, int success);

#endif
