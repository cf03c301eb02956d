/* ar_eval.c - the AR evaluation: one sequence with exact poses, rendered along a path of
 * tools/ar_paths.c or read from a folder of tools/gen_ar_sequence.c, through an AR session of
 * the public API, measured against the truth (tests/ar_sequence_eval.h defines the measures).
 *
 * usage: satfeat_ar_eval [--backend cpu|cuda] [--threads N] [--size WxH] [--photo FILE]
 *                        [--target-width M] [--path NAME] [--frames N] [--targets N]
 *                        [--photos DIR] [--supersample S] [--texture-seed S] [--dir DIR]
 *                        [--name LABEL] [--poses FILE] [--verbose]
 *                        [--profile]
 *
 * Defaults: cpu, 640x480, data/dune/frame001.png 0.3 m wide, path sample, 40 frames, one
 * target, supersample 3 and texture seed 1 (those of satfeat_gen_ar_sequence, so a rendered
 * run and a run on the folder the generator wrote give the same frames). --targets N loads N
 * targets: the photo (the only one in the frames) and the first N - 1 other photos of --photos
 * (data/photos) in name order that make a target (a featureless one, as Storm.jpg, is skipped);
 * their poses are counted as `other` (they are never in view).
 * --dir DIR reads DIR/frameNNN.png, camera.txt and poses.txt instead of rendering (--path,
 * --size, --frames then only label or limit it). --poses FILE writes every target's result per
 * frame as `satfeat ar` lines (doubles in full); the digest printed is the FNV-1a 64 of that
 * text, written or not, so runs on both backends compare bit for bit by one number.
 *
 * Prints one `result` line of key=value fields (bench/ar_tables.py reads it): recall (frames
 * with >= 50% of the target visible that get a pose), correct and recall_correct (of those,
 * the poses within 5 degrees and 5% of the distance of the truth: tests/ar_sequence_eval.h),
 * false (poses on frames with the target out of view), other, rotation error in degrees and
 * translation error in % of the distance (median and 90th percentile over the posed frames of
 * the recall), re-entries and the most frames to recover after one, fps (the session alone:
 * rendering and reading excluded).
 * --profile turns the session's stage measurement on and prints a `stages` line before it: the
 * mean microseconds a frame of the whole call, detection, matching, homography fits, pose and
 * the rest (satfeat_ar_stage_times; the measurement itself costs a few clock reads). */
#define _POSIX_C_SOURCE 200809L /* opendir */
#include "ar_sequence_eval.h"
#include "satfeat.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EXTRA 63

static int usage(void)
{
    fprintf(stderr,
            "usage: satfeat_ar_eval [--backend cpu|cuda] [--threads N] [--size WxH] [--photo FILE]\n"
            "       [--target-width M] [--path NAME] [--frames N] [--targets N] [--photos DIR]\n"
            "       [--supersample S] [--texture-seed S] [--dir DIR] [--name LABEL]\n"
            "       [--poses FILE] [--photometric 0|1] [--verbose] [--profile]\n");
    return 2;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Builds n targets from the photos of `dir` in name order, skipping the one named like
 * `skip`; returns the number built (< n when there are not enough or one fails). */
static int extra_targets(satfeat_ctx *ctx, const char *dir, const char *skip, double width_m,
                         int n, satfeat_ar_target **out)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    char *names[256];
    int m = 0;
    struct dirent *e;
    while ((e = readdir(d)) && m < 256) {
        const char *dot = strrchr(e->d_name, '.');
        if (e->d_name[0] == '.' || !dot || (strcmp(dot, ".jpg") && strcmp(dot, ".png"))) continue;
        if (!strcmp(e->d_name, base_name(skip))) continue;
        names[m] = malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (!names[m]) break;
        sprintf(names[m], "%s/%s", dir, e->d_name);
        m++;
    }
    closedir(d);
    qsort(names, (size_t)m, sizeof *names, cmp_str);
    int built = 0;
    for (int k = 0; k < m && built < n; k++) {
        uint8_t *pix = NULL;
        int w, h;
        if (satfeat_image_load_gray8(ctx, names[k], &pix, &w, &h) == SATFEAT_OK &&
            satfeat_ar_target_new(ctx, pix, (size_t)w, w, h, width_m, NULL, &out[built]) ==
                SATFEAT_OK)
            built++;
        satfeat_free(pix);
    }
    for (int k = 0; k < m; k++) free(names[k]);
    return built;
}

int main(int argc, char **argv)
{
    const char *backend = "cpu", *photo = "data/dune/frame001.png", *path = "sample";
    const char *photos = "data/photos", *name = NULL, *poses = NULL;
    double width_m = 0.3;
    int frames = -1, n_targets = 1, threads = 0;
    ar_seq_options opt = ar_seq_options_default();
    opt.supersample = 3;
    opt.texture_seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--verbose")) {
            opt.verbose = 1;
            continue;
        }
        if (!strcmp(a, "--profile")) {
            opt.profile = 1;
            continue;
        }
        if (!v) return usage();
        i++;
        if (!strcmp(a, "--backend")) backend = v;
        else if (!strcmp(a, "--threads")) threads = atoi(v);
        else if (!strcmp(a, "--size")) {
            if (sscanf(v, "%dx%d", &opt.width, &opt.height) != 2) return usage();
        } else if (!strcmp(a, "--photo")) photo = v;
        else if (!strcmp(a, "--target-width")) width_m = atof(v);
        else if (!strcmp(a, "--path")) path = v;
        else if (!strcmp(a, "--frames")) frames = atoi(v);
        else if (!strcmp(a, "--targets")) n_targets = atoi(v);
        else if (!strcmp(a, "--photos")) photos = v;
        else if (!strcmp(a, "--supersample")) opt.supersample = atoi(v);
        else if (!strcmp(a, "--texture-seed")) opt.texture_seed = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--dir")) opt.dir = v;
        else if (!strcmp(a, "--name")) name = v;
        else if (!strcmp(a, "--poses")) poses = v;
        else if (!strcmp(a, "--photometric")) opt.photometric = atoi(v);
        else return usage();
    }
    const int be = !strcmp(backend, "cpu") ? SATFEAT_BACKEND_CPU
                   : !strcmp(backend, "cuda") ? SATFEAT_BACKEND_CUDA
                                              : -1;
    if (frames < 0) frames = opt.dir ? 0 : 40;
    if (be < 0 || !(width_m > 0) || (!opt.dir && frames < 1) || n_targets < 1 ||
        n_targets > 1 + MAX_EXTRA || opt.width < 16 || opt.height < 16 || opt.supersample < 1 ||
        opt.supersample > 8 || threads < 0)
        return usage();
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, (satfeat_backend)be, 0) != SATFEAT_OK) {
        fprintf(stderr, "ar_eval: no %s context\n", backend);
        return 1;
    }
    if (threads > 0 && satfeat_ctx_set_threads(ctx, threads) != SATFEAT_OK) {
        fprintf(stderr, "ar_eval: %s\n", satfeat_ctx_last_error(ctx));
        satfeat_ctx_delete(ctx);
        return 1;
    }
    uint8_t *ref = NULL;
    int rw, rh;
    if (satfeat_image_load_gray8(ctx, photo, &ref, &rw, &rh) != SATFEAT_OK) {
        fprintf(stderr, "ar_eval: %s\n", satfeat_ctx_last_error(ctx));
        satfeat_ctx_delete(ctx);
        return 1;
    }
    satfeat_ar_target *extra[MAX_EXTRA];
    opt.n_extra = extra_targets(ctx, photos, photo, width_m, n_targets - 1, extra);
    opt.extra = (const satfeat_ar_target *const *)extra;
    int rc = 1;
    if (opt.n_extra != n_targets - 1) {
        fprintf(stderr, "ar_eval: %d other targets wanted, %d built from %s\n", n_targets - 1,
                opt.n_extra, photos);
    } else {
        FILE *fp = poses ? fopen(poses, "w") : NULL;
        opt.poses_out = fp;
        ar_seq_stats st;
        if (poses && !fp) {
            fprintf(stderr, "ar_eval: cannot write %s\n", poses);
        } else if (ar_seq_eval(ctx, ref, rw, rh, width_m, path, frames, &opt,
                               &st) == 0) {
            rc = 0;
            const satfeat_ar_stage_times *m = &st.stage_mean;
            if (opt.profile)
                printf("stages seq=%s method=ours-%s frame_us=%.1f detect_us=%.1f match_us=%.1f "
                       "homography_us=%.1f pose_us=%.1f other_us=%.1f\n",
                       name ? name : path, backend, m->frame_us, m->detect_us, m->match_us,
                       m->homography_us, m->pose_us, m->other_us);
            printf("result seq=%s method=ours-%s frames=%d visible=%d posed=%d recall=%.4f "
                   "correct=%d recall_correct=%.4f "
                   "absent=%d false=%d other=%d targets=%d found=%d tracked=%d lost=%d "
                   "rot_med=%.4f rot_p90=%.4f tr_med=%.4f tr_p90=%.4f reentries=%d recover=%d "
                   "fps=%.2f digest=%016llx\n",
                   name ? name : path, backend, st.frames, st.visible, st.posed_visible,
                   st.visible ? (double)st.posed_visible / st.visible : 1.0, st.posed_correct,
                   st.visible ? (double)st.posed_correct / st.visible : 1.0, st.absent,
                   st.false_poses, st.other_poses, n_targets, st.found, st.tracked, st.lost,
                   st.rot_med, st.rot_p90, 100 * st.tr_med, 100 * st.tr_p90, st.reentries,
                   st.max_recover, st.ms_per_frame > 0 ? 1000.0 / st.ms_per_frame : 0.0,
                   (unsigned long long)st.digest);
        }
        if (fp && fclose(fp) != 0) rc = 1;
    }
    for (int k = 0; k < opt.n_extra; k++) satfeat_ar_target_delete(extra[k]);
    satfeat_free(ref);
    satfeat_ctx_delete(ctx);
    return rc;
}
