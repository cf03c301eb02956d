/* frame_list.h - the frames of a sequence command (`satfeat detect`, `satfeat track`): the
 * arguments in order, a directory's images in natural name order, or a list file of paths. */
#ifndef SATFEAT_CLI_FRAME_LIST_H
#define SATFEAT_CLI_FRAME_LIST_H

#include <stddef.h>

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
 * natural name order; one argument
 * ending in .txt gives the paths of that list file (one a line; blank lines and lines starting
 * with '#' skipped; relative paths taken relative to the list file's directory); otherwise the
 * arguments are the frames in order. Prints the error and returns 0 on failure.
 */
int cli_frame_list_build(cli_frame_list *list, const char *const *args, int nargs);

/** Frees the paths and the array (safe on a zeroed list). */
void cli_frame_list_free(cli_frame_list *list);

#endif
