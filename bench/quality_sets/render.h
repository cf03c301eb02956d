/* render.h - resampling and degradation of one evaluation frame (make_sets.c), and the sampling,
 * blur and noise helpers that tools/gen_sequence.c renders its sequences with. */
#ifndef SATFEAT_EVAL_RENDER_H
#define SATFEAT_EVAL_RENDER_H

#include <stdint.h>

/* What happens to a frame after the geometric resampling, in this order. */
typedef struct satfeat_render_params {
    double blur;      /* Gaussian sigma in frame pixels (0: none) */
    double gain, gamma, bias; /* v' = 255 * gain * (v / 255)^gamma + bias */
    double noise;     /* additive noise sigma, levels (0: none) */
    int jpeg_quality; /* 0: none, else 1..100 */
    uint64_t seed;    /* the noise PRNG's seed */
} satfeat_render_params;

/* c = a * b for row-major 3x3 matrices. */
void satfeat_render_mat_mul(const double a[9], const double b[9], double c[9]);

/* out = m^-1 by cofactors; returns 0 when m is singular. */
int satfeat_render_mat_inv(const double m[9], double out[9]);

/* Maps (x, y) through h; returns 0 when the point lies on or behind the horizon. */
int satfeat_render_apply(const double h[9], double x, double y, double *ox, double *oy);

/* Bilinear sample at (x, y), pixel centres at integers, coordinates clamped to the image. */
double satfeat_render_bilinear(const uint8_t *src, int sw, int sh, double x, double y);

/* Separable Gaussian blur of sigma (pixels) in place, kernel radius ceil(radius_sigmas * sigma),
 * borders replicated; sigma <= 0 leaves img alone. Returns 0 on success, 1 when out of memory. */
int satfeat_render_gaussian_blur(double *img, int w, int h, double sigma, double radius_sigmas);

/* Zero-mean unit-variance noise from the splitmix64 stream *state (advanced four steps). */
double satfeat_render_noise_unit(uint64_t *state);

/* Renders the w x h frame whose pixel (x, y) sees photograph point g(x, y) (g: frame -> photo
 * pixels, centres at integers), then applies p, into out (w x h bytes). Returns 0 on success. */
int satfeat_render_frame(const uint8_t *src, int sw, int sh, const double g[9], int w, int h,
                         const satfeat_render_params *p, uint8_t *out);

#endif
