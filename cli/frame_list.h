/* frame_list.h - the frames of a sequence command (`satfeat detect`, `satfeat track`): the
 * arguments in order, a directory's images in natural name order, or a list file of paths. */
#ifndef SATFEAT_CLI_FRAME_LIST_H
#define SATFEAT_CLI_FRAME_LIST_H

#include <stddef.h>

/** The help paragraph on list files and non-regular inputs (detect and track print it). */
#define CLI_LIST_FILE_HELP                                                                     \
    "List files: one frame path a line, relative to the list file; blanks around a line\n"     \
    "are dropped, empty lines and lines starting with '#' skipped. A line starting with '\"'\n" \
    "is a C-style quoted name, for names with leading or trailing spaces, a leading '#' or\n" \
    "control bytes: escapes \\\\ \\\" \\n \\r \\t \\xHH, nothing but blanks after the closing\n"     \
    "quote. A list file that is a FIFO or a device is refused; a directory's FIFOs and\n"      \
    "devices are skipped with a warning; a frame that is one is a bad frame (--keep-going\n"   \
    "skips it).\n"

/** A list of frame paths (each malloc'd). */
typedef struct cli_frame_list {
    char **paths;
    size_t n, cap;
} cli_frame_list;

/**
 * Compares two names in natural order: runs of digits compare by their numeric value (leading
 * zeros ignored, then the shorter run first on equal values), everything else byte by byte, so
 * "frame2" < "frame10". Returns <0, 0 or >0 like strcmp.
 */
int cli_natural_compare(const char *a, const char *b);

/**
 * Fills `list` from the positional arguments: one argument naming a directory gives its image
 * files (.png .jpg .jpeg .pgm .ppm .pnm, any case; hidden files and other names skipped) in
 * natural name order; one argument ending in .txt gives the paths of that list file
 * (cli_list_line; relative paths taken relative to the list file's directory); otherwise the
 * arguments are the frames in order. A directory member or list file that is not a regular file
 * (a FIFO, a device) is never opened for reading: a list file is refused, a directory member
 * skipped with a warning. Prints the error and returns 0 on failure.
 */
int cli_frame_list_build(cli_frame_list *list, const char *const *args, int nargs);

/**
 * One line of a list file (`len` bytes, a trailing newline allowed) into `out` (`cap` bytes).
 * Blanks around the line are dropped; an empty line or one starting with '#' names nothing.
 * A line whose first non-blank is '"' is a C-style quoted name, so leading and trailing spaces,
 * '#' and line breaks can be part of a name: escapes \\ \" \n \r \t and \xHH (not \x00),
 * nothing but blanks after the closing quote. Returns 1 with a name, 0 for no name, -1 with
 * *why set when the line is malformed.
 */
int cli_list_line(const char *line, size_t len, char *out, size_t cap, const char **why);

/** Frees the paths and the array (safe on a zeroed list). */
void cli_frame_list_free(cli_frame_list *list);

#endif
