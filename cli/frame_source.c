/* frame_source.c - see frame_source.h. */
#define _POSIX_C_SOURCE 200809L /* stat */
#include "frame_source.h"
#include "commands.h"
#include "detect_frames.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

void cli_video_range_init(cli_video_range *r)
{
    r->start = 0;
    r->frames = 0;
    r->step = 1;
    r->given = 0;
}

int cli_video_option(int argc, char **argv, int *i, cli_video_range *r)
{
    static const struct {
        const char *name;
        int lo;
    } opts[] = {{"--start", 0}, {"--frames", 1}, {"--step", 1}};
    for (int o = 0; o < 3; o++) {
        const char *v = NULL;
        const int got = cli_option_value(argc, argv, i, opts[o].name, &v);
        if (got == 0) continue;
        int *dst = o == 0 ? &r->start : o == 1 ? &r->frames : &r->step;
        if (got < 0 || !cli_parse_int(v, opts[o].lo, INT_MAX - 1, opts[o].name, dst)) return -1;
        r->given = 1;
        return 1;
    }
    return 0;
}

void cli_video_help(FILE *out)
{
    fprintf(out,
            "video input (when built with FFmpeg; 'satfeat --version' says so):\n"
            "  a single VIDEO argument (.mkv .mp4 .avi .mov .webm .y4m .nut, any case, or a file\n"
            "  in a container the library reads: Matroska/WebM, MP4/MOV, AVI, NUT, Y4M, MPEG-TS,\n"
            "  MPEG-PS, IVF, Ogg, FLV; other formats such as HLS playlists are refused) is read as\n"
            "  the sequence of its frames, converted to 8-bit gray (the luma); frame numbers are\n"
            "  the video's, counted from 1 (frame 1 is the file's first frame), and every frame's\n"
            "  name is the video's path. A truncated or corrupt video stops the command (exit\n"
            "  status 1). URLs and FIFOs are refused.\n"
            "  --start N           begin at the video's frame N, counted from 0 (--start 10:\n"
            "                      the first frame printed is frame 11) (default 0)\n"
            "  --frames N          process at most N frames (default: to the end)\n"
            "  --step K            every K-th frame from --start (default 1)\n");
}

/* 1 when `name` ends in `suffix`, ignoring case. */
static int has_suffix(const char *name, const char *suffix)
{
    const size_t n = strlen(name), s = strlen(suffix);
    if (n < s) return 0;
    for (size_t i = 0; i < s; i++)
        if (tolower((unsigned char)name[n - s + i]) != tolower((unsigned char)suffix[i])) return 0;
    return 1;
}

/* 1 when the single argument is to be read as a video. */
static int looks_like_video(satfeat_ctx *ctx, const char *arg)
{
    static const char *const video[] = {".mkv", ".mp4", ".avi", ".mov", ".webm", ".y4m", ".nut"};
    static const char *const other[] = {".txt", ".png", ".pgm", ".ppm", ".pnm"};
    for (size_t i = 0; i < sizeof video / sizeof video[0]; i++)
        if (has_suffix(arg, video[i])) return 1;
    for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
        if (has_suffix(arg, other[i])) return 0;
    struct stat st;
    if (stat(arg, &st) != 0 || !S_ISREG(st.st_mode)) return 0; /* the list path reports it */
    int is_video = 0;
    return satfeat_video_probe(ctx, arg, &is_video) == SATFEAT_OK && is_video;
}

/* Opens the video and seeks to --start. */
static int open_video(cli_frame_source *src, const char *path)
{
    satfeat_status st = satfeat_video_open(src->ctx, path, 0, &src->video);
    if (st == SATFEAT_OK) st = satfeat_video_get_info(src->video, &src->info);
    if (st == SATFEAT_OK && src->range.start > 0)
        st = satfeat_video_seek(src->video, src->range.start);
    if (st != SATFEAT_OK) {
        cli_report("cannot read the video", st, src->ctx);
        return CLI_EXIT_FAILURE;
    }
    src->path = path;
    return CLI_EXIT_OK;
}

int cli_frame_source_build(cli_frame_source *src, const char *const *args, int nargs,
                           const cli_video_range *range, int threads)
{
    memset(src, 0, sizeof *src);
    src->range = *range;
    if (nargs == 1) {
        satfeat_status st = satfeat_ctx_new(&src->ctx, SATFEAT_BACKEND_CPU, -1);
        if (st == SATFEAT_OK) st = satfeat_ctx_set_threads(src->ctx, threads);
        if (st != SATFEAT_OK) {
            cli_report("cannot create a context", st, src->ctx);
            return CLI_EXIT_FAILURE;
        }
        if (looks_like_video(src->ctx, args[0])) return open_video(src, args[0]);
        satfeat_ctx_delete(src->ctx);
        src->ctx = NULL;
    }
    if (range->given) {
        fprintf(stderr, "satfeat: --start, --frames and --step select frames of a video; give "
                        "one video file\n");
        return CLI_EXIT_USAGE;
    }
    return cli_frame_list_build(&src->list, args, nargs) ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int cli_frame_source_is_video(const cli_frame_source *src)
{
    return src->video != NULL;
}

size_t cli_frame_source_count(const cli_frame_source *src)
{
    if (!src->video) return src->list.n;
    const long long left = (long long)src->info.frame_count - src->range.start;
    if (src->info.frame_count <= 0 || left <= 0) return 0;
    long long n = (left + src->range.step - 1) / src->range.step;
    if (src->range.frames > 0 && n > src->range.frames) n = src->range.frames;
    return (size_t)n;
}

/* The next frame of the video: 1, -1 at the end, -2 an error (reported). */
static int next_video(cli_frame_source *src, const struct cli_frames_run *run, int *k)
{
    if (src->range.frames > 0 && src->handed >= src->range.frames) return -1;
    satfeat_status st = SATFEAT_OK;
    if (src->handed > 0 && src->range.step > 1)
        st = satfeat_video_seek(src->video, satfeat_video_tell(src->video) + src->range.step - 1);
    const int64_t number = satfeat_video_tell(src->video);
    int got = 0;
    if (st == SATFEAT_OK) st = satfeat_video_next_gray8(src->video, &src->pixels, &got);
    if (st != SATFEAT_OK) {
        char what[600];
        snprintf(what, sizeof what, "cannot decode: %s: %s", satfeat_status_string(st),
                 satfeat_ctx_last_error(src->ctx));
        cli_frame_say(run, (int)(number + 1), src->path, what);
        return -2;
    }
    if (!got) return -1;
    src->handed++;
    *k = (int)(number + 1);
    return 1;
}

int cli_frame_source_next(cli_frame_source *src, const struct cli_frames_run *run,
                          satfeat_ctx *ctx, int want_w, int want_h, int *k, const char **name,
                          int *w, int *h)
{
    if (src->video) {
        const int r = next_video(src, run, k);
        *name = src->path;
        *w = src->info.width;
        *h = src->info.height;
        return r;
    }
    if (src->next >= src->list.n) return -1;
    const size_t i = src->next++;
    *k = (int)i + 1;
    *name = src->list.paths[i];
    satfeat_image_info info;
    if (!cli_frame_info(run, ctx, *k, *name, want_w, want_h, &info)) return 0;
    *w = info.width;
    *h = info.height;
    return 1;
}

int cli_frame_source_pixels(cli_frame_source *src, const struct cli_frames_run *run,
                            satfeat_ctx *ctx, int k, const char *name, uint8_t *pixels, int w,
                            int h)
{
    if (!src->video) return cli_frame_pixels(run, ctx, k, name, pixels, w, h);
    memcpy(pixels, src->pixels, (size_t)w * (size_t)h);
    return 1;
}

void cli_frame_source_free(cli_frame_source *src)
{
    satfeat_video_delete(src->video);
    satfeat_ctx_delete(src->ctx);
    cli_frame_list_free(&src->list);
    memset(src, 0, sizeof *src);
}
