/* bench_motion.c - time of satfeat_estimate_motion on a CPU context and on a CUDA context (the
 * hypotheses scored on the device) at tracking sizes, with the results checked identical.
 *
 * usage: satfeat_bench_motion [--reps R] [--sizes N,N,...] [--inliers F,F,...] [--threshold T]
 *                             [--cpu-time]
 *
 * Problems: a 1920 x 1080 homography (a plausible camera motion), inliers with uniform noise of
 * +-0.5 px, outliers uniform over the frame; for each size and inlier fraction three samplings:
 * RANSAC (no quality), PROSAC with a quality that favours the inliers (inliers 0.3..1,
 * outliers 0..0.7: a useful descriptor distance) and PROSAC with a quality unrelated to
 * inlierness. Each row gives the draws and the median wall time of R calls (after 2 warm-up
 * calls) on each backend, with refinement off (the search alone plus the output) and on (the
 * default: the host's least-squares refinement added). --cpu-time times with the process' CPU
 * clock instead of the wall clock (less sensitive to a shared machine's other jobs). Beside the
 * times: the inliers of the refined result and "err px", the mean distance between the images of
 * a 16 x 9 grid over the frame under the estimated and the true homography, without and with
 * refinement. Only the public header is used. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench_clock.h"
#include "satfeat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16

static int g_cpu_time = 0; /* 1: CPU time of the process instead of wall time */

/* Milliseconds of the clock the timings use. */
static double now_ms(void)
{
    if (!g_cpu_time) return bench_now_ms();
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Mean distance (px) between the images of a 16 x 9 grid over a 1920 x 1080 frame under h and
 * the true homography g (both row-major); -1 when h is not a result. */
static double grid_error(const double *h, const double *g, int ok)
{
    if (!ok) return -1.0;
    double sum = 0.0;
    int count = 0;
    for (int gy = 0; gy < 9; gy++)
        for (int gx = 0; gx < 16; gx++) {
            const double x = 1919.0 * gx / 15.0, y = 1079.0 * gy / 8.0;
            const double wh = h[6] * x + h[7] * y + h[8], wg = g[6] * x + g[7] * y + g[8];
            const double ex = (h[0] * x + h[1] * y + h[2]) / wh - (g[0] * x + g[1] * y + g[2]) / wg;
            const double ey = (h[3] * x + h[4] * y + h[5]) / wh - (g[3] * x + g[4] * y + g[5]) / wg;
            sum += sqrt(ex * ex + ey * ey);
            count++;
        }
    return sum / count;
}

static uint64_t g_state = 0x9E3779B97F4A7C15ull;

static double urand(double lo, double hi)
{
    g_state ^= g_state << 13;
    g_state ^= g_state >> 7;
    g_state ^= g_state << 17;
    return lo + (hi - lo) * (double)(g_state >> 11) * (1.0 / 9007199254740992.0);
}

/* Parses "a,b,c" into at most MAX_LIST values; returns the count (0 on a bad list). */
static int parse_list(const char *s, double *v)
{
    int k = 0;
    while (*s && k < MAX_LIST) {
        char *end = NULL;
        v[k++] = strtod(s, &end);
        if (end == s) return 0;
        s = *end == ',' ? end + 1 : end;
    }
    return *s ? 0 : k;
}

/* Median time (us, wall or CPU: now_ms) of reps calls after 2 warm-up calls; the last result in
 * *mo / mask. */
static double time_calls(satfeat_ctx *ctx, const double *src, const double *dst, size_t n,
                         const float *q, const satfeat_motion_params *p, int reps,
                         satfeat_motion *mo, uint8_t *mask, satfeat_status *st)
{
    double *t = malloc((size_t)reps * sizeof *t);
    if (!t) return -1.0;
    for (int i = 0; i < reps + 2; i++) {
        const double t0 = now_ms();
        *st = satfeat_estimate_motion(ctx, src, dst, n, q, p, mo, mask);
        const double t1 = now_ms();
        if (i >= 2) t[i - 2] = (t1 - t0) * 1e3;
    }
    bench_sort(t, (size_t)reps);
    const double med = t[reps / 2];
    free(t);
    return med;
}

int main(int argc, char **argv)
{
    int reps = 21;
    double sizes[MAX_LIST] = {2000, 5000, 12000}, inl[MAX_LIST] = {0.3, 0.5, 0.7};
    int nsizes = 3, ninl = 3;
    double threshold = 2.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            nsizes = parse_list(argv[++i], sizes);
        } else if (!strcmp(argv[i], "--inliers") && i + 1 < argc) {
            ninl = parse_list(argv[++i], inl);
        } else if (!strcmp(argv[i], "--threshold") && i + 1 < argc) {
            threshold = atof(argv[++i]);
        } else if (!strcmp(argv[i], "--cpu-time")) {
            g_cpu_time = 1;
        } else {
            nsizes = 0;
            break;
        }
    }
    if (reps < 1 || nsizes < 1 || ninl < 1 || !(threshold > 0)) {
        fprintf(stderr, "usage: satfeat_bench_motion [--reps R] [--sizes N,N,...] "
                        "[--inliers F,F,...] [--threshold T] [--cpu-time]\n");
        return 2;
    }
    satfeat_ctx *cpu = NULL, *gpu = NULL;
    if (satfeat_ctx_new(&cpu, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) {
        fprintf(stderr, "satfeat_bench_motion: no CPU context\n");
        return 1;
    }
    if (satfeat_ctx_new(&gpu, SATFEAT_BACKEND_CUDA, 0) != SATFEAT_OK) {
        fprintf(stderr, "satfeat_bench_motion: no CUDA context: timing the CPU only\n");
        gpu = NULL;
    }
    const char *sampling[3] = {"RANSAC", "PROSAC useful q", "PROSAC random q"};
    printf("clock: %s\n", g_cpu_time ? "process CPU time" : "wall");
    printf("%6s %5s %-16s %6s %7s %12s %12s %8s %8s %12s %12s  %s\n", "n", "inl", "sampling",
           "draws", "inliers", "CPU us", "CPU+ref us", "err px", "+ref px", "CUDA us",
           "CUDA+ref us", "same");
    int rc = 0;
    for (int si = 0; si < nsizes; si++)
        for (int ii = 0; ii < ninl; ii++) {
            const size_t n = (size_t)sizes[si];
            double *src = malloc(4 * n * sizeof *src);
            float *q_use = malloc(n * sizeof *q_use), *q_rand = malloc(n * sizeof *q_rand);
            uint8_t *ma = malloc(n), *mb = malloc(n);
            if (!src || !q_use || !q_rand || !ma || !mb) return 1;
            double *dst = src + 2 * n;
            const double h[9] = {0.97, 0.04, 19.2, -0.02, 1.01, -15.4, 1.6e-5, -1.0e-5, 1};
            for (size_t i = 0; i < n; i++) {
                const double x = urand(0, 1919), y = urand(0, 1079);
                const double w = h[6] * x + h[7] * y + h[8];
                const int in = urand(0, 1) < inl[ii];
                src[2 * i] = x, src[2 * i + 1] = y;
                dst[2 * i] = in ? (h[0] * x + h[1] * y + h[2]) / w + urand(-0.5, 0.5)
                                : urand(0, 1919);
                dst[2 * i + 1] = in ? (h[3] * x + h[4] * y + h[5]) / w + urand(-0.5, 0.5)
                                    : urand(0, 1079);
                q_use[i] = (float)(in ? urand(0.3, 1.0) : urand(0.0, 0.7));
                q_rand[i] = (float)urand(0, 1);
            }
            for (int sm = 0; sm < 3; sm++) {
                const float *q = sm == 0 ? NULL : sm == 1 ? q_use : q_rand;
                satfeat_motion_params p = satfeat_motion_params_default();
                p.threshold = threshold;
                double t[4] = {-1, -1, -1, -1};
                satfeat_motion a, b;
                memset(&a, 0, sizeof a);
                memset(&b, 0, sizeof b);
                satfeat_status sa = SATFEAT_OK, sb = SATFEAT_OK;
                int same = 1;
                double err[2] = {-1.0, -1.0};
                for (int refine = 0; refine < 2; refine++) {
                    p.refine = refine;
                    t[refine] = time_calls(cpu, src, dst, n, q, &p, reps, &a, ma, &sa);
                    err[refine] = grid_error(a.h, h, sa == SATFEAT_OK);
                    if (!gpu) continue;
                    t[2 + refine] = time_calls(gpu, src, dst, n, q, &p, reps, &b, mb, &sb);
                    same &= sa == sb && memcmp(&a, &b, sizeof a) == 0 &&
                            (sa != SATFEAT_OK || memcmp(ma, mb, n) == 0);
                }
                printf("%6zu %5.2f %-16s %6d %7zu %12.1f %12.1f %8.4f %8.4f %12.1f %12.1f  %s\n",
                       n, inl[ii], sampling[sm], sa == SATFEAT_OK ? a.iterations : -1,
                       sa == SATFEAT_OK ? a.inliers : 0, t[0], t[1], err[0], err[1], t[2], t[3],
                       gpu ? (same ? "yes" : "NO") : "-");
                if (!same) rc = 1;
            }
            free(src);
            free(q_use);
            free(q_rand);
            free(ma);
            free(mb);
        }
    satfeat_ctx_delete(gpu);
    satfeat_ctx_delete(cpu);
    return rc;
}
