/* detector_cuda_profile.c - frame and stage timing of the CUDA detector with CUDA events
 * (satfeat_detector_set_profiling, satfeat_detector_stage_times) for the backend's table
 * (detector_cuda_slots.c). Built with CUDA only. */
#include "detect/detector_cuda_state.h"
#include "src/cuda_state.h"

#include <string.h>

satfeat_status satfeat_fh_cuda_set_profiling(void *state, satfeat_profiling mode)
{
    satfeat_fh_cuda *g = state;
    satfeat_ctx *ctx = g->cfg.ctx;
    if (mode != SATFEAT_PROFILING_OFF && !g->prof[0]) {
        FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
        for (int i = 0; i < SATFEAT_FH_PROF_EVENTS; i++)
            if (!g->prof[i]) FH_CK(cudaEventCreate(&g->prof[i]), "cudaEventCreate (profiling)");
    }
    if (mode != g->profiling) g->prof_mode = 0;
    g->profiling = mode;
    return SATFEAT_OK;
}

satfeat_status satfeat_fh_enqueue_profiled(satfeat_fh_cuda *g, satfeat_fh_graph_key *k,
                                           cudaStream_t s, cudaGraphExec_t exec)
{
    satfeat_ctx *ctx = g->cfg.ctx;
    FH_CK(cudaStreamWaitEvent(s, g->serial, 0), "cudaStreamWaitEvent");
    FH_CK(cudaEventRecord(g->prof[0], s), "cudaEventRecord");
    const satfeat_status st = satfeat_fh_launch_frame(
        g, k, s, exec, g->profiling == SATFEAT_PROFILING_STAGES ? &g->prof[1] : NULL);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaEventRecord(g->prof[SATFEAT_FH_PROF_EVENTS - 1], s), "cudaEventRecord");
    FH_CK(cudaEventRecord(g->serial, s), "cudaEventRecord");
    g->prof_mode = (int)g->profiling;
    return SATFEAT_OK;
}

/* Microseconds between two recorded events. */
static satfeat_status elapsed_us(satfeat_ctx *ctx, cudaEvent_t a, cudaEvent_t b, double *us)
{
    float ms = 0;
    FH_CK(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    *us = 1000.0 * (double)ms;
    return SATFEAT_OK;
}

satfeat_status satfeat_fh_cuda_stage_times(void *state, satfeat_stage_times *out)
{
    satfeat_fh_cuda *g = state;
    satfeat_ctx *ctx = g->cfg.ctx;
    if (g->profiling == SATFEAT_PROFILING_OFF || g->prof_mode == 0)
        return satfeat_fail(ctx, SATFEAT_ERR_ARG,
                            "detector: no frame measured since profiling was turned on");
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    const int last = SATFEAT_FH_PROF_EVENTS - 1;
    FH_CK(cudaEventSynchronize(g->prof[last]), "cudaEventSynchronize");
    satfeat_stage_times t;
    memset(&t, 0, sizeof t);
    satfeat_status st = elapsed_us(ctx, g->prof[0], g->prof[last], &t.frame_us);
    if (st == SATFEAT_OK && g->prof_mode == SATFEAT_PROFILING_STAGES) {
        /* consecutive events: prof[i] .. prof[i + 1] is stage i */
        double *field[SATFEAT_FH_PROF_EVENTS - 1] = {&t.sat_us,    &t.detect_us,   &t.order_us,
                                                     &t.select_us, &t.describe_us, &t.download_us};
        for (int i = 0; i < last && st == SATFEAT_OK; i++)
            st = elapsed_us(ctx, g->prof[i], g->prof[i + 1], field[i]);
        t.stages = 1;
    }
    if (st == SATFEAT_OK) *out = t;
    return st;
}
