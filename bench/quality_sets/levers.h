/* levers.h - descriptor levers measured without changing the library (docs/EVALUATION.md,
 * "Levers measured"): the orientation and the descriptor of every detected keypoint recomputed
 * from the image with the library's own per-sample header code (describe/orientation.h,
 * describe/descriptor.h), with a variant of the orientation, extra orientations per keypoint
 * and a variant of the normalisation. With every lever off the recomputed values equal the
 * library's bit for bit (checked on every image; a mismatch is reported). */
#ifndef SATFEAT_EV_LEVERS_H
#define SATFEAT_EV_LEVERS_H

#include "features.h"

#include <stdint.h>

/* The library's bin count (describe/describe_weights.h) and refinements (orientation.h). */
#define SATFEAT_EV_LEVER_BINS 72
#define SATFEAT_EV_LEVER_REFINE 1

typedef struct satfeat_ev_levers {
    int active;      /* 0: nothing is recomputed */
    int bins;        /* orientation bins (72 = the library), window = bins / 6 */
    int refine;      /* iterations of the centred window (satfeat_ori_refine: the samples within
                        30 degrees of the current angle, summed) after the best window; the
                        library does 1 (0 with orientation_refine 0) */
    double multi;    /* > 0: a second orientation for every window local maximum whose length
                        is at least this fraction of the best one's, more than `sep` radians
                        away from it (a keypoint copy each) */
    double sep;
    double clip;     /* > 0: unit L2, components clipped to [-clip, clip], unit L2 again */
    int hist;        /* 8: a gradient-histogram descriptor (dim 128) from the same Haar samples:
                        8 direction bins per subregion, magnitude-weighted, linear in angle */
    double dwin;     /* > 0: descriptor sample spacing (and window) times dwin */
    double dhaar;    /* > 0: descriptor Haar side in units of the spacing (the library:
                        descriptor_haar, 4; 3 before 2026-11-29) */
    double ohaar;    /* > 0: orientation Haar side in units of sigma (the library:
                        orientation_haar, 4; 3 before 2026-11-29) */
    int cat;         /* with hist: the SURF-64 sums followed by the histograms (dim 192) */
    double rfd;      /* > 0: rotated finite differences: each sample's (rx, ry) is the difference
                        of two box sums rfd grid steps (of s) before and after it along the
                        rotated axes, instead of an axis-aligned Haar pair turned by the angle */
    double rbox;     /* with rfd: the box's half side in units of s (default 1) */
    double oscharr;  /* > 0: each orientation sample's (dx, dy) from a 3 x 3 grid of box sums
                        (spacing oscharr x s, box side the spacing) with Scharr's weights
                        (3, 10, 3), instead of a Haar pair */
    int ostep;       /* 2: only the orientation samples on the grid of step s (even offsets in
                        units of s/2), about a quarter of them (what the Scharr filter samples
                        anyway) */
    int target;      /* image 1 keeps its `target` strongest entries, copies included */
    int root;        /* the library's normalisation: 1 root (its default), 0 unit L2; clip
                        works on the unit L2 vector, the root normalisation then follows */
    int haar;        /* the library's descriptor_haar (the Haar side the plain recomputation uses) */
    int ohaar_lib;   /* the library's orientation_haar (the same for the orientation) */
    int filter_lib;  /* the library's orientation filter (SATFEAT_ORI_FILTER_SCHARR or _HAAR of
                        describe/describe_weights.h) */
} satfeat_ev_levers;

/* Parses "name=value" lever settings into l (bins, refine, multi, sep, clip, hist, cat, dwin,
 * dhaar, ohaar, rfd, rbox, oscharr, ostep); 0 on success. */
int satfeat_ev_levers_parse(satfeat_ev_levers *l, const char *spec);

/* Recomputes f's angles and descriptors (float, dim 64) from the 8-bit image; first_image: cap
 * the result at l->target entries (copies follow their keypoint, the list stays sorted by
 * response). Returns 0 on success; prints a warning when the plain recomputation (every lever
 * off) differs from the library's values. */
int satfeat_ev_levers_apply(const satfeat_ev_levers *l, const uint8_t *img, int width,
                            int height, int first_image, satfeat_ev_features *f);

#endif
