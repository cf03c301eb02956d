/* ar_sequence_eval.c - the AR sequence harness (ar_sequence_eval.h). */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include "ar_sequence_eval.h"

#include "ar_paths.h"
#include "ar_render.h"
#include "ar/ar_rotation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* FNV-1a 64 over a string */
static void fnv_text(uint64_t *h, const char *s)
{
    for (; *s; s++) {
        *h ^= (unsigned char)*s;
        *h *= 1099511628211ull;
    }
}

ar_seq_options ar_seq_options_default(void)
{
    ar_seq_options o;
    memset(&o, 0, sizeof o);
    o.width = 640;
    o.height = 480;
    o.supersample = 2;
    o.texture_seed = 77;
    o.photometric = 1;
    return o;
}

/* Where the frames and their truth come from: the renderer along a path, or a folder of
 * tools/gen_ar_sequence.c (frameNNN.png, camera.txt, poses.txt). */
typedef struct frame_source {
    const ar_seq_options *opt;
    const char *path;
    int frames, W, H;
    satfeat_ar_camera cam;
    ar_render_scene scene;
    double target_h_m;
    FILE *poses;   /* dir: poses.txt */
    uint8_t *read; /* dir: the last frame read (library-allocated) */
} frame_source;

static int source_open(frame_source *s, const uint8_t *ref, int rw, int rh, double width_m,
                       const char *path, int frames, const ar_seq_options *opt)
{
    memset(s, 0, sizeof *s);
    s->opt = opt, s->path = path, s->frames = frames;
    s->target_h_m = width_m * rh / rw;
    s->scene = (ar_render_scene){{{ref, rw, rh, width_m, 0, 0}}, 1, opt->texture_seed,
                                 opt->supersample};
    if (!opt->dir) {
        s->W = opt->width, s->H = opt->height;
        if (!ar_path_camera(path, s->W, s->H, &s->cam)) {
            printf("ar_seq: unknown path %s\n", path);
            return -1;
        }
        return 0;
    }
    char name[4096];
    snprintf(name, sizeof name, "%s/camera.txt", opt->dir);
    FILE *fc = fopen(name, "r");
    const int ok = fc && fscanf(fc, "%lf %lf %lf %lf %lf %lf", &s->cam.fx, &s->cam.fy, &s->cam.cx,
                                &s->cam.cy, &s->cam.k1, &s->cam.k2) == 6;
    if (fc) fclose(fc);
    snprintf(name, sizeof name, "%s/poses.txt", opt->dir);
    s->poses = ok ? fopen(name, "r") : NULL;
    if (!s->poses) {
        printf("ar_seq: cannot read camera.txt and poses.txt in %s\n", opt->dir);
        return -1;
    }
    if (frames <= 0) {
        int c, n = 0;
        while ((c = fgetc(s->poses)) != EOF) n += c == '\n';
        rewind(s->poses);
        s->frames = n;
    }
    /* the frame size: that of the first frame */
    uint8_t *p = NULL;
    snprintf(name, sizeof name, "%s/frame001.png", opt->dir);
    if (satfeat_image_load_gray8(NULL, name, &p, &s->W, &s->H) != SATFEAT_OK) {
        printf("ar_seq: cannot read %s\n", name);
        return -1;
    }
    satfeat_free(p);
    return 0;
}

/* Frame k: its pixels in *pix (W x H; `buf` when rendered), its truth in *f and *vis. */
static int source_frame(frame_source *s, int k, uint8_t *buf, const uint8_t **pix,
                        ar_render_frame *f, double *vis)
{
    if (!s->opt->dir) {
        ar_path_frame(s->path, k, s->frames, s->scene.targets[0].width_m, s->target_h_m, &s->cam,
                      s->W, s->H, f);
        if (ar_render(&s->scene, &s->cam, f, s->W, s->H, buf) != 0) return -1;
        *vis = ar_render_visible_fraction(&s->scene, 0, &s->cam, f, s->W, s->H);
        *pix = buf;
        return 0;
    }
    int idx;
    double r[3];
    memset(f, 0, sizeof *f);
    if (fscanf(s->poses, "%d %lf %lf %lf %lf %lf %lf %lf", &idx, &f->t[0], &f->t[1], &f->t[2],
               &r[0], &r[1], &r[2], vis) != 8 || idx != k + 1) {
        printf("ar_seq: %s/poses.txt: no line for frame %d\n", s->opt->dir, k + 1);
        return -1;
    }
    satfeat_ar_rodrigues_to_matrix(r, f->R);
    char name[4096];
    snprintf(name, sizeof name, "%s/frame%03d.png", s->opt->dir, k + 1);
    satfeat_free(s->read);
    s->read = NULL;
    int w, h;
    if (satfeat_image_load_gray8(NULL, name, &s->read, &w, &h) != SATFEAT_OK || w != s->W ||
        h != s->H) {
        printf("ar_seq: cannot read %s as a %dx%d frame\n", name, s->W, s->H);
        return -1;
    }
    *pix = s->read;
    return 0;
}

static void source_close(frame_source *s)
{
    if (s->poses) fclose(s->poses);
    satfeat_free(s->read);
}

/* One result as a `satfeat ar` line, with every double in full (%.17g), so the digest tells
 * any bit of difference. */
static void pose_line(char *buf, size_t n, int frame, int target, const satfeat_ar_result *r)
{
    static const char *const states[] = {"lost", "found", "tracked"};
    snprintf(buf, n, "%d %d %s %.17g %.17g %.17g %.17g %.17g %.17g %d %.17g\n", frame, target,
             states[r->state], r->tvec[0], r->tvec[1], r->tvec[2], r->rvec[0], r->rvec[1],
             r->rvec[2], r->inliers, r->reproj_px);
}

/* The per-frame bookkeeping of the measures. */
typedef struct seq_acc {
    double *rot, *tr;
    int n_err, waiting, was_visible;
} seq_acc;

static void acc_add(seq_acc *a, ar_seq_stats *out, const ar_render_frame *f, double vis,
                    const satfeat_ar_result *res)
{
    out->frames++;
    out->found += res->state == SATFEAT_AR_FOUND;
    out->tracked += res->state == SATFEAT_AR_TRACKED;
    out->lost += res->state == SATFEAT_AR_LOST;
    const int posed = res->state != SATFEAT_AR_LOST;
    if (vis == 0.0) {
        out->absent++;
        out->false_poses += posed;
    }
    const int visible = vis >= 0.5;
    if (visible && !a->was_visible) { /* re-entry: count visible frames to the next pose */
        a->waiting = 0;
        out->reentries++;
    }
    if (a->waiting >= 0) {
        if (posed) {
            if (a->waiting > out->max_recover) out->max_recover = a->waiting;
            a->waiting = -1;
        } else if (visible) {
            a->waiting++;
        }
    }
    a->was_visible = visible;
    if (visible) {
        out->visible++;
        if (posed) {
            out->posed_visible++;
            const double d = sqrt(f->t[0] * f->t[0] + f->t[1] * f->t[1] + f->t[2] * f->t[2]);
            a->rot[a->n_err] =
                satfeat_ar_rotation_angle_between(f->R, res->R) * 180.0 / 3.14159265358979;
            a->tr[a->n_err] = sqrt(pow(f->t[0] - res->tvec[0], 2) + pow(f->t[1] - res->tvec[1], 2) +
                                   pow(f->t[2] - res->tvec[2], 2)) / d;
            out->posed_correct += a->rot[a->n_err] <= AR_SEQ_CORRECT_DEG &&
                                  a->tr[a->n_err] <= AR_SEQ_CORRECT_REL;
            a->n_err++;
        }
    }
}

static void acc_finish(seq_acc *a, ar_seq_stats *out)
{
    if (a->waiting > out->max_recover) out->max_recover = a->waiting;
    const int n = a->n_err;
    if (n > 0) {
        qsort(a->rot, (size_t)n, sizeof(double), cmp_double);
        qsort(a->tr, (size_t)n, sizeof(double), cmp_double);
        out->rot_med = a->rot[n / 2], out->rot_p90 = a->rot[(9 * n) / 10];
        out->rot_max = a->rot[n - 1];
        out->tr_med = a->tr[n / 2], out->tr_p90 = a->tr[(9 * n) / 10], out->tr_max = a->tr[n - 1];
    }
}

int ar_seq_eval(satfeat_ctx *ctx, const uint8_t *ref, int rw, int rh, double width_m,
                const char *path, int frames, const ar_seq_options *opt, ar_seq_stats *out)
{
    memset(out, 0, sizeof *out);
    out->digest = 14695981039346656037ull;
    frame_source src;
    if (source_open(&src, ref, rw, rh, width_m, path, frames, opt) != 0) {
        source_close(&src);
        return -1;
    }
    const int W = src.W, H = src.H, nt = 1 + opt->n_extra;
    satfeat_ar_target *target = NULL;
    satfeat_ar_session *session = NULL;
    const satfeat_ar_target **all = malloc(sizeof *all * (size_t)nt);
    satfeat_ar_result *res = malloc(sizeof *res * (size_t)nt);
    if (!all || !res ||
        satfeat_ar_target_new(ctx, ref, (size_t)rw, rw, rh, width_m, NULL, &target) != SATFEAT_OK) {
        printf("ar_seq: %s\n", satfeat_ctx_last_error(ctx));
        free(all), free(res), source_close(&src);
        return -1;
    }
    all[0] = target;
    for (int k = 1; k < nt; k++) all[k] = opt->extra[k - 1];
    satfeat_ar_params params = satfeat_ar_params_default();
    params.photometric = opt->photometric;
    if (opt->threshold > 0.0) params.threshold = opt->threshold;
    if (opt->max_reproj_px > 0.0) params.max_reproj_px = opt->max_reproj_px;
    if (satfeat_ar_session_new(ctx, all, nt, &src.cam, &params, W, H, &session) != SATFEAT_OK) {
        printf("ar_seq: %s\n", satfeat_ctx_last_error(ctx));
        satfeat_ar_target_delete(target);
        free(all), free(res), source_close(&src);
        return -1;
    }
    if (opt->profile && satfeat_ar_session_set_profiling(session, 1) != SATFEAT_OK) {
        printf("ar_seq: %s\n", satfeat_ctx_last_error(ctx));
        satfeat_ar_session_delete(session);
        satfeat_ar_target_delete(target);
        free(all), free(res), source_close(&src);
        return -1;
    }
    frames = src.frames;
    uint8_t *frame = opt->dir ? NULL : malloc((size_t)W * H);
    seq_acc acc = {malloc(sizeof(double) * (size_t)frames), malloc(sizeof(double) * (size_t)frames),
                   0, -1, 1};
    int rc = (acc.rot && acc.tr && (opt->dir || frame)) ? 0 : -1;
    double ms = 0;
    for (int k = 0; k < frames && rc == 0; k++) {
        ar_render_frame f;
        double vis;
        const uint8_t *pix;
        if (source_frame(&src, k, frame, &pix, &f, &vis) != 0) {
            rc = -1;
            break;
        }
        const double t0 = now_ms();
        const satfeat_image_view view = satfeat_image_view_host(pix, W, H, 0);
        if (satfeat_ar_session_process(session, &view, res, nt) != SATFEAT_OK) {
            printf("ar_seq: %s\n", satfeat_ctx_last_error(ctx));
            rc = -1;
            break;
        }
        ms += now_ms() - t0;
        if (opt->profile) {
            satfeat_ar_stage_times t;
            if (satfeat_ar_session_stage_times(session, &t) != SATFEAT_OK) {
                printf("ar_seq: %s\n", satfeat_ctx_last_error(ctx));
                rc = -1;
                break;
            }
            satfeat_ar_stage_times *m = &out->stage_mean;
            m->frame_us += t.frame_us, m->detect_us += t.detect_us, m->match_us += t.match_us;
            m->homography_us += t.homography_us, m->pose_us += t.pose_us;
            m->other_us += t.other_us;
        }
        for (int j = 0; j < nt; j++) {
            char line[512];
            pose_line(line, sizeof line, k + 1, j, &res[j]);
            fnv_text(&out->digest, line);
            if (opt->poses_out) fputs(line, opt->poses_out);
            if (j > 0) out->other_poses += res[j].state != SATFEAT_AR_LOST;
        }
        const int n_before = acc.n_err;
        acc_add(&acc, out, &f, vis, &res[0]);
        if (opt->verbose)
            printf("%s %3d vis %.2f state %d inl %4d reproj %.2f rot %.3f tr %.4f\n", path, k + 1,
                   vis, res[0].state, res[0].inliers, res[0].reproj_px,
                   acc.n_err > n_before ? acc.rot[n_before] : -1.0,
                   acc.n_err > n_before ? acc.tr[n_before] : -1.0);
    }
    acc_finish(&acc, out);
    out->ms_per_frame = out->frames ? ms / out->frames : 0;
    if (out->frames > 0) {
        satfeat_ar_stage_times *m = &out->stage_mean;
        const double r = 1.0 / out->frames;
        m->frame_us *= r, m->detect_us *= r, m->match_us *= r;
        m->homography_us *= r, m->pose_us *= r, m->other_us *= r;
    }
    free(frame), free(acc.rot), free(acc.tr), free(all), free(res);
    source_close(&src);
    satfeat_ar_session_delete(session);
    satfeat_ar_target_delete(target);
    return rc;
}

int ar_seq_run(satfeat_ctx *ctx, const uint8_t *ref, int rw, int rh, double width_m,
               const char *path, int frames, ar_seq_stats *out)
{
    ar_seq_options opt = ar_seq_options_default();
    opt.verbose = getenv("AR_SEQ_VERBOSE") != NULL;
    return ar_seq_eval(ctx, ref, rw, rh, width_m, path, frames, &opt, out);
}
