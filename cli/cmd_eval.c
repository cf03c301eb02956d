/* cmd_eval.c - `satfeat eval IMG1 IMG2 H`: repeatability of the detector on an image pair
 * related by a homography (Mikolajczyk et al. 2005 protocol) and, with descriptors, the
 * matching score of its descriptors. */
#include "commands.h"
#include "detect_options.h"
#include "homography_check.h"

#include <stdlib.h>
#include <string.h>

static void eval_help(FILE *out)
{
    fprintf(out, "usage: satfeat eval IMG1 IMG2 H [options] [--help]\n"
                 "\n"
                 "Detects keypoints in IMG1 and IMG2 with the same options and prints the\n"
                 "repeatability under the homography H (a text file of nine numbers, row-major,\n"
                 "mapping IMG1 pixels to IMG2 pixels, as in the Oxford affine data set): regions\n"
                 "are circles of diameter size, overlap error < 0.4 after normalising to radius\n"
                 "30, greedy one-to-one matching, correspondences / min(n1, n2) over the\n"
                 "regions in the common part of both images. Unless --descriptor none, also the\n"
                 "descriptor matching score: mutual nearest neighbours (same Laplacian sign)\n"
                 "passing the ratio test 0.8 are kept, a kept match is correct when H maps the\n"
                 "IMG1 point within 3 px of the IMG2 point; score = correct / min(n1, n2) over the\n"
                 "keypoints whose H-image lies inside the other image.\n"
                 "\n" CLI_HOMOGRAPHY_HELP
                 "\n");
    cli_detect_options_help(out);
    fprintf(out, "\nexample:\n"
                 "  satfeat eval data/dune/frame001.png data/dune/frame005.png data/dune/H1to005p\n"
                 "\nExit status: 0 ok, 1 the work failed, 2 bad command line.\n");
}

int cli_print_matching_eval(satfeat_ctx *ctx, const satfeat_features *f1,
                            const satfeat_features *f2, const double h[9])
{
    satfeat_matching_eval m;
    satfeat_status st = satfeat_eval_matching(ctx, f1, f2, h, &m);
    if (st != SATFEAT_OK) {
        cli_report("matching evaluation failed", st, ctx);
        return CLI_EXIT_FAILURE;
    }
    printf("visible %zu %zu\nmatches %zu\ncorrect %zu\nprecision %.4f\nmatching_score %.4f\n",
           m.n1, m.n2, m.matches, m.correct, m.precision, m.matching_score);
    return CLI_EXIT_OK;
}

int cli_cmd_eval(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    const char *files[3] = {NULL, NULL, NULL};
    int nfiles = 0;
    int rc0 = cli_detect_parse(argc, argv, &o, files, 3, &nfiles,
                               "eval takes IMG1 IMG2 H, got more files", eval_help, NULL, NULL);
    if (rc0 >= 0) return rc0;
    if (nfiles != 3) {
        fprintf(stderr, "satfeat: eval needs IMG1 IMG2 H (see 'satfeat eval --help')\n");
        return CLI_EXIT_USAGE;
    }
    double h[9];
    satfeat_ctx *ctx = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "satfeat: cannot create a context: %s\n", satfeat_status_string(st));
        return CLI_EXIT_FAILURE;
    }
    if (!cli_apply_memory_limit(ctx, o.memory_limit)) {
        satfeat_ctx_delete(ctx);
        return CLI_EXIT_FAILURE;
    }
    if (!cli_homography_load(ctx, files[2], files[0], h)) {
        satfeat_ctx_delete(ctx);
        return CLI_EXIT_FAILURE;
    }
    cli_detection d1, d2;
    memset(&d2, 0, sizeof d2);
    const int desc = o.params.descriptor != SATFEAT_DESCRIPTOR_NONE;
    int rc = cli_detect_file(&o, files[0], desc, &d1);
    if (rc == CLI_EXIT_OK) {
        rc = cli_detect_file(&o, files[1], desc, &d2);
        satfeat_features *f1 = NULL, *f2 = NULL;
        if (rc == CLI_EXIT_OK &&
            (!cli_detection_set(ctx, &d1, &f1) || !cli_detection_set(ctx, &d2, &f2)))
            rc = CLI_EXIT_FAILURE;
        if (rc == CLI_EXIT_OK) {
            satfeat_repeatability r;
            st = satfeat_eval_repeatability(ctx, f1, f2, h, &r);
            if (st != SATFEAT_OK) {
                cli_report("evaluation failed", st, ctx);
                rc = CLI_EXIT_FAILURE;
            } else {
                printf("keypoints %zu %zu\ncommon %zu %zu\ncorrespondences %zu\n"
                       "repeatability %.4f\n",
                       d1.n, d2.n, r.n1, r.n2, r.correspondences, r.repeatability);
            }
            if (st == SATFEAT_OK && desc) rc = cli_print_matching_eval(ctx, f1, f2, h);
        }
        satfeat_features_delete(f1);
        satfeat_features_delete(f2);
        cli_detection_free(&d2);
        cli_detection_free(&d1);
    }
    satfeat_ctx_delete(ctx);
    if (rc == CLI_EXIT_OK && fflush(stdout) != 0) rc = CLI_EXIT_FAILURE;
    return rc;
}
