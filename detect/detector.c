/* detector.c - the public detector, a façade over its backend (backend.h): parameters, creation
 * (with a fixed maximum frame, or sized by its frames and grown), the checks of every view, the
 * public detect and profiling calls, and the backend-neutral frame slots of frames/ (detect.h).
 * The backend is chosen here, once, from the context. */
#include "detect/detect.h"
#include "detect/detector_internal.h"
#include "src/features_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Largest G of the selection grid. */
#define DETECTOR_MAX_GRID 4096

struct satfeat_detect_slot {
    satfeat_detector *det;
    void *impl;          /* the backend's slot, made for state number `generation` */
    unsigned generation;
    int busy;            /* a frame was submitted and not collected yet */
};

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
    p.descriptor_norm = SATFEAT_DESCRIPTOR_NORM_ROOT;
    p.orientation_refine = 1;
    p.descriptor_haar = 4;
    p.orientation_haar = 4;
    p.orientation_filter = SATFEAT_ORIENTATION_SCHARR;
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
    if (p->orientation_refine != 0 && p->orientation_refine != 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: orientation_refine %d is not 0 or 1",
                            p->orientation_refine);
    if (p->descriptor_haar < 2 || p->descriptor_haar > 4)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: descriptor_haar %d is not in 2..4",
                            p->descriptor_haar);
    if (p->orientation_haar < 2 || p->orientation_haar > 4)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: orientation_haar %d is not in 2..4",
                            p->orientation_haar);
    if (p->orientation_filter != SATFEAT_ORIENTATION_SCHARR &&
        p->orientation_filter != SATFEAT_ORIENTATION_HAAR)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detector: orientation_filter %d is not SCHARR (0) or HAAR (1)",
                            (int)p->orientation_filter);
    if (p->descriptor_norm != SATFEAT_DESCRIPTOR_NORM_L2 &&
        p->descriptor_norm != SATFEAT_DESCRIPTOR_NORM_ROOT)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detector: descriptor_norm %d is not L2 (0) or ROOT (1)",
                            (int)p->descriptor_norm);
    if (p->descriptor != SATFEAT_DESCRIPTOR_NONE && p->descriptor != SATFEAT_DESCRIPTOR_SURF64 &&
        p->descriptor != SATFEAT_DESCRIPTOR_SURF128)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detector: descriptor %d is not NONE (0), SURF64 (64) or SURF128 (128)",
                            (int)p->descriptor);
    return SATFEAT_OK;
}

/* 1 when a frame of width x height is beyond what any detector may hold. */
static int too_large(int width, int height)
{
    return width > SATFEAT_IMAGE_MAX_SIDE || height > SATFEAT_IMAGE_MAX_SIDE ||
           (uint64_t)width * (uint64_t)height > SATFEAT_IMAGE_MAX_PIXELS;
}

/* Makes the backend state for frames up to width x height (the old state, if any, is freed
 * first, after its queued work). On failure the detector has no state (max 0 x 0). */
static satfeat_status make_state(satfeat_detector *det, int width, int height)
{
    if (det->state) det->be->destroy(det->state);
    det->state = NULL;
    det->max_width = det->max_height = 0;
    det->candidate_cap = 0;
    const size_t cap = satfeat_fh_candidate_bound(&det->params, width, height);
    const satfeat_fh_config cfg = {det->ctx,   &det->params, det->layers, &det->weights,
                                   width,      height,       cap};
    void *state = NULL;
    satfeat_status st = det->be->create(&cfg, &state);
    if (st != SATFEAT_OK) return st;
    if (det->profiling != SATFEAT_PROFILING_OFF) {
        st = det->be->set_profiling(state, det->profiling);
        if (st != SATFEAT_OK) {
            det->be->destroy(state);
            return st;
        }
    }
    det->state = state;
    det->max_width = width;
    det->max_height = height;
    det->candidate_cap = cap;
    det->generation++;
    return SATFEAT_OK;
}

satfeat_status satfeat_detector_new(satfeat_ctx *ctx, const satfeat_detector_params *params,
                                    int max_width, int max_height, satfeat_detector **out)
{
    if (!ctx) return SATFEAT_ERR_ARG;
    if (!out) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detector: NULL argument");
    *out = NULL;
    const satfeat_detector_params defaults = satfeat_detector_params_default();
    if (!params) params = &defaults;
    satfeat_status st = check_params(ctx, params);
    if (st != SATFEAT_OK) return st;
    const int lazy = max_width == 0 && max_height == 0;
    if (!lazy && (max_width < 1 || max_height < 1))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detector: maximum size %dx%d is not positive (0x0: sized by the "
                            "frames)",
                            max_width, max_height);
    if (too_large(max_width, max_height))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detector: maximum size %dx%d too large",
                            max_width, max_height);
    satfeat_detector *det = calloc(1, sizeof *det);
    if (!det) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detector: out of memory");
    det->ctx = ctx;
    det->params = *params;
    det->lazy = lazy;
    det->be = ctx->backend == SATFEAT_BACKEND_CUDA ? &satfeat_fh_backend_cuda
                                                   : &satfeat_fh_backend_cpu;
    satfeat_fh_layers_init(&det->params, det->layers);
    satfeat_describe_weights_init(&det->weights);
    det->weights.ori_refine = det->params.orientation_refine;
    det->weights.desc_haar = det->params.descriptor_haar;
    det->weights.ori_haar = det->params.orientation_haar;
    satfeat_describe_weights_orientation(&det->weights,
                                         det->params.orientation_filter == SATFEAT_ORIENTATION_HAAR
                                             ? SATFEAT_ORI_FILTER_HAAR
                                             : SATFEAT_ORI_FILTER_SCHARR);
    if (!lazy) {
        st = make_state(det, max_width, max_height);
        if (st != SATFEAT_OK) {
            free(det);
            return st;
        }
    }
    *out = det;
    return SATFEAT_OK;
}

void satfeat_detector_delete(satfeat_detector *det)
{
    if (!det) return;
    if (det->state) det->be->destroy(det->state);
    free(det);
}

/* 1 when `rows` rows of `row_bytes` bytes, `stride` bytes apart, span more than PTRDIFF_MAX
 * bytes (the largest object; past it the row addresses overflow). */
static int rows_overflow(size_t stride, int rows, size_t row_bytes)
{
    size_t span;
    return satfeat_mul_overflows(stride, (size_t)rows - 1u, &span) ||
           span > (size_t)PTRDIFF_MAX - row_bytes;
}

satfeat_status satfeat_detect_check_view(satfeat_detector *det, const satfeat_image_view *v)
{
    satfeat_ctx *ctx = det->ctx;
    if (!v || !v->pixels) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: NULL view or pixels");
    const int w = v->width, h = v->height;
    if (w < 1 || h < 1)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: size %dx%d is not positive", w, h);
    if (v->memory != SATFEAT_MEMORY_HOST && v->memory != SATFEAT_MEMORY_DEVICE)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: memory %d is not HOST or DEVICE",
                            (int)v->memory);
    if (v->memory == SATFEAT_MEMORY_DEVICE && !det->be->device_views)
        return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED,
                            "detect: device-memory images need a detector on a CUDA context");
    if (!det->lazy && (w > det->max_width || h > det->max_height))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detect: frame %dx%d exceeds the detector's maximum %dx%d", w, h,
                            det->max_width, det->max_height);
    if (det->lazy && too_large(w, h))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detect: frame %dx%d too large", w, h);
    if (v->stride < (size_t)w)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: stride %zu below width %d", v->stride,
                            w);
    if (rows_overflow(v->stride, h, (size_t)w))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW,
                            "detect: image stride %zu over %d rows exceeds the address space",
                            v->stride, h);
    if (!v->mask) return SATFEAT_OK;
    if (v->mask_stride < (size_t)w)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "detect: mask stride %zu below width %d",
                            v->mask_stride, w);
    if (rows_overflow(v->mask_stride, h, (size_t)w))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW,
                            "detect: mask stride %zu over %d rows exceeds the address space",
                            v->mask_stride, h);
    return SATFEAT_OK;
}

/* Makes sure the backend state holds a width x height frame: a detector sized by its frames
 * grows to the larger of each side (a fixed one was checked against its maximum). */
static satfeat_status fit(satfeat_detector *det, int width, int height)
{
    if (det->state && width <= det->max_width && height <= det->max_height) return SATFEAT_OK;
    const int w = width > det->max_width ? width : det->max_width;
    const int h = height > det->max_height ? height : det->max_height;
    if (too_large(w, h))
        return satfeat_fail(det->ctx, SATFEAT_ERR_OVERFLOW,
                            "detect: frames up to %dx%d are too large for one detector", w, h);
    return make_state(det, w, h);
}

/* 1 when frames of `det` are described. */
static int describes(const satfeat_detector *det)
{
    return det->params.descriptor != SATFEAT_DESCRIPTOR_NONE;
}

satfeat_status satfeat_detect(satfeat_detector *det, const satfeat_image_view *image,
                              satfeat_features **features)
{
    if (!det) return SATFEAT_ERR_ARG;
    satfeat_ctx *ctx = det->ctx;
    satfeat_status st = satfeat_features_out(features);
    if (st != SATFEAT_OK)
        return satfeat_fail(ctx, st, "detect: %s", features ? "out of memory" : "NULL features");
    st = satfeat_detect_check_view(det, image);
    if (st == SATFEAT_OK) st = fit(det, image->width, image->height);
    if (st == SATFEAT_OK) st = det->be->detect(det->state, image, describes(det), *features);
    if (st != SATFEAT_OK) satfeat_features_clear(*features);
    return st;
}

int satfeat_detector_descriptor_dim(const satfeat_detector *det)
{
    return det ? (int)det->params.descriptor : 0;
}

satfeat_status satfeat_detector_set_profiling(satfeat_detector *det, satfeat_profiling mode)
{
    if (!det) return SATFEAT_ERR_ARG;
    if (mode != SATFEAT_PROFILING_OFF && mode != SATFEAT_PROFILING_FRAME &&
        mode != SATFEAT_PROFILING_STAGES)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ARG, "detector: profiling mode %d unknown",
                            (int)mode);
    if (det->state) {
        satfeat_status st = det->be->set_profiling(det->state, mode);
        if (st != SATFEAT_OK) return st;
    }
    det->profiling = mode;
    return SATFEAT_OK;
}

satfeat_status satfeat_detector_stage_times(satfeat_detector *det, satfeat_stage_times *out)
{
    if (!det) return SATFEAT_ERR_ARG;
    if (!out) return satfeat_fail(det->ctx, SATFEAT_ERR_ARG, "detector: NULL argument");
    if (!det->state || det->profiling == SATFEAT_PROFILING_OFF)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ARG,
                            "detector: no frame measured since profiling was turned on");
    return det->be->stage_times(det->state, out);
}

satfeat_ctx *satfeat_detector_ctx(const satfeat_detector *det)
{
    return det->ctx;
}

const satfeat_detector_params *satfeat_detector_params_of(const satfeat_detector *det)
{
    return &det->params;
}

void satfeat_detector_created_size(const satfeat_detector *det, int *width, int *height)
{
    *width = det->lazy ? 0 : det->max_width;
    *height = det->lazy ? 0 : det->max_height;
}

int satfeat_detector_overlaps(const satfeat_detector *det)
{
    return det->be->overlaps;
}

satfeat_status satfeat_detect_slot_new(satfeat_detector *det, satfeat_detect_slot **out)
{
    *out = NULL;
    satfeat_detect_slot *s = calloc(1, sizeof *s);
    if (!s) return satfeat_fail(det->ctx, SATFEAT_ERR_ALLOC, "detect: out of memory");
    s->det = det;
    if (det->state) {
        satfeat_status st = det->be->slot_new(det->state, &s->impl);
        if (st != SATFEAT_OK) {
            free(s);
            return st;
        }
        s->generation = det->generation;
    }
    *out = s;
    return SATFEAT_OK;
}

void satfeat_detect_slot_delete(satfeat_detect_slot *s)
{
    if (!s) return;
    if (s->impl) s->det->be->slot_delete(s->impl);
    free(s);
}

satfeat_status satfeat_detect_slot_submit(satfeat_detect_slot *s, const satfeat_image_view *view,
                                          int describe)
{
    satfeat_detector *det = s->det;
    if (s->busy)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ARG, "detect: the slot holds a frame already");
    satfeat_status st = satfeat_detect_check_view(det, view);
    if (st == SATFEAT_OK && view->memory != SATFEAT_MEMORY_HOST)
        st = satfeat_fail(det->ctx, SATFEAT_ERR_UNSUPPORTED,
                          "detect: frames in flight are host views (this one is device memory)");
    if (st == SATFEAT_OK) st = fit(det, view->width, view->height);
    if (st != SATFEAT_OK) return st;
    if (s->impl && s->generation != det->generation) { /* made for buffers since outgrown */
        det->be->slot_delete(s->impl);
        s->impl = NULL;
    }
    if (!s->impl) {
        st = det->be->slot_new(det->state, &s->impl);
        if (st != SATFEAT_OK) return st;
        s->generation = det->generation;
    }
    st = det->be->submit(det->state, s->impl, view, describe && describes(det));
    s->busy = st == SATFEAT_OK;
    return st;
}

satfeat_status satfeat_detect_slot_collect(satfeat_detect_slot *s, satfeat_features *out)
{
    satfeat_detector *det = s->det;
    satfeat_features_clear(out);
    if (!s->busy) return satfeat_fail(det->ctx, SATFEAT_ERR_ARG, "detect: the slot holds no frame");
    if (!det->state)
        return satfeat_fail(det->ctx, SATFEAT_ERR_ALLOC,
                            "detect: the detector lost its buffers when growing failed");
    s->busy = 0;
    satfeat_status st = det->be->collect(det->state, s->impl, out);
    if (st != SATFEAT_OK) satfeat_features_clear(out);
    return st;
}
