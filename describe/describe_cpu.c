/* describe_cpu.c - orientation and descriptors on the CPU, threaded over keypoints (each keypoint
 * is computed by one thread in the headers' fixed order, so results do not depend on the thread
 * count). The fast path computes every per-sample quantity with the same IEEE operations as
 * orientation.h / descriptor.h, restructured: sample corners from per-row / per-column terms,
 * table reads without clamping when a keypoint's whole footprint lies inside the table, the
 * arithmetic in 4 lanes (describe_vec.h), the 4 subregions of a row of subregions summed in
 * lanes (each lane gathers its subregion's samples), each in its own fixed order. The reference path calls the
 * header functions per sample as the CUDA kernels do; the tests prove all paths equal. */
#include "describe/describe.h"
#include "describe/describe_vec.h"
#include "describe/descriptor.h"
#include "describe/haar_block.h"
#include "describe/orientation.h"
#include "describe/scharr.h"

#include <string.h>

/* No clones under ThreadSanitizer: the clone resolver (an ifunc) runs while the program is
 * relocated, before TSan is initialised, and its instrumentation crashes there. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define SF_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define SF_CLONES
#endif

/** How many samples ahead the fast path prefetches the table rows of a sample. */
#ifndef SF_PREFETCH
#define SF_PREFETCH 12
#endif

/** Orientation samples padded to whole vectors. */
#define SF_ORI_PAD ((SATFEAT_ORI_SAMPLES + 3) / 4 * 4)

/* The Haar pair at corner (cx, cy) of half side h when the footprint lies inside the table:
 * the reads of satfeat_haar_xy without clamps (the clamps would not change any coordinate). */
static inline void haar_inner(const uint32_t *t, size_t st, int cx, int cy, int h, int32_t *dx,
                              int32_t *dy)
{
    const uint32_t *rm = t + (size_t)cy * st + (size_t)cx;
    const uint32_t *rs = rm - (size_t)h * st, *re = rm + (size_t)h * st;
    const uint32_t ss = rs[-h], sm = rs[0], se = rs[h];
    const uint32_t ms = rm[-h], me = rm[h];
    const uint32_t es = re[-h], em = re[0], ee = re[h];
    const uint32_t right = ee - em - se + sm, left = em - es - sm + ss;
    const uint32_t bottom = ee - es - me + ms, top = me - ms - se + ss;
    *dx = (int32_t)(right - left);
    *dy = (int32_t)(bottom - top);
}

/* Prefetches the three rows of the Haar pair at (cx, cy) (inside the table: the caller checked).
 * Always inlined: GCC finds a separate copy free of side effects and deletes the calls. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void haar_prefetch(const uint32_t *t, size_t st, int cx, int cy, int h)
{
#if defined(__GNUC__)
    const uint32_t *rm = t + (size_t)cy * st + (size_t)cx;
    const size_t hs = (size_t)h * st;
    __builtin_prefetch(rm - hs - h);
    __builtin_prefetch(rm - hs + h);
    __builtin_prefetch(rm - h);
    __builtin_prefetch(rm + h);
    __builtin_prefetch(rm + hs - h);
    __builtin_prefetch(rm + hs + h);
#else
    (void)t, (void)st, (void)cx, (void)cy, (void)h;
#endif
}

/* 1 when every Haar pair of half h centred on corners x in [x0, x1], y in [y0, y1] lies inside
 * the width x height table. */
static inline int footprint_inside(int x0, int x1, int y0, int y1, int h, int width, int height)
{
    return x0 - h >= 0 && x1 + h <= width && y0 - h >= 0 && y1 + h <= height;
}

/* The Scharr derivative of half side h at corner (cx, cy) when its lattice lies inside the table:
 * the reads of satfeat_scharr_xy without clamps (the clamps would not change any coordinate). */
static inline void scharr_inner(const uint32_t *t, size_t st, int cx, int cy, int h, int32_t *dx,
                                int32_t *dy)
{
    const uint32_t *base = t + (size_t)(cy - 3 * h) * st + (size_t)(cx - 3 * h);
    const size_t step = (size_t)(2 * h) * st;
    uint32_t e[4][4];
    for (int j = 0; j < 4; j++) {
        const uint32_t *row = base + (size_t)j * step;
        for (int i = 0; i < 4; i++) e[j][i] = row[2 * h * i];
    }
    satfeat_scharr_combine(e, dx, dy);
}

/* The Scharr responses of half side h of the n orientation samples (corners from the per-offset
 * tables cxs, cys at index offset + R; [x0, x1] x [y0, y1] bounds every corner): unclamped reads
 * when every lattice (3h around its corner) lies inside the table and `clamped` is 0, else
 * satfeat_scharr_xy. */
static void scharr_samples(const uint32_t *t, size_t st, int width, int height, const int *cxs,
                           const int *cys, const satfeat_describe_weights *w, int n, int h,
                           int clamped, int x0, int x1, int y0, int y1, int32_t *idx,
                           int32_t *idy)
{
    enum { R = SATFEAT_ORI_RADIUS };
    const int inside = !clamped && footprint_inside(x0, x1, y0, y1, 3 * h, width, height);
    for (int k = 0; k < n; k++) {
        const int cx = cxs[w->ori_i[k] + R], cy = cys[w->ori_j[k] + R];
        if (inside)
            scharr_inner(t, st, cx, cy, h, &idx[k], &idy[k]);
        else
            satfeat_scharr_xy(t, st, width, height, cx, cy, h, &idx[k], &idy[k]);
    }
}

/* The orientation of one keypoint (fast path; clamped != 0 reads through satfeat_haar_xy or
 * satfeat_scharr_xy even in the interior; vec != 0 takes the Haar pairs from satfeat_haar_block,
 * 8 at a time, and the caller checked satfeat_haar_block_vector). Same result as
 * satfeat_orientation. */
SF_CLONES
static double orient_fast(const uint32_t *t, size_t st, int width, int height, double x, double y,
                          double sigma, const satfeat_describe_weights *w, int clamped, int vec)
{
    const satfeat_ori_setup o = satfeat_ori_prepare(x, y, sigma, w);
    const int n = w->ori_n, npad = (n + 3) / 4 * 4;
    /* corners per offset i (columns) and j (rows), in units of s/2: the expressions of
     * satfeat_ori_sample; offset i is at index i + R */
    enum { R = SATFEAT_ORI_RADIUS, NC = 2 * SATFEAT_ORI_RADIUS + 1 };
    int cxs[NC], cys[NC];
    for (int i = -R; i <= R; i++) {
        cxs[i + R] = satfeat_dg_corner(o.x + (double)i * o.hs);
        cys[i + R] = satfeat_dg_corner(o.y + (double)i * o.hs);
    }
    int x0 = cxs[0], x1 = cxs[0], y0 = cys[0], y1 = cys[0];
    for (int i = 1; i < NC; i++) {
        x0 = cxs[i] < x0 ? cxs[i] : x0;
        x1 = cxs[i] > x1 ? cxs[i] : x1;
        y0 = cys[i] < y0 ? cys[i] : y0;
        y1 = cys[i] > y1 ? cys[i] : y1;
    }
    const int h = o.half;
    int32_t idx[SF_ORI_PAD], idy[SF_ORI_PAD];
    if (o.filter == SATFEAT_ORI_FILTER_SCHARR) {
        scharr_samples(t, st, width, height, cxs, cys, w, n, o.scharr_half, clamped, x0, x1, y0,
                       y1, idx, idy);
    } else if (!clamped && vec) {
        int32_t scx[SATFEAT_ORI_SAMPLES], scy[SATFEAT_ORI_SAMPLES];
        for (int k = 0; k < n; k++) {
            scx[k] = cxs[w->ori_i[k] + R];
            scy[k] = cys[w->ori_j[k] + R];
        }
        satfeat_haar_block(t, st, width, height, scx, scy, n, h, idx, idy);
    } else if (!clamped && footprint_inside(x0, x1, y0, y1, h, width, height)) {
        for (int k = 0; k < n; k++) {
            if (k + SF_PREFETCH < n)
                haar_prefetch(t, st, cxs[w->ori_i[k + SF_PREFETCH] + R],
                              cys[w->ori_j[k + SF_PREFETCH] + R], h);
            haar_inner(t, st, cxs[w->ori_i[k] + R], cys[w->ori_j[k] + R], h, &idx[k], &idy[k]);
        }
    } else {
        for (int k = 0; k < n; k++)
            satfeat_haar_xy(t, st, width, height, cxs[w->ori_i[k] + R], cys[w->ori_j[k] + R], h,
                            &idx[k], &idy[k]);
    }
    for (int k = n; k < npad; k++) idx[k] = idy[k] = 0;
    /* weighted responses and their bins, 4 samples at a time */
    double wdx[SF_ORI_PAD], wdy[SF_ORI_PAD];
    int bin[SF_ORI_PAD];
    for (int k = 0; k < npad; k += 4) {
        sf_v4d g;
        for (int l = 0; l < 4; l++) g[l] = k + l < n ? w->ori_w[k + l] : 0.0;
        sf_v4i ix, iy;
        memcpy(&ix, &idx[k], sizeof ix);
        memcpy(&iy, &idy[k], sizeof iy);
        const sf_v4d dx = g * __builtin_convertvector(ix, sf_v4d);
        const sf_v4d dy = g * __builtin_convertvector(iy, sf_v4d);
        const sf_v4i b = sf_ori_bin4(&dy, &dx);
        memcpy(&wdx[k], &dx, sizeof dx);
        memcpy(&wdy[k], &dy, sizeof dy);
        memcpy(&bin[k], &b, sizeof b);
    }
    /* bins in ascending sample order, from 0.0; extended by the first 12 for the wrap */
    double bx[SATFEAT_ORI_BINS + SATFEAT_ORI_WINDOW], by[SATFEAT_ORI_BINS + SATFEAT_ORI_WINDOW];
    for (int b = 0; b < SATFEAT_ORI_BINS; b++) bx[b] = by[b] = 0.0;
    for (int k = 0; k < n; k++) {
        bx[bin[k]] += wdx[k];
        by[bin[k]] += wdy[k];
    }
    for (int m = 0; m < SATFEAT_ORI_WINDOW; m++) {
        bx[SATFEAT_ORI_BINS + m] = bx[m];
        by[SATFEAT_ORI_BINS + m] = by[m];
    }
    /* window k = 0.0 + bins k, k+1, ..., k+11, for all k in lanes */
    sf_v4d sx[SATFEAT_ORI_BINS / 4], sy[SATFEAT_ORI_BINS / 4];
    for (int v = 0; v < SATFEAT_ORI_BINS / 4; v++) sx[v] = sy[v] = sf_splat(0.0);
    for (int m = 0; m < SATFEAT_ORI_WINDOW; m++)
        for (int v = 0; v < SATFEAT_ORI_BINS / 4; v++) {
            sf_v4d ax, ay;
            memcpy(&ax, &bx[4 * v + m], sizeof ax);
            memcpy(&ay, &by[4 * v + m], sizeof ay);
            sx[v] += ax;
            sy[v] += ay;
        }
    double best = -1.0, bsx = 0.0, bsy = 0.0;
    for (int v = 0; v < SATFEAT_ORI_BINS / 4; v++) {
        const sf_v4d n2 = sx[v] * sx[v] + sy[v] * sy[v]; /* satfeat_ori_norm2 per lane */
        for (int l = 0; l < 4; l++)
            if (n2[l] > best) {
                best = n2[l];
                bsx = sx[v][l];
                bsy = sy[v][l];
            }
    }
    const double a = satfeat_am_angle(bsy, bsx);
    /* the padding's responses are 0: never inside the window */
    return w->ori_refine ? satfeat_ori_refine(wdx, wdy, n, a) : a;
}

/* The descriptor of one keypoint (fast path; clamped and vec as in orient_fast): dim 64 or 128
 * floats to out, normalised as root says, equal to satfeat_descriptor. */
SF_CLONES
static void describe_fast(const uint32_t *t, size_t st, int width, int height,
                          const satfeat_desc_setup *d, const satfeat_describe_weights *w, int dim,
                          int root, int clamped, int vec, float *out)
{
    enum { G = SATFEAT_DESC_GRID, NV = SATFEAT_DESC_GRID / 4, SUB = SATFEAT_DESC_SUB };
    /* the offsets of satfeat_desc_corner: per column (lanes = 4 consecutive columns) and per row */
    sf_v4d cu[NV], su[NV];
    for (int v = 0; v < NV; v++)
        for (int l = 0; l < 4; l++) {
            const double u = ((double)(4 * v + l) - 11.5) * d->s;
            cu[v][l] = d->c * u;
            su[v][l] = d->sn * u;
        }
    int32_t cx[SATFEAT_DESC_SAMPLES], cy[SATFEAT_DESC_SAMPLES];
    sf_v4i mnx = {0x7fffffff, 0x7fffffff, 0x7fffffff, 0x7fffffff}, mxx = -mnx - 1;
    sf_v4i mny = mnx, mxy = mxx;
    for (int r = 0; r < G; r++) {
        const double v = ((double)r - 11.5) * d->s, cv = d->c * v, sv = d->sn * v;
        for (int cm = 0; cm < NV; cm++) {
            const sf_v4i ix = sf_corner4(d->x + (cu[cm] - sv));
            const sf_v4i iy = sf_corner4(d->y + (su[cm] + cv));
            const int k = r * G + cm * 4;
            memcpy(&cx[k], &ix, sizeof ix);
            memcpy(&cy[k], &iy, sizeof iy);
            sf_v4i m = ix < mnx;
            mnx = (ix & m) | (mnx & ~m);
            m = ix > mxx;
            mxx = (ix & m) | (mxx & ~m);
            m = iy < mny;
            mny = (iy & m) | (mny & ~m);
            m = iy > mxy;
            mxy = (iy & m) | (mxy & ~m);
        }
    }
    int x0 = mnx[0], x1 = mxx[0], y0 = mny[0], y1 = mxy[0];
    for (int l = 1; l < 4; l++) {
        x0 = mnx[l] < x0 ? mnx[l] : x0;
        x1 = mxx[l] > x1 ? mxx[l] : x1;
        y0 = mny[l] < y0 ? mny[l] : y0;
        y1 = mxy[l] > y1 ? mxy[l] : y1;
    }
    const int h = d->half;
    int32_t idx[SATFEAT_DESC_SAMPLES], idy[SATFEAT_DESC_SAMPLES];
    if (!clamped && vec) {
        satfeat_haar_block(t, st, width, height, cx, cy, SATFEAT_DESC_SAMPLES, h, idx, idy);
    } else if (!clamped && footprint_inside(x0, x1, y0, y1, h, width, height)) {
        /* grid order (neighbouring samples share cache lines), prefetching SF_PREFETCH ahead */
        for (int k = 0; k < SF_PREFETCH; k++) haar_prefetch(t, st, cx[k], cy[k], h);
        for (int k = 0; k < SATFEAT_DESC_SAMPLES; k++) {
            if (k + SF_PREFETCH < SATFEAT_DESC_SAMPLES)
                haar_prefetch(t, st, cx[k + SF_PREFETCH], cy[k + SF_PREFETCH], h);
            haar_inner(t, st, cx[k], cy[k], h, &idx[k], &idy[k]);
        }
    } else {
        for (int k = 0; k < SATFEAT_DESC_SAMPLES; k++)
            satfeat_haar_xy(t, st, width, height, cx[k], cy[k], h, &idx[k], &idy[k]);
    }
    /* rotated responses (satfeat_desc_sample per lane), grid order */
    double rx[SATFEAT_DESC_SAMPLES], ry[SATFEAT_DESC_SAMPLES];
    for (int v = 0; v < SATFEAT_DESC_SAMPLES / 4; v++) {
        sf_v4i ix, iy;
        memcpy(&ix, &idx[4 * v], sizeof ix);
        memcpy(&iy, &idy[4 * v], sizeof iy);
        const sf_v4d dx = __builtin_convertvector(ix, sf_v4d);
        const sf_v4d dy = __builtin_convertvector(iy, sf_v4d);
        const sf_v4d a = d->c * dx + d->sn * dy, b = d->c * dy - d->sn * dx;
        memcpy(&rx[4 * v], &a, sizeof a);
        memcpy(&ry[4 * v], &b, sizeof b);
    }
    /* subregion sums (satfeat_desc_part): lane l of subregion row R is subregion 4R + l (columns
     * 5l .. 5l+8), its 81 weighted samples row by row, left to right, from 0.0, then times
     * reg_w. A skipped sample and a sample of +0.0 give the same sum: the sums start at +0.0 and
     * so are never -0.0. */
    double vals[128];
    const sf_v4d zero = sf_splat(0.0);
    for (int R = 0; R < 4; R++)
        for (int part = 0; part < 2; part++) {
            const double *a = part ? ry : rx, *b = part ? rx : ry;
            sf_v4d s_neg = zero, s_pos = zero, abs_neg = zero, abs_pos = zero;
            for (int r = 0; r < SUB; r++) {
                const int row = (R * SATFEAT_DESC_STEP + r) * G;
                for (int cm = 0; cm < SUB; cm++) {
                    const int k = row + cm;
                    const sf_v4d av4 = {a[k], a[k + 5], a[k + 10], a[k + 15]};
                    const sf_v4d v = sf_splat(w->sub_w[r * SUB + cm]) * av4, av = sf_abs(v);
                    if (dim == 128) {
                        const sf_v4d bv4 = {b[k], b[k + 5], b[k + 10], b[k + 15]};
                        const sf_v4l neg = bv4 < 0.0;
                        s_neg += sf_sel(neg, v, zero);
                        abs_neg += sf_sel(neg, av, zero);
                        s_pos += sf_sel(neg, zero, v);
                        abs_pos += sf_sel(neg, zero, av);
                    } else {
                        s_pos += v;
                        abs_pos += av;
                    }
                }
            }
            for (int l = 0; l < 4; l++) {
                const int q = 4 * R + l;
                const double g = w->reg_w[q];
                if (dim == 128) {
                    double *o = vals + q * 8 + part * 4;
                    o[0] = g * s_neg[l];
                    o[1] = g * s_pos[l];
                    o[2] = g * abs_neg[l];
                    o[3] = g * abs_pos[l];
                } else {
                    vals[q * 4 + part] = g * s_pos[l];
                    vals[q * 4 + 2 + part] = g * abs_pos[l];
                }
            }
        }
    const double scale = satfeat_desc_scale(vals, dim, root);
    for (int i = 0; i < dim; i++) out[i] = satfeat_desc_value(vals, i, scale, root);
}

void satfeat_orient_cpu_path(const uint32_t *sat, size_t sat_stride, int width, int height,
                             satfeat_keypoint *kp, size_t n, const satfeat_describe_weights *w,
                             int threads, satfeat_desc_path path)
{
    const long count = (long)n;
    const int vec = path != SATFEAT_DESC_PATH_FAST_SCALAR &&
                    satfeat_haar_block_vector(sat_stride, width, height);
    if (threads < 1) threads = 1;
#pragma omp parallel for num_threads(threads) schedule(dynamic, 16) if (threads > 1 && count > 16)
    for (long i = 0; i < count; i++) {
        if (path == SATFEAT_DESC_PATH_REFERENCE)
            kp[i].angle = satfeat_orientation(sat, sat_stride, width, height, kp[i].x, kp[i].y,
                                              kp[i].sigma, w);
        else
            kp[i].angle = orient_fast(sat, sat_stride, width, height, kp[i].x, kp[i].y,
                                      kp[i].sigma, w, path == SATFEAT_DESC_PATH_CLAMPED, vec);
    }
}

void satfeat_orient_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                        satfeat_keypoint *kp, size_t n, const satfeat_describe_weights *w,
                        int threads)
{
    satfeat_orient_cpu_path(sat, sat_stride, width, height, kp, n, w, threads,
                            SATFEAT_DESC_PATH_FAST);
}

void satfeat_describe_cpu_path(const uint32_t *sat, size_t sat_stride, int width, int height,
                               const satfeat_keypoint *kp, size_t n, int flags, int dim,
                               const satfeat_describe_weights *w, float *desc, int threads,
                               satfeat_desc_path path)
{
    const long count = (long)n;
    const int upright = (flags & SATFEAT_DESC_UPRIGHT) != 0, root = (flags & SATFEAT_DESC_ROOT) != 0;
    const int vec = path != SATFEAT_DESC_PATH_FAST_SCALAR &&
                    satfeat_haar_block_vector(sat_stride, width, height);
    if (dim != 128) dim = 64;
    if (threads < 1) threads = 1;
#pragma omp parallel num_threads(threads) if (threads > 1 && count > 16)
    {
        double rx[SATFEAT_DESC_SAMPLES], ry[SATFEAT_DESC_SAMPLES], vals[128];
#pragma omp for schedule(dynamic, 16)
        for (long i = 0; i < count; i++) {
            const satfeat_desc_setup d =
                satfeat_desc_prepare(kp[i].x, kp[i].y, kp[i].sigma, kp[i].angle, upright,
                                     w->desc_haar);
            float *out = desc + (size_t)i * (size_t)dim;
            if (path == SATFEAT_DESC_PATH_REFERENCE)
                satfeat_descriptor(sat, sat_stride, width, height, &d, w, dim, root, rx, ry, vals,
                                   out);
            else
                describe_fast(sat, sat_stride, width, height, &d, w, dim, root,
                              path == SATFEAT_DESC_PATH_CLAMPED, vec, out);
        }
    }
}

void satfeat_describe_cpu(const uint32_t *sat, size_t sat_stride, int width, int height,
                          const satfeat_keypoint *kp, size_t n, int flags, int dim,
                          const satfeat_describe_weights *w, float *desc, int threads)
{
    satfeat_describe_cpu_path(sat, sat_stride, width, height, kp, n, flags, dim, w, desc,
                              threads, SATFEAT_DESC_PATH_FAST);
}
