/* cmd_track.c - `satfeat track FRAME... | DIR | LIST.txt`: feature tracks over a frame sequence,
 * one line per live track per frame, optionally the frames' motions and drawn PNG frames. */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include "commands.h"
#include "detect_frames.h"
#include "frame_list.h"
#include "detect_options.h"
#include "drawn_frame.h"
#include "frame_loop.h"
#include "frame_source.h"
#include "out_file.h"
#include "track_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct track_options {
    satfeat_tracker_params tp; /* detector part taken from the detector flags after parsing */
    const char *output;        /* -o FILE, NULL = stdout */
    const char *draw;          /* --draw DIR, NULL = no drawing */
    int motion;                /* --motion */
    int keep_going;            /* --keep-going */
    int quiet, verbose;        /* -q, -v */
    cli_video_range range;     /* --start --frames --step of a video */
} track_options;

static void track_help(FILE *out)
{
    fprintf(out,
            "usage: satfeat track FRAME... | DIR | LIST.txt | VIDEO [--start N] [--frames N]\n"
            "                     [--step K] [-o FILE] [--motion] [--draw DIR]\n"
            "                     [--keep-going] [-q] [-v] [options] [--help]\n"
            "\n"
            "Tracks features over a frame sequence. The frames are the arguments in order; a\n"
            "single directory gives its .png/.jpg/.jpeg/.pgm/.ppm/.pnm files (any case; other\n"
            "files skipped) in natural name order (frame2 before frame10); a single .txt file\n"
            "lists one frame path a line (relative paths are relative to the list file; blank\n"
            "lines and lines starting with '#' are skipped).\n"
            "Prints after a '#' header one line per live track per frame:\n"
            "  frame id x y size angle age missed inlier\n"
            "(frame counted from 1 in the list's order, or a video's own frame number from 1;\n"
            "id stable over the track's life; x y in\n"
            "pixels; angle in radians; age in frames since birth; missed: consecutive frames\n"
            "unseen, the position then predicted by the motion; inlier 1 when matched and\n"
            "consistent with the frame's motion).\n"
            "\n"
            CLI_BAD_FRAME_HELP "\n" CLI_LIST_FILE_HELP "\n" CLI_OUTPUT_HELP
            "\n"
            "track options:\n"
            "  -o, --output FILE   write there (through a temporary file renamed at the end; an\n"
            "                      existing FILE is kept when the command fails)\n"
            "  --motion            after each frame's tracks, a line\n"
            "                      # motion frame K valid V ref_valid R matches M inliers I\n"
            "                        h_ref h0..h8 h_prev h0..h8\n"
            "                      (h_ref: first frame -> frame K; h_prev: previous -> frame K;\n"
            "                      row-major; V 1 when h_prev was estimated, R 1 when h_ref was\n"
            "                      estimated directly rather than chained)\n"
            "  --draw DIR          write DIR/frameNNNN.png per frame: each track's last %d\n"
            "                      positions as a line and its position as a circle, green for\n"
            "                      inliers, red for the others (outliers, missed, newborn)\n"
            "  --keep-going        skip bad frames instead of stopping\n"
            "  -q, --quiet         no progress line and no summary on stderr (errors only)\n"
            "  -v, --verbose       a line per frame on stderr (tracks, matches, inliers)\n"
            "A progress line (frames done of total, frames/s, ETA) is drawn on stderr when it\n"
            "is a terminal, never into a file or pipe.\n"
            "  --radius R          search radius around the predicted position, px, 0 = the whole\n"
            "                      frame (default 30)\n"
            "  --max-missed N      frames a track may go unseen (default 30)\n"
            "  --max-tracks N      cap on live tracks (default 2000)\n"
            "  --model M           homography, affine or similarity (default homography)\n"
            "  --motion-threshold T inlier threshold of the motion, px (default 2)\n"
            "  --ratio R           Lowe's ratio test, in (0, 1]; 1 = off (default 0.8)\n"
            "  --min-birth-distance D  spacing of new tracks, px (default 4)\n"
            "  --guided-radius G   radius of the second, motion-guided matching pass, px, 0 = no\n"
            "                      second pass (default 6)\n"
            "  --birth-confirm C   a keypoint starts a track only when the previous frame had one\n"
            "                      within C px of it under the frame's motion, 0 = off\n"
            "                      (default 2)\n"
            "  --max-birth-size S  keypoints larger than S px start no track, 0 = no cap\n"
            "                      (default 0)\n"
            "  --continue-threshold T  keypoints with a response down to T (below --threshold)\n"
            "                      may continue an unseen track under the frame's motion, never\n"
            "                      start one; 0 = off (default 0)\n"
            "  --keep-outliers     matches off the frame's motion continue their tracks (flagged\n"
            "                      inlier 0) instead of counting a missed frame\n"
            "\n",
            CLI_TAIL_LEN);
    cli_video_help(out);
    fprintf(out,
            "\n"
            "The detector options below apply, with the tracker's defaults (they differ from\n"
            "'satfeat detect' in --threshold, --max-keypoints, --grid and --per-cell).\n"
            "\n");
    const satfeat_tracker_params defaults = satfeat_tracker_params_default();
    cli_detect_options_help_defaults(out, &defaults.detector);
    fprintf(out, "\nexample:\n  satfeat track data/dune --motion -o tracks.txt --draw tracks\n"
                 "  satfeat track clip.mp4 --start 250 --frames 100 -o tracks.txt\n"
                 "\nExit status: 0 ok, 1 the work failed or a frame was bad, 2 bad command line.\n");
}

/* The track flags (cli_extra_option_fn). */
static int track_option(int argc, char **argv, int *i, void *user)
{
    track_options *t = user;
    const char *v = NULL;
    int r;
    if ((r = cli_video_option(argc, argv, i, &t->range)) != 0) return r;
    if (!strcmp(argv[*i], "--motion")) {
        t->motion = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "--keep-going")) {
        t->keep_going = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "-q") || !strcmp(argv[*i], "--quiet")) {
        t->quiet = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "-v") || !strcmp(argv[*i], "--verbose")) {
        t->verbose = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "--keep-outliers")) {
        t->tp.reject_outliers = 0;
        return 1;
    }
    if ((r = cli_output_draw_option(argc, argv, i, &t->output, &t->draw)) != 0) return r;
    if ((r = cli_option_value(argc, argv, i, "--radius", &v)) != 0)
        return r < 0 || !cli_parse_double(v, 0, 1e9, "--radius", &t->tp.match.radius) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "--guided-radius", &v)) != 0)
        return r < 0 || !cli_parse_double(v, 0, 1e9, "--guided-radius", &t->tp.guided_radius)
                   ? -1
                   : 1;
    if ((r = cli_option_value(argc, argv, i, "--max-birth-size", &v)) != 0)
        return r < 0 || !cli_parse_double(v, 0, 1e9, "--max-birth-size",
                                          &t->tp.max_birth_size)
                   ? -1
                   : 1;
    if ((r = cli_option_value(argc, argv, i, "--continue-threshold", &v)) != 0)
        return r < 0 || !cli_parse_double(v, 0, 1e9, "--continue-threshold",
                                          &t->tp.continue_threshold)
                   ? -1
                   : 1;
    if ((r = cli_option_value(argc, argv, i, "--birth-confirm", &v)) != 0)
        return r < 0 || !cli_parse_double(v, 0, 1e9, "--birth-confirm",
                                          &t->tp.birth_confirm_radius)
                   ? -1
                   : 1;
    if ((r = cli_option_value(argc, argv, i, "--max-missed", &v)) != 0)
        return r < 0 || !cli_parse_int(v, 0, 1 << 30, "--max-missed", &t->tp.max_missed) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "--max-tracks", &v)) != 0)
        return r < 0 || !cli_parse_int(v, 1, 1 << 24, "--max-tracks", &t->tp.max_tracks) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "--min-birth-distance", &v)) != 0)
        return r < 0 || !cli_parse_double(v, 0, 1e6, "--min-birth-distance",
                                          &t->tp.min_birth_distance)
                   ? -1
                   : 1;
    if ((r = cli_option_value(argc, argv, i, "--motion-threshold", &v)) != 0) {
        if (r < 0 || !cli_parse_double(v, 0, 1e6, "--motion-threshold", &t->tp.motion.threshold))
            return -1;
        if (t->tp.motion.threshold <= 0) {
            fprintf(stderr, "satfeat: --motion-threshold must be above 0\n");
            return -1;
        }
        return 1;
    }
    if ((r = cli_option_value(argc, argv, i, "--ratio", &v)) != 0)
        return r < 0 || !cli_parse_fraction(v, "--ratio", &t->tp.match.ratio) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "--model", &v)) != 0) {
        if (r < 0) return -1;
        if (!strcmp(v, "homography")) t->tp.motion.model = SATFEAT_MOTION_HOMOGRAPHY;
        else if (!strcmp(v, "affine")) t->tp.motion.model = SATFEAT_MOTION_AFFINE;
        else if (!strcmp(v, "similarity")) t->tp.motion.model = SATFEAT_MOTION_SIMILARITY;
        else {
            fprintf(stderr, "satfeat: --model must be homography, affine or similarity\n");
            return -1;
        }
        return 1;
    }
    return 0;
}

/* The state of one run: context, tracker, buffers, output. */
typedef struct track_run {
    const track_options *opt;
    const cli_detect_options *det;
    satfeat_ctx *ctx;
    satfeat_tracker *tracker;
    cli_frame_buffers buf; /* sized by the first good frame */
    cli_tails tails;
    cli_out out;    /* stdout, or -o's temporary file */
    cli_frames_run report; /* for the shared frame readers' reports: the progress line */
} track_run;

/* Creates the context; the tracker and buffers come with the first good frame. */
static int run_start(track_run *r)
{
    satfeat_status st = satfeat_ctx_new(&r->ctx, r->det->backend, -1);
    if (st != SATFEAT_OK) {
        fprintf(stderr, "satfeat: cannot create a context: %s%s\n", satfeat_status_string(st),
                r->det->backend == SATFEAT_BACKEND_CUDA ? " (use --backend cpu)" : "");
        return 0;
    }
    if ((st = satfeat_ctx_set_threads(r->ctx, r->det->threads)) != SATFEAT_OK) {
        cli_report("cannot set threads", st, r->ctx);
        return 0;
    }
    if (!cli_apply_memory_limit(r->ctx, r->det->memory_limit)) return 0;
    if (r->opt->draw && !cli_out_dir_ready(r->opt->draw, "--draw", 1)) return 0;
    return 1;
}

/* Sizes the tracker and buffers for the first good frame (cli_frame_work). */
static int run_first_frame(void *user, int width, int height)
{
    track_run *r = user;
    satfeat_status st = satfeat_tracker_new(r->ctx, &r->opt->tp, width, height, &r->tracker);
    if (st != SATFEAT_OK) {
        cli_report("cannot create the tracker", st, r->ctx);
        return 0;
    }
    return cli_frame_buffers_alloc(&r->buf, width, height, r->opt->draw != NULL);
}

/* Prints one frame's tracks and motion and draws it. Returns 0 on a fatal error. */
static int run_emit(track_run *r, int k, const satfeat_frame_motion *m)
{
    size_t n = 0;
    const satfeat_track *tracks = satfeat_tracker_tracks(r->tracker, &n);
    for (size_t i = 0; i < n; i++) {
        const satfeat_track *t = &tracks[i];
        fprintf(r->out.f, "%d %llu %.3f %.3f %.3f %.4f %d %d %d\n", k, (unsigned long long)t->id,
                t->x, t->y, t->size, t->angle, t->age, t->missed, t->inlier);
    }
    if (r->opt->motion) {
        fprintf(r->out.f, "# motion frame %d valid %d ref_valid %d matches %zu inliers %zu h_ref", k,
                m->valid, m->ref_valid, m->matches, m->inliers);
        for (int j = 0; j < 9; j++) fprintf(r->out.f, " %.10g", m->h_ref[j]);
        fprintf(r->out.f, " h_prev");
        for (int j = 0; j < 9; j++) fprintf(r->out.f, " %.10g", m->h_prev[j]);
        fputc('\n', r->out.f);
    }
    if (ferror(r->out.f)) {
        fprintf(stderr, "satfeat: cannot write the output\n");
        return 0;
    }
    if (!r->opt->draw) return 1;
    if (!cli_tails_update(&r->tails, tracks, n)) {
        fprintf(stderr, "satfeat: out of memory\n");
        return 0;
    }
    const cli_frame_buffers *b = &r->buf;
    cli_draw_tracks(b->rgb, b->gray, b->width, b->height, tracks, n, &r->tails);
    return cli_write_drawn_frame(r->ctx, r->opt->draw, k, b->rgb, b->width, b->height);
}

/* Tracks frame k (named `path`) and prints and draws its tracks (cli_frame_work): 1, or 0 on a
 * fatal error. */
static int run_frame(void *user, int k, const char *path)
{
    track_run *r = user;
    satfeat_frame_motion m;
    const satfeat_image_view v =
        satfeat_image_view_host(r->buf.gray, r->buf.width, r->buf.height, 0);
    satfeat_status st = satfeat_tracker_track(r->tracker, &v, &m);
    if (st != SATFEAT_OK) {
        cli_report("tracking failed", st, r->ctx);
        return 0;
    }
    if (r->opt->verbose) {
        size_t n = 0;
        satfeat_tracker_tracks(r->tracker, &n);
        if (r->report.progress) cli_progress_clear(r->report.progress);
        fprintf(stderr, "satfeat: frame %d (%s): %zu tracks, %zu matches, %zu inliers, %zu born, "
                "%zu ended%s\n", k, path, n, m.matches, m.inliers, m.born, m.ended,
                m.frame > 0 && !m.valid ? ", no motion" : "");
    }
    return run_emit(r, k, &m);
}

static void run_free(track_run *r)
{
    satfeat_tracker_delete(r->tracker);
    satfeat_ctx_delete(r->ctx);
    cli_frame_buffers_free(&r->buf);
    cli_tails_free(&r->tails);
}

int cli_cmd_track(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    track_options t;
    memset(&t, 0, sizeof t);
    cli_video_range_init(&t.range);
    t.tp = satfeat_tracker_params_default();
    o.params = t.tp.detector; /* the detector flags edit the tracker's detector defaults */
    const char **args = malloc((size_t)argc * sizeof *args);
    if (!args) {
        fprintf(stderr, "satfeat: out of memory\n");
        return CLI_EXIT_FAILURE;
    }
    int nargs = 0;
    int rc = cli_detect_parse(argc, argv, &o, args, argc, &nargs, "too many frames", track_help,
                              track_option, &t);
    if (rc < 0 && nargs == 0) {
        fprintf(stderr, "satfeat: no frames given (see 'satfeat track --help')\n");
        rc = CLI_EXIT_USAGE;
    }
    if (rc < 0 && (o.repeat > 0 || o.descriptors)) {
        fprintf(stderr, "satfeat: track takes neither --repeat nor --descriptors\n");
        rc = CLI_EXIT_USAGE;
    }
    if (rc < 0 && o.params.descriptor == SATFEAT_DESCRIPTOR_NONE) {
        fprintf(stderr, "satfeat: track needs descriptors (not --descriptor none)\n");
        rc = CLI_EXIT_USAGE;
    }
    cli_frame_source source;
    memset(&source, 0, sizeof source);
    if (rc < 0 && (rc = cli_frame_source_build(&source, args, nargs, &t.range, o.threads)) == 0)
        rc = -1;
    free(args);
    if (rc >= 0) {
        cli_frame_source_free(&source);
        return rc;
    }
    const size_t nframes = cli_frame_source_count(&source); /* a video's may be 0: unknown */
    t.tp.detector = o.params;

    track_run r;
    memset(&r, 0, sizeof r);
    r.opt = &t;
    r.det = &o;
    cli_progress progress;
    cli_progress_start(&progress, nframes, !t.quiet);
    r.report.progress = &progress;
    int ok = run_start(&r) && cli_out_open(&r.out, t.output);
    size_t bad = 0;
    if (ok) {
        fprintf(r.out.f, "# satfeat track: %zu frames\n# frame id x y size angle age missed inlier\n",
                nframes);
        const cli_frame_loop loop = {&source, &r.report, r.ctx, &r.buf,
                                     {run_first_frame, run_frame, &r}, t.keep_going};
        ok = cli_frame_loop_run(&loop, &bad);
    }
    cli_frame_loop_summary(&progress, bad, nframes, "tracked", t.keep_going, t.quiet);
    ok = cli_out_close(&r.out, ok) && ok;
    run_free(&r);
    cli_frame_source_free(&source);
    return ok && bad == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
