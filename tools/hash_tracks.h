/* hash_tracks.h - the match, motion, evaluation and tracker cases of satfeat_hash_outputs. */
#ifndef SATFEAT_TOOLS_HASH_TRACKS_H
#define SATFEAT_TOOLS_HASH_TRACKS_H

#include "satfeat.h"

#include <stdint.h>

/**
 * Hashes matches (three parameter sets, guided included), the homography estimated from them,
 * the matching and repeatability scores of image pairs of the sequence in `dune_dir` and of the
 * Oxford boat images in `boat_dir` (skipped when absent), and every track and frame motion of
 * the tracker over both sequences (frame by frame and with frames in flight). Each digest goes
 * to report(name, digest). Returns 0, or 1 after printing why.
 */
int satfeat_hash_match_track_cases(satfeat_ctx *ctx, const char *dune_dir, const char *boat_dir,
                                   void (*report)(const char *name, uint64_t digest));

#endif
