/* cmd_bench_detect.c - `satfeat bench detect IMAGE`: the CUDA detector on bilinear resizes of a
 * real image to 640x480, 1280x720, 1920x1080 and 3840x2160 with the detector flags given (default
 * parameters otherwise; descriptors with --descriptors, else keypoints only): GPU time per
 * frame for a device-resident image through the graph path and the same frame split by stage
 * (medians of the detector's own measurements, satfeat_detector_stage_times), host-to-host
 * frames per second through a 3-slot sequence and through a sequence of --seq-lanes lanes (two
 * slots a lane), the CPU detector's time, the keypoint count and whether the CPU and GPU lists
 * are identical. */
#include "commands.h"
#include "out_file.h"
#include "detect_options.h"
#include "image_resize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The help text, with or without CUDA. */
static void bench_detect_help(FILE *out)
{
    fprintf(out, "usage: satfeat bench detect IMAGE [--frames N] [--seq-lanes N] [--csv FILE]\n"
                 "                             [--descriptors] [detector options]\n"
                 "\n"
                 "CUDA detector timings per stage on IMAGE, the sequence rate over --frames frames\n"
                 "(seq_fps: 3 slots, one lane; lanes_fps: --seq-lanes lanes of 2 slots, default 2)\n"
                 "and the CPU detector's time for comparison (needs a CUDA device).\n"
                 "\n");
    cli_detect_options_help(out);
    fprintf(out, "\nexample:\n  satfeat bench detect data/scene.png --frames 500\n"
                 "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

#ifdef SATFEAT_HAVE_CUDA
#include <cuda_runtime_api.h>

#define GPU_REPS 300
#define STAGE_REPS 100
#define CPU_REPS 5

typedef struct bench_row {
    int w, h;
    double gpu_us, stage_us[6], seq_fps, lanes_fps, cpu_us;
    size_t n_gpu, n_cpu;
    int identical;
} bench_row;

#define CHECK_ST(expr)                                                        \
    do {                                                                      \
        satfeat_status st_ = (expr);                                          \
        if (st_ != SATFEAT_OK) {                                              \
            cli_report("bench detect", st_, gctx);                            \
            goto done;                                                        \
        }                                                                     \
    } while (0)

/* Host-to-host frames per second of `frames` pushes of img through a sequence of `slots` slots
 * over `lanes` lanes on gdet; the popped features land in *f. */
static satfeat_status sequence_fps(satfeat_detector *gdet, int slots, int lanes,
                                   const uint8_t *img, int w, int h, int frames,
                                   satfeat_features **f, double *fps)
{
    satfeat_sequence *seq = NULL;
    satfeat_status st = satfeat_sequence_new_lanes(gdet, slots, lanes, &seq);
    const satfeat_image_view view = satfeat_image_view_host(img, w, h, 0);
    int popped = 0;
    double t0 = 0.0;
    for (int k = -10 * lanes; k < frames && st == SATFEAT_OK; k++) { /* warm-up: graphs */
        if (k == 0) {
            while (st == SATFEAT_OK && satfeat_sequence_pending(seq) > 0)
                st = satfeat_sequence_pop(seq, f);
            t0 = cli_now_ms();
        }
        if (st == SATFEAT_OK) st = satfeat_sequence_push(seq, &view, f, &popped);
    }
    while (st == SATFEAT_OK && satfeat_sequence_pending(seq) > 0) st = satfeat_sequence_pop(seq, f);
    *fps = 1e3 * frames / (cli_now_ms() - t0);
    satfeat_sequence_delete(seq);
    return st;
}

static int bench_size(satfeat_ctx *gctx, satfeat_ctx *cctx, const cli_detect_options *o,
                      const uint8_t *img, int w, int h, int frames, int lanes, bench_row *row)
{
    int rc = 1;
    /* descriptors only with --descriptors: without, the frames run the keypoint stages only */
    satfeat_detector_params p = o->params;
    if (!o->descriptors) p.descriptor = SATFEAT_DESCRIPTOR_NONE;
    satfeat_detector *gdet = NULL, *cdet = NULL;
    uint8_t *d_img = NULL;
    satfeat_features *fg = NULL, *fc = NULL; /* reused by every frame */
    cudaStream_t s = NULL;
    double *t = malloc(sizeof(double) * GPU_REPS);
    memset(row, 0, sizeof *row);
    row->w = w;
    row->h = h;
    CHECK_ST(satfeat_detector_new(gctx, &p, w, h, &gdet));
    CHECK_ST(satfeat_detector_new(cctx, &p, w, h, &cdet));
    if (!t || cudaMalloc((void **)&d_img, (size_t)w * (size_t)h) != cudaSuccess ||
        cudaMemcpy(d_img, img, (size_t)w * (size_t)h, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaStreamCreate(&s) != cudaSuccess) {
        fprintf(stderr, "satfeat: bench detect: CUDA setup failed\n");
        goto done;
    }
    const satfeat_image_view host = satfeat_image_view_host(img, w, h, 0);
    const satfeat_image_view dev = satfeat_image_view_device(d_img, w, h, 0, s);
    /* lists: GPU and CPU, compared */
    CHECK_ST(satfeat_detect(cdet, &host, &fc));
    CHECK_ST(satfeat_detect(gdet, &dev, &fg));
    row->n_cpu = satfeat_features_count(fc);
    row->n_gpu = satfeat_features_count(fg);
    row->identical = cli_same_features(fg, fc);
    /* device-resident frame, graph path: SAT through the selected list and its count, timed
     * by the detector's own events around the replayed graph (public profiling API) */
    CHECK_ST(satfeat_detector_set_profiling(gdet, SATFEAT_PROFILING_FRAME));
    for (int r = -10; r < GPU_REPS; r++) {
        satfeat_stage_times st_t;
        CHECK_ST(satfeat_detect(gdet, &dev, &fg));
        CHECK_ST(satfeat_detector_stage_times(gdet, &st_t));
        if (r >= 0) t[r] = st_t.frame_us;
    }
    row->gpu_us = cli_median(t, GPU_REPS);
    /* the same frame stage by stage (no graph), events between the stages */
    CHECK_ST(satfeat_detector_set_profiling(gdet, SATFEAT_PROFILING_STAGES));
    double *stage_t = malloc(sizeof(double) * 6 * STAGE_REPS);
    if (!stage_t) goto done;
    for (int r = -1; r < STAGE_REPS; r++) { /* r = -1: warm-up */
        satfeat_stage_times st_t;
        satfeat_status sst = satfeat_detect(gdet, &dev, &fg);
        if (sst == SATFEAT_OK) sst = satfeat_detector_stage_times(gdet, &st_t);
        if (sst != SATFEAT_OK) {
            free(stage_t);
            CHECK_ST(sst);
        }
        if (r < 0) continue;
        const double v[6] = {st_t.sat_us,    st_t.detect_us,   st_t.order_us,
                             st_t.select_us, st_t.describe_us, st_t.download_us};
        for (int i = 0; i < 6; i++) stage_t[i * STAGE_REPS + r] = v[i];
    }
    for (int i = 0; i < 6; i++) row->stage_us[i] = cli_median(stage_t + i * STAGE_REPS, STAGE_REPS);
    free(stage_t);
    CHECK_ST(satfeat_detector_set_profiling(gdet, SATFEAT_PROFILING_OFF));
    /* host to host through a 3-slot sequence, then through lanes of two slots */
    CHECK_ST(sequence_fps(gdet, 3, 1, img, w, h, frames, &fg, &row->seq_fps));
    CHECK_ST(sequence_fps(gdet, 2 * lanes, lanes, img, w, h, frames, &fg, &row->lanes_fps));
    /* CPU backend */
    for (int r = 0; r < CPU_REPS; r++) {
        const double c0 = cli_now_ms();
        CHECK_ST(satfeat_detect(cdet, &host, &fc));
        t[r] = 1e3 * (cli_now_ms() - c0);
    }
    row->cpu_us = cli_median(t, CPU_REPS);
    rc = 0;
done:
    satfeat_detector_delete(gdet);
    satfeat_detector_delete(cdet);
    if (d_img) cudaFree(d_img);
    if (s) cudaStreamDestroy(s);
    satfeat_features_delete(fg);
    satfeat_features_delete(fc);
    free(t);
    return rc;
}

typedef struct bench_detect_flags {
    const char *csv_path;
    int frames, lanes;
} bench_detect_flags;

/* --frames N, --seq-lanes N and --csv FILE (cli_extra_option_fn). */
static int bench_detect_option(int argc, char **argv, int *i, void *user)
{
    bench_detect_flags *f = user;
    const char *v = NULL;
    int m;
    if ((m = cli_option_value(argc, argv, i, "--frames", &v)) != 0)
        return m < 0 || !cli_parse_int(v, 1, 1000000, "--frames", &f->frames) ? -1 : 1;
    if ((m = cli_option_value(argc, argv, i, "--seq-lanes", &v)) != 0)
        return m < 0 || !cli_parse_int(v, 1, SATFEAT_SEQUENCE_MAX_SLOTS / 2, "--seq-lanes",
                                       &f->lanes)
                   ? -1
                   : 1;
    if ((m = cli_option_value(argc, argv, i, "--csv", &v)) != 0) {
        if (m > 0) f->csv_path = v;
        return m;
    }
    return 0;
}


int cli_cmd_bench_detect(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    bench_detect_flags fl = {NULL, 2000, 2};
    const char *image = NULL;
    const int rc0 = cli_bench_parse(argc, argv, &o, &image, bench_detect_help,
                                    bench_detect_option, &fl);
    if (rc0 >= 0) return rc0;
    const char *csv_path = fl.csv_path;
    const int frames = fl.frames;
    satfeat_ctx *gctx = NULL, *cctx = NULL;
    uint8_t *src = NULL;
    int sw = 0, sh = 0, rc = CLI_EXIT_FAILURE;
    FILE *csv = NULL;
    cli_out csv_out; /* opened before the work: a bad --csv path fails at once */
    if (csv_path) {
        if (!cli_out_open(&csv_out, csv_path)) return CLI_EXIT_FAILURE;
        csv = csv_out.f;
    }
    satfeat_status st = satfeat_ctx_new(&gctx, SATFEAT_BACKEND_CUDA, -1);
    if (st == SATFEAT_OK && o.memory_limit)
        st = satfeat_ctx_set_memory_limit(gctx, o.memory_limit);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "satfeat: bench detect: no CUDA context: %s\n", satfeat_status_string(st));
        satfeat_ctx_delete(gctx);
        if (csv) cli_out_close(&csv_out, 0);
        return CLI_EXIT_FAILURE;
    }
    if (satfeat_ctx_new(&cctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK ||
        satfeat_ctx_set_threads(cctx, o.threads) != SATFEAT_OK ||
        (o.memory_limit && satfeat_ctx_set_memory_limit(cctx, o.memory_limit) != SATFEAT_OK) ||
        satfeat_image_load_gray8(gctx, image, &src, &sw, &sh) != SATFEAT_OK) {
        fprintf(stderr, "satfeat: bench detect: cannot load %s: %s\n", image,
                satfeat_ctx_last_error(gctx));
        goto out;
    }
    struct cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, satfeat_ctx_device(gctx));
    const satfeat_detector_params *p = &o.params;
    printf("device %s, image %s (%dx%d), CPU threads %d\nparameters: octaves %d layers %d "
           "init_step %d threshold %g max_offset %g unique_scales %d upright %d; %s\n",
           prop.name, image, sw, sh, satfeat_ctx_threads(cctx), p->octaves, p->layers,
           p->init_step, p->threshold, p->max_offset, p->unique_scales, p->upright,
           o.descriptors ? (p->descriptor == SATFEAT_DESCRIPTOR_SURF128 ? "SURF-128 descriptors"
                                                                        : "SURF-64 descriptors")
                         : "keypoints only");
    printf("sequences: seq_fps 3 slots, 1 lane; lanes_fps %d slots, %d lanes\n", 2 * fl.lanes,
           fl.lanes);
    printf("%-10s %9s %7s %8s %7s %7s %7s %7s %10s %10s %10s %6s %6s %4s\n", "size", "gpu_us",
           "sat", "resp+nms", "sort", "select", "desc", "dl", "seq_fps", "lanes_fps", "cpu_us",
           "n_gpu", "n_cpu", "same");
    if (csv)
        fprintf(csv, "device,width,height,gpu_us,sat_us,resp_nms_us,sort_us,select_us,"
                     "describe_us,download_us,seq_fps,seq_frames,seq_lanes,lanes_fps,cpu_us,"
                     "n_gpu,n_cpu,identical\n");
    const int sizes[4][2] = {{640, 480}, {1280, 720}, {1920, 1080}, {3840, 2160}};
    for (int i = 0; i < 4; i++) {
        const int w = sizes[i][0], h = sizes[i][1];
        uint8_t *img = cli_resize_gray(src, sw, sh, w, h);
        bench_row r;
        if (!img || bench_size(gctx, cctx, &o, img, w, h, frames, fl.lanes, &r) != 0) {
            free(img);
            goto out;
        }
        free(img);
        printf("%4dx%-5d %9.1f %7.1f %8.1f %7.1f %7.1f %7.1f %7.1f %10.0f %10.0f %10.0f %6zu %6zu "
               "%4s\n",
               w, h, r.gpu_us, r.stage_us[0], r.stage_us[1], r.stage_us[2], r.stage_us[3],
               r.stage_us[4], r.stage_us[5], r.seq_fps, r.lanes_fps, r.cpu_us, r.n_gpu, r.n_cpu,
               r.identical ? "yes" : "NO");
        if (csv)
            fprintf(csv,
                    "%s,%d,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.1f,%d,%d,%.1f,%.1f,%zu,%zu,%d\n",
                    prop.name, w, h, r.gpu_us, r.stage_us[0], r.stage_us[1], r.stage_us[2],
                    r.stage_us[3], r.stage_us[4], r.stage_us[5], r.seq_fps, frames, fl.lanes,
                    r.lanes_fps, r.cpu_us, r.n_gpu, r.n_cpu, r.identical);
    }
    rc = CLI_EXIT_OK;
out:
    if (csv && !cli_out_close(&csv_out, rc == CLI_EXIT_OK)) rc = CLI_EXIT_FAILURE;
    satfeat_free(src);
    satfeat_ctx_delete(gctx);
    satfeat_ctx_delete(cctx);
    return rc;
}
#else
int cli_cmd_bench_detect(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            bench_detect_help(stdout);
            return CLI_EXIT_OK;
        }
    fprintf(stderr, "satfeat: bench detect: built without CUDA\n");
    return CLI_EXIT_FAILURE;
}
#endif
