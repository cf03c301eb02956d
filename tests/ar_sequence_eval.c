/* ar_sequence_eval.c - the AR tests' sequence harness (ar_sequence_eval.h). */
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

int ar_seq_run(satfeat_ctx *ctx, const uint8_t *ref, int rw, int rh, double width_m,
               const char *path, int frames, ar_seq_stats *out)
{
    enum { W = 640, H = 480 };
    memset(out, 0, sizeof *out);
    satfeat_ar_camera cam;
    if (!ar_path_camera(path, W, H, &cam)) return -1;
    satfeat_ar_target *target = NULL;
    satfeat_ar_session *session = NULL;
    if (satfeat_ar_target_new(ctx, ref, (size_t)rw, rw, rh, width_m, NULL, &target) != SATFEAT_OK ||
        satfeat_ar_session_new(ctx, (const satfeat_ar_target *const *)&target, 1, &cam, NULL, W,
                               H, &session) != SATFEAT_OK) {
        printf("ar_seq_run: %s\n", satfeat_ctx_last_error(ctx));
        satfeat_ar_target_delete(target);
        return -1;
    }
    ar_render_scene scene = {{{ref, rw, rh, width_m, 0, 0}}, 1, 77, 2};
    uint8_t *frame = malloc(W * H);
    double *rot = malloc(sizeof(double) * frames), *tr = malloc(sizeof(double) * frames);
    int n_err = 0, rc = 0, waiting = -1, was_visible = 1;
    double ms = 0;
    for (int k = 0; k < frames && frame && rot && tr; k++) {
        ar_render_frame f;
        ar_path_frame(path, k, frames, width_m, width_m * rh / rw, &cam, W, H, &f);
        if (ar_render(&scene, &cam, &f, W, H, frame) != 0) {
            rc = -1;
            break;
        }
        const double vis = ar_render_visible_fraction(&scene, 0, &cam, &f, W, H);
        satfeat_ar_result res;
        const double t0 = now_ms();
        const satfeat_image_view view = satfeat_image_view_host(frame, W, H, 0);
        if (satfeat_ar_session_process(session, &view, &res, 1) != SATFEAT_OK) {
            printf("ar_seq_run: %s\n", satfeat_ctx_last_error(ctx));
            rc = -1;
            break;
        }
        ms += now_ms() - t0;
        out->frames++;
        out->found += res.state == SATFEAT_AR_FOUND;
        out->tracked += res.state == SATFEAT_AR_TRACKED;
        out->lost += res.state == SATFEAT_AR_LOST;
        const int posed = res.state != SATFEAT_AR_LOST;
        if (vis == 0.0) {
            out->absent++;
            out->false_poses += posed;
        }
        const int visible = vis >= 0.5;
        if (visible && !was_visible) waiting = 0; /* re-entry: count frames to the next pose */
        if (waiting >= 0) {
            if (posed) {
                if (waiting > out->max_recover) out->max_recover = waiting;
                waiting = -1;
            } else if (visible) {
                waiting++;
            }
        }
        was_visible = visible;
        if (visible) {
            out->visible++;
            if (posed) {
                out->posed_visible++;
                const double d = sqrt(f.t[0] * f.t[0] + f.t[1] * f.t[1] + f.t[2] * f.t[2]);
                rot[n_err] = satfeat_ar_rotation_angle_between(f.R, res.R) * 180.0 / 3.14159265358979;
                tr[n_err] = sqrt(pow(f.t[0] - res.tvec[0], 2) + pow(f.t[1] - res.tvec[1], 2) +
                                 pow(f.t[2] - res.tvec[2], 2)) / d;
                n_err++;
            }
        }
        if (getenv("AR_SEQ_VERBOSE"))
            printf("%s %3d vis %.2f state %d inl %4d reproj %.2f rot %.3f tr %.4f\n", path, k + 1,
                   vis, res.state, res.inliers, res.reproj_px,
                   posed && visible ? rot[n_err - 1] : -1.0, posed && visible ? tr[n_err - 1] : -1.0);
    }
    if (waiting > out->max_recover) out->max_recover = waiting;
    if (!frame || !rot || !tr) rc = -1;
    if (n_err > 0) {
        qsort(rot, (size_t)n_err, sizeof(double), cmp_double);
        qsort(tr, (size_t)n_err, sizeof(double), cmp_double);
        out->rot_med = rot[n_err / 2], out->rot_p90 = rot[(9 * n_err) / 10];
        out->rot_max = rot[n_err - 1];
        out->tr_med = tr[n_err / 2], out->tr_p90 = tr[(9 * n_err) / 10], out->tr_max = tr[n_err - 1];
    }
    out->ms_per_frame = out->frames ? ms / out->frames : 0;
    free(frame), free(rot), free(tr);
    satfeat_ar_session_delete(session);
    satfeat_ar_target_delete(target);
    return rc;
}
