/* twin.h - a detector's twin: a detector with the same parameters and maximum frame (or sized
 * by its frames, as the original) on a context of its own on the same device. Its frames have
 * their own device state (table, candidate lists, graphs and the event that chains a
 * detector's frames), so they run beside the original's instead of after them. Batch lanes and
 * sequence lanes are twins (on detectors whose frames overlap: satfeat_detector_overlaps). */
#ifndef SATFEAT_TWIN_H
#define SATFEAT_TWIN_H

#include "detect/detect.h"

/** A twin: its own context and the detector on it. */
typedef struct satfeat_fh_twin {
    satfeat_ctx *ctx;
    satfeat_detector *det;
} satfeat_fh_twin;

/**
 * Creates a twin of `det` whose context uses `threads` host threads and det's context's memory
 * limit. On failure the reason goes to det's context, prefixed by `who`, and *out is left empty.
 */
satfeat_status satfeat_fh_twin_new(satfeat_detector *det, int threads, const char *who,
                                   satfeat_fh_twin *out);

/** Frees a twin (its detector waits for its queued work first); an empty one is fine. */
void satfeat_fh_twin_free(satfeat_fh_twin *t);

/**
 * `st` from a call on twin `t` as a status of `ctx`: OK stays OK, anything else is reported on
 * `ctx` with the twin's message, prefixed by `who`.
 */
satfeat_status satfeat_fh_twin_status(satfeat_ctx *ctx, const satfeat_fh_twin *t, const char *who,
                                      satfeat_status st);

#endif
