/* test_detect_cpu_stages.c - the CPU detector's restructured stages give the bits of their plain
 * per-sample form: response maps with the split table (layers at steps 2 and 4 read from columns
 * regrouped by step) and without it, against satfeat_fh_response of satfeat_fh_filters at every
 * sample; the extrema's four-at-a-time row scan against a plain scan of every sample through
 * satfeat_fh_is_max and satfeat_fh_build_keypoint (images with many equal neighbours included). */
#include "test_util.h"

#include "detect/extremum_refine.h"
#include "detect/layers.h"
#include "detect/stages_cpu.h"

#include <stdlib.h>
#include <string.h>

/* A frame, its exact u32 table and every layer's maps (with and without the split table). */
typedef struct frame {
    int w, h;
    satfeat_detector_params p;
    satfeat_fh_layer layers[SATFEAT_FH_MAX_LAYER_RECORDS];
    uint32_t *sat;
    double *maps[2][SATFEAT_FH_MAX_LAYER_RECORDS];
} frame;

/* Pixels: values in [0, levels) with a coarse pattern, so both blobs and plateaus occur. */
static void make_frame(frame *f, int w, int h, int levels, int init_step, int octaves,
                       int layers, test_rng *rng)
{
    f->w = w, f->h = h;
    f->p = satfeat_detector_params_default();
    f->p.init_step = init_step, f->p.octaves = octaves, f->p.layers = layers;
    f->p.threshold = 0.0;
    satfeat_fh_layers_init(&f->p, f->layers);
    const size_t st = (size_t)w + 1;
    f->sat = calloc(st * ((size_t)h + 1), sizeof *f->sat);
    assert_non_null(f->sat);
    for (int y = 0; y < h; y++) {
        uint32_t run = 0;
        for (int x = 0; x < w; x++) {
            const int blob = ((x / 7 + y / 5) & 3) * (levels / 4);
            run += (uint32_t)((test_rng_range(rng, 0, levels - 1) + blob) % levels);
            f->sat[(size_t)(y + 1) * st + (size_t)x + 1] = f->sat[(size_t)y * st + (size_t)x + 1] + run;
        }
    }
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < octaves * layers; k++) {
            f->maps[v][k] = calloc(satfeat_fh_map_doubles(w, h, f->layers[k].step), sizeof(double));
            assert_non_null(f->maps[v][k]);
        }
}

static void free_frame(frame *f)
{
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < f->p.octaves * f->p.layers; k++) free(f->maps[v][k]);
    free(f->sat);
}

/* Both map sets of f, then every sample of every layer against the per-sample functions. */
static void check_responses(frame *f, int threads)
{
    const int n = f->p.octaves * f->p.layers;
    const satfeat_fh_table_view t = {f->sat, f->w, f->h};
    uint32_t *split = malloc(satfeat_fh_split_elems(f->w, f->h) * sizeof *split);
    assert_non_null(split);
    for (int v = 0; v < 2; v++) {
        const satfeat_fh_maps_view maps = {f->layers, f->maps[v], f->p.octaves, f->p.layers};
        satfeat_fh_responses_cpu(&maps, &t, v ? split : NULL, threads);
    }
    free(split);
    const size_t st = (size_t)f->w + 1;
    for (int k = 0; k < n; k++) {
        const satfeat_fh_layer *ly = &f->layers[k];
        satfeat_fh_rect rr;
        if (!satfeat_fh_sample_rect(f->w, f->h, ly->step, ly->side, 0, &rr)) continue;
        const size_t gw = (size_t)satfeat_fh_grid_len(f->w, ly->step);
        for (int ky = rr.y0; ky <= rr.y1; ky++)
            for (int kx = rr.x0; kx <= rr.x1; kx++) {
                const double want = satfeat_fh_response(
                    satfeat_fh_filters(f->sat, st, kx * ly->step, ky * ly->step, ly->lobe),
                    &ly->norm);
                const size_t at = (size_t)ky * gw + (size_t)kx;
                if (memcmp(&want, &f->maps[0][k][at], sizeof want) ||
                    memcmp(&want, &f->maps[1][k][at], sizeof want)) {
                    fprintf(stderr, "layer %d (step %d) sample (%d, %d): %.17g %.17g != %.17g\n", k,
                            ly->step, kx, ky, f->maps[0][k][at], f->maps[1][k][at], want);
                    fail();
                }
            }
    }
}

static int by_order(const void *a, const void *b)
{
    return satfeat_keypoint_order(a, b);
}

/* satfeat_fh_extrema_cpu on f's maps against a plain scan of every sample. */
static void check_extrema(frame *f, double thr, int threads)
{
    f->p.threshold = thr;
    const satfeat_fh_table_view t = {f->sat, f->w, f->h};
    const satfeat_fh_maps_view maps = {f->layers, f->maps[1], f->p.octaves, f->p.layers};
    const size_t cap = satfeat_fh_candidate_bound(&f->p, f->w, f->h);
    satfeat_keypoint *got = calloc(cap + 1, sizeof *got), *want = calloc(cap + 1, sizeof *want);
    assert_non_null(got);
    assert_non_null(want);
    const size_t n = satfeat_fh_extrema_cpu(&maps, &t, &f->p, got, cap, threads);
    const satfeat_fh_kp_rules rules = {f->p.max_offset, f->p.unique_scales, f->p.octaves,
                                       f->p.init_step, f->w, f->h};
    size_t m = 0;
    const int L = f->p.layers;
    for (int o = 0; o < f->p.octaves; o++)
        for (int i = 1; i + 1 < L; i++) {
            const int k = o * L + i;
            const satfeat_fh_layer *mid = &f->layers[k], *hi = &f->layers[k + 1];
            satfeat_fh_rect nr;
            if (!satfeat_fh_sample_rect(f->w, f->h, hi->step, hi->side, 1, &nr)) continue;
            const ptrdiff_t gw = satfeat_fh_grid_len(f->w, mid->step);
            const satfeat_fh_kp_layer kl = {mid->octave, mid->layer,     mid->lobe,
                                            mid->side,   mid->side_step, mid->step};
            for (int ky = nr.y0; ky <= nr.y1; ky++)
                for (int kx = nr.x0; kx <= nr.x1; kx++) {
                    const size_t at = (size_t)ky * (size_t)gw + (size_t)kx;
                    const double *lo = maps.map[k - 1] + at, *mm = maps.map[k] + at,
                                 *up = maps.map[k + 1] + at;
                    if (!(mm[0] > thr) || !satfeat_fh_is_max(lo, mm, up, gw)) continue;
                    satfeat_keypoint kp;
                    if (!satfeat_fh_build_keypoint(lo, mm, up, gw, kx, ky, &kl, &rules, f->sat,
                                                   (size_t)f->w + 1, &kp))
                        continue;
                    assert_true(m < cap);
                    want[m++] = kp;
                }
        }
    assert_int_equal(n, m);
    assert_true(thr > 0.0 || m > 0); /* every frame has maxima above 0 */
    qsort(got, n, sizeof *got, by_order);
    qsort(want, m, sizeof *want, by_order);
    assert_memory_equal(got, want, m * sizeof *got);
    free(got);
    free(want);
}

static void test_stages_equal_plain(void **state)
{
    (void)state;
    test_rng rng;
    test_rng_seed(&rng, 4242);
    /* w, h, pixel levels, init_step, octaves, layers */
    static const int cases[][6] = {{160, 120, 256, 1, 4, 6}, {161, 97, 4, 1, 4, 4},
                                   {203, 150, 256, 2, 4, 4}, {99, 257, 3, 2, 3, 6},
                                   {640, 480, 256, 1, 4, 6}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        frame f;
        make_frame(&f, cases[c][0], cases[c][1], cases[c][2], cases[c][3], cases[c][4],
                   cases[c][5], &rng);
        for (int threads = 1; threads <= 2; threads++) {
            check_responses(&f, threads);
            check_extrema(&f, 0.0, threads);
            check_extrema(&f, 0.0004, threads);
        }
        free_frame(&f);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stages_equal_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
