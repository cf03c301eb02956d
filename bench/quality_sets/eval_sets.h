/* eval_sets.h - the evaluation sequences: which photograph, which frame size and what each of
 * the six frames does to it (geometry and photometry). Rendered by make_sets.c; the table
 * itself is in eval_sets.c. docs/EVALUATION.md describes the sets. */
#ifndef SATFEAT_EVAL_SETS_H
#define SATFEAT_EVAL_SETS_H

#define SATFEAT_EVAL_FRAMES 6

/* One frame of a set: the camera's view of the photograph and the photometric changes. */
typedef struct satfeat_eval_frame {
    double rot_deg;   /* in-plane rotation of the photograph about the frame centre */
    double zoom;      /* > 1 magnifies (fewer photograph pixels per frame pixel) */
    double yaw_deg;   /* out-of-plane rotation of the photograph plane about the vertical axis */
    double pitch_deg; /* ... and about the horizontal axis */
    double shift_x;   /* translation of the view centre, in frame pixels at zoom 1 */
    double shift_y;
    double blur;      /* Gaussian sigma in frame pixels added to the base sigma 0.5 */
    double gain;      /* v' = 255 * gain * (v / 255)^gamma + bias, before the noise */
    double gamma;
    double bias;
    double noise;     /* sigma of the additive noise, levels */
    int jpeg_quality; /* 0: none; else the frame goes through a JPEG of this quality */
} satfeat_eval_frame;

/* One set: a name, its photograph (a file name in data/photos), frame size and its role. */
typedef struct satfeat_eval_set {
    const char *name;
    const char *photo;
    int width, height;
    int held_out; /* 1: never used to choose anything, reported on its own */
    const char *what;
    satfeat_eval_frame frames[SATFEAT_EVAL_FRAMES];
} satfeat_eval_set;

/* The table of sets and its length. */
extern const satfeat_eval_set satfeat_eval_sets[];
extern const int satfeat_eval_set_count;

#endif
