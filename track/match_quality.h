/* match_quality.h - the PROSAC quality of a descriptor match: closer descriptors are tried
 * first. One formula for the tracker and satfeat_estimate_motion_matches. */
#ifndef SATFEAT_MATCH_QUALITY_H
#define SATFEAT_MATCH_QUALITY_H

/* Keeps the quality finite for identical descriptors (distance 0) while ranking them first. */
#define SATFEAT_MATCH_QUALITY_EPS 1e-3f

/** Quality of a match at L2 descriptor distance `distance` (higher is better). */
static inline float satfeat_match_quality(float distance)
{
    return 1.0f / (distance + SATFEAT_MATCH_QUALITY_EPS);
}

#endif
