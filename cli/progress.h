/* progress.h - the progress line of a sequence command on stderr: frames done of total, frames
 * per second and the estimated time left, redrawn in place at most every 0.2 s; only when stderr
 * is a terminal (nothing goes to a file or pipe). */
#ifndef SATFEAT_CLI_PROGRESS_H
#define SATFEAT_CLI_PROGRESS_H

#include <stddef.h>

typedef struct cli_progress {
    int on;              /* stderr is a terminal and not -q */
    size_t total;
    double start_ms, last_ms;
    int drawn;           /* a line is on the screen (erased before other diagnostics) */
} cli_progress;

/** Starts a progress line for `total` frames (0: unknown, shown without a total or ETA); on only
 * when `enabled` and stderr is a terminal. */
void cli_progress_start(cli_progress *p, size_t total, int enabled);

/** Reports `done` frames finished (redrawn when 0.2 s passed since the last draw, or at the end). */
void cli_progress_update(cli_progress *p, size_t done);

/** Erases the line so that a diagnostic can be printed; the next update redraws it. */
void cli_progress_clear(cli_progress *p);

/** Ends the line with a newline when one is drawn. */
void cli_progress_finish(cli_progress *p);

#endif
