/* cmd_match.c - `satfeat match IMG1 IMG2 [-H FILE]`: keypoints and descriptors of two images,
 * their matches (nearest neighbours, ratio test, mutual check, same Laplacian sign), and with a
 * homography the matching evaluation of `satfeat eval`. */
#include "commands.h"
#include "detect_options.h"
#include "homography_check.h"
#include "name_escape.h"

#include <stdlib.h>
#include <string.h>

typedef struct match_options {
    satfeat_match_params mp;
    const char *homography; /* -H FILE, NULL without */
} match_options;

static void match_help(FILE *out)
{
    fprintf(out, "usage: satfeat match IMG1 IMG2 [-H HOMOGRAPHY] [options] [--help]\n"
                 "\n"
                 "Detects keypoints with descriptors in IMG1 and IMG2 (same options), matches the\n"
                 "descriptors and prints one match per line after a '#' header: i j distance (i\n"
                 "indexes IMG1's keypoints, j IMG2's, both in the order 'satfeat detect' prints\n"
                 "them). With -H (nine numbers, row-major, IMG1 pixels to IMG2 pixels, as in the\n"
                 "Oxford data set) the matching evaluation of 'satfeat eval' follows on lines\n"
                 "starting with '#'.\n"
                 "\n" CLI_HOMOGRAPHY_HELP
                 "\n"
                 "match options:\n"
                 "  -H, --homography F  evaluate the matches under the homography in F\n"
                 "  --ratio R           Lowe's ratio test, in (0, 1]; 1 = off (default 0.8)\n"
                 "  --mutual 0|1        keep only mutual nearest neighbours (default 1)\n"
                 "  --same-laplacian 0|1 compare only keypoints of one Laplacian sign (default 1)\n"
                 "  --radius R          only IMG2 keypoints within R px of the IMG1 position\n"
                 "                      (default 0 = anywhere)\n"
                 "\n");
    cli_detect_options_help(out);
    fprintf(out, "\nexample:\n"
                 "  satfeat match data/dune/frame001.png data/dune/frame005.png -H data/dune/H1to005p\n"
                 "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

/* The match flags (cli_extra_option_fn). */
static int match_option(int argc, char **argv, int *i, void *user)
{
    match_options *m = user;
    const char *v = NULL;
    int r;
    if ((r = cli_option_value(argc, argv, i, "-H", &v)) != 0 ||
        (r = cli_option_value(argc, argv, i, "--homography", &v)) != 0) {
        if (r > 0) m->homography = v;
        return r;
    }
    if ((r = cli_option_value(argc, argv, i, "--ratio", &v)) != 0)
        return r < 0 || !cli_parse_fraction(v, "--ratio", &m->mp.ratio) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "--radius", &v)) != 0)
        return r < 0 || !cli_parse_double(v, 0, 1e9, "--radius", &m->mp.radius) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "--mutual", &v)) != 0)
        return r < 0 || !cli_parse_int(v, 0, 1, "--mutual", &m->mp.mutual) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "--same-laplacian", &v)) != 0)
        return r < 0 || !cli_parse_int(v, 0, 1, "--same-laplacian", &m->mp.same_laplacian) ? -1
                                                                                            : 1;
    return 0;
}

int cli_cmd_match(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    match_options m = {satfeat_match_params_default(), NULL};
    const char *files[2] = {NULL, NULL};
    int nfiles = 0;
    int rc = cli_detect_parse(argc, argv, &o, files, 2, &nfiles,
                              "match takes IMG1 IMG2, got more files", match_help, match_option, &m);
    if (rc >= 0) return rc;
    if (nfiles != 2) {
        fprintf(stderr, "satfeat: match needs IMG1 IMG2 (see 'satfeat match --help')\n");
        return CLI_EXIT_USAGE;
    }
    if (o.params.descriptor == SATFEAT_DESCRIPTOR_NONE) {
        fprintf(stderr, "satfeat: match needs descriptors (not --descriptor none)\n");
        return CLI_EXIT_USAGE;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, o.backend, -1);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "satfeat: cannot create a context: %s\n", satfeat_status_string(st));
        return CLI_EXIT_FAILURE;
    }
    double h[9];
    if (m.homography && !cli_homography_load(ctx, m.homography, files[0], h)) {
        satfeat_ctx_delete(ctx);
        return CLI_EXIT_FAILURE;
    }
    if ((st = satfeat_ctx_set_threads(ctx, o.threads)) != SATFEAT_OK) {
        cli_report("cannot set threads", st, ctx);
        satfeat_ctx_delete(ctx);
        return CLI_EXIT_FAILURE;
    }
    if (!cli_apply_memory_limit(ctx, o.memory_limit)) {
        satfeat_ctx_delete(ctx);
        return CLI_EXIT_FAILURE;
    }
    cli_detection d1, d2;
    memset(&d2, 0, sizeof d2);
    satfeat_features *f1 = NULL, *f2 = NULL;
    satfeat_matches *list = NULL;
    rc = cli_detect_file(&o, files[0], 1, &d1);
    if (rc == CLI_EXIT_OK) rc = cli_detect_file(&o, files[1], 1, &d2);
    if (rc == CLI_EXIT_OK &&
        (!cli_detection_set(ctx, &d1, &f1) || !cli_detection_set(ctx, &d2, &f2)))
        rc = CLI_EXIT_FAILURE;
    if (rc == CLI_EXIT_OK) {
        if ((st = satfeat_match(ctx, f1, f2, &m.mp, &list)) != SATFEAT_OK) {
            cli_report("matching failed", st, ctx);
            rc = CLI_EXIT_FAILURE;
        } else {
            const size_t n = satfeat_matches_count(list);
            const satfeat_match_pair *matches = satfeat_matches_data(list);
            printf("# keypoints %zu %zu, matches %zu\n# i j distance\n", d1.n, d2.n, n);
            for (size_t k = 0; k < n; k++)
                printf("%d %d %.6f\n", matches[k].query, matches[k].train,
                       (double)matches[k].distance);
            if (m.homography) {
                fputs("# evaluation under ", stdout);
                cli_put_name_c(stdout, m.homography); /* a name never starts a line */
                putchar('\n');
                fflush(stdout);
                satfeat_matching_eval e;
                st = satfeat_eval_matching(ctx, f1, f2, h, &e);
                if (st != SATFEAT_OK) {
                    cli_report("matching evaluation failed", st, ctx);
                    rc = CLI_EXIT_FAILURE;
                } else {
                    printf("# visible %zu %zu\n# matches %zu\n# correct %zu\n# precision %.4f\n"
                           "# matching_score %.4f\n", e.n1, e.n2, e.matches, e.correct,
                           e.precision, e.matching_score);
                }
            }
        }
    }
    satfeat_matches_delete(list);
    satfeat_features_delete(f1);
    satfeat_features_delete(f2);
    cli_detection_free(&d1);
    cli_detection_free(&d2);
    satfeat_ctx_delete(ctx);
    if (rc == CLI_EXIT_OK && fflush(stdout) != 0) {
        fprintf(stderr, "satfeat: cannot write the output\n");
        rc = CLI_EXIT_FAILURE;
    }
    return rc;
}
