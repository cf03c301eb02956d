/* descriptor_study.c - matching-quality study of orientation / descriptor variants (docs/DESCRIPTORS.md).
 *
 * Detects with the public API (default parameters but the threshold, which is tuned on frame 1
 * to a target count, and without the library's near-duplicate suppression), optionally removes
 * near-duplicate keypoints itself (set "dedup"; --dup-any: the library's rule), then computes descriptor
 * variants with this file's own copy of the arithmetic (Haar pairs from describe/haar.h), matches
 * them with satfeat_eval_matching (the public matcher under the protocol of docs/QUALITY.md) and prints
 * one CSV line per (keypoint set, variant, pair):
 *   set,variant,seq,pair,score,precision,correct,matches,n1,n2,repeatability,kp1
 *
 * usage: satfeat_descriptor_study [--variants a,b,..] [--threads T]
 *            --seq NAME DIR IMGFMT HFMT TARGET FRAMES [--seq ...]
 *   IMGFMT / HFMT: printf formats of one int (img%d.pgm, H1to%dp; frame%03d.png, H1to%03dp)
 *   TARGET: keypoints on frame 1 (the threshold is the TARGET-th response, after dedup)
 *   FRAMES: comma list of the frames k matched against frame 1
 * A developer program: not part of the library, no error recovery beyond exiting. */
#include "describe/angle_math.h"
#include "describe/describe.h"
#include "describe/describe_geom.h"
#include "describe/describe_weights.h"
#include "describe/haar.h"
#include "satfeat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXV 64
#define PI_ 3.14159265358979323846

/* One image with its table and detections at a low threshold (sorted, strongest first). */
typedef struct image {
    int w, h;
    uint8_t *px;
    uint32_t *sat;
    size_t st; /* elements */
    satfeat_keypoint *kp;
    size_t n;
} image;

static void die(const char *m)
{
    fprintf(stderr, "descriptor_study: %s\n", m);
    exit(1);
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) die("out of memory");
    return p;
}

/* Fills f (created when NULL) with copies of n keypoints and descriptors (dim floats, 0: none)
 * found in image im; dies when it cannot. */
static satfeat_features *features_of(satfeat_features *f, const satfeat_keypoint *kp,
                                     const float *d, size_t n, int dim, const image *im)
{
    if ((!f && satfeat_features_new(&f) != SATFEAT_OK) ||
        satfeat_features_assign(f, kp, d, n, (satfeat_descriptor_kind)dim, im->w, im->h) !=
            SATFEAT_OK)
        die("feature set");
    return f;
}

static satfeat_ctx *g_ctx;
static int g_threads = 1;

/* Loads an image, builds its table, detects at `thr` with the default parameters. */
static void load(image *im, const char *path, double thr)
{
    if (satfeat_image_load_gray8(g_ctx, path, &im->px, &im->w, &im->h)) die(path);
    im->st = (size_t)im->w + 1;
    im->sat = xmalloc(im->st * ((size_t)im->h + 1) * 4);
    if (satfeat_sat_u8(g_ctx, im->px, (size_t)im->w, im->w, im->h, im->sat, im->st * 4,
                       SATFEAT_SAT_CPU))
        die("sat");
    satfeat_detector_params p = satfeat_detector_params_default();
    p.threshold = thr;
    p.descriptor = SATFEAT_DESCRIPTOR_NONE;
    p.suppress_duplicates = 0; /* the study removes near duplicates itself (select_kp) */
    satfeat_detector *det;
    if (satfeat_detector_new(g_ctx, &p, im->w, im->h, &det)) die("detector");
    satfeat_features *f = NULL;
    const satfeat_image_view view = satfeat_image_view_host(im->px, im->w, im->h, 0);
    if (satfeat_detect(det, &view, &f)) die("detect");
    im->n = satfeat_features_count(f);
    im->kp = xmalloc((im->n ? im->n : 1) * sizeof *im->kp);
    if (im->n) memcpy(im->kp, satfeat_features_keypoints(f), im->n * sizeof *im->kp);
    satfeat_features_delete(f);
    satfeat_detector_delete(det);
}

/* ---- keypoint sets ------------------------------------------------------------------------ */

static double g_dup_dist = 0.5, g_dup_size = 1.3;
static int g_dup_lap = 1, g_dup_any = 0;

/* Keypoints with response >= thr; with dedup, greedily (strongest first) drops a keypoint when a
 * kept one (--dup-any: any stronger one) of the same Laplacian sign lies within dist * min(sigma) with sizes within `size`x. */
static size_t select_kp(const image *im, double thr, int dedup, satfeat_keypoint *out)
{
    size_t m = 0;
    for (size_t k = 0; k < im->n && im->kp[k].response >= thr; k++) {
        const satfeat_keypoint *a = &im->kp[k];
        int dup = 0;
        if (dedup)
            for (size_t j = 0; j < (g_dup_any ? k : m) && !dup; j++) {
                const satfeat_keypoint *b = g_dup_any ? &im->kp[j] : &out[j];
                if (g_dup_lap && (a->laplacian < 0) != (b->laplacian < 0)) continue;
                const double smin = a->sigma < b->sigma ? a->sigma : b->sigma;
                const double r = a->size > b->size ? a->size / b->size : b->size / a->size;
                const double dx = a->x - b->x, dy = a->y - b->y;
                if (r < g_dup_size && dx * dx + dy * dy < (g_dup_dist * smin) * (g_dup_dist * smin))
                    dup = 1;
            }
        if (!dup) out[m++] = *a;
    }
    return m;
}

/* Threshold giving `target` keypoints on image 1 (after dedup when asked). */
static double tune(const image *im, size_t target, int dedup)
{
    satfeat_keypoint *tmp = xmalloc(im->n * sizeof *tmp);
    size_t m = select_kp(im, -1.0, dedup, tmp);
    double thr = m >= target ? tmp[target - 1].response : tmp[m - 1].response;
    free(tmp);
    return thr;
}

/* ---- variants ----------------------------------------------------------------------------- */

/* Orientation variant. */
typedef struct ori_cfg {
    int lib;        /* 1: the library's orientation (satfeat_orient_cpu) */
    double haar;    /* Haar side in units of s */
    double step;    /* sample spacing in units of s */
    double radius;  /* samples with i^2 + j^2 < radius^2 (units of s) */
    double sigma;   /* Gaussian weight sigma (units of s) */
    int exact;      /* 1: windows start at each sample's angle (no bins); 0: 72 bins */
    double window;  /* window width (radians) */
} ori_cfg;

/* Descriptor variant. */
typedef struct desc_cfg {
    int lib;        /* 1: the library's descriptor (satfeat_describe_cpu) */
    int grid;       /* samples per side of the window */
    int sub;        /* samples per side of a subregion */
    int stride;     /* samples between subregion starts */
    double haar;    /* Haar side in units of s */
    double spacing; /* sample spacing in units of s */
    double gsig;    /* sample Gaussian sigma (units of s) */
    int gsub;       /* 1: sample Gaussian centred on the subregion; 0: on the keypoint */
    double subsig;  /* > 0: subregion vector weight, Gaussian of this sigma in subregion units */
    int dim;        /* 64 or 128 */
    int upright;
} desc_cfg;

typedef struct variant {
    const char *name;
    ori_cfg o;
    desc_cfg d;
} variant;

static const ori_cfg ORI_LIB = {1, 4, 1, 6, 2, 0, PI_ / 3};
static const desc_cfg D_LIB64 = {1, 20, 5, 5, 2, 1, 3.3, 0, 0, 64, 0};

static double haar_side_half(double side) { return floor(side * 0.5 + 0.5) < 1 ? 1 : floor(side * 0.5 + 0.5); }

/* Orientation of one keypoint with cfg o (this file's copy of the arithmetic). */
static double orient(const image *im, const satfeat_keypoint *kp, const ori_cfg *o)
{
    const double s = satfeat_dg_scale(kp->sigma), x = kp->x, y = kp->y;
    const int half = (int)haar_side_half(o->haar * s);
    enum { MAXS = 4096 };
    static double sx_[MAXS], sy_[MAXS], sa_[MAXS];
    int n = 0;
    const int lim = (int)ceil(o->radius / o->step);
    for (int j = -lim; j <= lim; j++)
        for (int i = -lim; i <= lim; i++) {
            const double u = i * o->step, v = j * o->step;
            if (u * u + v * v >= o->radius * o->radius || n >= MAXS) continue;
            int32_t dx, dy;
            satfeat_haar_xy(im->sat, im->st, im->w, im->h, satfeat_dg_corner(x + u * s),
                            satfeat_dg_corner(y + v * s), half, &dx, &dy);
            const double g = exp(-(u * u + v * v) / (2 * o->sigma * o->sigma));
            sx_[n] = g * dx;
            sy_[n] = g * dy;
            sa_[n] = satfeat_am_angle(sy_[n], sx_[n]);
            n++;
        }
    double best = -1, bx = 0, by = 0;
    if (!o->exact) {
        double hx[72] = {0}, hy[72] = {0};
        for (int k = 0; k < n; k++) {
            int b = (int)(sa_[k] * 72 / (2 * PI_));
            b = b < 0 ? 0 : b > 71 ? 71 : b;
            hx[b] += sx_[k];
            hy[b] += sy_[k];
        }
        const int wb = (int)(o->window / (2 * PI_ / 72) + 0.5);
        for (int k = 0; k < 72; k++) {
            double a = 0, c = 0;
            for (int m = 0; m < wb; m++) {
                a += hx[(k + m) % 72];
                c += hy[(k + m) % 72];
            }
            if (a * a + c * c > best) best = a * a + c * c, bx = a, by = c;
        }
    } else {
        for (int k = 0; k < n; k++) {
            if (sx_[k] == 0 && sy_[k] == 0) continue;
            double a = 0, c = 0;
            for (int m = 0; m < n; m++) {
                double d = sa_[m] - sa_[k];
                if (d < 0) d += 2 * PI_;
                if (d < o->window) a += sx_[m], c += sy_[m];
            }
            if (a * a + c * c > best) best = a * a + c * c, bx = a, by = c;
        }
    }
    return satfeat_am_angle(by, bx);
}

/* Descriptor of one keypoint with cfg d (this file's copy of the arithmetic). */
static void describe(const image *im, const satfeat_keypoint *kp, double angle, const desc_cfg *d,
                     float *out)
{
    const double s = satfeat_dg_scale(kp->sigma), x = kp->x, y = kp->y;
    const int half = (int)haar_side_half(d->haar * s);
    double sn, c;
    satfeat_am_sincos(d->upright ? 0.0 : angle, &sn, &c);
    enum { MAXG = 64 };
    static double rx[MAXG * MAXG], ry[MAXG * MAXG];
    const double mid = (d->grid - 1) * 0.5;
    for (int r = 0; r < d->grid; r++)
        for (int q = 0; q < d->grid; q++) {
            const double u = (q - mid) * d->spacing * s, v = (r - mid) * d->spacing * s;
            int32_t ix, iy;
            satfeat_haar_xy(im->sat, im->st, im->w, im->h, satfeat_dg_corner(x + (c * u - sn * v)),
                            satfeat_dg_corner(y + (sn * u + c * v)), half, &ix, &iy);
            rx[r * d->grid + q] = c * ix + sn * iy;
            ry[r * d->grid + q] = c * iy - sn * ix;
        }
    double vals[128];
    const int per = d->dim / 16;
    for (int qi = 0; qi < 4; qi++)
        for (int qj = 0; qj < 4; qj++) {
            double acc[8] = {0};
            const int r0 = qi * d->stride, c0 = qj * d->stride;
            const double cr = r0 + (d->sub - 1) * 0.5, cc = c0 + (d->sub - 1) * 0.5;
            for (int r = r0; r < r0 + d->sub; r++)
                for (int q = c0; q < c0 + d->sub; q++) {
                    const double gr = d->gsub ? r - cr : r - mid, gc = d->gsub ? q - cc : q - mid;
                    const double g = exp(-(gr * gr + gc * gc) * d->spacing * d->spacing /
                                         (2 * d->gsig * d->gsig));
                    const double a = g * rx[r * d->grid + q], b = g * ry[r * d->grid + q];
                    if (d->dim == 64) {
                        acc[0] += a, acc[1] += b, acc[2] += fabs(a), acc[3] += fabs(b);
                    } else {
                        const int ia = b < 0 ? 0 : 1, ib = a < 0 ? 0 : 1;
                        acc[ia] += a, acc[2 + ia] += fabs(a);
                        acc[4 + ib] += b, acc[6 + ib] += fabs(b);
                    }
                }
            double wq = 1.0;
            if (d->subsig > 0) {
                const double a = qi - 1.5, b = qj - 1.5;
                wq = exp(-(a * a + b * b) / (2 * d->subsig * d->subsig));
            }
            for (int k = 0; k < per; k++) vals[(qi * 4 + qj) * per + k] = wq * acc[k];
        }
    double n2 = 0;
    for (int k = 0; k < d->dim; k++) n2 += vals[k] * vals[k];
    const double nn = sqrt(n2);
    for (int k = 0; k < d->dim; k++) out[k] = nn > 0 ? (float)(vals[k] / nn) : 0.0f;
}

/* Angles and descriptors of a keypoint list (angles written into kp). */
static void compute(const image *im, satfeat_keypoint *kp, size_t n, const variant *v, float *desc,
                    const satfeat_describe_weights *w)
{
    if (v->d.upright)
        for (size_t k = 0; k < n; k++) kp[k].angle = 0;
    else if (v->o.lib)
        satfeat_orient_cpu(im->sat, im->st, im->w, im->h, kp, n, w, g_threads);
    else
        for (size_t k = 0; k < n; k++) kp[k].angle = orient(im, &kp[k], &v->o);
    if (v->d.lib)
        satfeat_describe_cpu(im->sat, im->st, im->w, im->h, kp, n, v->d.upright, v->d.dim, w, desc,
                             g_threads);
    else
        for (size_t k = 0; k < n; k++) describe(im, &kp[k], kp[k].angle, &v->d, desc + k * v->d.dim);
}

/* ---- the variant list --------------------------------------------------------------------- */

static variant g_var[MAXV];
static int g_nvar;

static void add(const char *name, ori_cfg o, desc_cfg d)
{
    g_var[g_nvar].name = name;
    g_var[g_nvar].o = o;
    g_var[g_nvar].d = d;
    g_nvar++;
}

static void build_variants(void)
{
    const desc_cfg surf64 = {0, 20, 5, 5, 2, 1, 3.3, 0, 0, 64, 0};
    desc_cfg surf128 = surf64;
    surf128.dim = 128;
    const desc_cfg msurf64 = {0, 24, 9, 5, 2, 1, 2.5, 1, 1.5, 64, 0};
    desc_cfg msurf128 = msurf64;
    msurf128.dim = 128;
    desc_cfg lib128 = D_LIB64;
    lib128.dim = 128;
    add("lib64", ORI_LIB, D_LIB64); /* the library's orientation and descriptor, whatever they are */
    add("lib128", ORI_LIB, lib128);
    add("surf64", ORI_LIB, surf64);
    add("surf128", ORI_LIB, surf128);
    add("msurf64", ORI_LIB, msurf64);
    add("msurf128", ORI_LIB, msurf128);
    desc_cfg m = msurf64;
    m.subsig = 0;
    add("msurf64-nosubw", ORI_LIB, m);
    m = msurf64;
    m.haar = 3;
    add("msurf64-haar3", ORI_LIB, m);
    m = msurf64;
    m.spacing = 1.2;
    add("msurf64-sp1.2", ORI_LIB, m);
    m = msurf64;
    m.gsig = 3.3;
    add("msurf64-g3.3", ORI_LIB, m);
    /* orientation variants with M-SURF-64 */
    ori_cfg o = ORI_LIB;
    o.lib = 0;
    add("o-copy/msurf64", o, msurf64);
    o.exact = 1;
    add("o-exact/msurf64", o, msurf64);
    o = ORI_LIB, o.lib = 0, o.haar = 2;
    add("o-haar2/msurf64", o, msurf64);
    o = ORI_LIB, o.lib = 0, o.haar = 2, o.step = 0.5;
    add("o-haar2-step.5/msurf64", o, msurf64);
    o = ORI_LIB, o.lib = 0, o.haar = 2, o.step = 0.5, o.exact = 1;
    add("o-haar2-step.5-exact/msurf64", o, msurf64);
    o = ORI_LIB, o.lib = 0, o.step = 0.5;
    add("o-step.5/msurf64", o, msurf64);
    o = ORI_LIB, o.lib = 0, o.haar = 3, o.step = 0.5;
    add("o-haar3-step.5/msurf64", o, msurf64);
    /* round 2: combinations with the Haar side 3s descriptor */
    desc_cfg h3 = msurf64;
    h3.haar = 3;
    o = ORI_LIB, o.lib = 0, o.step = 0.5;
    add("o-step.5/msurf64-haar3", o, h3);
    o.haar = 3;
    add("o-haar3-step.5/msurf64-haar3", o, h3);
    o = ORI_LIB, o.lib = 0, o.haar = 3;
    add("o-haar3/msurf64-haar3", o, h3);
    o = ORI_LIB, o.lib = 0, o.haar = 3, o.step = 0.5, o.sigma = 2.5;
    add("o-haar3-step.5-sig2.5/msurf64-haar3", o, h3);
    o = ORI_LIB, o.lib = 0, o.haar = 3, o.step = 0.5;
    m = h3, m.haar = 2.5;
    add("o-haar3-step.5/msurf64-haar2.5", o, m);
    m = h3, m.haar = 4;
    add("o-haar3-step.5/msurf64-haar4", o, m);
    m = h3, m.gsig = 2.0;
    add("o-haar3-step.5/msurf64-haar3-g2", o, m);
    m = h3, m.dim = 128;
    add("o-haar3-step.5/msurf128-haar3", o, m);
}

/* ---- main --------------------------------------------------------------------------------- */

typedef struct seq {
    const char *name, *dir, *ifmt, *hfmt;
    size_t target;
    int frames[64], nf;
} seq;

static int wanted(const char *list, const char *name)
{
    if (!list) return 1;
    const size_t n = strlen(name);
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        const size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, name, n)) return 1;
        if (!e) break;
        p = e + 1;
    }
    return 0;
}

static void path_of(char *buf, size_t n, const seq *q, const char *fmt, int k)
{
    char f[256];
    snprintf(f, sizeof f, fmt, k);
    snprintf(buf, n, "%s/%s", q->dir, f);
}

static void run_seq(const seq *q, const char *vlist, const char *sets,
                    const satfeat_describe_weights *w)
{
    char p[1024];
    image im1;
    path_of(p, sizeof p, q, q->ifmt, 1);
    load(&im1, p, 1e-7);
    image ims[64];
    for (int f = 0; f < q->nf; f++) {
        path_of(p, sizeof p, q, q->ifmt, q->frames[f]);
        load(&ims[f], p, 1e-7);
    }
    for (int dedup = 0; dedup <= 1; dedup++) {
        if (!wanted(sets, dedup ? "dedup" : "base")) continue;
        const double thr = tune(&im1, q->target, dedup);
        satfeat_keypoint *k1 = xmalloc(im1.n * sizeof *k1);
        const size_t n1 = select_kp(&im1, thr, dedup, k1);
        fprintf(stderr, "%s %s thr %.10g n1 %zu\n", q->name, dedup ? "dedup" : "base", thr, n1);
        for (int f = 0; f < q->nf; f++) {
            const image *im2 = &ims[f];
            satfeat_keypoint *k2 = xmalloc(im2->n * sizeof *k2);
            const size_t n2 = select_kp(im2, thr, dedup, k2);
            double h[9];
            path_of(p, sizeof p, q, q->hfmt, q->frames[f]);
            if (satfeat_homography_read(g_ctx, p, h)) die(p);
            satfeat_repeatability rep;
            satfeat_features *f1 = features_of(NULL, k1, NULL, n1, 0, &im1);
            satfeat_features *f2 = features_of(NULL, k2, NULL, n2, 0, im2);
            if (satfeat_eval_repeatability(g_ctx, f1, f2, h, &rep)) die("repeatability");
            for (int v = 0; v < g_nvar; v++) {
                const variant *var = &g_var[v];
                if (!wanted(vlist, var->name)) continue;
                const int dim = var->d.dim;
                float *d1 = xmalloc(n1 * dim * sizeof *d1), *d2 = xmalloc(n2 * dim * sizeof *d2);
                compute(&im1, k1, n1, var, d1, w);
                compute(im2, k2, n2, var, d2, w);
                satfeat_matching_eval e;
                features_of(f1, k1, d1, n1, dim, &im1);
                features_of(f2, k2, d2, n2, dim, im2);
                if (satfeat_eval_matching(g_ctx, f1, f2, h, &e))
                    die(satfeat_ctx_last_error(g_ctx));
                printf("%s,%s,%s,1-%d,%.4f,%.4f,%zu,%zu,%zu,%zu,%.4f,%zu\n",
                       dedup ? "dedup" : "base", var->name, q->name, q->frames[f],
                       e.matching_score, e.precision, e.correct, e.matches, e.n1, e.n2,
                       rep.repeatability, n1);
                fflush(stdout);
                free(d1);
                free(d2);
            }
            satfeat_features_delete(f1);
            satfeat_features_delete(f2);
            free(k2);
        }
        free(k1);
    }
}

int main(int argc, char **argv)
{
    const char *vlist = NULL, *sets = NULL;
    seq seqs[32];
    int ns = 0;
    for (int a = 1; a < argc; a++) {
        if (!strcmp(argv[a], "--variants") && a + 1 < argc) vlist = argv[++a];
        else if (!strcmp(argv[a], "--sets") && a + 1 < argc) sets = argv[++a];
        else if (!strcmp(argv[a], "--threads") && a + 1 < argc) g_threads = atoi(argv[++a]);
        else if (!strcmp(argv[a], "--dup-dist") && a + 1 < argc) g_dup_dist = atof(argv[++a]);
        else if (!strcmp(argv[a], "--dup-size") && a + 1 < argc) g_dup_size = atof(argv[++a]);
        else if (!strcmp(argv[a], "--dup-anysign")) g_dup_lap = 0;
        else if (!strcmp(argv[a], "--dup-any")) g_dup_any = 1; /* any stronger, kept or not */
        else if (!strcmp(argv[a], "--list")) {
            build_variants();
            for (int v = 0; v < g_nvar; v++) printf("%s\n", g_var[v].name);
            return 0;
        } else if (!strcmp(argv[a], "--seq") && a + 6 < argc && ns < 32) {
            seq *q = &seqs[ns++];
            q->name = argv[a + 1];
            q->dir = argv[a + 2];
            q->ifmt = argv[a + 3];
            q->hfmt = argv[a + 4];
            q->target = (size_t)atol(argv[a + 5]);
            q->nf = 0;
            for (char *t = strtok(argv[a + 6], ","); t && q->nf < 64; t = strtok(NULL, ","))
                q->frames[q->nf++] = atoi(t);
            a += 6;
        } else
            die("bad arguments (see the file comment)");
    }
    build_variants();
    if (satfeat_ctx_new(&g_ctx, SATFEAT_BACKEND_CPU, 0)) die("ctx");
    satfeat_ctx_set_threads(g_ctx, g_threads);
    satfeat_describe_weights w;
    satfeat_describe_weights_init(&w);
    for (int s = 0; s < ns; s++) run_seq(&seqs[s], vlist, sets, &w);
    satfeat_ctx_delete(g_ctx);
    return 0;
}
