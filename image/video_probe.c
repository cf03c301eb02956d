/* video_probe.c - satfeat_video_probe: does a file look like a video container? FFmpeg's probe on
 * its first bytes, with the image formats the image reader takes (and FFmpeg's image and text
 * "demuxers") excluded, so that the CLI can tell a video from an image without a file name. */
#include "src/context_internal.h"
#include "src/file_input.h"
#include "image/video_ffmpeg.h"

#include <libavformat/avformat.h>
#include <libavutil/avstring.h>

#include <stdio.h>
#include <string.h>

#define PROBE_BYTES 4096 /* what the probe reads */

/* 1 when the first bytes are an image the image reader takes (PNG, PNM) or a JPEG. */
static int is_image(const uint8_t *b, size_t n)
{
    static const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n >= 8 && !memcmp(b, png, 8)) return 1;
    if (n >= 3 && b[0] == 0xff && b[1] == 0xd8 && b[2] == 0xff) return 1;
    return n >= 3 && b[0] == 'P' && b[1] >= '1' && b[1] <= '7' &&
           (b[2] == ' ' || b[2] == '\n' || b[2] == '\r' || b[2] == '\t');
}

int satfeat_video_container_allowed(const char *name)
{
    return name && av_match_list(name, SATFEAT_VIDEO_CONTAINERS, ',') > 0;
}

int satfeat_video_decoder_allowed(const char *name)
{
    return name && av_match_list(name, SATFEAT_VIDEO_DECODERS, ',') > 0;
}

satfeat_status satfeat_video_probe(satfeat_ctx *ctx, const char *path, int *is_video)
{
    if (is_video) *is_video = 0;
    if (!path || !is_video) return satfeat_fail(ctx, SATFEAT_ERR_ARG, "video: NULL argument");
    if (strstr(path, "://")) return SATFEAT_OK; /* never a local video */
    FILE *f = NULL;
    satfeat_status st = satfeat_file_open_input(ctx, "video", path, &f);
    if (st != SATFEAT_OK) return st;
    uint8_t buf[PROBE_BYTES + AVPROBE_PADDING_SIZE];
    const size_t n = fread(buf, 1, PROBE_BYTES, f);
    const int bad = ferror(f);
    fclose(f);
    if (bad) return satfeat_fail(ctx, SATFEAT_ERR_IO, "video: %s: cannot read", path);
    memset(buf + n, 0, AVPROBE_PADDING_SIZE);
    if (n == 0 || is_image(buf, n)) return SATFEAT_OK;
    satfeat_video_quiet_ffmpeg_log();
    AVProbeData pd = {"", buf, (int)n, NULL};
    int score = 0;
    const AVInputFormat *fmt = av_probe_input_format2(&pd, 1, &score);
    /* only the containers the reader opens: image and text "demuxers" would otherwise claim
     * pictures and text files as one-frame videos */
    *is_video = fmt && score >= AVPROBE_SCORE_MAX / 4 && satfeat_video_container_allowed(fmt->name);
    return SATFEAT_OK;
}
