/* fh_plan.c - builds the per-frame plan of the CUDA detector (see fh_plan.h) with the same
 * sample ranges as the CPU stages (response_cpu.c, extrema_cpu.c). */
#include "fh_plan.h"
#include "detector_internal.h"

#include <string.h>

static int blocks_of(int nx, int ny)
{
    const long long n = (long long)nx * ny;
    return (int)((n + SATFEAT_FH_PLAN_BLOCK - 1) / SATFEAT_FH_PLAN_BLOCK);
}

void satfeat_fh_plan_build(const satfeat_detector *det, int width, int height, size_t sat_pitch,
                           satfeat_fh_plan *plan)
{
    const satfeat_detector_params *p = &det->params;
    memset(plan, 0, sizeof *plan);
    plan->width = width;
    plan->height = height;
    plan->octaves = p->octaves;
    plan->layers = p->layers;
    plan->init_step = p->init_step;
    plan->unique_scales = p->unique_scales;
    plan->threshold = p->threshold;
    plan->max_offset = p->max_offset;
    plan->sat_pitch = sat_pitch;
    for (int k = 0; k < p->octaves * p->layers; k++) {
        const satfeat_fh_layer *ly = &det->layers[k];
        satfeat_fh_plan_map *m = &plan->maps[k];
        m->map_off = (uint64_t)ly->map_off;
        m->norm = ly->norm;
        m->lobe = ly->lobe;
        m->side = ly->side;
        m->side_step = ly->side_step;
        m->step = ly->step;
        m->gw = satfeat_fh_grid_len(width, ly->step);
        m->octave = ly->octave;
        m->layer = ly->layer;
        int kx0, kx1, ky0, ky1;
        if (satfeat_fh_sample_range(width, ly->step, ly->side, 0, &kx0, &kx1) &&
            satfeat_fh_sample_range(height, ly->step, ly->side, 0, &ky0, &ky1)) {
            satfeat_fh_plan_rect *r = &plan->resp[plan->n_resp++];
            *r = (satfeat_fh_plan_rect){k, kx0, ky0, kx1 - kx0 + 1, ky1 - ky0 + 1,
                                        plan->resp_blocks};
            plan->resp_blocks += blocks_of(r->nx, r->ny);
        }
    }
    for (int o = 0; o < p->octaves; o++)
        for (int i = 1; i + 1 < p->layers; i++) {
            const satfeat_fh_layer *hi = &det->layers[o * p->layers + i + 1];
            int kx0, kx1, ky0, ky1;
            if (!satfeat_fh_sample_range(width, hi->step, hi->side, 1, &kx0, &kx1) ||
                !satfeat_fh_sample_range(height, hi->step, hi->side, 1, &ky0, &ky1))
                continue;
            satfeat_fh_plan_rect *r = &plan->nms[plan->n_nms++];
            *r = (satfeat_fh_plan_rect){o * p->layers + i, kx0, ky0, kx1 - kx0 + 1,
                                        ky1 - ky0 + 1, plan->nms_blocks};
            plan->nms_blocks += blocks_of(r->nx, r->ny);
        }
}
