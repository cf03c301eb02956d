/* ar_options.c - the command line of `satfeat ar` (ar_cli.h): its own flags, the target list and
 * the camera, and the help text. */
#include "ar_cli.h"
#include "detect_options.h"
#include "frame_list.h"
#include "frame_loop.h"
#include "out_file.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void cli_ar_help(FILE *out)
{
    fprintf(out,
            "usage: satfeat ar --target REF --target-width METRES [--target REF2\n"
            "                  --target-width W2 ...] (--camera FX,FY,CX,CY | --fov DEGREES)\n"
            "                  [--distortion K1,K2] FRAME... | DIR | LIST.txt | VIDEO\n"
            "                  [-o FILE] [--draw DIR] [--keep-going] [-q] [options] [--help]\n"
            "\n"
            "Finds known planar pictures (targets) in every frame and the camera's pose\n"
            "relative to each. A target is a reference image (PNG, JPEG, PGM or PPM) and its\n"
            "printed width in metres; each --target-width belongs to the --target before it.\n"
            "The frames are the arguments in order; a single directory gives its image files\n"
            "in natural name order; a single .txt file lists one frame path a line.\n"
            "Prints after '#' comment lines one line per frame and target:\n"
            "  frame target state tx ty tz rx ry rz inliers reproj_px\n"
            "(frame counted from 1 in the list's order, or a video's own frame number from 1;\n"
            "target the 0-based index of its --target; state found (detected in this frame),\n"
            "tracked (followed from the previous frame) or lost; the pose as cv2.solvePnP\n"
            "gives it: X_cam = R X_world + t, t in metres, r = (rx, ry, rz) the Rodrigues\n"
            "vector of R in radians, camera x right, y down, z forward; world: the target's\n"
            "plane z = 0, reference pixel (u, v) (0-based pixel centres) at (u s, v s, 0),\n"
            "s = target width / reference width in pixels; inliers the correspondences that\n"
            "fit the pose, reproj_px their rms reprojection error. A lost target has nan in\n"
            "every pose field and reproj_px and 0 inliers: a pose is only reported when it is\n"
            "trusted.)\n"
            "\n"
            CLI_BAD_FRAME_HELP "\n" CLI_LIST_FILE_HELP "\n" CLI_OUTPUT_HELP
            "\n"
            "ar options:\n"
            "  --target REF        a target's reference image (up to %d targets)\n"
            "  --target-width M    its printed width in metres (> 0)\n"
            "  --camera FX,FY,CX,CY  pinhole intrinsics in pixels, pixel centres at integer\n"
            "                      coordinates (FX, FY > 0)\n"
            "  --fov DEGREES       instead of --camera: the horizontal field of view, in (0, 180);\n"
            "                      fx = fy = (width / 2) / tan(fov / 2), the principal point at\n"
            "                      the frame's centre ((width - 1) / 2, (height - 1) / 2)\n"
            "  --distortion K1,K2  radial distortion: a normalised point (x, y) is seen at\n"
            "                      (x, y)(1 + K1 r^2 + K2 r^4) (default 0,0); it must not fold\n"
            "                      over inside the frame\n"
            "  --photometric 0|1   refine each pose by aligning the frame's pixels to the\n"
            "                      target, and let them settle a pose the features leave\n"
            "                      open (default %d)\n"
            "  -o, --output FILE   write there (through a temporary file renamed at the end; an\n"
            "                      existing FILE is kept when the command fails)\n"
            "  --draw DIR          write DIR/frameNNNN.png per frame: each found or tracked\n"
            "                      target's outline (yellow) and the axes of its pose at its\n"
            "                      centre, half its width long (x red, y green, z blue)\n"
            "  --keep-going        skip bad frames instead of stopping\n"
            "  -q, --quiet         no progress line and no summary on stderr (errors only)\n"
            "\n",
            CLI_AR_MAX_TARGETS, satfeat_ar_params_default().photometric);
    cli_video_help(out);
    fprintf(out,
            "\n"
            "The detector options below apply to the frames and, for the descriptor and\n"
            "--upright, to the targets; the defaults differ from 'satfeat detect' in --grid 8\n"
            "--per-cell 32 --max-keypoints 1200 --threshold 0.0002.\n"
            "\n");
    cli_detect_options_help(out);
    fprintf(out, "\nexample:\n  satfeat ar --target poster.png --target-width 0.42 "
                 "--camera 554.3,554.3,319.5,239.5 frames/ -o poses.txt --draw drawn\n"
                 "  satfeat ar --target cover.jpg --target-width 0.2 --fov 60 clip.mp4\n"
                 "\nExit status: 0 ok, 1 the work failed or a frame was bad, 2 bad command line.\n");
}

/* Parses n comma-separated finite numbers within [lo, hi] into out. */
static int parse_list(const char *text, int n, double lo, double hi, const char *what,
                      double *out)
{
    char buf[256];
    if (strlen(text) >= sizeof buf) {
        fprintf(stderr, "satfeat: %s is too long\n", what);
        return 0;
    }
    strcpy(buf, text);
    char *p = buf;
    for (int k = 0; k < n; k++) {
        char *comma = strchr(p, ',');
        if ((comma != NULL) != (k + 1 < n)) {
            fprintf(stderr, "satfeat: %s takes %d comma-separated numbers, got '%s'\n", what, n,
                    text);
            return 0;
        }
        if (comma) *comma = '\0';
        if (!cli_parse_double(p, lo, hi, what, &out[k])) return 0;
        p = comma ? comma + 1 : p;
    }
    return 1;
}

int cli_ar_option(int argc, char **argv, int *i, void *user)
{
    cli_ar_options *a = user;
    const char *v = NULL;
    int r;
    if ((r = cli_video_option(argc, argv, i, &a->range)) != 0) return r;
    if (!strcmp(argv[*i], "--keep-going")) return a->keep_going = 1;
    if (!strcmp(argv[*i], "-q") || !strcmp(argv[*i], "--quiet")) return a->quiet = 1;
    if ((r = cli_output_draw_option(argc, argv, i, &a->output, &a->draw)) != 0) return r;
    if ((r = cli_option_value(argc, argv, i, "--target", &v)) != 0) {
        if (r < 0) return -1;
        if (a->n_targets == CLI_AR_MAX_TARGETS) {
            fprintf(stderr, "satfeat: at most %d targets\n", CLI_AR_MAX_TARGETS);
            return -1;
        }
        a->targets[a->n_targets] = v;
        a->widths[a->n_targets++] = NAN;
        return 1;
    }
    if ((r = cli_option_value(argc, argv, i, "--target-width", &v)) != 0) {
        if (r < 0) return -1;
        if (a->n_targets == 0 || !isnan(a->widths[a->n_targets - 1])) {
            fprintf(stderr, "satfeat: each --target-width follows its own --target\n");
            return -1;
        }
        double w;
        if (!cli_parse_double(v, 0, 1e6, "--target-width", &w)) return -1;
        if (!(w > 0)) {
            fprintf(stderr, "satfeat: --target-width must be above 0\n");
            return -1;
        }
        a->widths[a->n_targets - 1] = w;
        return 1;
    }
    if ((r = cli_option_value(argc, argv, i, "--camera", &v)) != 0) {
        double c[4];
        if (r < 0 || !parse_list(v, 4, -1e9, 1e9, "--camera", c)) return -1;
        if (!(c[0] > 0 && c[1] > 0)) {
            fprintf(stderr, "satfeat: --camera FX and FY must be above 0\n");
            return -1;
        }
        a->camera.fx = c[0], a->camera.fy = c[1], a->camera.cx = c[2], a->camera.cy = c[3];
        a->has_camera = 1;
        return 1;
    }
    if ((r = cli_option_value(argc, argv, i, "--distortion", &v)) != 0) {
        double k[2];
        if (r < 0 || !parse_list(v, 2, -1e3, 1e3, "--distortion", k)) return -1;
        a->camera.k1 = k[0], a->camera.k2 = k[1];
        return 1;
    }
    if ((r = cli_option_value(argc, argv, i, "--fov", &v)) != 0) {
        if (r < 0 || !cli_parse_double(v, 0, 180, "--fov", &a->fov)) return -1;
        if (!(a->fov > 0 && a->fov < 180)) {
            fprintf(stderr, "satfeat: --fov must be in (0, 180) degrees\n");
            return -1;
        }
        return 1;
    }
    if ((r = cli_option_value(argc, argv, i, "--photometric", &v)) != 0)
        return r < 0 || !cli_parse_int(v, 0, 1, "--photometric", &a->photometric) ? -1 : 1;
    return 0;
}

int cli_ar_check(const cli_ar_options *a)
{
    if (a->n_targets == 0) {
        fprintf(stderr, "satfeat: no --target given (see 'satfeat ar --help')\n");
        return 0;
    }
    for (int k = 0; k < a->n_targets; k++)
        if (isnan(a->widths[k])) {
            fprintf(stderr, "satfeat: --target %s has no --target-width\n", a->targets[k]);
            return 0;
        }
    if (a->has_camera == (a->fov > 0)) {
        fprintf(stderr, "satfeat: give the camera as either --camera FX,FY,CX,CY or --fov "
                        "DEGREES\n");
        return 0;
    }
    return 1;
}
