/* cmd_bench_batch.c - `satfeat bench batch IMAGE`: host-to-host frames per second of a list of
 * frames (each its own copy of IMAGE resized bilinearly) one at a time (satfeat_detect; with
 * --descriptors on a detector that describes), through a 3-slot sequence, and in one
 * satfeat_batch_detect call per lane count; medians over the passes, and whether every
 * frame's batch result equals its one-at-a-time result. Uses the public API only, so it runs on
 * either backend. */
#include "commands.h"
#include "detect_options.h"
#include "image_resize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BB_MAX_LANES 16   /* lane counts in --lanes */
#define BB_MAX_SIZES 8    /* sizes in --sizes */
#define BB_DEFAULT_PASSES 7

static void bench_batch_help(FILE *out)
{
    fprintf(out,
            "usage: satfeat bench batch IMAGE [--frames N] [--lanes LIST] [--sizes LIST]\n"
            "                            [--descriptors] [detector options]\n"
            "\n"
            "Frames per second, host memory to host memory, of N frames (default 32; each its\n"
            "own copy of IMAGE resized bilinearly) detected one at a time (satfeat_detect),\n"
            "through a 3-slot sequence, and in one satfeat_batch_detect call for each lane\n"
            "count of LIST (default 1,2,4,8,16; 0 = the default count); medians over --repeat\n"
            "passes (default 7). --sizes WxH,... (default 640x480,1280x720,1920x1080).\n"
            "--descriptors: with descriptors (else keypoints only). --threads caps the batch's\n"
            "host threads. 'same' says whether every batch result equals the one-at-a-time one.\n"
            "\n");
    cli_detect_options_help(out);
    fprintf(out, "\nexample:\n  satfeat bench batch data/scene.png --backend cuda --frames 32\n"
                 "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

typedef struct bench_batch_flags {
    int frames;
    int lanes[BB_MAX_LANES], n_lanes;
    int sizes[BB_MAX_SIZES][2], n_sizes;
} bench_batch_flags;

/* "1,2,4" into flags->lanes (each 0..SATFEAT_BATCH_MAX_LANES); 0 after printing why. */
static int parse_lanes(const char *text, bench_batch_flags *f)
{
    char buf[256];
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf) return 0;
    f->n_lanes = 0;
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ",")) {
        if (f->n_lanes == BB_MAX_LANES) {
            fprintf(stderr, "satfeat: bench batch: at most %d lane counts\n", BB_MAX_LANES);
            return 0;
        }
        if (!cli_parse_int(tok, 0, SATFEAT_BATCH_MAX_LANES, "--lanes", &f->lanes[f->n_lanes]))
            return 0;
        f->n_lanes++;
    }
    return f->n_lanes > 0;
}

/* "640x480,1920x1080" into flags->sizes; 0 after printing why. */
static int parse_frame_sizes(const char *text, bench_batch_flags *f)
{
    f->n_sizes = 0;
    const char *s = text;
    while (*s) {
        int w = 0, h = 0, used = 0;
        if (f->n_sizes == BB_MAX_SIZES || sscanf(s, "%dx%d%n", &w, &h, &used) != 2 || w < 1 ||
            h < 1 || w > 16384 || h > 16384 || (s[used] != ',' && s[used] != '\0')) {
            fprintf(stderr, "satfeat: bench batch: bad --sizes '%s' (WxH,... at most %d, sides "
                            "1..16384)\n", text, BB_MAX_SIZES);
            return 0;
        }
        f->sizes[f->n_sizes][0] = w;
        f->sizes[f->n_sizes][1] = h;
        f->n_sizes++;
        s += used + (s[used] == ',');
    }
    return f->n_sizes > 0;
}

/* --frames, --lanes and --sizes (cli_extra_option_fn). */
static int bench_batch_option(int argc, char **argv, int *i, void *user)
{
    bench_batch_flags *f = user;
    const char *v = NULL;
    int m;
    if ((m = cli_option_value(argc, argv, i, "--frames", &v)) != 0)
        return m < 0 || !cli_parse_int(v, 1, 4096, "--frames", &f->frames) ? -1 : 1;
    if ((m = cli_option_value(argc, argv, i, "--lanes", &v)) != 0)
        return m < 0 || !parse_lanes(v, f) ? -1 : 1;
    if ((m = cli_option_value(argc, argv, i, "--sizes", &v)) != 0)
        return m < 0 || !parse_frame_sizes(v, f) ? -1 : 1;
    return 0;
}

/* The frames of one size and their outputs: frame i's results in out[i], the one-at-a-time
 * reference in ref[i] (feature sets reused pass after pass). */
typedef struct bb_set {
    int n, w, h;
    uint8_t **img;
    satfeat_image_view *f;
    satfeat_frame_result *out, *ref;
} bb_set;

static void set_free(bb_set *s)
{
    for (int i = 0; s->img && i < s->n; i++) free(s->img[i]);
    for (int i = 0; s->out && i < s->n; i++) {
        satfeat_features_delete(s->out[i].features);
        satfeat_features_delete(s->ref[i].features);
    }
    free(s->img);
    free(s->f);
    free(s->out);
    free(s->ref);
    memset(s, 0, sizeof *s);
}

/* n copies of `img` (w x h) and their (empty) results. */
static int set_new(bb_set *s, const uint8_t *img, int w, int h, int n)
{
    *s = (bb_set){n, w, h, calloc((size_t)n, sizeof(uint8_t *)),
                  calloc((size_t)n, sizeof(satfeat_image_view)),
                  calloc((size_t)n, sizeof(satfeat_frame_result)),
                  calloc((size_t)n, sizeof(satfeat_frame_result))};
    if (!s->img || !s->f || !s->out || !s->ref) return 0;
    const size_t bytes = (size_t)w * (size_t)h;
    for (int i = 0; i < n; i++) {
        s->img[i] = malloc(bytes);
        if (!s->img[i]) return 0;
        memcpy(s->img[i], img, bytes);
        s->f[i] = satfeat_image_view_host(s->img[i], w, h, 0);
    }
    return 1;
}

/* One pass of the n frames one at a time into s->ref; milliseconds, or -1 on failure. */
static double one_at_a_time(void *arg, bb_set *s)
{
    satfeat_detector *det = arg;
    const double t0 = cli_now_ms();
    for (int i = 0; i < s->n; i++) {
        satfeat_frame_result *r = &s->ref[i];
        r->status = satfeat_detect(det, &s->f[i], &r->features);
        if (r->status != SATFEAT_OK) return -1;
    }
    return cli_now_ms() - t0;
}

/* One pass through a 3-slot sequence into s->out; milliseconds, or -1 on failure. */
static double through_sequence(void *arg, bb_set *s)
{
    satfeat_sequence *q = arg;
    const double t0 = cli_now_ms();
    int next = 0, popped = 0;
    for (int i = 0; i < s->n; i++) {
        satfeat_frame_result *r = &s->out[next];
        if (satfeat_sequence_push(q, &s->f[i], &r->features, &popped) != SATFEAT_OK) return -1;
        r->status = SATFEAT_OK;
        next += popped;
    }
    while (satfeat_sequence_pending(q) > 0) {
        satfeat_frame_result *r = &s->out[next++];
        if ((r->status = satfeat_sequence_pop(q, &r->features)) != SATFEAT_OK) return -1;
    }
    return cli_now_ms() - t0;
}

/* 1 when every frame's result in s->out equals its reference in s->ref. */
static int results_equal(const bb_set *s)
{
    for (int i = 0; i < s->n; i++)
        if (s->out[i].status != SATFEAT_OK ||
            !cli_same_features(s->out[i].features, s->ref[i].features))
            return 0;
    return 1;
}

/* One batch call over the frames into s->out; milliseconds, or -1 on failure. */
static double one_batch(void *arg, bb_set *s)
{
    const double t0 = cli_now_ms();
    if (satfeat_batch_detect(arg, s->f, (size_t)s->n, s->out) != SATFEAT_OK) return -1;
    return cli_now_ms() - t0;
}

/* Median milliseconds of `passes` passes of `pass` after one warm-up pass; -1 on failure. */
static double median_ms(int passes, double (*pass)(void *, bb_set *), void *arg, bb_set *s)
{
    double *t = malloc(sizeof(double) * (size_t)passes);
    double ms = t ? pass(arg, s) : -1;
    for (int p = 0; ms >= 0 && p < passes; p++)
        if ((t[p] = pass(arg, s)) < 0) ms = -1;
    if (ms >= 0) ms = cli_median(t, passes);
    free(t);
    return ms;
}

/* Every measurement of one frame size; prints its rows. Returns 0, or 1 after an error. */
static int bench_one_size(satfeat_ctx *ctx, const cli_detect_options *o,
                          const bench_batch_flags *fl, const uint8_t *img, int w, int h,
                          int passes)
{
    satfeat_detector *det = NULL;
    satfeat_sequence *seq = NULL;
    bb_set s = {0};
    int rc = 1;
    /* descriptors only with --descriptors: without, the frames run the keypoint stages only */
    satfeat_detector_params params = o->params;
    if (!o->descriptors) params.descriptor = SATFEAT_DESCRIPTOR_NONE;
    satfeat_status st = satfeat_detector_new(ctx, &params, w, h, &det);
    if (st == SATFEAT_OK && !set_new(&s, img, w, h, fl->frames)) {
        fprintf(stderr, "satfeat: bench batch: out of memory\n");
        goto done;
    }
    double one_ms = -1, seq_ms = -1;
    if (st == SATFEAT_OK) one_ms = median_ms(passes, one_at_a_time, det, &s);
    if (st == SATFEAT_OK && one_ms >= 0) st = satfeat_sequence_new(det, 3, &seq);
    if (st == SATFEAT_OK && one_ms >= 0) seq_ms = median_ms(passes, through_sequence, seq, &s);
    if (st != SATFEAT_OK || one_ms < 0 || seq_ms < 0) {
        cli_report("bench batch", st != SATFEAT_OK ? st : SATFEAT_ERR_ARG, ctx);
        goto done;
    }
    const int seq_same = results_equal(&s);
    const double one_fps = 1e3 * s.n / one_ms, seq_fps = 1e3 * s.n / seq_ms;
    for (int k = 0; k < fl->n_lanes; k++) {
        satfeat_batch *b = NULL;
        double batch_ms = -1;
        st = satfeat_batch_new(det, fl->lanes[k], &b);
        if (st == SATFEAT_OK) batch_ms = median_ms(passes, one_batch, b, &s);
        const int lanes = satfeat_batch_lanes(b);
        satfeat_batch_delete(b);
        if (st != SATFEAT_OK || batch_ms < 0) {
            cli_report("bench batch", st != SATFEAT_OK ? st : SATFEAT_ERR_ARG, ctx);
            goto done;
        }
        const double fps = 1e3 * s.n / batch_ms;
        int threads = satfeat_ctx_threads(ctx);
        if (threads > lanes) threads = lanes;
        if (threads > s.n) threads = s.n;
        if (satfeat_ctx_backend(ctx) != SATFEAT_BACKEND_CUDA) threads = 1;
        printf("%4dx%-5d %6d %5d %7d %10.0f %10.0f %10.0f %7.2f %7.2f %4s\n", w, h, s.n, lanes,
               threads, one_fps, seq_fps, fps, fps / one_fps, fps / seq_fps,
               results_equal(&s) && seq_same ? "yes" : "NO");
        fflush(stdout);
    }
    rc = 0;
done:
    satfeat_sequence_delete(seq);
    satfeat_detector_delete(det);
    set_free(&s);
    return rc;
}

int cli_cmd_bench_batch(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    bench_batch_flags fl = {32, {1, 2, 4, 8, 16}, 5, {{640, 480}, {1280, 720}, {1920, 1080}}, 3};
    const char *image = NULL;
    const int rc0 = cli_bench_parse(argc, argv, &o, &image, bench_batch_help, bench_batch_option,
                                    &fl);
    if (rc0 >= 0) return rc0;
    const int passes = o.repeat > 0 ? o.repeat : BB_DEFAULT_PASSES;
    satfeat_ctx *ctx = NULL;
    if (!cli_context_new(&o, &ctx)) return CLI_EXIT_FAILURE;
    uint8_t *src = NULL;
    int sw = 0, sh = 0, rc = CLI_EXIT_FAILURE;
    satfeat_status st = satfeat_image_load_gray8(ctx, image, &src, &sw, &sh);
    if (st != SATFEAT_OK) {
        cli_report("bench batch", st, ctx);
        goto out;
    }
    const satfeat_detector_params *p = &o.params;
    printf("backend %s (device %d), host threads %d, image %s (%dx%d), %d passes\n"
           "parameters: octaves %d layers %d init_step %d threshold %g max_offset %g "
           "unique_scales %d upright %d suppress_duplicates %d; %s\n",
           satfeat_ctx_backend(ctx) == SATFEAT_BACKEND_CUDA ? "cuda" : "cpu",
           satfeat_ctx_device(ctx), satfeat_ctx_threads(ctx), image, sw, sh, passes, p->octaves,
           p->layers, p->init_step, p->threshold, p->max_offset, p->unique_scales, p->upright,
           p->suppress_duplicates,
           o.descriptors ? (p->descriptor == SATFEAT_DESCRIPTOR_SURF128 ? "SURF-128 descriptors"
                                                                        : "SURF-64 descriptors")
                         : "keypoints only");
    printf("%-10s %6s %5s %7s %10s %10s %10s %7s %7s %4s\n", "size", "frames", "lanes",
           "threads", "one_fps", "seq_fps", "batch_fps", "x_one", "x_seq", "same");
    for (int i = 0; i < fl.n_sizes; i++) {
        const int w = fl.sizes[i][0], h = fl.sizes[i][1];
        uint8_t *img = cli_resize_gray(src, sw, sh, w, h);
        if (!img) {
            fprintf(stderr, "satfeat: bench batch: out of memory\n");
            goto out;
        }
        const int bad = bench_one_size(ctx, &o, &fl, img, w, h, passes);
        free(img);
        if (bad) goto out;
    }
    rc = CLI_EXIT_OK;
out:
    satfeat_free(src);
    satfeat_ctx_delete(ctx);
    return rc;
}
