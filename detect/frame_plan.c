/* frame_plan.c - builds the per-frame plan of the CUDA detector (see frame_plan.h) with the same
 * sample ranges as the CPU stages (responses_cpu.c, extrema_cpu.c). */
#include "detect/frame_plan.h"
#include "detect/layers.h"
#include "detect/order_buckets.h"

#include <string.h>

static int div_up(int a, int b)
{
    return (a + b - 1) / b;
}

/* Shared memory of one block: the response tiles of `layers` layers (with a one-sample apron)
 * plus the staged table window of `o`, or the maxima's lists where they need more. */
static size_t smem_of(const satfeat_fh_plan_octave *o, int layers)
{
    const size_t resp = (size_t)layers * (SATFEAT_FH_TILE_X + 2) * (size_t)(o->tile_h + 2) *
                        sizeof(double);
    const size_t win = (size_t)o->win_w * (size_t)o->win_h * sizeof(uint32_t);
    return resp + (win > SATFEAT_FH_NMS_LIST_BYTES ? win : SATFEAT_FH_NMS_LIST_BYTES);
}

/* Sets the tile height and, when it fits `limit` bytes, the staged window of `oc` (step and
 * reach set) for tiles of tile_h rows, with the fixed geometry's layout when `fixed` (windows
 * from a 16-byte boundary; step 2: split into even and odd columns). Returns whether the
 * window is staged. */
static int plan_window(satfeat_fh_plan_octave *oc, int fixed, int tile_h, size_t limit)
{
    const int w = SATFEAT_FH_WINDOW(SATFEAT_FH_TILE_X, oc->step, oc->reach);
    const int h = SATFEAT_FH_WINDOW(tile_h, oc->step, oc->reach);
    const int split = fixed && oc->step == 2;
    const int stride = split   ? 2 * SATFEAT_FH_WINDOW_HALF16(w)
                       : fixed ? SATFEAT_FH_WINDOW_STRIDE16(w)
                               : w;
    oc->tile_h = tile_h;
    oc->win_w = oc->win_h = oc->fixed = oc->split = 0;
    if ((size_t)stride * (size_t)h * sizeof(uint32_t) > limit) return 0;
    oc->win_w = stride;
    oc->win_h = h;
    oc->fixed = fixed;
    oc->split = split;
    return 1;
}

void satfeat_fh_plan_build(const satfeat_detector_params *p, const satfeat_fh_layer *layers,
                           int sm_count, int width, int height, size_t sat_pitch,
                           satfeat_fh_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    plan->width = width;
    plan->height = height;
    plan->octaves = p->octaves;
    plan->layers = p->layers;
    plan->init_step = p->init_step;
    plan->unique_scales = p->unique_scales;
    plan->threshold = p->threshold;
    plan->bucket_base = satfeat_fh_bucket_base(p->threshold);
    plan->max_offset = p->max_offset;
    plan->sat_pitch = sat_pitch;
    if (p->suppress_duplicates) {
        plan->dup_cw = satfeat_fh_dup_cells(width);
        plan->dup_ch = satfeat_fh_dup_cells(height);
    }
    for (int k = 0; k < p->octaves * p->layers; k++) {
        const satfeat_fh_layer *ly = &layers[k];
        satfeat_fh_plan_map *m = &plan->maps[k];
        m->norm = ly->norm;
        m->lobe = ly->lobe;
        m->side = ly->side;
        m->side_step = ly->side_step;
        m->step = ly->step;
        m->gw = satfeat_fh_grid_len(width, ly->step);
        m->octave = ly->octave;
        m->layer = ly->layer;
        satfeat_fh_rect r;
        satfeat_fh_sample_rect(width, height, ly->step, ly->side, 0, &r); /* empty when none */
        m->rx0 = r.x0, m->rx1 = r.x1, m->ry0 = r.y0, m->ry1 = r.y1;
        m->nx0 = m->ny0 = 1;
        m->nx1 = m->ny1 = 0;
        if (ly->layer < 1 || ly->layer + 1 >= p->layers) continue;
        const satfeat_fh_layer *hi = &layers[k + 1]; /* NMS range: as extrema_cpu.c */
        satfeat_fh_sample_rect(width, height, hi->step, hi->side, 1, &r);
        m->nx0 = r.x0, m->nx1 = r.x1, m->ny0 = r.y0, m->ny1 = r.y1;
    }
    /* coarsest octave first: its blocks read the table through L1 and take longest, so they
     * start early instead of forming the tail of the launch (or, many of them, spread over
     * its first part: satfeat_fh_block_slot) */
    for (int o = p->octaves - 1; o >= 0; o--) {
        /* layer 1 has the smallest filter of the middle layers, so its NMS range holds the
         * others' (same step, larger sides give nested ranges) */
        if (p->layers < 3) break;
        const satfeat_fh_plan_map *m1 = &plan->maps[o * p->layers + 1];
        if (m1->nx0 > m1->nx1 || m1->ny0 > m1->ny1) continue;
        satfeat_fh_plan_octave *oc = &plan->oct[plan->n_oct++];
        oc->octave = o;
        oc->step = m1->step;
        oc->kx0 = m1->nx0;
        oc->ky0 = m1->ny0;
        const int lobe = plan->maps[o * p->layers + p->layers - 1].lobe;
        oc->reach = SATFEAT_FH_REACH(lobe);
        int fast = 1; /* the fixed geometry computes every response on the fast path */
        for (int i = 0; i < p->layers; i++) fast &= plan->maps[o * p->layers + i].norm.fast;
        const int fixed =
            fast && p->init_step == 1 && (p->layers == 4 || p->layers == 6) && o <= 1;
        /* a fixed step-1 octave takes tall tiles when its window fits; else the usual ones */
        if (!(fixed && oc->step == 1 &&
              plan_window(oc, 1, SATFEAT_FH_TILE_Y_TALL, SATFEAT_FH_STAGE_BYTES_TALL)))
            plan_window(oc, fixed, SATFEAT_FH_TILE_Y, SATFEAT_FH_STAGE_BYTES);
        oc->tiles_x = div_up(m1->nx1 - m1->nx0 + 1, SATFEAT_FH_TILE_X);
        oc->tiles_y = div_up(m1->ny1 - m1->ny0 + 1, oc->tile_h);
        oc->first = plan->blocks;
        plan->blocks += oc->tiles_x * oc->tiles_y;
        const size_t sm = smem_of(oc, p->layers);
        if (sm > plan->smem_bytes) plan->smem_bytes = sm;
    }
    /* the unstaged octaves lead oct[] (coarser octaves have wider windows) */
    for (int k = 0; k < plan->n_oct && plan->oct[k].win_w == 0; k++)
        plan->coarse_blocks += plan->oct[k].tiles_x * plan->oct[k].tiles_y;
    const int staged = plan->blocks - plan->coarse_blocks;
    plan->coarse_stride = 1;
    /* spread only when the coarse blocks outnumber the octave kernel's slots (2 blocks an SM):
     * fewer all start in the first wave beside staged blocks anyway, and spread they would
     * start later and could end last (640x480 measured 31.7 -> 38.2 us spread) */
    if (plan->coarse_blocks > 2 * sm_count && staged > 0)
        plan->coarse_stride += (int)((long long)staged * SATFEAT_FH_COARSE_SPREAD_PCT /
                                     (100LL * plan->coarse_blocks));
}
