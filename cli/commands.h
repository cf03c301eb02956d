/* commands.h - the satfeat CLI's subcommands (one file each) and their shared helpers. */
#ifndef SATFEAT_CLI_COMMANDS_H
#define SATFEAT_CLI_COMMANDS_H

#include "satfeat.h"

#include <stddef.h>
#include <stdio.h>

/** A subcommand: argv[0] is the subcommand's name; returns the process exit code. */
typedef int (*cli_command_fn)(int argc, char **argv);

/* Exit codes shared by every subcommand. */
#define CLI_EXIT_OK 0
#define CLI_EXIT_FAILURE 1 /* the work failed (I/O, format, CUDA...) */
#define CLI_EXIT_USAGE 2   /* bad command line */

/**
 * Parses a whole decimal int in [lo, hi] strictly ([-]digits: no blanks, '+', hex or junk);
 * prints an error naming `what` and returns 0 on failure (cli_number.c).
 */
int cli_parse_int(const char *text, int lo, int hi, const char *what, int *out);

/**
 * Parses a finite decimal double in [lo, hi] strictly ([-]digits[.digits][e[-+]digits]: no
 * blanks, '+', hex, inf or nan); prints an error naming `what` and returns 0 on failure.
 */
int cli_parse_double(const char *text, double lo, double hi, const char *what, double *out);

/**
 * Parses a --memory-limit value: decimal bytes with an optional K, M, G or T suffix (powers of
 * 1024, either case), above 0 and fitting a size_t. Prints an error and returns 0 on failure.
 */
int cli_parse_memory_limit(const char *text, size_t *out);

/** The help line of --memory-limit, shared by every command that takes it. */
#define CLI_MEMORY_LIMIT_HELP                                                                  \
    "  --memory-limit N    host memory one read or detector may ask for, in bytes with an\n" \
    "                      optional K, M, G or T suffix (powers of 1024); larger files and\n" \
    "                      frames are refused (default: half the physical memory)\n"

/**
 * Applies --memory-limit to a new context (nothing when `bytes` is 0); prints the error and
 * returns 0 on failure.
 */
int cli_apply_memory_limit(satfeat_ctx *ctx, size_t bytes);

/** Most devices --devices takes. */
#define CLI_MAX_DEVICES 64

/** Parses --devices: "all" (*n = 0) or a comma-separated list of distinct device ordinals in
 * [0, 1023], at most `max`. Prints a usage error and returns 0 when it is anything else. */
int cli_parse_devices(const char *text, int *devices, int max, int *n);

/** --threads may ask for at most this many threads per online core. */
#define CLI_THREADS_PER_CORE 4

/** The largest --threads value: CLI_THREADS_PER_CORE x the online cores. */
int cli_max_threads(void);

/**
 * Parses a --threads value strictly: 0 (the OpenMP default) .. cli_max_threads(); prints an
 * error naming the cap and returns 0 on failure.
 */
int cli_parse_threads(const char *text, int *out);

/**
 * Ends the process's use of stdout: flushes and closes it and returns `rc`, or after printing
 * "cannot write to standard output" CLI_EXIT_FAILURE when any write to it failed (main.c calls
 * it once after every command, --help and --version included).
 */
int cli_close_stdout(int rc);

/**
 * Matches argv[*i] against "--name VALUE" or "--name=VALUE": on a match stores the value, moves
 * *i past it and returns 1; returns -1 (after printing why) when the value is missing, 0 when
 * argv[*i] is another argument.
 */
int cli_option_value(int argc, char **argv, int *i, const char *name, const char **value);

/**
 * The optimal-string-alignment distance of two words: insertions, deletions, substitutions and
 * swaps of two neighbouring characters, one edit each; (size_t)-1 for words over 64 characters
 * (cli_suggest.c).
 */
size_t cli_edit_distance(const char *a, const char *b);

/**
 * The name of `names[0..n)` nearest to `word` when it is close enough to be a typo of it (one
 * edit for words of 3-4 letters, two from 5 letters, none shorter; dashes not counted), else
 * NULL. The result lives in a static buffer until the next call.
 */
const char *cli_nearest_name(const char *word, const char *const *names, size_t n);

/**
 * Prints "satfeat: <who>unknown option 'ARG'" to stderr, followed by "; did you mean --x?" when an
 * option named in the command's help text (printed by `help`) is within typo distance of ARG (its
 * part before '=').
 */
void cli_unknown_option(const char *who, const char *arg, void (*help)(FILE *));

/**
 * Parses a value in (0, 1] (a ratio or a fraction) strictly; prints "<what> must be a number in
 * (0, 1], got '<text>'" and returns 0 on failure.
 */
int cli_parse_fraction(const char *text, const char *what, double *out);

/** Parses "auto", "cpu" or "cuda"; prints an error and returns 0 on anything else. */
int cli_parse_backend(const char *text, satfeat_backend *out);

/** Prints "satfeat: <what>: <status text>: <context message>" to stderr. */
void cli_report(const char *what, satfeat_status st, const satfeat_ctx *ctx);

/** Prints the --version text: version, CUDA build, devices found (cli_version.c). */
void cli_print_version(FILE *out);

/** Milliseconds of a monotonic clock since an arbitrary origin (cli_time.c). */
double cli_now_ms(void);

/** Sorts v[0..n-1] ascending and returns its median (the mean of the middle two for even n). */
double cli_median(double *v, int n);

/** `satfeat sat IMAGE ...`: summed area table of an image, checksum and timing (cmd_sat.c). */
int cli_cmd_sat(int argc, char **argv);

/** `satfeat detect FRAME... | DIR | LIST.txt`: keypoints of an image or a sequence in one of four
 * formats (cmd_detect.c). */
int cli_cmd_detect(int argc, char **argv);

/** `satfeat draw IMAGE -o OUT.png` / `draw IMG1 IMG2 --matches`: keypoints or matches as a PNG
 * (cmd_draw.c). */
int cli_cmd_draw(int argc, char **argv);

/** `satfeat eval IMG1 IMG2 H ...`: detector repeatability under a homography (cmd_eval.c). */
int cli_cmd_eval(int argc, char **argv);

/** `satfeat match IMG1 IMG2 [-H FILE] ...`: descriptor matches of two images (cmd_match.c). */
int cli_cmd_match(int argc, char **argv);

/** `satfeat track FRAME... | DIR | LIST.txt ...`: feature tracks over a sequence (cmd_track.c). */
int cli_cmd_track(int argc, char **argv);

/** `satfeat ar --target REF --target-width M ... FRAME... | DIR | LIST.txt | VIDEO`: known
 *  planar targets and the camera's pose per frame (cmd_ar.c). */
int cli_cmd_ar(int argc, char **argv);

/** `satfeat bench sat ...`: GPU SAT timings against the copy floor (cmd_bench_sat.c). */
int cli_cmd_bench(int argc, char **argv);

/** `satfeat bench batch IMAGE`: frames per second one at a time, through a sequence and in
 *  batch calls (cmd_bench_batch.c). */
int cli_cmd_bench_batch(int argc, char **argv);

/** `satfeat bench detect IMAGE ...`: CUDA detector timings and CPU comparison (cmd_bench_detect.c). */
int cli_cmd_bench_detect(int argc, char **argv);

#endif
