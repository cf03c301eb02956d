/* out_file.h - every file the CLI writes (-o, --out-dir files, --csv, and the guard around the
 * library's PNG writer): a regular file is replaced only by a complete new one, anything else is
 * written in place, and every check that can fail runs before the work.
 *
 * The rules are the library's (src/file_replace.c, behind satfeat_image_write_png/pnm): a
 * regular file, new or existing, is written to "<target>.<pid>-<n>.tmp" in its directory and
 * renamed over it on success, keeping an existing file's permission bits (a new file gets 0666
 * less the umask); a symbolic link is followed and its final target replaced, the link kept; a
 * device, a FIFO, or a path through /proc or /dev/fd (as /dev/stdout) is written in place,
 * never truncated nor replaced (/dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N through
 * a dup of that descriptor, so a `>>` redirection keeps appending). The CLI keeps its own copy of these few rules rather
 * than the library exporting satfeat_replace_*: the public header would gain FILE*-based
 * plumbing that no application needs, and only the CLI may install signal handlers (the
 * library never does), which the temporary names must be registered with (out_cleanup.h). */
#ifndef SATFEAT_CLI_OUT_FILE_H
#define SATFEAT_CLI_OUT_FILE_H

#include <stdio.h>

/** The help paragraph on output files and names in outputs (detect and track print it). */
#define CLI_OUTPUT_HELP                                                                        \
    "Output files (-o, --out-dir, --draw, --csv): a regular file, new or existing, is\n"       \
    "written to FILE.PID-N.tmp beside it and renamed over it only when the command\n"         \
    "succeeds, keeping an existing file's permission bits (a new file: 0666 less the\n"       \
    "umask); a symbolic link is followed and kept; a device, a FIFO or /dev/stdout is\n"      \
    "written in place. A missing or unwritable directory, -o naming a directory or\n"        \
    "--out-dir/--draw naming a file are refused before any work; SIGINT, SIGTERM and\n"       \
    "SIGHUP remove the temporary files. Frame names in text and CSV output are C-escaped\n"  \
    "(\\\\ \\n \\r \\t, other control bytes \\xHH), so a name never starts a line; in JSON,\n"   \
    "bytes that are not UTF-8 are written \\udcXX (XX the byte: Python's surrogateescape).\n"

/** An open output. */
typedef struct cli_out {
    FILE *f;          /* stdout, the temporary file or the target opened in place; NULL closed */
    const char *path; /* the path as given, NULL for stdout */
    char *target;     /* the file written (a link's final target), malloc'd; NULL for stdout */
    char *tmp_path;   /* the temporary file (malloc'd), NULL for stdout or in place */
    int cleanup_slot; /* out_cleanup.h slot of tmp_path, -1 without */
} cli_out;

/**
 * Checks, before any work, that `path` can be written as a file: not a directory, not a
 * dangling link, and for a regular or new file an existing writable directory to hold the
 * temporary file; a device or FIFO must be writable. Prints "satfeat: cannot write PATH: why"
 * and returns 0 when not.
 */
int cli_out_check(const char *path);

/**
 * Checks, before any work, that `dir` is a writable directory, creating it (one level, mode 0777
 * less the umask) when `create` is set and it does not exist. `what` names the option in
 * messages ("--out-dir"). Prints the error and returns 0 on failure.
 */
int cli_out_dir_ready(const char *dir, const char *what, int create);

/**
 * Opens `path` for writing (NULL: stdout) by the rules above; the temporary file is registered
 * for removal on SIGINT/SIGTERM/SIGHUP. Prints the error and returns 0 on failure (nothing to
 * close then).
 */
int cli_out_open(cli_out *o, const char *path);

/**
 * Closes the output. With `success` and no write error, a temporary file is renamed over its
 * target and stdout is flushed; otherwise the temporary file is removed (never the target).
 * Returns 1 when the output was committed, 0 after printing why not (nothing printed when
 * `success` was 0 already, nor for stdout, whose failure main() reports).
 */
int cli_out_close(cli_out *o, int success);

/**
 * Before satfeat_image_write_png(path): registers the temporary name the library will use
 * first ("<target>.<pid>-0.tmp", when that name is free now) for removal on a signal. Returns
 * the slot to pass to cli_out_guard_end (-1 when there is nothing to guard).
 */
int cli_out_guard_begin(const char *path);

/** After the library's write: forgets the slot from cli_out_guard_begin. */
void cli_out_guard_end(int slot);

#endif
