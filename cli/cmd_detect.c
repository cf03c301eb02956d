/* cmd_detect.c - `satfeat detect FRAME... | DIR | LIST.txt`: Fast-Hessian keypoints of one image
 * or a sequence, in text, CSV, JSON or the Oxford region format, to stdout, a file, or one file
 * per frame. */
#define _POSIX_C_SOURCE 200809L /* mkdir */
#include "commands.h"
#include "detect_frames.h"
#include "frame_source.h"
#include "out_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct detect_cli {
    cli_format format;
    const char *output;  /* -o FILE */
    const char *out_dir; /* --out-dir DIR */
    int keep_going, quiet, verbose;
    int use_pool;                     /* --devices given */
    int devices[CLI_MAX_DEVICES];     /* --devices LIST */
    int n_devices;                    /* 0 with --devices all */
    cli_video_range range;            /* --start --frames --step of a video */
} detect_cli;

static void detect_help(FILE *out)
{
    fprintf(out,
            "usage: satfeat detect FRAME... | DIR | LIST.txt | VIDEO [--start N] [--frames N]\n"
            "                      [--step K] [--format text|csv|json|oxford]\n"
            "                      [-o FILE | --out-dir DIR] [--descriptors] [--keep-going]\n"
            "                      [-q] [-v] [options] [--help]\n"
            "\n"
            "Loads each frame (PNG, JPEG, PGM or PPM; JPEG upright by its EXIF orientation) as\n"
            "8-bit gray and writes its keypoints, strongest first. The frames are the arguments\n"
            "in order; a single directory gives its .png/.jpg/.jpeg/.pgm/.ppm/.pnm files (any\n"
            "case; other files skipped) in natural name order (frame2 before frame10); a single\n"
            ".txt file lists one frame path a line (relative to the list file; blank lines and\n"
            "'#' lines skipped). Frames run through the library's sequence entry point (on CUDA\n"
            "three frames in flight); a frame that cannot be read or differs in size from the\n"
            "first is reported by number and name and stops the command (exit status 1), or with\n"
            "--keep-going is skipped and the exit status is 1 at the end.\n"
            "\n" CLI_LIST_FILE_HELP "\n" CLI_OUTPUT_HELP
            "\n"
            "Formats (x, y in pixels with pixel centres at integers; size = filter side L;\n"
            "sigma = 1.2 L / 9; angle in radians; laplacian -1 bright blob, +1 dark blob):\n"
            "  text    per frame '# frame K WxH N keypoints: PATH', a '#' column line, then\n"
            "          x y size response sigma laplacian octave layer [d0 ...], rounded for\n"
            "          reading (default)\n"
            "  csv     a header row, then frame,image,x,y,size,response,sigma,angle,laplacian,\n"
            "          octave,layer[,d0,...] per keypoint\n"
            "  json    one object per frame and line: frame, image, width, height, parameters,\n"
            "          count, keypoints {x: [...], y: [...], ...}, [descriptor_dim, descriptors]\n"
            "  oxford  the region format of the Oxford/VLFeat repeatability tools: '1.0' (or the\n"
            "          descriptor length), the count, then 'x y a b c [d0 ...]' per keypoint with\n"
            "          a (x-u)^2 + 2b (x-u)(y-v) + c (y-v)^2 = 1 the circle of radius size/2\n"
            "          (3.75 sigma), the region 'satfeat eval' measures; one frame per file\n"
            "csv, json and oxford print 17 significant digits (descriptors 9): they parse back\n"
            "to the library's numbers exactly.\n"
            "\n"
            "detect options:\n"
            "  --format F          text, csv, json or oxford (default text)\n"
            "  -o, --output FILE   write every frame there (through a temporary file renamed at\n"
            "                      the end; an existing FILE is kept when the command fails)\n"
            "  --out-dir DIR       one file per frame, DIR/NAME.EXT (NAME: the frame's file name\n"
            "                      without its extension; EXT: txt, csv, json or oxford)\n"
            "  --descriptors       write the descriptors after the keypoint fields\n"
            "  --keep-going        skip bad frames instead of stopping\n"
            "  --devices all|N,M,...  spread the frames over these CUDA devices (one detector\n"
            "                      each, frames handed out as devices free up, output in list\n"
            "                      order; the same keypoints as one device)\n"
            "  -q, --quiet         no progress line and no summary on stderr (errors only)\n"
            "  -v, --verbose       a line per frame on stderr (frame, name, keypoints)\n"
            "A progress line (frames done of total, frames/s, ETA) is drawn on stderr when it\n"
            "is a terminal, never into a file or pipe.\n"
            "\n");
    cli_video_help(out);
    fprintf(out, "  (a video takes neither --out-dir, --devices nor --repeat)\n\n");
    cli_detect_options_help(out);
    fprintf(out, "\nexample:\n"
                 "  satfeat detect data/scene.png --format csv -o scene.csv\n"
                 "  satfeat detect data/dune --out-dir keypoints --format oxford --descriptors\n"
                 "  satfeat detect clip.mkv --start 100 --frames 50 --step 2 --format json\n"
                 "\nExit status: 0 ok, 1 the work failed or a frame was bad, 2 bad command line.\n");
}

/* The detect flags (cli_extra_option_fn). */
static int detect_option(int argc, char **argv, int *i, void *user)
{
    detect_cli *d = user;
    const char *v = NULL;
    int r;
    if ((r = cli_video_option(argc, argv, i, &d->range)) != 0) return r;
    static const struct {
        const char *name;
        size_t offset;
    } flags[] = {{"--keep-going", offsetof(detect_cli, keep_going)},
                 {"-q", offsetof(detect_cli, quiet)},       {"--quiet", offsetof(detect_cli, quiet)},
                 {"-v", offsetof(detect_cli, verbose)},     {"--verbose", offsetof(detect_cli, verbose)}};
    for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
        if (!strcmp(argv[*i], flags[k].name)) {
            *(int *)((char *)d + flags[k].offset) = 1;
            return 1;
        }
    if ((r = cli_option_value(argc, argv, i, "--format", &v)) != 0)
        return r < 0 || !cli_parse_format(v, &d->format) ? -1 : 1;
    if ((r = cli_option_value(argc, argv, i, "-o", &v)) != 0 ||
        (r = cli_option_value(argc, argv, i, "--output", &v)) != 0) {
        if (r > 0) d->output = v;
        return r;
    }
    if ((r = cli_option_value(argc, argv, i, "--out-dir", &v)) != 0) {
        if (r > 0) d->out_dir = v;
        return r;
    }
    if ((r = cli_option_value(argc, argv, i, "--devices", &v)) != 0) {
        if (r < 0) return r;
        d->use_pool = 1;
        return cli_parse_devices(v, d->devices, CLI_MAX_DEVICES, &d->n_devices) ? 1 : -1;
    }
    return 0;
}

/* Where the frames go: one output for all, or one file per frame under out_dir. */
typedef struct detect_sink {
    const detect_cli *cli;
    const satfeat_detector_params *params;
    cli_out out; /* the shared output (not with out_dir) */
} detect_sink;

/* DIR/NAME.EXT of frame `path` (malloc'd; NULL when out of memory). */
static char *frame_file(const char *dir, const char *path, cli_format fmt)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    const size_t stem = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    const size_t len = strlen(dir) + stem + 16;
    char *s = malloc(len);
    if (s) snprintf(s, len, "%s/%.*s.%s", dir, (int)stem, base, cli_format_extension(fmt));
    return s;
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Usage check of --out-dir: no two frames may write the same file. Returns an exit code or -1. */
static int check_frame_files(const detect_cli *d, const cli_frame_list *frames)
{
    char **names = calloc(frames->n, sizeof *names);
    int rc = names ? -1 : CLI_EXIT_FAILURE;
    for (size_t k = 0; rc < 0 && k < frames->n; k++)
        if (!(names[k] = frame_file(d->out_dir, frames->paths[k], d->format))) rc = CLI_EXIT_FAILURE;
    if (rc < 0) {
        qsort(names, frames->n, sizeof *names, compare_strings);
        for (size_t k = 1; rc < 0 && k < frames->n; k++)
            if (!strcmp(names[k - 1], names[k])) {
                fprintf(stderr, "satfeat: two frames would both write %s (--out-dir names a file "
                                "after its frame's name)\n", names[k]);
                rc = CLI_EXIT_USAGE;
            }
    } else {
        fprintf(stderr, "satfeat: out of memory\n");
    }
    for (size_t k = 0; names && k < frames->n; k++) free(names[k]);
    free(names);
    return rc;
}

/* cli_frame_sink: writes one frame. */
static int write_frame(void *user, const cli_frame_keypoints *fr)
{
    detect_sink *s = user;
    if (!s->cli->out_dir) {
        cli_format_frame(s->out.f, s->cli->format, fr, s->params);
        if (ferror(s->out.f)) {
            if (s->out.path) fprintf(stderr, "satfeat: cannot write %s\n", s->out.path);
            return 0;
        }
        return 1;
    }
    char *path = frame_file(s->cli->out_dir, fr->path, s->cli->format);
    cli_out one;
    int ok = path && cli_out_open(&one, path);
    if (!path) fprintf(stderr, "satfeat: out of memory\n");
    if (ok) {
        cli_format_begin(one.f, s->cli->format, fr->dim);
        cli_format_frame(one.f, s->cli->format, fr, s->params);
        ok = cli_out_close(&one, 1);
    }
    free(path);
    return ok;
}

/* Checks the combination of options; returns an exit code or -1 to go on. */
static int check_usage(const cli_detect_options *o, const detect_cli *d, size_t nframes, int video)
{
    const char *why = NULL;
    if (o->descriptors && o->params.descriptor == SATFEAT_DESCRIPTOR_NONE)
        why = "--descriptors needs a descriptor (not --descriptor none)";
    else if (d->output && d->out_dir) why = "-o and --out-dir exclude each other";
    else if (d->format == CLI_FORMAT_OXFORD && nframes > 1 && !d->out_dir)
        why = "--format oxford holds one frame per file: use --out-dir DIR for a sequence";
    else if (o->repeat > 0 && nframes > 1) why = "--repeat times one image, not a sequence";
    else if (d->quiet && d->verbose) why = "-q and -v exclude each other";
    else if (video && (d->out_dir || d->use_pool || o->repeat > 0))
        why = "a video takes neither --out-dir, --devices nor --repeat";
    if (!why) return -1;
    fprintf(stderr, "satfeat: %s\n", why);
    return CLI_EXIT_USAGE;
}

/* --repeat: times o->repeat detections of `path` after a warm-up; the median goes to stderr. */
static int time_detection(const cli_detect_options *o, const char *path)
{
    cli_detection d;
    int rc = cli_detect_file(o, path, o->descriptors, &d);
    if (rc != CLI_EXIT_OK) return rc;
    fprintf(stderr, "satfeat: %zu keypoints in %dx%d, median %.3f ms of %d detections\n", d.n,
            d.width, d.height, d.median_ms, o->repeat);
    cli_detection_free(&d);
    return CLI_EXIT_OK;
}

int cli_cmd_detect(int argc, char **argv)
{
    cli_detect_options o;
    cli_detect_options_init(&o);
    detect_cli d;
    memset(&d, 0, sizeof d);
    cli_video_range_init(&d.range);
    const char **args = malloc((size_t)argc * sizeof *args);
    if (!args) {
        fprintf(stderr, "satfeat: out of memory\n");
        return CLI_EXIT_FAILURE;
    }
    int nargs = 0;
    int rc = cli_detect_parse(argc, argv, &o, args, argc, &nargs, "too many frames", detect_help,
                              detect_option, &d);
    if (rc < 0 && nargs == 0) {
        fprintf(stderr, "satfeat: no image given (see 'satfeat detect --help')\n");
        rc = CLI_EXIT_USAGE;
    }
    cli_frame_source source;
    memset(&source, 0, sizeof source);
    if (rc < 0 && (rc = cli_frame_source_build(&source, args, nargs, &d.range, o.threads)) == 0)
        rc = -1;
    free(args);
    const cli_frame_list frames = source.list; /* images; empty for a video */
    const int video = cli_frame_source_is_video(&source);
    /* oxford's one frame per file: a video counts as a sequence */
    if (rc < 0) rc = check_usage(&o, &d, video ? 2 : frames.n, video);
    if (rc < 0 && d.out_dir) {
        if (!cli_out_dir_ready(d.out_dir, "--out-dir", 1)) rc = CLI_EXIT_FAILURE;
        else rc = check_frame_files(&d, &frames);
    }
    if (rc < 0 && d.output && !cli_out_check(d.output)) rc = CLI_EXIT_FAILURE;
    if (rc >= 0) {
        cli_frame_source_free(&source);
        return rc;
    }
    if (!o.descriptors) o.params.descriptor = SATFEAT_DESCRIPTOR_NONE; /* keypoints only */

    detect_sink sink = {&d, &o.params, {NULL, NULL, NULL, NULL, -1}};
    cli_progress progress;
    const size_t nframes = cli_frame_source_count(&source);
    cli_progress_start(&progress, nframes, !d.quiet);
    const cli_frames_run run = {&o,         o.descriptors, d.keep_going, d.verbose,
                                &progress,  write_frame,   &sink,        d.use_pool,
                                d.n_devices ? d.devices : NULL,          d.n_devices};
    size_t bad = 0;
    int ok = d.out_dir || cli_out_open(&sink.out, d.output);
    if (ok && !d.out_dir)
        cli_format_begin(sink.out.f, d.format, o.descriptors ? (int)o.params.descriptor : 0);
    if (ok)
        ok = (d.use_pool ? cli_detect_frames_pool(&run, &frames, &bad)
                         : cli_detect_frames(&run, &source, &bad)) == CLI_EXIT_OK;
    if (!d.out_dir) ok = cli_out_close(&sink.out, ok) && ok;
    if (bad > 0 && !d.quiet)
        fprintf(stderr, "satfeat: %zu of %zu frames could not be detected%s\n", bad, nframes,
                d.keep_going ? " (skipped)" : "");
    if (ok && o.repeat > 0) ok = time_detection(&o, frames.paths[0]) == CLI_EXIT_OK;
    cli_frame_source_free(&source);
    return ok && bad == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}
