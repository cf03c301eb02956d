/* detect_options.c - see detect_options.h. */
#include "detect_options.h"
#include "commands.h"

#include <stdlib.h>
#include <string.h>

void cli_detect_options_init(cli_detect_options *o)
{
    o->backend = SATFEAT_BACKEND_AUTO;
    o->threads = 0;
    o->repeat = 0;
    o->descriptors = 0;
    o->memory_limit = 0;
    o->params = satfeat_detector_params_default();
}

/* The index of `v` among the n words, or -1 after "satfeat: OPT must be A, B or C" on stderr. */
static int word_index(const char *v, const char *opt, const char *const *words, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(v, words[k])) return k;
    fprintf(stderr, "satfeat: %s must be ", opt);
    for (int k = 0; k < n; k++)
        fprintf(stderr, "%s%s", words[k], k + 2 < n ? ", " : (k + 1 < n ? " or " : "\n"));
    return -1;
}

int cli_detect_option(int argc, char **argv, int *i, cli_detect_options *o)
{
    satfeat_detector_params *p = &o->params;
    const struct {
        const char *name;
        int *target, lo, hi;
    } ints[] = {{"--repeat", &o->repeat, 0, 100000},
                {"--octaves", &p->octaves, 1, 6},         {"--layers", &p->layers, 3, 6},
                {"--init-step", &p->init_step, 1, 2},     {"--max-keypoints", &p->max_keypoints, 0, 1 << 30},
                {"--grid", &p->grid, 0, 4096},            {"--per-cell", &p->per_cell, 0, 1 << 30},
                {"--unique-scales", &p->unique_scales, 0, 1}, {"--upright", &p->upright, 0, 1},
                {"--suppress-duplicates", &p->suppress_duplicates, 0, 1},
                {"--orientation-refine", &p->orientation_refine, 0, 1},
                {"--descriptor-haar", &p->descriptor_haar, 2, 4},
                {"--orientation-haar", &p->orientation_haar, 2, 4}};
    const char *v = NULL;
    int m;
    if (!strcmp(argv[*i], "--descriptors")) {
        o->descriptors = 1;
        return 1;
    }
    if ((m = cli_option_value(argc, argv, i, "--threads", &v)) != 0)
        return m < 0 || !cli_parse_threads(v, &o->threads) ? -1 : 1;
    if ((m = cli_option_value(argc, argv, i, "--memory-limit", &v)) != 0)
        return m < 0 || !cli_parse_memory_limit(v, &o->memory_limit) ? -1 : 1;
    for (size_t k = 0; k < sizeof ints / sizeof ints[0]; k++) {
        if ((m = cli_option_value(argc, argv, i, ints[k].name, &v)) == 0) continue;
        if (m < 0 || !cli_parse_int(v, ints[k].lo, ints[k].hi, ints[k].name, ints[k].target))
            return -1;
        return 1;
    }
    if ((m = cli_option_value(argc, argv, i, "--threshold", &v)) != 0)
        return m < 0 || !cli_parse_double(v, 0, 1e6, "--threshold", &p->threshold) ? -1 : 1;
    if ((m = cli_option_value(argc, argv, i, "--max-offset", &v)) != 0)
        return m < 0 || !cli_parse_fraction(v, "--max-offset", &p->max_offset) ? -1 : 1;
    if ((m = cli_option_value(argc, argv, i, "--descriptor", &v)) != 0) {
        static const char *const words[] = {"surf64", "surf128", "none"};
        static const satfeat_descriptor_kind kinds[] = {
            SATFEAT_DESCRIPTOR_SURF64, SATFEAT_DESCRIPTOR_SURF128, SATFEAT_DESCRIPTOR_NONE};
        const int k = m < 0 ? -1 : word_index(v, "--descriptor", words, 3);
        if (k >= 0) p->descriptor = kinds[k];
        return k < 0 ? -1 : 1;
    }
    if ((m = cli_option_value(argc, argv, i, "--descriptor-norm", &v)) != 0) {
        static const char *const words[] = {"root", "l2"};
        const int k = m < 0 ? -1 : word_index(v, "--descriptor-norm", words, 2);
        if (k >= 0)
            p->descriptor_norm = k ? SATFEAT_DESCRIPTOR_NORM_L2 : SATFEAT_DESCRIPTOR_NORM_ROOT;
        return k < 0 ? -1 : 1;
    }
    if ((m = cli_option_value(argc, argv, i, "--orientation-filter", &v)) != 0) {
        static const char *const words[] = {"scharr", "haar"};
        const int k = m < 0 ? -1 : word_index(v, "--orientation-filter", words, 2);
        if (k >= 0)
            p->orientation_filter = k ? SATFEAT_ORIENTATION_HAAR : SATFEAT_ORIENTATION_SCHARR;
        return k < 0 ? -1 : 1;
    }
    if ((m = cli_option_value(argc, argv, i, "--backend", &v)) != 0)
        return m < 0 || !cli_parse_backend(v, &o->backend) ? -1 : 1;
    return 0;
}

void cli_detect_options_help(FILE *out)
{
    const satfeat_detector_params p = satfeat_detector_params_default();
    cli_detect_options_help_defaults(out, &p);
}

/* The name --descriptor takes for `d`. */
static const char *descriptor_name(satfeat_descriptor_kind d)
{
    return d == SATFEAT_DESCRIPTOR_SURF128 ? "surf128" : d == SATFEAT_DESCRIPTOR_NONE ? "none"
                                                                                      : "surf64";
}

void cli_detect_options_help_defaults(FILE *out, const satfeat_detector_params *d)
{
    fprintf(out,
            "detector options:\n"
            "  --backend B         auto, cpu or cuda\n"
            "  --threads N         CPU threads, 0 = the OpenMP default (default 0); at most 4\n"
            "                      per online core\n"
            CLI_MEMORY_LIMIT_HELP);
    fprintf(out, "  --threshold T       minimum normalised response (default %g)\n", d->threshold);
    fprintf(out, "  --octaves N         1..6 (default %d)\n", d->octaves);
    fprintf(out, "  --layers N          layers per octave, 3..6 (default %d)\n", d->layers);
    fprintf(out, "  --init-step S       sampling step of the first octave, 1 or 2 (default %d)\n",
            d->init_step);
    fprintf(out, "  --max-keypoints N   keep the N strongest, 0 = all (default %d)\n",
            d->max_keypoints);
    if (d->grid > 0)
        fprintf(out, "  --grid G            cap keypoints per cell of a G x G grid, 0 = off\n"
                     "                      (default %d)\n", d->grid);
    else
        fprintf(out, "  --grid G            cap keypoints per cell of a G x G grid (default 0 = off)\n");
    if (d->per_cell > 0)
        fprintf(out, "  --per-cell K        at most K keypoints per grid cell (default %d)\n",
                d->per_cell);
    else
        fprintf(out, "  --per-cell K        at most K keypoints per grid cell (needed with --grid)\n");
    fprintf(out,
            "  --max-offset M      largest offset of the quadratic fit, in (0, 1] (default %g)\n"
            "  --unique-scales 0|1 1: one octave per scale; 0: keep both, as OpenCV (default %d)\n"
            "  --upright 0|1       1: no orientation (angle 0, upright descriptors) (default %d)\n"
            "  --suppress-duplicates 0|1  1: drop a keypoint near a stronger one of similar size\n"
            "                      (the same blob from two octaves) (default %d)\n"
            "  --descriptor D      surf64, surf128 or none (default %s)\n"
            "  --descriptor-norm N root (signed square root of the L1-normalised values) or l2\n"
            "                      (SURF's unit vector) (default %s)\n"
            "  --orientation-refine 0|1  1: the best window's angle refined by the responses\n"
            "                      within 30 degrees of it (default %d)\n"
            "  --descriptor-haar N side of the descriptor's Haar filters in units of the\n"
            "                      keypoint scale, 2..4; 3 is SURF's (default %d)\n"
            "  --orientation-filter F  the orientation's derivative: scharr (Scharr's weights on\n"
            "                      box sums) or haar (SURF's Haar pairs) (default %s)\n"
            "  --orientation-haar N the side of the orientation's Haar filters, with\n"
            "                      --orientation-filter haar (default %d)\n"
            "  --repeat N          time N detections after a warm-up; median on stderr\n",
            d->max_offset, d->unique_scales, d->upright, d->suppress_duplicates,
            descriptor_name(d->descriptor),
            d->descriptor_norm == SATFEAT_DESCRIPTOR_NORM_L2 ? "l2" : "root",
            d->orientation_refine, d->descriptor_haar,
            d->orientation_filter == SATFEAT_ORIENTATION_HAAR ? "haar" : "scharr",
            d->orientation_haar);
}

void cli_detection_free(cli_detection *d)
{
    satfeat_features_delete(d->features);
    d->features = NULL;
    d->kp = NULL;
    d->desc = NULL;
    d->n = 0;
}

int cli_same_features(const satfeat_features *a, const satfeat_features *b)
{
    const size_t n = satfeat_features_count(a);
    const size_t dim = (size_t)satfeat_features_descriptor_kind(a);
    if (n != satfeat_features_count(b) || dim != (size_t)satfeat_features_descriptor_kind(b))
        return 0;
    if (n == 0) return 1;
    return memcmp(satfeat_features_keypoints(a), satfeat_features_keypoints(b),
                  n * sizeof(satfeat_keypoint)) == 0 &&
           (!dim || memcmp(satfeat_features_descriptors(a), satfeat_features_descriptors(b),
                           n * dim * sizeof(float)) == 0);
}

int cli_context_new(const cli_detect_options *o, satfeat_ctx **ctx)
{
    satfeat_status st = satfeat_ctx_new(ctx, o->backend, -1);
    if (st != SATFEAT_OK) {
        *ctx = NULL;
        if (o->backend == SATFEAT_BACKEND_CUDA)
            fprintf(stderr, "satfeat: cannot create a CUDA context: %s (use --backend cpu)\n",
                    satfeat_status_string(st));
        else
            fprintf(stderr, "satfeat: cannot create a context: %s\n", satfeat_status_string(st));
        return 0;
    }
    if ((st = satfeat_ctx_set_threads(*ctx, o->threads)) != SATFEAT_OK) {
        cli_report("cannot set threads", st, *ctx);
        satfeat_ctx_delete(*ctx);
        *ctx = NULL;
        return 0;
    }
    if (!cli_apply_memory_limit(*ctx, o->memory_limit)) {
        satfeat_ctx_delete(*ctx);
        *ctx = NULL;
        return 0;
    }
    return 1;
}

int cli_detect_file(const cli_detect_options *o, const char *path, int want_descriptors,
                    cli_detection *out)
{
    memset(out, 0, sizeof *out);
    satfeat_ctx *ctx = NULL;
    satfeat_detector *det = NULL;
    uint8_t *pixels = NULL;
    double *times = NULL;
    int rc = CLI_EXIT_FAILURE;
    satfeat_status st;
    if (!cli_context_new(o, &ctx)) return CLI_EXIT_FAILURE;
    if ((st = satfeat_image_load_gray8(ctx, path, &pixels, &out->width, &out->height)) != SATFEAT_OK) {
        cli_report("cannot load image", st, ctx);
        goto done;
    }
    /* descriptors only when asked for: the keypoints are the same either way */
    satfeat_detector_params params = o->params;
    if (!want_descriptors) params.descriptor = SATFEAT_DESCRIPTOR_NONE;
    if ((st = satfeat_detector_new(ctx, &params, out->width, out->height, &det)) != SATFEAT_OK) {
        cli_report("cannot create the detector", st, ctx);
        goto done;
    }
    out->dim = satfeat_detector_descriptor_dim(det);
    times = malloc(((size_t)o->repeat + 1) * sizeof *times);
    if (!times) {
        fprintf(stderr, "satfeat: out of memory\n");
        goto done;
    }
    const satfeat_image_view view =
        satfeat_image_view_host(pixels, out->width, out->height, (size_t)out->width);
    for (int r = 0; r <= o->repeat; r++) {
        const double t0 = cli_now_ms();
        st = satfeat_detect(det, &view, &out->features);
        times[r] = cli_now_ms() - t0;
        if (st != SATFEAT_OK) {
            cli_report("detection failed", st, ctx);
            goto done;
        }
    }
    out->kp = satfeat_features_keypoints(out->features);
    out->desc = satfeat_features_descriptors(out->features);
    out->n = satfeat_features_count(out->features);
    if (o->repeat > 0) {
        out->median_ms = cli_median(times + 1, o->repeat);
    }
    rc = CLI_EXIT_OK;
done:
    if (rc != CLI_EXIT_OK) cli_detection_free(out);
    free(times);
    satfeat_free(pixels);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
    return rc;
}

int cli_bench_parse(int argc, char **argv, cli_detect_options *o, const char **image,
                    void (*help)(FILE *), cli_extra_option_fn extra, void *user)
{
    int nfiles = 0;
    *image = NULL;
    const int rc = cli_detect_parse(argc, argv, o, image, 1, &nfiles, "more than one image given",
                                    help, extra, user);
    if (rc >= 0) return rc;
    if (!*image) {
        help(stderr);
        return CLI_EXIT_USAGE;
    }
    if (o->descriptors && o->params.descriptor == SATFEAT_DESCRIPTOR_NONE) {
        fprintf(stderr, "satfeat: --descriptors needs a descriptor (not --descriptor none)\n");
        return CLI_EXIT_USAGE;
    }
    return -1;
}

int cli_detect_parse(int argc, char **argv, cli_detect_options *o, const char **files,
                     int max_files, int *nfiles, const char *too_many, void (*help)(FILE *),
                     cli_extra_option_fn extra, void *user)
{
    *nfiles = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return CLI_EXIT_OK;
        }
        int m = cli_detect_option(argc, argv, &i, o);
        if (m == 0 && extra) m = extra(argc, argv, &i, user);
        if (m < 0) return CLI_EXIT_USAGE;
        if (m > 0) continue;
        if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_unknown_option("", argv[i], help);
            return CLI_EXIT_USAGE;
        }
        if (*nfiles == max_files) {
            fprintf(stderr, "satfeat: %s\n", too_many);
            return CLI_EXIT_USAGE;
        }
        files[(*nfiles)++] = argv[i];
    }
    if (o->params.grid > 0 && o->params.per_cell < 1) {
        fprintf(stderr, "satfeat: --grid %d needs --per-cell K (K >= 1 keypoints per cell)\n",
                o->params.grid);
        return CLI_EXIT_USAGE;
    }
    return -1;
}
