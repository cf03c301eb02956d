/* pool.c - a list of frames spread over several devices (satfeat_pool_*). Each worker owns a
 * context and a detector on its device and, on CUDA, a sequence (several frames in flight on
 * their own streams). One host thread per worker takes frames by an atomic counter, so the
 * frames go out dynamically; each result is written at its frame's index, so the output is in
 * input order. Built on the public detector and sequence calls, as an application would be
 * (plus the library's error and feature-set helpers of src/).
 *
 * The workers are plain threads (src/thread_team.h), not an OpenMP team: inside a team each
 * worker's own parallel regions (the threaded copy of a frame into its pinned buffer) would be
 * nested ones, and the OpenMP runtime creates the threads of a nested team anew every time - at
 * 1080p that cost a one-GPU pool 80% of its frame rate. A plain thread's regions are outermost
 * and reuse a pool. */
#define _POSIX_C_SOURCE 200809L /* sysconf */
#include "frames/frame_failure.h"
#include "satfeat.h"
#include "src/context_internal.h"
#include "src/features_internal.h"
#include "src/thread_team.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

/* Frames in flight per CUDA device: two lanes (streams) of two slots, so one frame's upload and
 * landing overlap another's kernels; one lane of three reached 80-89% of this rate on an H100. */
#define POOL_LANES 2
#define POOL_SLOTS (2 * POOL_LANES)
#define POOL_MAX_WORKERS 1024

typedef struct pool_worker {
    satfeat_ctx *ctx;
    satfeat_detector *det;
    satfeat_sequence *seq; /* CUDA workers only */
    int device;            /* -1 on the CPU */
    /* state of one satfeat_pool_detect call */
    size_t ring[POOL_SLOTS]; /* frame indices in flight, oldest at head */
    int head, pending;
    satfeat_frame_failure fail; /* lowest failed frame of this worker */
} pool_worker;

struct satfeat_pool {
    int n;
    int dim;
    pool_worker *w;
    char last_error[512];
};

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static satfeat_status pool_error(char *error, size_t size, satfeat_status st, const char *fmt, ...)
{
    if (error && size) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(error, size, fmt, ap);
        va_end(ap);
    }
    return st;
}

/* The worker list of a CUDA pool: the caller's ordinals, checked, or every usable device. */
static satfeat_status cuda_devices(const int *devices, int n_devices, int **out, int *n_out,
                                   char *error, size_t size)
{
    if (!satfeat_has_cuda_build())
        return pool_error(error, size, SATFEAT_ERR_UNSUPPORTED, "pool: this build has no CUDA backend");
    int count = satfeat_cuda_device_count();
    if (count == 0)
        return pool_error(error, size, SATFEAT_ERR_NO_DEVICE, "pool: no usable CUDA device");
    int n = n_devices > 0 ? n_devices : count;
    int *list = malloc((size_t)n * sizeof *list);
    if (!list) return pool_error(error, size, SATFEAT_ERR_ALLOC, "pool: out of memory");
    for (int i = 0; i < n; i++) {
        list[i] = devices && n_devices > 0 ? devices[i] : i;  /* NULL: devices 0..n-1 */
        int bad = list[i] < 0 || list[i] >= count;
        for (int j = 0; j < i; j++) bad |= list[j] == list[i];
        if (bad) {
            int d = list[i];
            free(list);
            return pool_error(error, size, SATFEAT_ERR_ARG,
                              "pool: device %d is not a usable device (0..%d) or is listed twice",
                              d, count - 1);
        }
    }
    *out = list;
    *n_out = n;
    return SATFEAT_OK;
}

static satfeat_status worker_new(pool_worker *w, satfeat_backend backend, int device,
                                 int copy_threads, const satfeat_detector_params *params,
                                 int max_width, int max_height, char *error, size_t size)
{
    w->device = backend == SATFEAT_BACKEND_CUDA ? device : -1;
    satfeat_status st = satfeat_ctx_new(&w->ctx, backend, w->device);
    if (st != SATFEAT_OK)
        return pool_error(error, size, st, "pool: cannot create a context on device %d: %s",
                          w->device, satfeat_status_string(st));
    /* a CPU worker is one thread of the pool's; a CUDA worker's threads copy its frames */
    if (backend == SATFEAT_BACKEND_CPU) st = satfeat_ctx_set_threads(w->ctx, 1);
    else if (copy_threads > 0) st = satfeat_ctx_set_threads(w->ctx, copy_threads);
    if (st == SATFEAT_OK) st = satfeat_detector_new(w->ctx, params, max_width, max_height, &w->det);
    if (st == SATFEAT_OK && backend == SATFEAT_BACKEND_CUDA)
        st = satfeat_sequence_new_lanes(w->det, POOL_SLOTS, POOL_LANES, &w->seq);
    if (st != SATFEAT_OK && error && size)
        snprintf(error, size, "pool: device %d: %s", w->device, satfeat_ctx_last_error(w->ctx));
    return st;
}

satfeat_status satfeat_pool_new(satfeat_backend backend, const int *devices, int n_devices,
                                const satfeat_detector_params *params, int max_width,
                                int max_height, satfeat_pool **out, char *error,
                                size_t error_size)
{
    if (error && error_size) error[0] = '\0';
    if (!out) return pool_error(error, error_size, SATFEAT_ERR_ARG, "pool: NULL out");
    *out = NULL;
    if (n_devices < 0 || n_devices > POOL_MAX_WORKERS)
        return pool_error(error, error_size, SATFEAT_ERR_ARG, "pool: n_devices %d not in 0..%d",
                          n_devices, POOL_MAX_WORKERS);
    if (backend == SATFEAT_BACKEND_AUTO)
        backend = satfeat_cuda_device_count() > 0 ? SATFEAT_BACKEND_CUDA : SATFEAT_BACKEND_CPU;
    int *list = NULL, n = 0;
    satfeat_status st = SATFEAT_OK;
    if (backend == SATFEAT_BACKEND_CUDA) {
        st = cuda_devices(devices, n_devices, &list, &n, error, error_size);
    } else if (backend == SATFEAT_BACKEND_CPU) {
        if (devices)
            return pool_error(error, error_size, SATFEAT_ERR_ARG,
                              "pool: a CPU pool takes a worker count, not device ordinals");
        n = n_devices;
#ifdef _OPENMP
        if (n == 0) n = omp_get_max_threads();
#endif
        if (n < 1) n = 1;
    } else {
        return pool_error(error, error_size, SATFEAT_ERR_ARG, "pool: bad backend %d", (int)backend);
    }
    if (st != SATFEAT_OK) return st;
    satfeat_detector_params defaults = satfeat_detector_params_default();
    satfeat_pool *p = calloc(1, sizeof *p);
    if (p) p->w = calloc((size_t)n, sizeof *p->w);
    if (!p || !p->w) {
        free(p);
        free(list);
        return pool_error(error, error_size, SATFEAT_ERR_ALLOC, "pool: out of memory");
    }
    p->n = n;
    /* the host's cores shared among the CUDA workers (their frame copies) */
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int copy_threads = cores > n ? (int)(cores / n) : 1;
    for (int i = 0; i < n && st == SATFEAT_OK; i++)
        st = worker_new(&p->w[i], backend, list ? list[i] : -1, copy_threads,
                        params ? params : &defaults, max_width, max_height, error, error_size);
    free(list);
    if (st != SATFEAT_OK) {
        satfeat_pool_delete(p);
        return st;
    }
    p->dim = satfeat_detector_descriptor_dim(p->w[0].det);
    *out = p;
    return SATFEAT_OK;
}

void satfeat_pool_delete(satfeat_pool *p)
{
    if (!p) return;
    for (int i = 0; i < p->n; i++) {
        satfeat_sequence_delete(p->w[i].seq);
        satfeat_detector_delete(p->w[i].det);
        satfeat_ctx_delete(p->w[i].ctx);
    }
    free(p->w);
    free(p);
}

int satfeat_pool_workers(const satfeat_pool *p)
{
    return p ? p->n : 0;
}

int satfeat_pool_worker_device(const satfeat_pool *p, int worker)
{
    return p && worker >= 0 && worker < p->n ? p->w[worker].device : -1;
}

int satfeat_pool_descriptor_dim(const satfeat_pool *p)
{
    return p ? p->dim : 0;
}

const char *satfeat_pool_last_error(const satfeat_pool *p)
{
    return p ? p->last_error : "";
}

/* Records frame i's status; a worker keeps the message of its lowest failed frame. */
static void finish(pool_worker *w, satfeat_frame_result *r, size_t i, satfeat_status st)
{
    r[i].status = st;
    satfeat_frame_failure_note(&w->fail, i, st, w->ctx);
}

/* CUDA: finishes the oldest frame in flight into its result. */
static void pop_oldest(pool_worker *w, satfeat_frame_result *r)
{
    size_t i = w->ring[w->head];
    w->head = (w->head + 1) % POOL_SLOTS;
    w->pending--;
    finish(w, r, i, satfeat_sequence_pop(w->seq, &r[i].features));
}

/* One worker's loop: take the next frame until none is left, then drain what is in flight. */
static void worker_run(pool_worker *w, const satfeat_image_view *f, size_t n,
                       satfeat_frame_result *r, atomic_size_t *next)
{
    for (;;) {
        const size_t i = atomic_fetch_add(next, 1);
        if (i >= n) break;
        r[i].device = w->device;
        if (!w->seq) { /* a device view fails there: the CPU reads host memory only */
            finish(w, r, i, satfeat_detect(w->det, &f[i], &r[i].features));
            continue;
        }
        /* the set is made (or emptied) now, so a frame that cannot be queued leaves it empty */
        satfeat_status st = satfeat_features_out(&r[i].features);
        if (st != SATFEAT_OK) {
            finish(w, r, i, satfeat_fail(w->ctx, st, "pool: out of memory"));
            continue;
        }
        if (w->pending == POOL_SLOTS) pop_oldest(w, r);
        int popped = 0; /* never set: a slot is free, so the push pops nothing */
        satfeat_features *none = NULL;
        st = satfeat_sequence_push(w->seq, &f[i], &none, &popped);
        if (st != SATFEAT_OK) {
            finish(w, r, i, st);
            continue;
        }
        w->ring[(w->head + w->pending) % POOL_SLOTS] = i;
        w->pending++;
    }
    while (w->pending > 0) pop_oldest(w, r);
}

/* One satfeat_pool_detect call, shared by its workers' threads. */
typedef struct pool_call {
    satfeat_pool *p;
    const satfeat_image_view *frames;
    size_t n;
    satfeat_frame_result *results;
    atomic_size_t next;
} pool_call;

static void worker_member(void *arg, size_t index)
{
    pool_call *c = arg;
    worker_run(&c->p->w[index], c->frames, c->n, c->results, &c->next);
}

satfeat_status satfeat_pool_detect(satfeat_pool *p, const satfeat_image_view *frames, size_t n,
                                   satfeat_frame_result *results)
{
    if (!p) return SATFEAT_ERR_ARG;
    p->last_error[0] = '\0';
    if (n == 0) return SATFEAT_OK;
    if (!frames || !results) {
        snprintf(p->last_error, sizeof p->last_error, "pool: NULL frames or results");
        return SATFEAT_ERR_ARG;
    }
    pool_call call = {p, frames, n, results, 0};
    for (int t = 0; t < p->n; t++) {
        p->w[t].head = p->w[t].pending = 0;
        satfeat_frame_failure_reset(&p->w[t].fail);
    }
    /* a worker whose thread cannot be started leaves its frames to the others (the counter
     * hands them out), so the call still completes */
    satfeat_thread_team_run((size_t)p->n, worker_member, &call);
    const satfeat_frame_failure *first = NULL;
    int device = -1;
    for (int t = 0; t < p->n; t++) {
        const satfeat_frame_failure *lower = satfeat_frame_failure_lower(first, &p->w[t].fail);
        if (lower != first) device = p->w[t].device;
        first = lower;
    }
    if (!first) return SATFEAT_OK;
    snprintf(p->last_error, sizeof p->last_error, "frame %zu (device %d): %s", first->index,
             device, first->msg);
    return first->status;
}
