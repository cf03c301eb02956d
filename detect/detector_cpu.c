/* detector_cpu.c - the CPU backend (backend.h): its state owns the table, the SAT scratch, the
 * response maps, the candidate list and the selection scratch, all sized for the maximum frame;
 * a frame runs SAT -> responses -> extrema -> selection -> orientation and descriptors. A slot
 * keeps a copy of its frame (and mask), detected when it is collected, so frames of a sequence
 * come back in order with the same results; nothing overlaps on the CPU. */
#include "describe/describe.h"
#include "detect/backend.h"
#include "detect/stages_cpu.h"
#include "sat/sat.h"
#include "src/clock.h"
#include "src/features_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cpu_state {
    satfeat_fh_config cfg;
    uint32_t *sat;       /* (max_width+1) x (max_height+1); row stride width+1 of the frame */
    void *sat_scratch;   /* the SAT's scratch (sat.h) */
    size_t sat_scratch_bytes;
    uint32_t *split;     /* the table regrouped for steps 2 and 4 (satfeat_fh_split_elems) */
    double *maps;        /* one block holding every layer's map */
    double *map[SATFEAT_FH_MAX_LAYER_RECORDS];
    satfeat_keypoint *candidates; /* refined extrema of one frame, before selection */
    satfeat_fh_select_scratch sel;
    satfeat_profiling profiling;
    satfeat_stage_times times; /* the last measured frame */
    int times_valid;           /* `times` holds a frame measured in this mode */
} cpu_state;

/* A frame waiting in a slot: tight copies of the pixels and the mask. */
typedef struct cpu_slot {
    uint8_t *image, *mask;
    size_t image_bytes, mask_bytes; /* the buffers' sizes: the largest frame given so far */
    int width, height, has_mask, describe;
} cpu_slot;

static void cpu_destroy(void *state)
{
    cpu_state *c = state;
    if (!c) return;
    free(c->sat);
    free(c->sat_scratch);
    free(c->split);
    free(c->maps);
    free(c->candidates);
    free(c->sel.cell_count);
    free(c->sel.dup_order);
    free(c->sel.dup_flag);
    free(c);
}

/* malloc of at least one byte. */
static void *alloc1(size_t bytes)
{
    return malloc(bytes ? bytes : 1);
}

static satfeat_status cpu_create(const satfeat_fh_config *cfg, void **out)
{
    satfeat_ctx *ctx = cfg->ctx;
    const satfeat_detector_params *p = cfg->params;
    const int w = cfg->max_width, h = cfg->max_height;
    size_t map_doubles = 0;
    for (int k = 0; k < p->octaves * p->layers; k++)
        map_doubles += satfeat_fh_map_doubles(w, h, cfg->layers[k].step);
    size_t sat_bytes, map_bytes, cand_bytes;
    if (satfeat_mul_overflows((size_t)w + 1, (size_t)h + 1, &sat_bytes) ||
        satfeat_mul_overflows(sat_bytes, sizeof(uint32_t), &sat_bytes) ||
        satfeat_mul_overflows(map_doubles, sizeof(double), &map_bytes) ||
        satfeat_mul_overflows(cfg->candidate_cap, sizeof(satfeat_keypoint), &cand_bytes))
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detector: buffers too large");
    /* every buffer below, summed and checked against the context's memory limit first */
    const int dedup = p->suppress_duplicates != 0;
    const size_t grid_bytes = (size_t)p->grid * (size_t)p->grid * sizeof(int);
    const size_t dup_bytes = dedup ? cfg->candidate_cap * (sizeof(satfeat_fh_xpos) + 1) : 0;
    const size_t scratch = satfeat_sat_cpu_scratch_bytes(w, h, ctx->threads, sizeof(uint32_t));
    /* the split table: at most 2 x the table (each step pads a row by fewer than 4 entries) */
    int split = 0;
    for (int k = 0; k < p->octaves * p->layers; k++)
        split |= satfeat_fh_layer_uses_split(&cfg->layers[k]);
    const size_t split_bytes = split ? satfeat_fh_split_elems(w, h) * sizeof(uint32_t) : 0;
    const size_t total = sat_bytes + map_bytes + cand_bytes + grid_bytes + dup_bytes + scratch +
                         split_bytes + sizeof(cpu_state);
    char what[96];
    snprintf(what, sizeof what, "detector: %dx%d frames", w, h);
    satfeat_status st = satfeat_check_budget(ctx, what, total);
    if (st != SATFEAT_OK) return st;
    cpu_state *c = calloc(1, sizeof *c);
    if (!c) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detector: out of memory");
    c->cfg = *cfg;
    c->sat = malloc(sat_bytes);
    c->maps = alloc1(map_bytes);
    c->candidates = alloc1(cand_bytes);
    c->sat_scratch_bytes = scratch;
    c->sat_scratch = alloc1(scratch);
    if (split) c->split = malloc(split_bytes);
    if (p->grid > 0) c->sel.cell_count = malloc(grid_bytes);
    if (dedup) { /* candidate_cap * 16 cannot overflow: cand_bytes (cap * 64) did not */
        c->sel.dup_order = alloc1(cfg->candidate_cap * sizeof(satfeat_fh_xpos));
        c->sel.dup_flag = alloc1(cfg->candidate_cap);
    }
    if (!c->sat || !c->maps || !c->candidates || !c->sat_scratch || (split && !c->split) ||
        (p->grid > 0 && !c->sel.cell_count) || (dedup && (!c->sel.dup_order || !c->sel.dup_flag))) {
        cpu_destroy(c);
        return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detector: cannot allocate %zu bytes",
                            sat_bytes + map_bytes + cand_bytes);
    }
    size_t off = 0;
    for (int k = 0; k < p->octaves * p->layers; k++) {
        c->map[k] = c->maps + off;
        off += satfeat_fh_map_doubles(w, h, cfg->layers[k].step);
    }
    *out = c;
    return SATFEAT_OK;
}

/* Makes the SAT scratch large enough for a frame at `threads` threads: it only grows when the
 * context's thread count was raised after the state was made. */
static satfeat_status sat_scratch_fit(cpu_state *c, int width, int height, int threads)
{
    const size_t need = satfeat_sat_cpu_scratch_bytes(width, height, threads, sizeof(uint32_t));
    if (need <= c->sat_scratch_bytes) return SATFEAT_OK;
    void *p = malloc(need);
    if (!p)
        return satfeat_fail(c->cfg.ctx, SATFEAT_ERR_ALLOC, "detect: cannot allocate %zu bytes",
                            need);
    free(c->sat_scratch);
    c->sat_scratch = p;
    c->sat_scratch_bytes = need;
    return SATFEAT_OK;
}

/* Records the stage times of a frame from the clock readings t[0..4]. */
static void note_times(cpu_state *c, const double t[5])
{
    satfeat_stage_times *m = &c->times;
    memset(m, 0, sizeof *m);
    m->frame_us = t[4] - t[0];
    m->sat_us = t[1] - t[0];
    m->detect_us = t[2] - t[1];
    m->order_us = t[3] - t[2];
    m->describe_us = t[4] - t[3];
    m->stages = 1;
    c->times_valid = 1;
}

/* One host frame: the pipeline, then exactly the selected keypoints (and their orientations and
 * descriptors) into `out`. */
static satfeat_status cpu_run(cpu_state *c, const uint8_t *image, size_t stride, int width,
                              int height, const uint8_t *mask, size_t mask_stride, int describe,
                              satfeat_features *out)
{
    satfeat_ctx *ctx = c->cfg.ctx;
    const satfeat_detector_params *p = c->cfg.params;
    const int threads = ctx->threads;
    satfeat_status st = sat_scratch_fit(c, width, height, threads);
    if (st != SATFEAT_OK) return st;
    const int prof = c->profiling != SATFEAT_PROFILING_OFF;
    double t[5] = {0, 0, 0, 0, 0};
    if (prof) t[0] = satfeat_clock_us();
    satfeat_sat_cpu_u8(image, stride, width, height, c->sat, ((size_t)width + 1) * sizeof(uint32_t),
                       threads, c->sat_scratch, SATFEAT_SAT_CPU_ISA_BEST);
    if (prof) t[1] = satfeat_clock_us();
    const satfeat_fh_maps_view maps = {c->cfg.layers, c->map, p->octaves, p->layers};
    const satfeat_fh_table_view table = {c->sat, width, height};
    satfeat_fh_responses_cpu(&maps, &table, c->split, threads);
    const size_t cap = c->cfg.candidate_cap;
    const size_t n = satfeat_fh_extrema_cpu(&maps, &table, p, c->candidates, cap, threads);
    if (n > cap) /* cannot happen: the bound is proven in satfeat_fh_candidate_bound */
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detect: %zu maxima exceed the bound %zu",
                            n, cap);
    if (prof) t[2] = satfeat_clock_us();
    const size_t kept =
        satfeat_fh_select(p, c->candidates, n, width, height, mask, mask_stride, &c->sel);
    if (prof) t[3] = satfeat_clock_us();
    const satfeat_descriptor_kind kind = describe ? p->descriptor : SATFEAT_DESCRIPTOR_NONE;
    satfeat_keypoint *kp;
    float *desc;
    st = satfeat_features_prepare(out, kept, kind, width, height, &kp, &desc);
    if (st != SATFEAT_OK) return satfeat_fail(ctx, st, "detect: no memory for %zu features", kept);
    if (kept) memcpy(kp, c->candidates, kept * sizeof *kp);
    const size_t sst = (size_t)width + 1;
    if (!p->upright)
        satfeat_orient_cpu(c->sat, sst, width, height, kp, kept, c->cfg.weights, threads);
    if (desc)
        satfeat_describe_cpu(c->sat, sst, width, height, kp, kept, satfeat_desc_flags(p), (int)kind,
                             c->cfg.weights, desc, threads);
    if (prof) {
        t[4] = satfeat_clock_us();
        note_times(c, t);
    }
    return SATFEAT_OK;
}

static satfeat_status cpu_detect(void *state, const satfeat_image_view *v, int describe,
                                 satfeat_features *out)
{
    return cpu_run(state, v->pixels, v->stride, v->width, v->height, v->mask, v->mask_stride,
                   describe, out);
}

static satfeat_status cpu_slot_new(void *state, void **out)
{
    cpu_state *c = state;
    cpu_slot *s = calloc(1, sizeof *s);
    if (!s) return satfeat_fail(c->cfg.ctx, SATFEAT_ERR_ALLOC, "detect: out of memory");
    *out = s;
    return SATFEAT_OK;
}

static void cpu_slot_delete(void *slot)
{
    cpu_slot *s = slot;
    if (!s) return;
    free(s->image);
    free(s->mask);
    free(s);
}

/* Copies `rows` rows of `width` bytes, `stride` apart, into tight rows at dst. */
static void copy_tight(uint8_t *dst, const uint8_t *src, size_t stride, int width, int rows)
{
    for (int y = 0; y < rows; y++)
        memcpy(dst + (size_t)y * (size_t)width, src + (size_t)y * stride, (size_t)width);
}

/* Grows *buf (holding *have bytes) to `bytes`, within the context's memory limit. */
static satfeat_status fit_buffer(satfeat_ctx *ctx, uint8_t **buf, size_t *have, size_t bytes,
                                 const satfeat_image_view *v)
{
    if (bytes <= *have) return SATFEAT_OK;
    char what[96];
    snprintf(what, sizeof what, "frame slot: %dx%d frames", v->width, v->height);
    satfeat_status st = satfeat_check_budget(ctx, what, bytes);
    if (st != SATFEAT_OK) return st;
    uint8_t *p = malloc(bytes);
    if (!p) return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "detect: out of memory");
    free(*buf);
    *buf = p;
    *have = bytes;
    return SATFEAT_OK;
}

static satfeat_status cpu_submit(void *state, void *slot, const satfeat_image_view *v,
                                 int describe)
{
    cpu_state *c = state;
    cpu_slot *s = slot;
    const size_t bytes = (size_t)v->width * (size_t)v->height;
    satfeat_status st = fit_buffer(c->cfg.ctx, &s->image, &s->image_bytes, bytes, v);
    if (st == SATFEAT_OK && v->mask)
        st = fit_buffer(c->cfg.ctx, &s->mask, &s->mask_bytes, bytes, v);
    if (st != SATFEAT_OK) return st;
    copy_tight(s->image, v->pixels, v->stride, v->width, v->height);
    if (v->mask) copy_tight(s->mask, v->mask, v->mask_stride, v->width, v->height);
    s->width = v->width;
    s->height = v->height;
    s->has_mask = v->mask != NULL;
    s->describe = describe;
    return SATFEAT_OK;
}

static satfeat_status cpu_collect(void *state, void *slot, satfeat_features *out)
{
    cpu_slot *s = slot;
    return cpu_run(state, s->image, (size_t)s->width, s->width, s->height,
                   s->has_mask ? s->mask : NULL, (size_t)s->width, s->describe, out);
}

static satfeat_status cpu_set_profiling(void *state, satfeat_profiling mode)
{
    cpu_state *c = state;
    if (mode != c->profiling) c->times_valid = 0;
    c->profiling = mode;
    return SATFEAT_OK;
}

static satfeat_status cpu_stage_times(void *state, satfeat_stage_times *out)
{
    cpu_state *c = state;
    if (!c->times_valid || c->profiling == SATFEAT_PROFILING_OFF)
        return satfeat_fail(c->cfg.ctx, SATFEAT_ERR_ARG,
                            "detector: no frame measured since profiling was turned on");
    *out = c->times;
    return SATFEAT_OK;
}

const satfeat_fh_backend satfeat_fh_backend_cpu = {
    0, 0, cpu_create, cpu_destroy, cpu_detect, cpu_slot_new, cpu_slot_delete, cpu_submit,
    cpu_collect, cpu_set_profiling, cpu_stage_times};
