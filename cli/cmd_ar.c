/* cmd_ar.c - `satfeat ar --target REF --target-width M ... FRAME... | DIR | LIST.txt | VIDEO`:
 * the known targets found in every frame and the camera's pose relative to each, one line per
 * frame and target, optionally drawn frames. */
#include "ar_cli.h"
#include "ar_draw.h"
#include "detect_frames.h"
#include "detect_options.h"
#include "drawn_frame.h"
#include "frame_loop.h"
#include "name_escape.h"
#include "out_file.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The state of one run: context, targets, session, buffers, output. */
typedef struct ar_run {
    const cli_ar_options *opt;
    const cli_detect_options *det;
    satfeat_ctx *ctx;
    satfeat_ar_target *targets[CLI_AR_MAX_TARGETS];
    cli_ar_drawn_target drawn[CLI_AR_MAX_TARGETS];
    satfeat_ar_session *session;
    satfeat_ar_camera camera;
    satfeat_ar_result results[CLI_AR_MAX_TARGETS];
    cli_frame_buffers buf; /* sized by the first good frame */
    cli_out out;           /* stdout, or -o's temporary file */
    cli_frames_run report; /* for the shared frame readers' reports: the progress line */
} ar_run;

/* Builds every target from its reference image on the run's context. */
static int build_targets(ar_run *r)
{
    satfeat_ar_target_params tp = satfeat_ar_target_params_default();
    tp.detector.descriptor = r->det->params.descriptor; /* the frames' descriptors must match */
    tp.detector.upright = r->det->params.upright;
    for (int k = 0; k < r->opt->n_targets; k++) {
        uint8_t *pix = NULL;
        int w = 0, h = 0;
        satfeat_status st = satfeat_image_load_gray8(r->ctx, r->opt->targets[k], &pix, &w, &h);
        if (st == SATFEAT_OK)
            st = satfeat_ar_target_new(r->ctx, pix, (size_t)w, w, h, r->opt->widths[k], &tp,
                                       &r->targets[k]);
        satfeat_free(pix);
        if (st != SATFEAT_OK) {
            fprintf(stderr, "satfeat: target %d (", k);
            cli_put_name_c(stderr, r->opt->targets[k]);
            fprintf(stderr, "): %s: %s\n", satfeat_status_string(st),
                    satfeat_ctx_last_error(r->ctx));
            return 0;
        }
        r->drawn[k] = (cli_ar_drawn_target){w, h, r->opt->widths[k]};
    }
    return 1;
}

/* Creates the context and the targets; the session and buffers come with the first good frame. */
static int run_start(ar_run *r)
{
    if (!cli_context_new(r->det, &r->ctx)) return 0;
    if (r->opt->draw && !cli_out_dir_ready(r->opt->draw, "--draw", 1)) return 0;
    return build_targets(r);
}

/* Sizes the session (and, with --fov, the camera) for the first good frame (cli_frame_work). */
static int run_first_frame(void *user, int width, int height)
{
    ar_run *r = user;
    r->camera = r->opt->camera;
    if (!r->opt->has_camera) {
        satfeat_ar_camera c;
        satfeat_status st = satfeat_ar_camera_from_fov(width, height, r->opt->fov, &c);
        if (st != SATFEAT_OK) {
            cli_report("cannot make a camera of --fov", st, r->ctx);
            return 0;
        }
        c.k1 = r->opt->camera.k1, c.k2 = r->opt->camera.k2;
        r->camera = c;
    }
    satfeat_ar_params p = satfeat_ar_params_default();
    p.detector = r->det->params;
    p.photometric = r->opt->photometric;
    satfeat_status st = satfeat_ar_session_new(r->ctx, (const satfeat_ar_target *const *)r->targets,
                                               r->opt->n_targets, &r->camera, &p, width, height,
                                               &r->session);
    if (st != SATFEAT_OK) {
        cli_report("cannot start the AR session", st, r->ctx);
        return 0;
    }
    if (!cli_frame_buffers_alloc(&r->buf, width, height, r->opt->draw != NULL)) return 0;
    const satfeat_ar_camera *c = &r->camera;
    fprintf(r->out.f, "# camera fx %.10g fy %.10g cx %.10g cy %.10g k1 %.10g k2 %.10g\n", c->fx,
            c->fy, c->cx, c->cy, c->k1, c->k2);
    fprintf(r->out.f, "# frame target state tx ty tz rx ry rz inliers reproj_px\n");
    return 1;
}

/* A pose field: fixed-point, or nan (never "-nan") when there is no pose. */
static void put_value(FILE *f, double v, int digits)
{
    if (isfinite(v)) fprintf(f, " %.*f", digits, v);
    else fputs(" nan", f);
}

/* Prints one frame's results and draws it. Returns 0 on a fatal error. */
static int run_emit(ar_run *r, int k)
{
    static const char *const states[] = {"lost", "found", "tracked"};
    for (int t = 0; t < r->opt->n_targets; t++) {
        const satfeat_ar_result *s = &r->results[t];
        fprintf(r->out.f, "%d %d %s", k, t, states[s->state]);
        for (int j = 0; j < 3; j++) put_value(r->out.f, s->tvec[j], 6);
        for (int j = 0; j < 3; j++) put_value(r->out.f, s->rvec[j], 6);
        fprintf(r->out.f, " %d", s->inliers);
        put_value(r->out.f, s->reproj_px, 3);
        fputc('\n', r->out.f);
    }
    if (ferror(r->out.f)) {
        fprintf(stderr, "satfeat: cannot write the output\n");
        return 0;
    }
    if (!r->opt->draw) return 1;
    const cli_frame_buffers *b = &r->buf;
    const cli_canvas canvas = {b->rgb, b->width, b->height};
    cli_ar_draw(&canvas, b->gray, &r->camera, r->drawn, r->results, r->opt->n_targets);
    return cli_write_drawn_frame(r->ctx, r->opt->draw, k, b->rgb, b->width, b->height);
}

/* Runs the session on frame k and prints and draws its results (cli_frame_work): 1, or 0 on a
 * fatal error. */
static int run_frame(void *user, int k, const char *name)
{
    ar_run *r = user;
    (void)name;
    const satfeat_image_view view =
        satfeat_image_view_host(r->buf.gray, r->buf.width, r->buf.height, 0);
    const satfeat_status st = satfeat_ar_session_process(r->session, &view, r->results,
                                                         CLI_AR_MAX_TARGETS);
    if (st != SATFEAT_OK) {
        cli_report("the AR session failed", st, r->ctx);
        return 0;
    }
    return run_emit(r, k);
}

static void run_free(ar_run *r)
{
    satfeat_ar_session_delete(r->session);
    for (int k = 0; k < CLI_AR_MAX_TARGETS; k++) satfeat_ar_target_delete(r->targets[k]);
    satfeat_ctx_delete(r->ctx);
    cli_frame_buffers_free(&r->buf);
}

/* Parses the command line into o, a and the frame source; -1 to go on, else the exit code. */
static int parse(int argc, char **argv, cli_detect_options *o, cli_ar_options *a,
                 cli_frame_source *source)
{
    const char **args = malloc((size_t)argc * sizeof *args);
    if (!args) {
        fprintf(stderr, "satfeat: out of memory\n");
        return CLI_EXIT_FAILURE;
    }
    int nargs = 0;
    int rc = cli_detect_parse(argc, argv, o, args, argc, &nargs, "too many frames", cli_ar_help,
                              cli_ar_option, a);
    if (rc < 0 && !cli_ar_check(a)) rc = CLI_EXIT_USAGE;
    if (rc < 0 && nargs == 0) {
        fprintf(stderr, "satfeat: no frames given (see 'satfeat ar --help')\n");
        rc = CLI_EXIT_USAGE;
    }
    if (rc < 0 && (o->repeat > 0 || o->descriptors)) {
        fprintf(stderr, "satfeat: ar takes neither --repeat nor --descriptors\n");
        rc = CLI_EXIT_USAGE;
    }
    if (rc < 0 && o->params.descriptor == SATFEAT_DESCRIPTOR_NONE) {
        fprintf(stderr, "satfeat: ar needs descriptors (not --descriptor none)\n");
        rc = CLI_EXIT_USAGE;
    }
    if (rc < 0 && o->params.max_keypoints < 1) {
        fprintf(stderr, "satfeat: ar needs --max-keypoints of at least 1\n");
        rc = CLI_EXIT_USAGE;
    }
    if (rc < 0 && a->output && !cli_out_check(a->output)) rc = CLI_EXIT_FAILURE;
    if (rc < 0 && (rc = cli_frame_source_build(source, args, nargs, &a->range, o->threads)) == 0)
        rc = -1;
    free(args);
    return rc;
}

int cli_cmd_ar(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    o.params = satfeat_ar_params_default().detector; /* the flags edit the session's defaults */
    cli_ar_options a;
    memset(&a, 0, sizeof a);
    cli_video_range_init(&a.range);
    a.photometric = satfeat_ar_params_default().photometric;
    cli_frame_source source;
    memset(&source, 0, sizeof source);
    const int rc = parse(argc, argv, &o, &a, &source);
    if (rc >= 0) {
        cli_frame_source_free(&source);
        return rc;
    }
    const size_t nframes = cli_frame_source_count(&source); /* a video's may be 0: unknown */
    ar_run r;
    memset(&r, 0, sizeof r);
    r.opt = &a;
    r.det = &o;
    cli_progress progress;
    cli_progress_start(&progress, nframes, !a.quiet);
    r.report.progress = &progress;
    int ok = run_start(&r) && cli_out_open(&r.out, a.output);
    size_t bad = 0;
    if (ok) {
        fprintf(r.out.f, "# satfeat ar: %zu frames, %d targets\n", nframes, a.n_targets);
        for (int k = 0; k < a.n_targets; k++) {
            fprintf(r.out.f, "# target %d ", k);
            cli_put_name_c(r.out.f, a.targets[k]);
            satfeat_ar_target_info info;
            satfeat_ar_target_get_info(r.targets[k], &info);
            fprintf(r.out.f, " width_m %.10g reference %dx%d features %zu\n", info.width_m,
                    info.width, info.height, info.features);
        }
        const cli_frame_loop loop = {&source, &r.report, r.ctx, &r.buf,
                                     {run_first_frame, run_frame, &r}, a.keep_going};
        ok = cli_frame_loop_run(&loop, &bad);
    }
    cli_frame_loop_summary(&progress, bad, nframes, "processed", a.keep_going, a.quiet);
    ok = cli_out_close(&r.out, ok) && ok;
    run_free(&r);
    cli_frame_source_free(&source);
    return ok && bad == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
