/* cmd_draw.c - `satfeat draw IMAGE -o OUT.png` (keypoints on the image) and `satfeat draw IMG1
 * IMG2 --matches [-H H] -o OUT.png` (the two images side by side with match lines). */
#include "commands.h"
#include "detect_options.h"
#include "homography_check.h"
#include "draw_keypoints.h"
#include "out_file.h"

#include <stdlib.h>
#include <string.h>

typedef struct draw_options {
    const char *output;     /* -o OUT.png */
    const char *homography; /* -H FILE */
    int matches, max, quiet;
} draw_options;

static void draw_help(FILE *out)
{
    fprintf(out,
            "usage: satfeat draw IMAGE -o OUT.png [--max N] [options] [--help]\n"
            "       satfeat draw IMG1 IMG2 --matches [-H HOMOGRAPHY] -o OUT.png [--max N]\n"
            "                    [options]\n"
            "\n"
            "Draws keypoints into a PNG (8-bit RGB, written by the library's PNG writer): the\n"
            "image in gray with each keypoint as the circle of radius size/2 (the region of\n"
            "'satfeat eval' and of --format oxford), its orientation as a radius (unless\n"
            "--upright 1), orange for bright blobs (laplacian -1) and cyan for dark ones (+1).\n"
            "With --matches: IMG1 and IMG2 side by side, each match of 'satfeat match' as a line\n"
            "between its keypoints; with -H the matches whose IMG1 point the homography maps\n"
            "within 3 px of the IMG2 point (correct, as 'satfeat eval' counts them) are green and\n"
            "the others red; without -H every match is yellow. A summary goes to stderr.\n"
            "\n" CLI_HOMOGRAPHY_HELP "\n"
            "OUT.png follows the output rules of 'satfeat detect --help' (a missing directory is\n"
            "refused before any work).\n"
            "\n"
            "draw options:\n"
            "  -o, --output FILE   the PNG to write (required)\n"
            "  --max N             only the N strongest keypoints, or the N closest matches\n"
            "                      (default 0 = all)\n"
            "  --matches           two images: draw their matches\n"
            "  -H, --homography F  colour the matches by the homography in F (IMG1 -> IMG2)\n"
            "  -q, --quiet         no summary on stderr\n"
            "\n");
    cli_detect_options_help(out);
    fprintf(out, "\nexample:\n"
                 "  satfeat draw data/scene.png -o scene-keypoints.png --max 200\n"
                 "  satfeat draw data/dune/frame001.png data/dune/frame005.png --matches \\\n"
                 "      -H data/dune/H1to005p -o dune-matches.png\n"
                 "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

/* The draw flags (cli_extra_option_fn). */
static int draw_option(int argc, char **argv, int *i, void *user)
{
    draw_options *d = user;
    const char *v = NULL;
    int r;
    if (!strcmp(argv[*i], "--matches") || !strcmp(argv[*i], "-q") || !strcmp(argv[*i], "--quiet")) {
        *(argv[*i][1] == 'q' || argv[*i][2] == 'q' ? &d->quiet : &d->matches) = 1;
        return 1;
    }
    if ((r = cli_option_value(argc, argv, i, "-o", &v)) != 0 ||
        (r = cli_option_value(argc, argv, i, "--output", &v)) != 0) {
        if (r > 0) d->output = v;
        return r;
    }
    if ((r = cli_option_value(argc, argv, i, "-H", &v)) != 0 ||
        (r = cli_option_value(argc, argv, i, "--homography", &v)) != 0) {
        if (r > 0) d->homography = v;
        return r;
    }
    if ((r = cli_option_value(argc, argv, i, "--max", &v)) != 0)
        return r < 0 || !cli_parse_int(v, 0, 1 << 30, "--max", &d->max) ? -1 : 1;
    return 0;
}

/* Ascending match distance for qsort. */
static int by_distance(const void *a, const void *b)
{
    const float x = ((const satfeat_match_pair *)a)->distance;
    const float y = ((const satfeat_match_pair *)b)->distance;
    return (x > y) - (x < y);
}

/* Writes the canvas as an RGB PNG; returns an exit code. */
static int write_canvas(satfeat_ctx *ctx, const cli_canvas *c, const char *path)
{
    const int guard = cli_out_guard_begin(path); /* its temporary file goes on a signal */
    satfeat_status st = satfeat_image_write_png(ctx, path, c->rgb, (size_t)c->width * 3, c->width,
                                                c->height, 3);
    cli_out_guard_end(guard);
    if (st != SATFEAT_OK) {
        cli_report("cannot write the picture", st, ctx);
        return CLI_EXIT_FAILURE;
    }
    return CLI_EXIT_OK;
}

/* Loads IMAGE again as gray (the detection kept only keypoints) and pastes it at (x0, 0). */
static int paste_image(satfeat_ctx *ctx, const cli_canvas *c, const char *path, int x0)
{
    uint8_t *gray = NULL;
    int w = 0, h = 0;
    satfeat_status st = satfeat_image_load_gray8(ctx, path, &gray, &w, &h);
    if (st != SATFEAT_OK) {
        cli_report("cannot load image", st, ctx);
        return 0;
    }
    cli_canvas_paste_gray(c, x0, 0, gray, w, h);
    satfeat_free(gray);
    return 1;
}

/* Draws the keypoints of one image; returns an exit code. */
static int draw_one(satfeat_ctx *ctx, const cli_detect_options *o, const draw_options *d,
                    const char *image)
{
    cli_detection det;
    int rc = cli_detect_file(o, image, 0, &det);
    if (rc != CLI_EXIT_OK) return rc;
    const size_t n = d->max > 0 && (size_t)d->max < det.n ? (size_t)d->max : det.n;
    cli_canvas c = {malloc((size_t)det.width * (size_t)det.height * 3), det.width, det.height};
    if (!c.rgb) {
        fprintf(stderr, "satfeat: out of memory\n");
        rc = CLI_EXIT_FAILURE;
    } else if (!paste_image(ctx, &c, image, 0)) {
        rc = CLI_EXIT_FAILURE;
    } else {
        cli_draw_keypoints(&c, 0, 0, det.kp, n, !o->params.upright);
        rc = write_canvas(ctx, &c, d->output);
        if (rc == CLI_EXIT_OK && !d->quiet)
            fprintf(stderr, "satfeat: %zu of %zu keypoints of %s drawn into %s (%dx%d)\n", n,
                    det.n, image, d->output, c.width, c.height);
    }
    free(c.rgb);
    cli_detection_free(&det);
    return rc;
}

/* Matches two detections and draws them side by side; returns an exit code. */
static int draw_pair(satfeat_ctx *ctx, const cli_detection *d1, const cli_detection *d2,
                     const char *const files[2], const draw_options *d, const double *h)
{
    const int width = d1->width + d2->width;
    const int height = d1->height > d2->height ? d1->height : d2->height;
    cli_canvas c = {calloc((size_t)width * (size_t)height, 3), width, height};
    satfeat_features *f1 = NULL, *f2 = NULL;
    satfeat_matches *list = NULL;
    satfeat_match_pair *m = NULL;
    int rc = CLI_EXIT_FAILURE;
    satfeat_status st;
    if (!c.rgb) {
        fprintf(stderr, "satfeat: out of memory\n");
    } else if (!cli_detection_set(ctx, d1, &f1) || !cli_detection_set(ctx, d2, &f2)) {
        /* reported */
    } else if ((st = satfeat_match(ctx, f1, f2, NULL, &list)) != SATFEAT_OK) {
        cli_report("matching failed", st, ctx);
    } else if (!(m = malloc((satfeat_matches_count(list) + 1) * sizeof *m))) {
        fprintf(stderr, "satfeat: out of memory\n");
    } else if (paste_image(ctx, &c, files[0], 0) && paste_image(ctx, &c, files[1], d1->width)) {
        size_t n = satfeat_matches_count(list);
        if (n) memcpy(m, satfeat_matches_data(list), n * sizeof *m); /* drawn nearest first */
        qsort(m, n, sizeof *m, by_distance);
        if (d->max > 0 && (size_t)d->max < n) n = (size_t)d->max;
        const size_t inliers = cli_draw_matches(&c, d1->width, d1->kp, d2->kp, m, n, h);
        rc = write_canvas(ctx, &c, d->output);
        if (rc == CLI_EXIT_OK && !d->quiet) {
            fprintf(stderr, "satfeat: %zu matches drawn into %s (%dx%d)", n, d->output, width,
                    height);
            if (h) fprintf(stderr, ", %zu correct under H (green) and %zu not (red)", inliers,
                           n - inliers);
            fputc('\n', stderr);
        }
    }
    free(m);
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    free(c.rgb);
    return rc;
}

int cli_cmd_draw(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    draw_options d;
    memset(&d, 0, sizeof d);
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    int rc = cli_detect_parse(argc, argv, &o, files, 2, &nfiles, "draw takes one or two images",
                              draw_help, draw_option, &d);
    if (rc >= 0) return rc;
    const char *why = NULL;
    if (!d.output) why = "draw needs -o OUT.png";
    else if (nfiles == 0) why = "no image given";
    else if (d.matches && nfiles != 2) why = "--matches needs IMG1 IMG2";
    else if (!d.matches && nfiles == 2) why = "two images need --matches";
    else if (d.homography && !d.matches) why = "-H colours matches: it needs --matches";
    else if (d.matches && o.params.descriptor == SATFEAT_DESCRIPTOR_NONE)
        why = "--matches needs descriptors (not --descriptor none)";
    else if (o.repeat > 0 || o.descriptors) why = "draw takes neither --repeat nor --descriptors";
    if (why) {
        fprintf(stderr, "satfeat: %s (see 'satfeat draw --help')\n", why);
        return CLI_EXIT_USAGE;
    }
    if (!cli_out_check(d.output)) return CLI_EXIT_FAILURE; /* before any work */
    satfeat_ctx *ctx = NULL;
    if (!cli_context_new(&o, &ctx)) return CLI_EXIT_FAILURE;
    double h[9];
    if (d.homography && !cli_homography_load(ctx, d.homography, files[0], h)) {
        rc = CLI_EXIT_FAILURE;
    } else if (!d.matches) {
        rc = draw_one(ctx, &o, &d, files[0]);
    } else {
        cli_detection d1, d2;
        memset(&d2, 0, sizeof d2);
        rc = cli_detect_file(&o, files[0], 1, &d1);
        if (rc == CLI_EXIT_OK) rc = cli_detect_file(&o, files[1], 1, &d2);
        if (rc == CLI_EXIT_OK) rc = draw_pair(ctx, &d1, &d2, files, &d, d.homography ? h : NULL);
        cli_detection_free(&d1);
        cli_detection_free(&d2);
    }
    satfeat_ctx_delete(ctx);
    return rc;
}
