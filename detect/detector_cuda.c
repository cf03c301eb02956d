/* detector_cuda.c - the CUDA backend's buffers and frame work: device buffers sized when the
 * state is made, the per-frame work (SAT, responses, extrema, order, selection, orientation and
 * descriptors, download), launched stage by stage the first time a frame key is met and captured
 * into a CUDA graph, replayed, when it comes back. Frames in
 * and features out: detector_cuda_slots.c. Built with CUDA only. Frames of one state run one
 * after another on the GPU (an event chains them, whatever stream they are queued on), because
 * they share the table, maps and candidate buffers. */
#include "describe/describe.h"
#include "detect/detector_cuda_state.h"
#include "detect/kernels_cuda.h"
#include "detect/order_buckets.h"
#include "sat/sat.h"
#include "src/cuda_state.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

size_t satfeat_fh_round128(size_t v)
{
    return (v + 127u) & ~(size_t)127u;
}

uint32_t satfeat_fh_cuda_out_cap(const satfeat_fh_cuda *g)
{
    size_t cap = g->cfg.candidate_cap; /* the creation checks keep it below 2^31 */
    const int mk = g->cfg.params->max_keypoints;
    if (mk > 0 && (size_t)mk < cap) cap = (size_t)mk;
    return (uint32_t)cap;
}

int satfeat_fh_cuda_dim(const satfeat_fh_cuda *g)
{
    return (int)g->cfg.params->descriptor;
}

/* Allocates `bytes` of device memory into *p (NULL on failure, recorded). */
static satfeat_status dev_alloc(satfeat_ctx *ctx, void **p, size_t bytes)
{
    FH_CK(cudaMalloc(p, bytes ? bytes : 1), "cudaMalloc");
    return SATFEAT_OK;
}

/* The buffers of `g` (the reason of a failure in its context; the caller frees what was made). */
static satfeat_status cuda_alloc(satfeat_fh_cuda *g)
{
    satfeat_ctx *ctx = g->cfg.ctx;
    const int max_w = g->cfg.max_width, max_h = g->cfg.max_height;
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    FH_CK(cudaStreamCreateWithFlags(&g->capture, cudaStreamNonBlocking), "cudaStreamCreate");
    FH_CK(cudaEventCreateWithFlags(&g->serial, cudaEventDisableTiming), "cudaEventCreate");
    FH_CK(satfeat_fh_kernels_init(), "cudaFuncSetAttribute (octave kernel shared memory)");
    const size_t cap = g->cfg.candidate_cap;
    if (cap >= (size_t)1 << 31)
        return satfeat_fail(ctx, SATFEAT_ERR_OVERFLOW, "detect: %zu candidates too many", cap);
    const size_t sat_bytes =
        satfeat_fh_round128(((size_t)max_w + 1) * 4u) * ((size_t)max_h + 1);
    satfeat_fh_order_bufs *b = &g->ob;
    b->cap = cap;
    satfeat_status st = SATFEAT_OK;
    b->cells_cap = satfeat_fh_order_cells(max_w, max_h);
    uint32_t **per_cand[] = {&b->bucket_members, &b->cell_members, &b->cell_pos, &b->key,
                             &b->val,            &b->val2,         &b->ck2,      &b->pos2};
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&g->sat, sat_bytes);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->resp, cap * sizeof(double));
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->bucket_resp, cap * sizeof(double));
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->cand, cap * sizeof(satfeat_keypoint));
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&g->out, cap * sizeof(satfeat_keypoint));
    g->out_cap = satfeat_fh_cuda_out_cap(g);
    if (st == SATFEAT_OK)
        st = dev_alloc(ctx, (void **)&g->weights, satfeat_describe_weights_bytes());
    for (size_t i = 0; i < sizeof per_cand / sizeof per_cand[0] && st == SATFEAT_OK; i++)
        st = dev_alloc(ctx, (void **)per_cand[i], cap * 4u);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->keep, cap);
    /* counters, bucket counts and cell counts: one region, zeroed per frame */
    const size_t zero_bytes = satfeat_fh_order_zero_bytes(b->cells_cap);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, (void **)&b->counters, zero_bytes);
    if (st == SATFEAT_OK)
        st = dev_alloc(ctx, (void **)&b->cell_start, (b->cells_cap + 1) * sizeof(uint32_t));
    if (st != SATFEAT_OK) return st;
    b->cand_buckets = b->counters + 4;
    b->cand_groups = b->cand_buckets + SATFEAT_FH_BUCKETS;
    b->kept_buckets = b->cand_groups + SATFEAT_FH_BUCKET_GROUPS;
    b->kept_groups = b->kept_buckets + SATFEAT_FH_BUCKETS;
    b->cell_hist = b->kept_groups + SATFEAT_FH_BUCKET_GROUPS;
    FH_CK(satfeat_fh_order_temp_bytes(cap, &b->temp_bytes), "CUB temporary storage query");
    st = dev_alloc(ctx, &b->temp, b->temp_bytes);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaMemset(b->counters, 0, zero_bytes), "cudaMemset");
    /* cfg.weights lives as long as the detector; the stream is synchronized below */
    FH_CK(satfeat_describe_weights_upload(g->cfg.weights, g->weights, g->capture),
          "uploading the describe weights");
    FH_CK(satfeat_fh_landing_new(g, &g->land), "cudaHostAlloc (mapped landing buffer)");
    /* the state's own SAT work memory, for every frame up to the maximum size (sat.h) */
    st = satfeat_sat_cuda_work_bytes(ctx, max_w, max_h, &g->sat_work_bytes);
    if (st == SATFEAT_OK) st = dev_alloc(ctx, &g->sat_work, g->sat_work_bytes);
    if (st == SATFEAT_OK) st = satfeat_sat_cuda_work_init(ctx, g->sat_work, g->sat_work_bytes, g->capture);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaStreamSynchronize(g->capture), "cudaStreamSynchronize");
    return SATFEAT_OK;
}

satfeat_status satfeat_fh_cuda_create(const satfeat_fh_config *cfg, void **state)
{
    satfeat_fh_cuda *g = calloc(1, sizeof *g);
    if (!g) return satfeat_fail(cfg->ctx, SATFEAT_ERR_ALLOC, "detect: out of memory");
    g->cfg = *cfg;
    satfeat_status st = cuda_alloc(g);
    if (st != SATFEAT_OK) {
        satfeat_fh_cuda_destroy(g);
        return st;
    }
    *state = g;
    return SATFEAT_OK;
}

void satfeat_fh_cuda_destroy(void *state)
{
    satfeat_fh_cuda *g = state;
    if (!g) return;
    cudaSetDevice(g->cfg.ctx->device);
    satfeat_fh_slot_delete(g->own);
    cudaDeviceSynchronize();
    for (int i = 0; i < GRAPH_CACHE; i++)
        if (g->graphs[i].exec) cudaGraphExecDestroy(g->graphs[i].exec);
    const satfeat_fh_order_bufs *b = &g->ob;
    void *bufs[] = {g->sat,          g->sat_work,  b->resp,        g->out,
                    g->weights,      b->cand,      b->bucket_resp, b->bucket_members,
                    b->cell_members, b->cell_pos,  b->key,         b->val,
                    b->val2,         b->ck2,       b->pos2,        b->keep,
                    b->counters,     b->cell_start, b->temp};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        if (bufs[i]) cudaFree(bufs[i]);
    satfeat_fh_landing_free(&g->land);
    for (int i = 0; i < SATFEAT_FH_PROF_EVENTS; i++)
        if (g->prof[i]) cudaEventDestroy(g->prof[i]);
    if (g->serial) cudaEventDestroy(g->serial);
    if (g->capture) cudaStreamDestroy(g->capture);
    (void)cudaGetLastError();
    free(g);
}

satfeat_status satfeat_fh_record_frame(satfeat_fh_cuda *g, const satfeat_fh_graph_key *k,
                                       cudaStream_t s, cudaEvent_t stage[SATFEAT_FH_STAGE_EVENTS])
{
    satfeat_ctx *ctx = g->cfg.ctx;
    const satfeat_detector_params *p = g->cfg.params;
    const size_t sat_pitch = satfeat_fh_round128(((size_t)k->width + 1) * 4u);
    satfeat_fh_plan plan;
    satfeat_fh_plan_build(p, g->cfg.layers, satfeat_cuda_sm_count(ctx), k->width, k->height,
                          sat_pitch / 4u, &plan);
    const size_t zero_bytes =
        satfeat_fh_order_zero_bytes(satfeat_fh_order_cells(k->width, k->height));
    FH_CK(cudaMemsetAsync(g->ob.counters, 0, zero_bytes, s), "cudaMemsetAsync");
    satfeat_status st =
        satfeat_sat_cuda_u8_work(ctx, k->image, k->stride, k->width, k->height, g->sat, sat_pitch,
                                 SATFEAT_SAT_AUTO, g->sat_work, g->sat_work_bytes, s);
    if (st != SATFEAT_OK) return st;
    if (stage) FH_CK(cudaEventRecord(stage[0], s), "cudaEventRecord");
    FH_CK(satfeat_fh_launch_octaves(&plan, g->sat, &g->ob, s), "octave kernel");
    if (stage) FH_CK(cudaEventRecord(stage[1], s), "cudaEventRecord");
    /* a described frame with duplicate cells and no grid: the ordering also lays the selected
     * keypoints out in cell order (g->ob.key, holes where a candidate was not selected), and the
     * descriptor kernel takes them in that order, so a block's warps read nearby table rows (the
     * orientation kernel measured slower in that order and keeps index order) */
    const int dim = k->desc ? satfeat_fh_cuda_dim(g) : 0;
    const int spatial = dim > 0 && p->suppress_duplicates && p->grid <= 0;
    FH_CK(satfeat_fh_launch_sort(&g->ob, k->width, k->height, k->mask, k->mask_stride, p->grid,
                                 p->suppress_duplicates, plan.bucket_base, p->max_keypoints, k->out,
                                 spatial ? g->ob.key : NULL, s),
          "ordering");
    if (stage) FH_CK(cudaEventRecord(stage[2], s), "cudaEventRecord");
    FH_CK(satfeat_fh_launch_select(&g->ob, p->grid, p->per_cell, p->max_keypoints, k->out, s),
          "selection");
    if (stage) FH_CK(cudaEventRecord(stage[3], s), "cudaEventRecord");
    /* orientation and descriptors of the selected keypoints, in place in k->out: the count is
     * counters[1] (written by selection), read on the device; out_cap bounds it */
    const uint32_t *d_selected = g->ob.counters + 1;
    const size_t sat_stride = sat_pitch / sizeof(uint32_t);
    /* the orientation and descriptor kernels write what they finish to the landing buffer too,
     * so that the copy to the host overlaps them; the download kernel then writes the count and
     * whatever no kernel landed */
    const satfeat_land_dst land = {!p->upright ? k->land->d_kp : NULL,
                                   dim > 0 ? k->land->d_desc : NULL, k->land->cap};
    if (!p->upright)
        FH_CK(satfeat_orient_cuda(g->sat, sat_stride, k->width, k->height, k->out, d_selected,
                                  g->out_cap, g->weights, g->cfg.weights->ori_filter, land, s),
              "orientation kernel");
    if (dim > 0) /* spatial: the order's entries are the candidates, at most cap */
        FH_CK(satfeat_describe_cuda_ordered(
                  g->sat, sat_stride, k->width, k->height, k->out,
                  spatial ? g->ob.counters : d_selected,
                  spatial ? (uint32_t)g->ob.cap : (uint32_t)g->out_cap,
                  spatial ? g->ob.key : NULL, satfeat_desc_flags(p), dim, g->weights, k->desc,
                  land, s),
              "descriptor kernel");
    if (stage) FH_CK(cudaEventRecord(stage[4], s), "cudaEventRecord");
    FH_CK(satfeat_fh_launch_download(&g->ob, land.kp ? NULL : k->out, k->land->d_count,
                                     k->land->d_kp, k->land->cap, s),
          "download kernel");
    return SATFEAT_OK;
}

/* Captures the frame of key `k` into a graph and instantiates it into entry `e`. */
static satfeat_status capture(satfeat_fh_cuda *g, const satfeat_fh_graph_key *k,
                              satfeat_fh_graph_entry *e)
{
    satfeat_ctx *ctx = g->cfg.ctx;
    cudaGraph_t graph = NULL;
    FH_CK(cudaStreamBeginCapture(g->capture, cudaStreamCaptureModeThreadLocal),
       "cudaStreamBeginCapture");
    satfeat_status st = satfeat_fh_record_frame(g, k, g->capture, NULL);
    cudaError_t ce = cudaStreamEndCapture(g->capture, &graph);
    if (st != SATFEAT_OK) {
        if (graph) cudaGraphDestroy(graph);
        return st;
    }
    FH_CK(ce, "cudaStreamEndCapture");
    if (e->exec) { /* an entry being replaced: a fresh instantiation (the topology may differ) */
        cudaGraphExecDestroy(e->exec);
        e->exec = NULL;
    }
    if (!e->exec) ce = cudaGraphInstantiate(&e->exec, graph, 0);
    cudaGraphDestroy(graph);
    if (ce != cudaSuccess) {
        e->exec = NULL;
        return satfeat_cuda_fail(ctx, (int)ce, "detect", "cudaGraphInstantiate");
    }
    e->key = *k;
    return SATFEAT_OK;
}

satfeat_status satfeat_fh_launch_frame(satfeat_fh_cuda *g, const satfeat_fh_graph_key *k,
                                      cudaStream_t s, cudaGraphExec_t exec,
                                      cudaEvent_t stage[SATFEAT_FH_STAGE_EVENTS])
{
    if (!exec || stage) return satfeat_fh_record_frame(g, k, s, stage);
    satfeat_ctx *ctx = g->cfg.ctx;
    FH_CK(cudaGraphLaunch(exec, s), "cudaGraphLaunch");
    return SATFEAT_OK;
}

/* Whether key `k` ran without a graph in one of the last GRAPH_CACHE such frames; remembers it
 * when not. */
static int missed_before(satfeat_fh_cuda *g, const satfeat_fh_graph_key *k)
{
    for (int i = 0; i < g->missed_n; i++)
        if (memcmp(&g->missed[i], k, sizeof *k) == 0) return 1;
    g->missed[g->missed_at] = *k;
    g->missed_at = (g->missed_at + 1) % GRAPH_CACHE;
    if (g->missed_n < GRAPH_CACHE) g->missed_n++;
    return 0;
}

/* A graph pays for its capture and instantiation (several times the launches of a frame) only
 * when its key comes back: a sequence of frames of one size and buffer does, an AR session's
 * detection region, whose size changes from frame to frame, does not. So a new key runs without
 * a graph, and is captured the next time it is met; that first run has surfaced the key's
 * launch errors (a frame is waited for before its features are returned), so the capture needs
 * no warm-up frame of its own. */
satfeat_status satfeat_fh_enqueue(satfeat_fh_cuda *g, satfeat_fh_graph_key *k, cudaStream_t s)
{
    satfeat_ctx *ctx = g->cfg.ctx;
    FH_CK(cudaSetDevice(ctx->device), "cudaSetDevice");
    satfeat_fh_graph_entry *hit = NULL, *victim = &g->graphs[0];
    for (int i = 0; i < GRAPH_CACHE; i++) {
        satfeat_fh_graph_entry *e = &g->graphs[i];
        if (e->exec && memcmp(&e->key, k, sizeof *k) == 0) hit = e;
        if (!e->exec || (victim->exec && e->used < victim->used)) victim = e;
    }
    if (!hit && missed_before(g, k)) {
        satfeat_status st = capture(g, k, victim);
        if (st != SATFEAT_OK) return st;
        hit = victim;
    }
    if (hit) hit->used = ++g->clock;
    cudaGraphExec_t exec = hit ? hit->exec : NULL;
    if (g->profiling != SATFEAT_PROFILING_OFF)
        return satfeat_fh_enqueue_profiled(g, k, s, exec);
    FH_CK(cudaStreamWaitEvent(s, g->serial, 0), "cudaStreamWaitEvent");
    const satfeat_status st = satfeat_fh_launch_frame(g, k, s, exec, NULL);
    if (st != SATFEAT_OK) return st;
    FH_CK(cudaEventRecord(g->serial, s), "cudaEventRecord");
    return SATFEAT_OK;
}
