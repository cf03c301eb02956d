/* fuzz_tracker.c - libFuzzer harness of the tracker on the CPU backend: parameters, a maximum
 * frame size and a run of frames (sizes and pixels) from the input, with frames of a wrong size,
 * capacity queries and resets mixed in. Checks the contract of every call: a refused frame
 * leaves the tracker usable and its tracks unchanged; tracks come in ascending id order, ids are
 * never reused, every field is finite and in range; a capacity short of the count is refused
 * with the count needed; the motion of a frame is finite and normalised. */
#include "satfeat.h"
#include "fuzz_bytes.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_MAX_SIDE 48   /* frames stay small: the detector runs on every one */
#define FUZZ_MAX_FRAMES 6
#define FUZZ_MAX_TRACKS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what, size_t k)
{
    fprintf(stderr, "fuzz invariant violated: %s (item %zu)\n", what, k);
    abort();
}

static satfeat_tracker_params params_from(fuzz_bytes *b)
{
    satfeat_tracker_params p = satfeat_tracker_params_default();
    p.detector.threshold = (1 + fuzz_u8(b)) / 255.0 * 0.002;
    p.detector.octaves = 1 + fuzz_below(b, 2);
    p.detector.max_keypoints = 1 + fuzz_below(b, 64);
    p.detector.grid = fuzz_below(b, 3);
    p.detector.per_cell = p.detector.grid ? 1 + fuzz_below(b, 8) : 0;
    p.detector.descriptor = fuzz_u8(b) & 1 ? SATFEAT_DESCRIPTOR_SURF128 : SATFEAT_DESCRIPTOR_SURF64;
    p.match.radius = fuzz_below(b, 3) * 10.0;
    p.match.mutual = fuzz_u8(b) & 1;
    p.motion.model = (satfeat_motion_model)fuzz_below(b, 3);
    p.motion.max_iterations = 1 + fuzz_below(b, 100);
    p.max_missed = fuzz_below(b, 4);
    p.max_tracks = 1 + fuzz_below(b, FUZZ_MAX_TRACKS);
    p.min_birth_distance = fuzz_below(b, 8);
    p.guided_radius = fuzz_below(b, 8);
    p.reject_outliers = fuzz_u8(b) & 1;
    p.birth_confirm_radius = fuzz_below(b, 4);
    p.max_birth_size = fuzz_below(b, 3) * 20.0;
    p.continue_threshold = fuzz_below(b, 3) * 0.00005;
    return p;
}

/* Fills a frame from the input's bytes (repeated), with a smooth pattern under them so that
 * blobs exist even when the input is short. */
static void fill_frame(fuzz_bytes *b, uint8_t *img, int w, int h, int shift)
{
    const size_t n = b->left < 256 ? b->left : 256;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int base = (((x + shift) / 6 + y / 6) & 1) ? 200 : 40;
            const size_t i = (size_t)y * (size_t)w + (size_t)x;
            img[i] = (uint8_t)(n ? base ^ (b->p[i % n] & 0x3f) : base);
        }
    b->p += n;
    b->left -= n;
}

static void check_tracks(const satfeat_track *t, size_t count, uint64_t *max_id, int w, int h,
                         const satfeat_tracker_params *p)
{
    if (count > (size_t)p->max_tracks) fuzz_fail("more tracks than max_tracks", count);
    uint64_t prev = 0;
    for (size_t k = 0; k < count; k++) {
        if (t[k].id <= prev) fuzz_fail("ids not ascending", k);
        prev = t[k].id;
        if (t[k].age == 0 && t[k].id <= *max_id) fuzz_fail("an id reused for a new track", k);
        if (!isfinite(t[k].x) || !isfinite(t[k].y) || !isfinite(t[k].size) ||
            !isfinite(t[k].angle))
            fuzz_fail("non-finite track field", k);
        if (t[k].missed == 0 && (t[k].x < 0 || t[k].x > w - 1 || t[k].y < 0 || t[k].y > h - 1))
            fuzz_fail("a seen track outside the frame", k);
        if (t[k].missed < 0 || t[k].missed > p->max_missed || t[k].age < t[k].missed)
            fuzz_fail("missed or age out of range", k);
        if (t[k].inlier && (t[k].missed != 0 || t[k].age == 0)) fuzz_fail("inlier flag", k);
        if (t[k].laplacian != 1 && t[k].laplacian != -1) fuzz_fail("laplacian", k);
    }
    if (prev > *max_id) *max_id = prev;
}

static void check_motion(const satfeat_frame_motion *m, int frame)
{
    if (m->frame != frame) fuzz_fail("motion frame index", (size_t)m->frame);
    for (int k = 0; k < 9; k++)
        if (!isfinite(m->h_prev[k]) || !isfinite(m->h_ref[k])) fuzz_fail("non-finite motion", 0);
    if (m->h_prev[8] != 1.0 || m->h_ref[8] != 1.0) fuzz_fail("motion not normalised", 0);
    if (m->inliers > m->matches) fuzz_fail("more inliers than matches", m->inliers);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_bytes b = {data, size};
    const satfeat_tracker_params p = params_from(&b);
    const int mw = 1 + fuzz_below(&b, FUZZ_MAX_SIDE), mh = 1 + fuzz_below(&b, FUZZ_MAX_SIDE);
    const int nframes = 1 + fuzz_below(&b, FUZZ_MAX_FRAMES);
    satfeat_ctx *ctx = NULL;
    satfeat_tracker *tr = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0) != SATFEAT_OK) abort();
    satfeat_ctx_set_threads(ctx, 1);
    if (satfeat_tracker_new(ctx, &p, mw, mh, &tr) != SATFEAT_OK) fuzz_fail("tracker_new", 0);
    uint8_t *img = malloc((size_t)FUZZ_MAX_SIDE * FUZZ_MAX_SIDE);
    if (!img) abort();
    uint64_t max_id = 0;
    int fw = 0, fh = 0, frame = 0; /* the size of the first frame since creation or reset */
    for (int f = 0; f < nframes; f++) {
        const uint8_t op = fuzz_u8(&b);
        if (op % 8 == 7) { /* a reset: the next frame may have any size up to the maximum */
            if (satfeat_tracker_reset(tr) != SATFEAT_OK) fuzz_fail("reset", (size_t)f);
            fw = fh = frame = 0;
            continue;
        }
        int w = fw ? fw : 1 + fuzz_below(&b, mw), h = fh ? fh : 1 + fuzz_below(&b, mh);
        const int wrong = op % 8 == 6; /* a frame of another size: refused, nothing changes */
        if (wrong) {
            w = 1 + fuzz_below(&b, FUZZ_MAX_SIDE);
            h = 1 + fuzz_below(&b, FUZZ_MAX_SIDE);
        }
        fill_frame(&b, img, w, h, f * (op & 3));
        const int in_flight = op % 8 == 5; /* pushed, then popped */
        satfeat_frame_motion m;
        const satfeat_image_view v = satfeat_image_view_host(img, w, h, 0);
        int popped = 0;
        satfeat_status st = in_flight ? satfeat_tracker_push(tr, &v, &m, &popped)
                                      : satfeat_tracker_track(tr, &v, &m);
        if (popped) fuzz_fail("push popped with no frame pending", (size_t)f);
        const int size_ok = fw ? (w == fw && h == fh) : (w <= mw && h <= mh);
        if (!size_ok) {
            if (st != SATFEAT_ERR_ARG) fuzz_fail("a frame of a wrong size accepted", (size_t)f);
            if (satfeat_tracker_pending(tr) != 0) fuzz_fail("a refused frame queued", (size_t)f);
            continue;
        }
        if (st == SATFEAT_OK && in_flight) st = satfeat_tracker_pop(tr, &m);
        if (st != SATFEAT_OK) fuzz_fail("tracking failed on a valid frame", (size_t)st);
        fw = w;
        fh = h;
        check_motion(&m, frame++);
        size_t count = 0;
        const satfeat_track *tracks = satfeat_tracker_tracks(tr, &count);
        if ((count == 0) != (tracks == NULL)) fuzz_fail("tracks and their count disagree", count);
        check_tracks(tracks, count, &max_id, w, h, &p);
    }
    free(img);
    satfeat_tracker_delete(tr);
    satfeat_ctx_delete(ctx);
    return 0;
}
