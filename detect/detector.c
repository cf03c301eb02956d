/* detector.c - the public Fast-Hessian detector: parameters, creation (every buffer sized for
 * the maximum frame), and the per-frame pipeline SAT -> responses -> extrema -> selection. */
#include "detect/detector_internal.h"
#include "describe/describe.h"
#include "detect/detector_cuda.h"
#include "sat/sat.h"
#include "src/clock.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest G of the selection grid. */
#define DETECTOR_MAX_GRID 4096

satfeat_detector_params satfeat_detector_params_default(void)
{
    satfeat_detector_params p;
    p.octaves = 4;
    p.layers = 6;
    p.init_step = 1;
    p.threshold = 0.0004;
    p.max_keypoints = 0;
    p.grid = 0;
    p.per_cell = 0;
    p.max_offset = 1.0;
    p.unique_scales = 0;
    p.upright = 0;
    p.descriptor = SATFEAT_DESCRIPTOR_SURF64;
    p.suppress_duplicates = 1;
    return p;
}

static satfeat_status check_params(satfeat_ctx *ctx, const satfeat_detector_params *p)
{
    if (p->octaves < 1 || p->octaves > SATFEAT_FH_MAX_OCTAVES)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: octaves %d not in 1..%d", p->octaves,
                            SATFEAT_FH_MAX_OCTAVES);
    if (p->layers < SATFEAT_FH_MIN_LAYERS || p->layers > SATFEAT_FH_MAX_LAYERS)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: layers %d not in %d..%d", p->layers,
                            SATFEAT_FH_MIN_LAYERS, SATFEAT_FH_MAX_LAYERS);
    if (p->init_step != 1 && p->init_step != 2)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: init_step %d is not 1 or 2",
                            p->init_step);
    if (!isfinite(p->threshold) || p->threshold < 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: threshold %g is not finite and >= 0",
                            p->threshold);
    if (p->max_keypoints < 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: max_keypoints %d is negative",
                            p->max_keypoints);
    if (p->grid < 0 || p->grid > DETECTOR_MAX_GRID)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: grid %d not in 0..%d", p->grid,
                            DETECTOR_MAX_GRID);
    if (p->per_cell < 0 || (p->grid > 0 && p->per_cell < 1))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detector: per_cell %d must be >= 1 with a grid (>= 0 without)",
                            p->per_cell);
    if (!(p->max_offset > 0 && p->max_offset <= 1))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: max_offset %g not in (0, 1]",
                            p->max_offset);
    if (p->unique_scales != 0 && p->unique_scales != 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: unique_scales %d is not 0 or 1",
                            p->unique_scales);
    if (p->upright != 0 && p->upright != 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: upright %d is not 0 or 1", p->upright);
    if (p->suppress_duplicates != 0 && p->suppress_duplicates != 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: suppress_duplicates %d is not 0 or 1",
                            p->suppress_duplicates);
    if (p->descriptor != SATFEAT_DESCRIPTOR_NONE && p->descriptor != SATFEAT_DESCRIPTOR_SURF64 &&
        p->descriptor != SATFEAT_DESCRIPTOR_SURF128)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detector: descriptor %d is not NONE (0), SURF64 (64) or SURF128 (128)",
                            (int)p->descriptor);
    return SATFEAT_OK;
}

/* Lays out the layer maps for the maximum frame; returns the doubles needed, or 0 on overflow. */
static size_t layout_layers(satfeat_detector *det)
{
    const satfeat_detector_params *p = &det->params;
    size_t total = 0;
    for (int o = 0; o < p->octaves; o++) {
        const int step = satfeat_fh_step(p->init_step, o);
        const size_t cells = (size_t)satfeat_fh_grid_len(det->max_width, step) *
                             (size_t)satfeat_fh_grid_len(det->max_height, step);
        for (int i = 0; i < p->layers; i++) {
            satfeat_fh_layer *ly = satfeat_fh_layer_at(det, o, i);
            ly->octave = o;
            ly->layer = i;
            ly->lobe = satfeat_fh_lobe(o, i);
            ly->side = satfeat_fh_side(o, i);
            ly->side_step = satfeat_fh_side_step(o);
            ly->step = step;
            ly->norm = satfeat_fh_layer_norm(ly->lobe);
            ly->map_off = total;
            total += cells;
        }
    }
    return total;
}

/* Strict 3x3x3 maxima are never 8-adjacent within a layer nor across adjacent layers, so an
 * octave holds at most ceil(middle layers / 2) * ceil(gw / 2) * ceil(gh / 2) of them. */
static size_t candidate_bound(const satfeat_detector *det)
{
    const satfeat_detector_params *p = &det->params;
    size_t total = 0;
    for (int o = 0; o < p->octaves; o++) {
        const int step = satfeat_fh_step(p->init_step, o);
        const size_t gw = (size_t)satfeat_fh_grid_len(det->max_width, step);
        const size_t gh = (size_t)satfeat_fh_grid_len(det->max_height, step);
        total += (size_t)(p->layers - 1) / 2 * ((gw + 1) / 2) * ((gh + 1) / 2);
    }
    return total;
}

satfeat_status satfeat_detector_new(satfeat_ctx *ctx, const satfeat_detector_params *params,
                                    int max_width, int max_height, satfeat_detector **out)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (!params || !out) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: NULL argument");
    *out = NULL;
    satfeat_status st = check_params(ctx, params);
    if (st != SATFEAT_OK) return st;
    if (max_width < 1 || max_height < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: maximum size %dx%d is not positive",
                            max_width, max_height);
    if (max_width > SATFEAT_IMAGE_MAX_SIDE || max_height > SATFEAT_IMAGE_MAX_SIDE ||
        (uint64_t)max_width * (uint64_t)max_height > SATFEAT_IMAGE_MAX_PIXELS)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detector: maximum size %dx%d too large",
                            max_width, max_height);
    satfeat_detector *det = calloc(1, sizeof *det);
    if (!det) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detector: out of memory");
    det->ctx = ctx;
    det->params = *params;
    satfeat_describe_weights_init(&det->weights);
    det->max_width = max_width;
    det->max_height = max_height;
    const size_t map_doubles = layout_layers(det);
    det->candidate_cap = candidate_bound(det);
    if (ctx->backend == SATFEAT_BACKEND_CUDA) {
        st = satfeat_fh_cuda_new(det);
        if (st != SATFEAT_OK) {
            satfeat_detector_delete(det);
            return st;
        }
        *out = det;
        return SATFEAT_OK;
    }
    size_t sat_bytes, map_bytes, cand_bytes;
    if (satfeat_mul_overflows((size_t)max_width + 1, (size_t)max_height + 1, &sat_bytes) ||
        satfeat_mul_overflows(sat_bytes, sizeof(uint32_t), &sat_bytes) ||
        satfeat_mul_overflows(map_doubles, sizeof(double), &map_bytes) ||
        satfeat_mul_overflows(det->candidate_cap, sizeof(satfeat_keypoint), &cand_bytes)) {
        free(det);
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detector: buffers too large");
    }
    /* every host buffer below, summed and checked against the context's memory limit first */
    const int dedup = params->suppress_duplicates != 0;
    const size_t grid_bytes = (size_t)params->grid * (size_t)params->grid * sizeof(int);
    const size_t dup_bytes = dedup ? det->candidate_cap * (sizeof(satfeat_fh_xpos) + 1) : 0;
    det->sat_scratch_bytes =
        satfeat_sat_cpu_scratch_bytes(max_width, max_height, ctx->threads, sizeof(uint32_t));
    const size_t total = sat_bytes + map_bytes + cand_bytes + grid_bytes + dup_bytes +
                         det->sat_scratch_bytes + sizeof *det;
    char what[96];
    snprintf(what, sizeof what, "detector: %dx%d frames", max_width, max_height);
    st = satfeat_check_budget(ctx, what, total);
    if (st != SATFEAT_OK) {
        free(det);
        return st;
    }
    det->sat = malloc(sat_bytes);
    det->maps = malloc(map_bytes);
    det->candidates = malloc(cand_bytes ? cand_bytes : 1);
    if (params->grid > 0) det->cell_count = malloc(grid_bytes);
    if (dedup) { /* candidate_cap * 16 cannot overflow: cand_bytes (cap * 64) did not */
        det->dup_order = malloc(det->candidate_cap ? det->candidate_cap * sizeof(satfeat_fh_xpos) : 1);
        det->dup_flag = malloc(det->candidate_cap ? det->candidate_cap : 1);
    }
    /* the detector's own SAT scratch (sat.h), for the context's current thread count */
    det->sat_scratch = malloc(det->sat_scratch_bytes ? det->sat_scratch_bytes : 1);
    const int ok_scratch = det->sat_scratch != NULL;
    if (!det->sat || !det->maps || !det->candidates || (params->grid > 0 && !det->cell_count) ||
        (dedup && (!det->dup_order || !det->dup_flag)) || !ok_scratch) {
        satfeat_detector_delete(det);
        return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detector: cannot allocate %zu bytes",
                            sat_bytes + map_bytes + cand_bytes);
    }
    for (int k = 0; k < params->octaves * params->layers; k++)
        det->layers[k].map = det->maps + det->layers[k].map_off;
    *out = det;
    return SATFEAT_OK;
}

void satfeat_detector_delete(satfeat_detector *det)
{
    if (!det) return;
    satfeat_fh_cuda_delete(det);
    free(det->sat);
    free(det->sat_scratch);
    free(det->maps);
    free(det->candidates);
    free(det->cell_count);
    free(det->dup_order);
    free(det->dup_flag);
    free(det);
}

satfeat_status satfeat_fh_count_status(satfeat_ctx *ctx, size_t count, size_t capacity)
{
    if (count > capacity)
        return satfeat_fail(ctx, SATFEAT_ERR_CAPACITY,
                            "detect: %zu keypoints selected but the buffer holds %zu", count,
                            capacity);
    return SATFEAT_OK;
}

/* 1 when `rows` rows of `row_bytes` bytes, `stride` bytes apart, span more than PTRDIFF_MAX
 * bytes (the largest object; past it the row addresses overflow). */
static int rows_overflow(size_t stride, int rows, size_t row_bytes)
{
    size_t span;
    return satfeat_mul_overflows(stride, (size_t)rows - 1u, &span) ||
           span > (size_t)PTRDIFF_MAX - row_bytes;
}

satfeat_status satfeat_fh_check_frame(satfeat_detector *det, const void *image, size_t stride,
                                      int width, int height, const void *mask, size_t mask_stride,
                                      int mask_width, int mask_height,
                                      const satfeat_keypoint *keypoints, size_t capacity,
                                      const size_t *count)
{
    satfeat_ctx *ctx = det->ctx;
    if (!image || !count || (capacity > 0 && !keypoints))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: NULL image, count or keypoints");
    if (width < 1 || height < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: size %dx%d is not positive", width,
                            height);
    if (width > det->max_width || height > det->max_height)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detect: frame %dx%d exceeds the detector's maximum %dx%d", width,
                            height, det->max_width, det->max_height);
    if (stride < (size_t)width)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: stride %zu below width %d", stride,
                            width);
    if (rows_overflow(stride, height, (size_t)width))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW,
                            "detect: image stride %zu over %d rows exceeds the address space",
                            stride, height);
    if (!mask) return SATFEAT_OK;
    if (mask_width != width || mask_height != height)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: mask %dx%d differs from the image %dx%d",
                            mask_width, mask_height, width, height);
    if (mask_stride < (size_t)width)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: mask stride %zu below width %d",
                            mask_stride, width);
    if (rows_overflow(mask_stride, height, (size_t)width))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW,
                            "detect: mask stride %zu over %d rows exceeds the address space",
                            mask_stride, height);
    return SATFEAT_OK;
}

/* Makes the detector's SAT scratch large enough for a frame at `threads` threads: it only grows
 * when the context's thread count was raised after the detector was created. */
static satfeat_status cpu_sat_scratch(satfeat_detector *det, int width, int height, int threads)
{
    const size_t need = satfeat_sat_cpu_scratch_bytes(width, height, threads, sizeof(uint32_t));
    if (need <= det->sat_scratch_bytes) return SATFEAT_OK;
    void *p = malloc(need);
    if (!p) return satfeat_fail(det->ctx, SATFEAT_ERR_ALLOC, "detect: cannot allocate %zu bytes", need);
    free(det->sat_scratch);
    det->sat_scratch = p;
    det->sat_scratch_bytes = need;
    return SATFEAT_OK;
}

int satfeat_detector_descriptor_dim(const satfeat_detector *det)
{
    return det ? (int)det->params.descriptor : 0;
}

satfeat_status satfeat_fh_check_descriptors(satfeat_detector *det, const float *descriptors,
                                            size_t capacity)
{
    if (!descriptors) return SATFEAT_OK;
    if (det->params.descriptor == SATFEAT_DESCRIPTOR_NONE)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ARG,
                            "detect: descriptors requested but the detector's descriptor is NONE");
    size_t floats;
    if (satfeat_mul_overflows(capacity, (size_t)det->params.descriptor, &floats) ||
        floats > SIZE_MAX / sizeof(float))
        return satfeat_fail(det->ctx, SATFEAT_ERR_OVERFLOW,
                            "detect: capacity %zu too large for descriptors", capacity);
    return SATFEAT_OK;
}

/* Orientation and descriptors of the first `n` selected keypoints on the CPU, from the frame's
 * table in det->sat (row stride width + 1). */
static void describe_cpu(satfeat_detector *det, int width, int height, satfeat_keypoint *kp,
                         size_t n, float *descriptors, int threads)
{
    const satfeat_detector_params *p = &det->params;
    const size_t st = (size_t)width + 1;
    if (!p->upright) satfeat_orient_cpu(det->sat, st, width, height, kp, n, &det->weights, threads);
    if (descriptors)
        satfeat_describe_cpu(det->sat, st, width, height, kp, n, p->upright, (int)p->descriptor,
                             &det->weights, descriptors, threads);
}

satfeat_status satfeat_detect_features_u8(satfeat_detector *det, const uint8_t *image,
                                          size_t stride, int width, int height,
                                          const uint8_t *mask, size_t mask_stride,
                                          int mask_width, int mask_height,
                                          satfeat_keypoint *keypoints, float *descriptors,
                                          size_t capacity, size_t *count)
{
    if (!det) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = det->ctx;
    satfeat_status st =
        satfeat_fh_check_frame(det, image, stride, width, height, mask, mask_stride, mask_width,
                               mask_height, keypoints, capacity, count);
    if (st == SATFEAT_OK) st = satfeat_fh_check_descriptors(det, descriptors, capacity);
    if (st != SATFEAT_OK) return st;
    if (det->gpu) {
        satfeat_fh_slot *own = satfeat_fh_cuda_own_slot(det);
        st = satfeat_fh_slot_submit(det, own, image, stride, width, height, mask, mask_stride,
                                    descriptors != NULL);
        if (st != SATFEAT_OK) return st;
        return satfeat_fh_slot_collect(det, own, keypoints, descriptors, capacity, count);
    }
    const int threads = ctx->threads;
    st = cpu_sat_scratch(det, width, height, threads);
    if (st != SATFEAT_OK) return st;
    const int prof = det->profiling != SATFEAT_PROFILING_OFF;
    double t[5] = {0, 0, 0, 0, 0};
    if (prof) t[0] = satfeat_clock_us();
    satfeat_sat_cpu_u8(image, stride, width, height, det->sat,
                       ((size_t)width + 1) * sizeof(uint32_t), threads, det->sat_scratch,
                       SATFEAT_SAT_CPU_ISA_BEST);
    if (prof) t[1] = satfeat_clock_us();
    satfeat_fh_responses_cpu(det, width, height, threads);
    const size_t n = satfeat_fh_extrema_cpu(det, width, height, threads);
    if (n > det->candidate_cap) /* cannot happen: the bound is proven in candidate_bound */
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detect: %zu maxima exceed the bound %zu",
                            n, det->candidate_cap);
    if (prof) t[2] = satfeat_clock_us();
    *count = satfeat_fh_select(det, det->candidates, n, width, height, mask, mask_stride,
                               keypoints, capacity);
    if (prof) t[3] = satfeat_clock_us();
    describe_cpu(det, width, height, keypoints, *count < capacity ? *count : capacity,
                 descriptors, threads);
    if (prof) {
        t[4] = satfeat_clock_us();
        satfeat_stage_times *m = &det->times;
        memset(m, 0, sizeof *m);
        m->frame_us = t[4] - t[0];
        m->sat_us = t[1] - t[0];
        m->detect_us = t[2] - t[1];
        m->order_us = t[3] - t[2];
        m->describe_us = t[4] - t[3];
        m->stages = 1;
        det->times_valid = 1;
    }
    return satfeat_fh_count_status(ctx, *count, capacity);
}

satfeat_status satfeat_detect_u8(satfeat_detector *det, const uint8_t *image, size_t stride,
                                 int width, int height, const uint8_t *mask, size_t mask_stride,
                                 int mask_width, int mask_height, satfeat_keypoint *keypoints,
                                 size_t capacity, size_t *count)
{
    return satfeat_detect_features_u8(det, image, stride, width, height, mask, mask_stride,
                                      mask_width, mask_height, keypoints, NULL, capacity, count);
}

satfeat_status satfeat_detect_features_u8_device(satfeat_detector *det, const uint8_t *d_image,
                                                 size_t stride, int width, int height,
                                                 const uint8_t *d_mask, size_t mask_stride,
                                                 int mask_width, int mask_height,
                                                 satfeat_keypoint *keypoints, float *descriptors,
                                                 size_t capacity, size_t *count, void *stream)
{
    if (!det) return SATFEAT_ERR_ARG;
    if (!det->gpu)
        return satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED,
                            "detect: device-memory images need a detector on a CUDA context");
    satfeat_status st =
        satfeat_fh_check_frame(det, d_image, stride, width, height, d_mask, mask_stride,
                               mask_width, mask_height, keypoints, capacity, count);
    if (st == SATFEAT_OK) st = satfeat_fh_check_descriptors(det, descriptors, capacity);
    if (st != SATFEAT_OK) return st;
    return satfeat_fh_cuda_detect_device(det, d_image, stride, width, height, d_mask, mask_stride,
                                         keypoints, descriptors, capacity, count, stream);
}

satfeat_status satfeat_detect_u8_device(satfeat_detector *det, const uint8_t *d_image,
                                        size_t stride, int width, int height,
                                        const uint8_t *d_mask, size_t mask_stride,
                                        int mask_width, int mask_height,
                                        satfeat_keypoint *keypoints, size_t capacity,
                                        size_t *count, void *stream)
{
    return satfeat_detect_features_u8_device(det, d_image, stride, width, height, d_mask,
                                             mask_stride, mask_width, mask_height, keypoints,
                                             NULL, capacity, count, stream);
}

satfeat_status satfeat_detector_set_profiling(satfeat_detector *det, satfeat_profiling mode)
{
    if (!det) return SATFEAT_ERR_ARG;
    if (mode != SATFEAT_PROFILING_OFF && mode != SATFEAT_PROFILING_FRAME &&
        mode != SATFEAT_PROFILING_STAGES)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ARG, "detector: profiling mode %d unknown",
                            (int)mode);
    if (det->gpu) {
        satfeat_status st = satfeat_fh_cuda_set_profiling(det, mode);
        if (st != SATFEAT_OK) return st;
    }
    if (mode != det->profiling) det->times_valid = 0;
    det->profiling = mode;
    return SATFEAT_OK;
}

satfeat_status satfeat_detector_stage_times(satfeat_detector *det, satfeat_stage_times *out)
{
    if (!det) return SATFEAT_ERR_ARG;
    if (!out) return satfeat_fail(det->ctx, SATFEAT_ERR_ARG, "detector: NULL argument");
    if (det->gpu) return satfeat_fh_cuda_stage_times(det, out);
    if (!det->times_valid || det->profiling == SATFEAT_PROFILING_OFF)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ARG, "detector: no frame measured since "
                                                       "profiling was turned on");
    *out = det->times;
    return SATFEAT_OK;
}
