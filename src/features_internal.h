/* features_internal.h - how the library fills feature sets and match lists
 * (include/satfeat/features.h): size the arrays for the exact count, then write them. */
#ifndef SATFEAT_FEATURES_INTERNAL_H
#define SATFEAT_FEATURES_INTERNAL_H

#include "satfeat.h"

#include <stdint.h>

/**
 * The `satfeat_features **` convention of every producing call: a NULL *features gets a new set,
 * an existing one is emptied. ERR_ARG for a NULL features, ERR_ALLOC when a new set cannot be
 * made.
 */
satfeat_status satfeat_features_out(satfeat_features **features);

/**
 * Sizes `f` for exactly n features of `kind` found in a width x height image (growing the
 * arrays when needed, never shrinking them) and returns where to write them: *kp (n keypoints)
 * and *desc (n * kind floats; NULL for SATFEAT_DESCRIPTOR_NONE). On failure the set is empty.
 */
satfeat_status satfeat_features_prepare(satfeat_features *f, size_t n,
                                        satfeat_descriptor_kind kind, int width, int height,
                                        satfeat_keypoint **kp, float **desc);

/** Empties a set (count 0), keeping its memory; NULL is allowed. */
void satfeat_features_clear(satfeat_features *f);

/**
 * The set's stamp: a process-wide number taken anew whenever its contents may change through
 * satfeat_features_prepare, _clear, _out or _assign (0 for NULL). Equal stamps mean the same
 * contents, which lets the CUDA matcher keep a set's device copy from call to call. The rule
 * that makes this true: code that writes through the pointers of satfeat_features_prepare does
 * so before the set is next read, or prepares the set again after writing (as the tracker's
 * thinning does); nothing writes a set's arrays any other way.
 */
uint64_t satfeat_features_stamp(const satfeat_features *f);

/**
 * Marks a set as one matched again and again as a query while other query sets come and go (an
 * AR session's joint set of its lost targets): the CUDA matcher keeps its device copy in a slot
 * of its own, which the other query sets do not overwrite. Only where the copy lives changes,
 * never a match. New sets are not kept.
 */
void satfeat_features_set_kept(satfeat_features *f, int kept);

/** Whether satfeat_features_set_kept marked the set (0 for NULL). */
int satfeat_features_kept(const satfeat_features *f);

/** The `satfeat_matches **` convention, as satfeat_features_out. */
satfeat_status satfeat_matches_out(satfeat_matches **matches);

/** Sizes `m` for exactly n matches and returns where to write them (on failure it is empty). */
satfeat_status satfeat_matches_prepare(satfeat_matches *m, size_t n, satfeat_match_pair **data);

#endif
