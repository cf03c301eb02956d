/* ar_cli.h - `satfeat ar`: its options (ar_options.c) and the command (cmd_ar.c). */
#ifndef SATFEAT_CLI_AR_CLI_H
#define SATFEAT_CLI_AR_CLI_H

#include "commands.h"
#include "frame_source.h"

/** Most --target options (the session's limit). */
#define CLI_AR_MAX_TARGETS 64

/** The ar flags. */
typedef struct cli_ar_options {
    const char *targets[CLI_AR_MAX_TARGETS]; /* --target paths */
    double widths[CLI_AR_MAX_TARGETS];       /* their --target-width (NaN until given) */
    int n_targets;
    satfeat_ar_camera camera; /* --camera and --distortion */
    int has_camera;           /* --camera given */
    double fov;               /* --fov degrees, 0 = not given */
    int photometric;          /* --photometric 0|1 (satfeat_ar_params.photometric) */
    const char *output;       /* -o FILE, NULL = stdout */
    const char *draw;         /* --draw DIR, NULL = no drawing */
    int keep_going, quiet;    /* --keep-going, -q */
    cli_video_range range;    /* --start --frames --step of a video */
} cli_ar_options;

/** Prints `satfeat ar --help`. */
void cli_ar_help(FILE *out);

/** The ar flags (a cli_extra_option_fn; user is the cli_ar_options). */
int cli_ar_option(int argc, char **argv, int *i, void *user);

/** Checks the flags' combination after parsing (targets with widths, one camera); prints the
 * error and returns 0 when it is wrong. */
int cli_ar_check(const cli_ar_options *a);

#endif
