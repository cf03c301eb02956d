/* detect_options.h - the detector flags shared by `satfeat detect` and `satfeat eval`, and the
 * helper that loads an image and runs the detector on it. */
#ifndef SATFEAT_CLI_DETECT_OPTIONS_H
#define SATFEAT_CLI_DETECT_OPTIONS_H

#include "satfeat.h"

#include <stdio.h>

typedef struct cli_detect_options {
    satfeat_backend backend;
    int threads;                    /* 0 = OpenMP default */
    int repeat;                     /* timed runs after one warm-up (0 = one untimed run) */
    int descriptors;                /* --descriptors: print descriptors (satfeat detect) */
    size_t memory_limit;            /* --memory-limit bytes, 0 = the library's default */
    satfeat_detector_params params;
} cli_detect_options;

/** Sets the defaults: backend auto, default threads, no timing, default detector parameters. */
void cli_detect_options_init(cli_detect_options *o);

/**
 * Consumes argv[*i] (and its value) when it is a detector flag: returns 1 when consumed, 0 when
 * it is not one, -1 after printing an error for a bad or missing value.
 */
int cli_detect_option(int argc, char **argv, int *i, cli_detect_options *o);

/**
 * A subcommand's own flags: like cli_detect_option, consumes argv[*i] (and its value) and returns
 * 1, returns 0 when it is not one of them, -1 after printing an error.
 */
typedef int (*cli_extra_option_fn)(int argc, char **argv, int *i, void *user);

/**
 * Parses a detector subcommand's command line: the detector flags into `o`, the subcommand's own
 * flags through `extra` (may be NULL) with `user`, up to `max_files` positional arguments into
 * `files` (*nfiles of them), --help through `help`. Returns -1 to go on, else the exit code
 * (CLI_EXIT_OK after help; CLI_EXIT_USAGE after printing the error, `too_many` when more than
 * `max_files` positionals are given).
 */
int cli_detect_parse(int argc, char **argv, cli_detect_options *o, const char **files,
                     int max_files, int *nfiles, const char *too_many, void (*help)(FILE *),
                     cli_extra_option_fn extra, void *user);

/**
 * cli_detect_parse for a bench subcommand of one IMAGE: also refuses a missing image (help on
 * stderr) and --descriptors with --descriptor none. Returns -1 to go on, else the exit code.
 */
int cli_bench_parse(int argc, char **argv, cli_detect_options *o, const char **image,
                    void (*help)(FILE *), cli_extra_option_fn extra, void *user);

/** Prints the help text of the detector flags with the library's detector defaults. */
void cli_detect_options_help(FILE *out);

/** Prints the help text of the detector flags, each default taken from `defaults` (a command
 * whose defaults differ from the library's detector defaults, as the tracker's). */
void cli_detect_options_help_defaults(FILE *out, const satfeat_detector_params *defaults);

/** Keypoints of one image, with the image size and the median detection time. */
typedef struct cli_detection {
    satfeat_features *features; /* the set the library filled (owned) */
    const satfeat_keypoint *kp; /* its keypoints */
    const float *desc;          /* its descriptors, n x dim floats; NULL when dim is 0 */
    int dim;              /* floats per descriptor: 0 when none were asked for */
    size_t n;
    int width, height;
    double median_ms;     /* 0 without --repeat */
} cli_detection;

/** 1 when the two feature sets hold the same keypoints and descriptors, bit for bit. */
int cli_same_features(const satfeat_features *a, const satfeat_features *b);

/**
 * Creates a context on the options' backend with their thread count and memory limit; prints the error and
 * returns 0 on failure (*ctx NULL then), else 1.
 */
int cli_context_new(const cli_detect_options *o, satfeat_ctx **ctx);

/**
 * Loads `path` as 8-bit gray and detects keypoints with the options, and their descriptors when
 * `want_descriptors` is set and the options' descriptor is not none; prints the error and returns
 * CLI_EXIT_FAILURE on failure, else CLI_EXIT_OK with `out` filled (free with cli_detection_free).
 */
int cli_detect_file(const cli_detect_options *o, const char *path, int want_descriptors,
                    cli_detection *out);

/**
 * Fills *out (created when NULL; the caller deletes it) with a copy of the detection's keypoints
 * and descriptors and its image size: what the match and eval commands hand the library. Prints
 * the error and returns 0 on failure, else 1 (detection_set.c).
 */
int cli_detection_set(satfeat_ctx *ctx, const cli_detection *d, satfeat_features **out);

/**
 * Prints the matching evaluation (satfeat_eval_matching on `ctx`) of two feature sets with
 * descriptors under h: visible, matches, correct, precision, matching_score lines. Returns an
 * exit code (cmd_eval.c).
 */
int cli_print_matching_eval(satfeat_ctx *ctx, const satfeat_features *f1,
                            const satfeat_features *f2, const double h[9]);

/** Frees what cli_detect_file allocated (safe on a zeroed or already freed detection). */
void cli_detection_free(cli_detection *d);

#endif
