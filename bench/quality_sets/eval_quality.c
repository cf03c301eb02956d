/* eval_quality.c - repeatability, matching score and precision of libsatfeat's features or of
 * another detector's (feature files from opencv_features.py) on evaluation sequences, with the
 * protocol of satfeat_eval_repeatability / satfeat_eval_matching: every image keeps its
 * TARGET strongest keypoints (libsatfeat: threshold 0 and max_keypoints TARGET after its
 * near-duplicate suppression; OpenCV: nfeatures or the same cap); libsatfeat's other images are
 * detected at the threshold that gave image 1 its keypoints (the protocol of docs/QUALITY.md;
 * --each caps every image instead), pairs 1->2 .. 1->6, mutual nearest
 * neighbours passing the ratio 0.8 (libsatfeat also requires the same Laplacian sign, as
 * satfeat_eval_matching does), correct within 3 px, score = correct / min(n1, n2).
 *
 * usage: satfeat_eval_quality [options] SETDIR...
 *   --target N        keypoints per image (default 2000)
 *   --threads T       libsatfeat's threads (default 2)
 *   --method NAME     label of the rows (default libsatfeat)
 *   --features DIR    read DIR/SET/frameK.feat instead of detecting with libsatfeat
 *   --norm root       post-process float descriptors (features.h; for other libraries' or
 *                     libsatfeat's L2 descriptors: libsatfeat's default is root already)
 *   --descriptor-norm root|l2  libsatfeat's descriptor_norm (default root)
 *   --descriptor-haar N  libsatfeat's descriptor_haar (2..4, default 4; 3 before 2026-11-29)
 *   --orientation-haar N libsatfeat's orientation_haar (2..4, default 4; 3 before 2026-11-29)
 *   --orientation-filter scharr|haar  libsatfeat's orientation_filter (default scharr; haar
 *                     before 2026-11-30)
 *   --ratio R         ratio test (default 0.8)
 *   --laplacian 0|1   the same-Laplacian gate (default 1 for libsatfeat, 0 otherwise)
 *   --check           libsatfeat only: the harness's matcher must give satfeat_eval_matching's
 *                     numbers exactly (exit 3 when not)
 *   --analyse FILE    libsatfeat only: per-pair loss analysis rows into FILE (analysis.c)
 *   --each            libsatfeat: every image its TARGET strongest (not image 1's threshold)
 *   --upright, --surf128, --no-dedup: detector variants
 *   --lever NAME=V    libsatfeat: recompute orientations / descriptors with a lever (levers.h;
 *                     repeat for several): bins=N, refine=N, multi=R, sep=RAD, clip=C
 * Prints one TSV row per pair: method set role pair n1 n2 corr rep m1 m2 matches correct
 * score precision. SETDIR: the layout of make_sets.c (frame001.png .., H1to002p .., role) or
 * the Oxford one (img1.pgm .., H1to2p ..; role "boat").
 */
#include "analysis.h"
#include "describe/describe_weights.h"
#include "features.h"
#include "levers.h"
#include "satfeat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct options {
    int target, threads, laplacian, check, upright, surf128, dedup, each, l2, haar, ohaar,
        ohaar_filter;
    double threshold; /* > 0: detect at this threshold (set from image 1 by eval_set) */
    double ratio;
    const char *method, *features, *analyse;
    satfeat_ev_norm norm;
    satfeat_ev_levers levers;
} options;

/* Image and homography paths of frame k (1-based) of a set, in either layout. */
static void frame_paths(const char *dir, int k, char *img, char *h, size_t cap, int oxford)
{
    if (oxford) {
        snprintf(img, cap, "%s/img%d.pgm", dir, k);
        snprintf(h, cap, "%s/H1to%dp", dir, k);
    } else {
        snprintf(img, cap, "%s/frame%03d.png", dir, k);
        snprintf(h, cap, "%s/H1to%03dp", dir, k);
    }
}

/* Detects libsatfeat features of one image into f; returns 0 on success. */
static int detect_lib(satfeat_ctx *ctx, const options *o, const char *path, satfeat_ev_features *f)
{
    memset(f, 0, sizeof *f);
    uint8_t *img = NULL;
    int w = 0, h = 0;
    if (satfeat_image_load_gray8(ctx, path, &img, &w, &h) != SATFEAT_OK) return 1;
    satfeat_detector_params p = satfeat_detector_params_default();
    /* image 1 (and every image with --each): the TARGET strongest; the others: image 1's
     * threshold, at most 4 x TARGET */
    p.threshold = o->threshold;
    p.max_keypoints = o->threshold > 0.0 ? 4 * o->target : o->target;
    p.upright = o->upright;
    p.suppress_duplicates = o->dedup;
    p.descriptor = o->surf128 ? SATFEAT_DESCRIPTOR_SURF128 : SATFEAT_DESCRIPTOR_SURF64;
    if (o->l2) p.descriptor_norm = SATFEAT_DESCRIPTOR_NORM_L2;
    p.descriptor_haar = o->haar;
    p.orientation_haar = o->ohaar;
    p.orientation_filter = o->ohaar_filter ? SATFEAT_ORIENTATION_HAAR : SATFEAT_ORIENTATION_SCHARR;
    satfeat_detector *det = NULL;
    int rc = 1;
    if (satfeat_detector_new(ctx, &p, w, h, &det) != SATFEAT_OK) goto done;
    f->dim = satfeat_detector_descriptor_dim(det);
    f->width = w;
    f->height = h;
    const size_t cap = (size_t)p.max_keypoints;
    f->kp = malloc(cap * sizeof *f->kp);
    f->desc = malloc(cap * f->dim * sizeof *f->desc);
    if (!f->kp || !f->desc) goto done;
    satfeat_features *set = NULL;
    const satfeat_image_view v = satfeat_image_view_host(img, w, h, 0);
    if (satfeat_detect(det, &v, &set) == SATFEAT_OK) { /* at most max_keypoints = cap */
        f->n = satfeat_features_count(set);
        if (f->n) {
            memcpy(f->kp, satfeat_features_keypoints(set), f->n * sizeof *f->kp);
            memcpy(f->desc, satfeat_features_descriptors(set), f->n * f->dim * sizeof *f->desc);
        }
        rc = 0;
    }
    satfeat_features_delete(set);
    if (rc) goto done;
    /* image 1 (no threshold yet) keeps TARGET entries, keypoint copies included */
    if (satfeat_ev_levers_apply(&o->levers, img, w, h, o->threshold <= 0.0, f)) {
        fprintf(stderr, "eval_quality: %s: levers failed\n", path);
        rc = 1;
    }
done:
    if (rc) fprintf(stderr, "eval_quality: %s: %s\n", path, satfeat_ctx_last_error(ctx));
    satfeat_detector_delete(det);
    satfeat_free(img);
    return rc;
}

/* Features of frame k of a set: detected, or read from the feature directory. */
static int load(satfeat_ctx *ctx, const options *o, const char *set, const char *name, int k,
                const char *img, satfeat_ev_features *f)
{
    if (!o->features) return detect_lib(ctx, o, img, f);
    satfeat_image_info info;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/frame%03d.feat", o->features, name, k);
    if (satfeat_image_read_info(NULL, img, &info) != SATFEAT_OK ||
        satfeat_ev_features_read(path, info.width, info.height, f)) {
        fprintf(stderr, "eval_quality: cannot read %s (set %s)\n", path, set);
        return 1;
    }
    return 0;
}

/* A library feature set holding a copy of f's keypoints and, when `descriptors` (float
 * descriptors of 64 or 128 dims only), its descriptors; NULL on failure. */
static satfeat_features *library_set(const satfeat_ev_features *f, int descriptors)
{
    satfeat_features *set = NULL;
    const satfeat_descriptor_kind kind =
        descriptors ? (satfeat_descriptor_kind)f->dim : SATFEAT_DESCRIPTOR_NONE;
    if (satfeat_features_new(&set) != SATFEAT_OK ||
        satfeat_features_assign(set, f->kp, descriptors ? f->desc : NULL, f->n, kind, f->width,
                                f->height) != SATFEAT_OK) {
        satfeat_features_delete(set);
        return NULL;
    }
    return set;
}

/* Scores pair 1->k; prints its row; returns 0 on success, 3 on a --check mismatch. */
static int score_pair(satfeat_ctx *ctx, const options *o, const char *name, const char *role, int k,
                      const satfeat_ev_features *a, const satfeat_ev_features *b, const double h[9],
                      FILE *analysis)
{
    satfeat_repeatability rep;
    satfeat_features *sa = library_set(a, 0), *sb = library_set(b, 0);
    const satfeat_status rst = sa && sb ? satfeat_eval_repeatability(ctx, sa, sb, h, &rep)
                                        : SATFEAT_ERR_ALLOC;
    satfeat_features_delete(sa);
    satfeat_features_delete(sb);
    if (rst != SATFEAT_OK) {
        fprintf(stderr, "eval_quality: %s 1->%d (%zu and %zu keypoints): %s\n", name, k, a->n,
                b->n, satfeat_ctx_last_error(ctx));
        return 1;
    }
    satfeat_ev_match *m = malloc((a->n + 1) * sizeof *m);
    if (!m) return 1;
    long nm = satfeat_ev_match_all(a, b, o->ratio, o->laplacian, m);
    satfeat_ev_score s;
    if (nm < 0 || satfeat_ev_score_matches(a, b, h, m, (size_t)nm, &s)) {
        fprintf(stderr, "eval_quality: %s 1->%d (%zu and %zu keypoints): the matches cannot be "
                "scored\n", name, k, a->n, b->n);
        free(m);
        return 1;
    }
    int rc = 0;
    if (o->check) {
        satfeat_matching_eval e;
        satfeat_features *da = library_set(a, 1), *db = library_set(b, 1);
        const satfeat_status est = da && db ? satfeat_eval_matching(ctx, da, db, h, &e)
                                            : SATFEAT_ERR_ALLOC;
        satfeat_features_delete(da);
        satfeat_features_delete(db);
        if (est != SATFEAT_OK ||
            e.correct != s.correct || e.matches != s.matches || e.n1 != s.n1 || e.n2 != s.n2) {
            fprintf(stderr, "eval_quality: %s 1->%d: harness %zu/%zu, library %zu/%zu\n", name, k,
                    s.correct, s.matches, e.correct, e.matches);
            rc = 3;
        }
    }
    if (analysis) satfeat_ev_analyse(analysis, name, role, k, a, b, h, m, (size_t)nm, o->laplacian);
    printf("%s\t%s\t%s\t1-%d\t%zu\t%zu\t%zu\t%.4f\t%zu\t%zu\t%zu\t%zu\t%.4f\t%.4f\n", o->method,
           name, role, k, a->n, b->n, rep.correspondences, rep.repeatability, s.n1, s.n2,
           s.matches, s.correct, s.matching_score, s.precision);
    free(m);
    return rc;
}

/* Evaluates one set directory; returns 0 on success. */
static int eval_set(satfeat_ctx *ctx, const options *opt, const char *dir, FILE *analysis)
{
    options oo = *opt, *o = &oo;
    char img[4096], hp[4096], role[32] = "boat";
    const char *name = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
    snprintf(img, sizeof img, "%s/img1.pgm", dir);
    FILE *t = fopen(img, "rb");
    const int oxford = t != NULL;
    if (t) fclose(t);
    snprintf(hp, sizeof hp, "%s/role", dir);
    if ((t = fopen(hp, "r"))) {
        if (fscanf(t, "%31s", role) != 1) snprintf(role, sizeof role, "unknown");
        fclose(t);
    }
    satfeat_ev_features a, b;
    frame_paths(dir, 1, img, hp, sizeof img, oxford);
    o->threshold = 0.0;
    if (load(ctx, o, dir, name, 1, img, &a)) return 1;
    /* the threshold that gives image 1 its keypoints (responses are those of the samples) */
    if (!o->features && !o->each && a.n) o->threshold = a.kp[a.n - 1].response;
    satfeat_ev_features_normalise(&a, o->norm);
    int rc = 0;
    for (int k = 2; k <= 6 && !rc; k++) {
        double h[9];
        frame_paths(dir, k, img, hp, sizeof img, oxford);
        if (satfeat_homography_read(NULL, hp, h) != SATFEAT_OK || load(ctx, o, dir, name, k, img, &b)) {
            rc = 1;
            break;
        }
        satfeat_ev_features_normalise(&b, o->norm);
        rc = score_pair(ctx, o, name, role, k, &a, &b, h, analysis);
        satfeat_ev_features_free(&b);
    }
    satfeat_ev_features_free(&a);
    return rc;
}

int main(int argc, char **argv)
{
    options o = {.target = 2000, .threads = 2, .laplacian = -1, .dedup = 1, .ratio = 0.8,
                 .method = "libsatfeat", .haar = satfeat_detector_params_default().descriptor_haar,
                 .ohaar = satfeat_detector_params_default().orientation_haar,
                 .levers = {.bins = SATFEAT_EV_LEVER_BINS, .refine = SATFEAT_EV_LEVER_REFINE}};
    int i = 1;
    for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--check")) o.check = 1;
        else if (!strcmp(a, "--upright")) o.upright = 1;
        else if (!strcmp(a, "--surf128")) o.surf128 = 1;
        else if (!strcmp(a, "--no-dedup")) o.dedup = 0;
        else if (!strcmp(a, "--each")) o.each = 1;
        else if (!v) goto usage;
        else if (!strcmp(a, "--target")) o.target = atoi(v), i++;
        else if (!strcmp(a, "--threads")) o.threads = atoi(v), i++;
        else if (!strcmp(a, "--method")) o.method = v, i++;
        else if (!strcmp(a, "--features")) o.features = v, i++;
        else if (!strcmp(a, "--analyse")) o.analyse = v, i++;
        else if (!strcmp(a, "--ratio")) o.ratio = atof(v), i++;
        else if (!strcmp(a, "--laplacian")) o.laplacian = atoi(v), i++;
        else if (!strcmp(a, "--norm") && !strcmp(v, "root")) o.norm = SATFEAT_EV_NORM_ROOT, i++;
        else if (!strcmp(a, "--lever") && !satfeat_ev_levers_parse(&o.levers, v)) i++;
        else if (!strcmp(a, "--descriptor-norm") && !strcmp(v, "l2")) o.l2 = 1, i++;
        else if (!strcmp(a, "--descriptor-norm") && !strcmp(v, "root")) o.l2 = 0, i++;
        else if (!strcmp(a, "--descriptor-haar")) o.haar = atoi(v), i++;
        else if (!strcmp(a, "--orientation-haar")) o.ohaar = atoi(v), i++;
        else if (!strcmp(a, "--orientation-filter") && !strcmp(v, "haar"))
            o.ohaar_filter = 1, i++;
        else if (!strcmp(a, "--orientation-filter") && !strcmp(v, "scharr"))
            o.ohaar_filter = 0, i++;
        else goto usage;
    }
    if (i >= argc || o.haar < 2 || o.haar > 4 || o.ohaar < 2 || o.ohaar > 4 || o.target < 1 ||
        o.threads < 1 || !(o.ratio > 0.0 && o.ratio <= 1.0) ||
        (o.check && (o.features || o.norm || o.ratio != 0.8 || o.laplacian == 0)))
        goto usage;
    o.levers.target = o.target;
    o.levers.root = !o.l2;
    o.levers.haar = o.haar;
    o.levers.ohaar_lib = o.ohaar;
    o.levers.filter_lib = o.ohaar_filter ? SATFEAT_ORI_FILTER_HAAR : SATFEAT_ORI_FILTER_SCHARR;
    if (o.laplacian < 0) o.laplacian = o.features ? 0 : 1;
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, 0) != SATFEAT_OK ||
        satfeat_ctx_set_threads(ctx, o.threads) != SATFEAT_OK) {
        fprintf(stderr, "eval_quality: cannot create a CPU context\n");
        return 1;
    }
    FILE *analysis = o.analyse ? fopen(o.analyse, "w") : NULL;
    if (o.analyse && !analysis) {
        fprintf(stderr, "eval_quality: cannot write %s\n", o.analyse);
        return 1;
    }
    if (analysis) satfeat_ev_analyse_header(analysis);
    printf("method\tset\trole\tpair\tkp1\tkp2\tcorr\trep\tm1\tm2\tmatches\tcorrect\tscore\tprecision\n");
    int rc = 0;
    for (; i < argc && !rc; i++) rc = eval_set(ctx, &o, argv[i], analysis);
    if (analysis && fclose(analysis)) rc = 1;
    satfeat_ctx_delete(ctx);
    return rc;
usage:
    fprintf(stderr, "usage: satfeat_eval_quality [--target N] [--threads T] [--method NAME] "
                    "[--features DIR] [--norm root] [--ratio R] [--laplacian 0|1] [--check] "
                    "[--analyse FILE] [--each] [--upright] [--surf128] [--no-dedup] [--lever NAME=V] "
                    "[--descriptor-norm root|l2] [--descriptor-haar N] [--orientation-haar N] "
                    "SETDIR...\n");
    return 2;
}
