/* video_ffmpeg.c - the video frame source (satfeat_video_*) over FFmpeg: the container read
 * through a custom AVIOContext on the library's own non-blocking, regular-file-checked stream,
 * the first video stream decoded with libavcodec, frames converted to 8-bit gray by libswscale,
 * exact seeking (keyframe before, then decode and drop). */
#define _XOPEN_SOURCE 700 /* fseeko, ftello, fileno, open flags */
#include "src/context_internal.h"
#include "src/errno_text.h"
#include "src/file_input.h"
#include "image/video_ffmpeg.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/avstring.h>
#include <libavutil/imgutils.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#ifdef SATFEAT_HAVE_AVDEVICE
#include <libavdevice/avdevice.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define IO_BUFFER_BYTES 65536 /* the AVIOContext's read buffer */
#define SHORT_JUMP 48         /* a forward seek of fewer frames decodes on instead of seeking */

struct satfeat_video {
    satfeat_ctx *ctx;
    char *path;               /* for messages */
    FILE *file;               /* the opened regular file (NULL for a device) */
    AVIOContext *io;          /* over `file` */
    AVFormatContext *fmt;
    AVCodecContext *dec;
    struct SwsContext *sws;
    int sws_format, sws_full; /* what `sws` was built for */
    AVPacket *pkt;
    AVFrame *frame;
    AVFrame *converted;       /* libswscale's gray output, in a buffer FFmpeg allocated and padded */
    int stream;
    AVRational tb, rate;      /* stream time base; frame rate (0/1 when unknown) */
    int64_t start_pts;
    satfeat_video_info info;
    uint8_t *gray;            /* the library-owned frame buffer */
    int64_t next;             /* 0-based number of the frame the next read returns */
    int have_frame;           /* a seek left the wanted frame decoded in `frame` */
    int draining;             /* the container ended: the decoder is being drained */
    int at_end;               /* the decoder is drained */
    satfeat_status err;       /* the status of decode_next's last failure */
};

int satfeat_has_video_build(void)
{
    return 1;
}

/* FFmpeg's error text. */
static const char *av_text(int err, char *buf, size_t size)
{
    if (av_strerror(err, buf, size) < 0) snprintf(buf, size, "FFmpeg error %d", err);
    return buf;
}

/* Records "video: PATH: what: FFmpeg's reason" and returns `status`. */
static satfeat_status fail_av(const satfeat_video *v, satfeat_status status, const char *what,
                              int err)
{
    char ebuf[AV_ERROR_MAX_STRING_SIZE];
    return satfeat_fail(v->ctx, status, "video: %s: %s: %s", v->path, what,
                        av_text(err, ebuf, sizeof ebuf));
}

/* AVIOContext read: the bytes of the opened file. */
static int io_read(void *opaque, uint8_t *buf, int size)
{
    FILE *f = opaque;
    const size_t n = fread(buf, 1, (size_t)size, f);
    if (n == 0) return ferror(f) ? AVERROR(EIO) : AVERROR_EOF;
    return (int)n;
}

/* AVIOContext seek; AVSEEK_SIZE asks for the file's size. */
static int64_t io_seek(void *opaque, int64_t offset, int whence)
{
    FILE *f = opaque;
    if (whence & AVSEEK_SIZE) {
        struct stat st;
        return fstat(fileno(f), &st) == 0 ? (int64_t)st.st_size : AVERROR(errno);
    }
    whence &= ~AVSEEK_FORCE;
    if (fseeko(f, (off_t)offset, whence) != 0) return AVERROR(errno);
    const off_t at = ftello(f);
    return at < 0 ? AVERROR(errno) : (int64_t)at;
}

/* The demuxer may not open other files or URLs (playlists, concat lists, image sequences,
 * external MOV references): everything it reads comes through the one opened file. */
static int refuse_nested_open(AVFormatContext *s, AVIOContext **pb, const char *url, int flags,
                              AVDictionary **options)
{
    (void)s;
    (void)pb;
    (void)url;
    (void)flags;
    (void)options;
    return AVERROR(EPERM);
}

void satfeat_video_quiet_ffmpeg_log(void)
{
    /* the library never prints: FFmpeg's default level means nobody chose one */
    if (av_log_get_level() == AV_LOG_INFO) av_log_set_level(AV_LOG_QUIET);
}

/* A device path the caller asked for: must be a character device, checked without blocking. */
static satfeat_status check_device(satfeat_ctx *ctx, const char *path)
{
    char ebuf[SATFEAT_ERRNO_TEXT_MAX];
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "video: %s: cannot open the device: %s", path,
                            satfeat_errno_text(errno, ebuf, sizeof ebuf));
    struct stat st;
    const int ok = fstat(fd, &st) == 0;
    const int e = errno;
    close(fd);
    if (!ok)
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "video: %s: cannot stat: %s", path,
                            satfeat_errno_text(e, ebuf, sizeof ebuf));
    if (!S_ISCHR(st.st_mode))
        return satfeat_fail(ctx, SATFEAT_ERR_IO, "video: %s: is a %s, not a camera device", path,
                            satfeat_file_kind((unsigned)st.st_mode));
    return SATFEAT_OK;
}

/* Opens the container: a camera through FFmpeg's V4L2 input, a file through our own stream. */
static satfeat_status open_container(satfeat_video *v, unsigned flags)
{
    int r;
    if (flags & SATFEAT_VIDEO_DEVICE) {
        satfeat_status st = check_device(v->ctx, v->path);
        if (st != SATFEAT_OK) return st;
#ifdef SATFEAT_HAVE_AVDEVICE
        avdevice_register_all();
#endif
        const AVInputFormat *v4l2 = av_find_input_format("video4linux2");
        if (!v4l2)
            return satfeat_fail(v->ctx, SATFEAT_ERR_UNSUPPORTED,
                                "video: %s: cameras need FFmpeg's V4L2 input (libavdevice), "
                                "which this build does not have", v->path);
        r = avformat_open_input(&v->fmt, v->path, v4l2, NULL);
        return r < 0 ? fail_av(v, SATFEAT_ERR_IO, "cannot open the camera", r) : SATFEAT_OK;
    }
    satfeat_status st = satfeat_file_open_input(v->ctx, "video", v->path, &v->file);
    if (st != SATFEAT_OK) return st;
    uint8_t *buf = av_malloc(IO_BUFFER_BYTES);
    if (buf) v->io = avio_alloc_context(buf, IO_BUFFER_BYTES, 0, v->file, io_read, NULL, io_seek);
    if (!v->io) {
        av_free(buf);
        return satfeat_fail(v->ctx, SATFEAT_ERR_ALLOC, "video: %s: out of memory", v->path);
    }
    /* "" as the URL: the container is recognised by its bytes, never by the file name; probed
     * here so that a format outside the list is named in the message */
    const AVInputFormat *container = NULL;
    r = av_probe_input_buffer2(v->io, &container, "", NULL, 0, 0);
    if (r < 0 || !container)
        return fail_av(v, SATFEAT_ERR_FORMAT, "not a video FFmpeg can read",
                       r < 0 ? r : AVERROR_INVALIDDATA);
    if (!satfeat_video_container_allowed(container->name))
        return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: the file is %s, not a "
                            "video container this library reads (%s)", v->path,
                            container->long_name ? container->long_name : container->name,
                            SATFEAT_VIDEO_CONTAINER_NAMES);
    v->fmt = avformat_alloc_context();
    if (v->fmt) {
        v->fmt->format_whitelist = av_strdup(SATFEAT_VIDEO_CONTAINERS);
        v->fmt->codec_whitelist = av_strdup(SATFEAT_VIDEO_DECODERS);
    }
    if (!v->fmt || !v->fmt->format_whitelist || !v->fmt->codec_whitelist)
        return satfeat_fail(v->ctx, SATFEAT_ERR_ALLOC, "video: %s: out of memory", v->path);
    v->fmt->pb = v->io;
    v->fmt->flags |= AVFMT_FLAG_CUSTOM_IO;
    v->fmt->io_open = refuse_nested_open;
    r = avformat_open_input(&v->fmt, "", container, NULL);
    if (r < 0) {
        v->fmt = NULL; /* freed by avformat_open_input on failure */
        return fail_av(v, SATFEAT_ERR_FORMAT, "not a video FFmpeg can read", r);
    }
    return SATFEAT_OK;
}

/* The video stream's duration in seconds, 0 when unknown: the stream's own, else Matroska's
 * per-track DURATION tag, else the container's when the video is its only stream (with audio the
 * container's duration may be the audio's). */
static double stream_seconds(const satfeat_video *v, const AVStream *s)
{
    if (s->duration != AV_NOPTS_VALUE && s->duration > 0 && v->tb.num > 0)
        return (double)s->duration * av_q2d(v->tb);
    const AVDictionaryEntry *tag = av_dict_get(s->metadata, "DURATION", NULL, 0);
    unsigned hours = 0, minutes = 0;
    double secs = 0;
    if (tag && sscanf(tag->value, "%u:%u:%lf", &hours, &minutes, &secs) == 3 && secs >= 0) {
        /* the tag is the track's end time: the frames span it less the first timestamp (which
         * B-frame reordering makes non-zero) */
        const double end = hours * 3600.0 + minutes * 60.0 + secs;
        const double start = v->tb.num > 0 ? (double)v->start_pts * av_q2d(v->tb) : 0;
        return end - start > 0 ? end - start : 0;
    }
    if (v->fmt->nb_streams == 1 && v->fmt->duration != AV_NOPTS_VALUE && v->fmt->duration > 0)
        return (double)v->fmt->duration / AV_TIME_BASE;
    return 0;
}

/* Fills v->info's counts and rates from the stream and the container. */
static void describe(satfeat_video *v)
{
    const AVStream *s = v->fmt->streams[v->stream];
    v->tb = s->time_base;
    /* FFmpeg's guess prefers the base rate (r_frame_rate, 30/1 say) to the average, which
     * millisecond timestamps (Matroska) round to 1000/33: frame numbers from timestamps drift
     * with the average */
    AVRational rate = av_guess_frame_rate(v->fmt, (AVStream *)s, NULL);
    if (rate.num <= 0 || rate.den <= 0) rate = (AVRational){0, 1};
    v->rate = rate;
    v->start_pts = s->start_time != AV_NOPTS_VALUE ? s->start_time : 0;
    v->info.fps = rate.num > 0 ? av_q2d(rate) : 0.0;
    const double seconds = stream_seconds(v, s);
    if (s->nb_frames > 0) v->info.frame_count = s->nb_frames;
    else if (seconds > 0 && v->info.fps > 0 && seconds * v->info.fps < 9e18)
        v->info.frame_count = (int64_t)(seconds * v->info.fps + 0.5);
    snprintf(v->info.codec, sizeof v->info.codec, "%s", avcodec_get_name(s->codecpar->codec_id));
    snprintf(v->info.container, sizeof v->info.container, "%s", v->fmt->iformat->name);
}

/* Finds the video stream, checks its size and budget, opens its decoder. */
static satfeat_status open_decoder(satfeat_video *v)
{
    int r = avformat_find_stream_info(v->fmt, NULL);
    if (r < 0) return fail_av(v, SATFEAT_ERR_FORMAT, "cannot read the streams", r);
    const AVCodec *codec = NULL;
    r = av_find_best_stream(v->fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (r == AVERROR_STREAM_NOT_FOUND)
        return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: no video stream", v->path);
    if (r < 0 || !codec)
        return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: no decoder for the codec %s",
                            v->path,
                            r < 0 ? "?" : avcodec_get_name(v->fmt->streams[r]->codecpar->codec_id));
    v->stream = r;
    if (!satfeat_video_decoder_allowed(codec->name))
        return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: the codec %s is not one "
                            "this library decodes (%s)", v->path, codec->name,
                            SATFEAT_VIDEO_DECODERS);
    const AVCodecParameters *par = v->fmt->streams[r]->codecpar;
    const long long w = par->width, h = par->height;
    if (w <= 0 || h <= 0)
        return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: the video stream has no "
                            "frame size (%lldx%lld)", v->path, w, h);
    if (w > SATFEAT_IMAGE_MAX_SIDE || h > SATFEAT_IMAGE_MAX_SIDE ||
        w * h > (long long)SATFEAT_IMAGE_MAX_PIXELS)
        return satfeat_fail(v->ctx, SATFEAT_ERR_OVERFLOW, "video: %s: frames of %lldx%lld are "
                            "above the limits (%d per side, %u pixels)", v->path, w, h,
                            SATFEAT_IMAGE_MAX_SIDE, SATFEAT_IMAGE_MAX_PIXELS);
    /* the gray buffer, the converted frame and one decoded frame (4 bytes a pixel when the format
     * is not yet known) */
    int frame_bytes = par->format >= 0 ? av_image_get_buffer_size(par->format, (int)w, (int)h, 1)
                                       : -1;
    const size_t pixels = (size_t)w * (size_t)h;
    const size_t need = 2 * pixels + (frame_bytes > 0 ? (size_t)frame_bytes : 4 * pixels);
    char what[SATFEAT_ERROR_TEXT_MAX];
    snprintf(what, sizeof what, "video: %s: frames of %lldx%lld", v->path, w, h);
    satfeat_status st = satfeat_check_budget(v->ctx, what, need);
    if (st != SATFEAT_OK) return st;
    v->info.width = (int)w;
    v->info.height = (int)h;
    describe(v);

    v->dec = avcodec_alloc_context3(codec);
    if (!v->dec) return satfeat_fail(v->ctx, SATFEAT_ERR_ALLOC, "video: %s: out of memory", v->path);
    r = avcodec_parameters_to_context(v->dec, par);
    if (r < 0) return fail_av(v, SATFEAT_ERR_FORMAT, "bad codec parameters", r);
    v->dec->thread_count = satfeat_ctx_threads(v->ctx);
    v->dec->max_pixels = SATFEAT_IMAGE_MAX_PIXELS; /* a hostile stream cannot grow the frames */
    /* a damaged frame is an error, not something to conceal: truncation must be reported */
    v->dec->err_recognition |= AV_EF_EXPLODE | AV_EF_CRCCHECK;
    v->dec->pkt_timebase = v->tb;
    v->dec->codec_whitelist = av_strdup(SATFEAT_VIDEO_DECODERS);
    if (!v->dec->codec_whitelist)
        return satfeat_fail(v->ctx, SATFEAT_ERR_ALLOC, "video: %s: out of memory", v->path);
    r = avcodec_open2(v->dec, codec, NULL);
    if (r < 0) return fail_av(v, SATFEAT_ERR_FORMAT, "cannot open the decoder", r);
    v->pkt = av_packet_alloc();
    v->frame = av_frame_alloc();
    v->converted = av_frame_alloc();
    v->gray = malloc(pixels);
    if (!v->pkt || !v->frame || !v->converted || !v->gray)
        return satfeat_fail(v->ctx, SATFEAT_ERR_ALLOC, "video: %s: out of memory", v->path);
    v->converted->format = AV_PIX_FMT_GRAY8;
    v->converted->width = (int)w;
    v->converted->height = (int)h;
    if (av_frame_get_buffer(v->converted, 0) < 0)
        return satfeat_fail(v->ctx, SATFEAT_ERR_ALLOC, "video: %s: out of memory", v->path);
    return SATFEAT_OK;
}

void satfeat_video_delete(satfeat_video *v)
{
    if (!v) return;
    sws_freeContext(v->sws);
    av_frame_free(&v->frame);
    av_frame_free(&v->converted);
    av_packet_free(&v->pkt);
    avcodec_free_context(&v->dec);
    avformat_close_input(&v->fmt);
    if (v->io) av_freep(&v->io->buffer);
    avio_context_free(&v->io);
    if (v->file) fclose(v->file);
    free(v->gray);
    free(v->path);
    free(v);
}

satfeat_status satfeat_video_open(satfeat_ctx *ctx, const char *path, unsigned flags,
                                  satfeat_video **out)
{
    if (out) *out = NULL;
    if (!ctx || !path || !out || (flags & ~SATFEAT_VIDEO_DEVICE))
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "video: NULL context, path or output, or "
                            "unknown flags");
    const char *scheme = strstr(path, "://");
    if (scheme) /* a local path only: FFmpeg would otherwise fetch URLs */
        return satfeat_fail(ctx, SATFEAT_ERR_ARG, "video: %s: URLs (%.*s://) are not read: give "
                            "a local file path", path, (int)(scheme - path), path);
    satfeat_video_quiet_ffmpeg_log();
    satfeat_video *v = calloc(1, sizeof *v);
    if (v) v->path = malloc(strlen(path) + 1);
    if (!v || !v->path) {
        free(v);
        return satfeat_fail(ctx, SATFEAT_ERR_ALLOC, "video: out of memory");
    }
    memcpy(v->path, path, strlen(path) + 1);
    v->ctx = ctx;
    v->sws_format = -1;
    satfeat_status st = open_container(v, flags);
    if (st == SATFEAT_OK) st = open_decoder(v);
    if (st != SATFEAT_OK) {
        satfeat_video_delete(v);
        return st;
    }
    *out = v;
    return SATFEAT_OK;
}

satfeat_status satfeat_video_get_info(const satfeat_video *v, satfeat_video_info *info)
{
    if (!v || !info) return SATFEAT_ERR_ARG;
    *info = v->info;
    return SATFEAT_OK;
}

int64_t satfeat_video_tell(const satfeat_video *v)
{
    return v ? v->next : -1;
}

/* Decodes the next frame into v->frame: 1 a frame, 0 the end of the stream, -1 an error
 * (recorded). */
static int decode_next(satfeat_video *v)
{
    for (;;) {
        if (v->at_end) return 0;
        int r = avcodec_receive_frame(v->dec, v->frame);
        if (r == 0) return 1;
        if (r == AVERROR_EOF) {
            v->at_end = 1;
            return 0;
        }
        if (r != AVERROR(EAGAIN)) {
            char what[64];
            snprintf(what, sizeof what, "cannot decode frame %lld", (long long)v->next);
            v->err = fail_av(v, SATFEAT_ERR_FORMAT, what, r);
            return -1;
        }
        if (v->draining) { /* a drained decoder answers EOF, never EAGAIN */
            v->err = fail_av(v, SATFEAT_ERR_FORMAT, "the decoder stalled", r);
            return -1;
        }
        r = av_read_frame(v->fmt, v->pkt);
        if (r == AVERROR_EOF) {
            v->draining = 1;
            r = avcodec_send_packet(v->dec, NULL);
            if (r < 0 && r != AVERROR_EOF) {
                v->err = fail_av(v, SATFEAT_ERR_FORMAT, "cannot finish decoding", r);
                return -1;
            }
            continue;
        }
        if (r < 0) {
            v->err = fail_av(v, r == AVERROR(EIO) ? SATFEAT_ERR_IO : SATFEAT_ERR_FORMAT,
                    "cannot read the container", r);
            return -1;
        }
        if (v->pkt->stream_index != v->stream) {
            av_packet_unref(v->pkt);
            continue;
        }
        const int corrupt = (v->pkt->flags & AV_PKT_FLAG_CORRUPT) != 0;
        r = corrupt ? AVERROR_INVALIDDATA : avcodec_send_packet(v->dec, v->pkt);
        av_packet_unref(v->pkt);
        if (r < 0) {
            char what[64];
            snprintf(what, sizeof what, "corrupt data at frame %lld", (long long)v->next);
            v->err = fail_av(v, SATFEAT_ERR_FORMAT, what, r);
            return -1;
        }
    }
}

/* 1 for pixel formats without chroma (gray): swscale takes them as full range already. */
static int is_gray_format(int format)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(format);
    return d && d->nb_components <= 2 && !(d->flags & AV_PIX_FMT_FLAG_RGB) && d->log2_chroma_w == 0 &&
           d->log2_chroma_h == 0 && (d->nb_components == 1 || (d->flags & AV_PIX_FMT_FLAG_ALPHA));
}

/* Converts v->frame to 8-bit gray into dst. libswscale writes whole vectors past a row's end
 * (FFmpeg's own frames are padded for it), so it writes into v->converted and only the frame's
 * bytes are copied to the caller's rows; a gray frame is copied as it is. */
static satfeat_status frame_to_gray(satfeat_video *v, uint8_t *dst, size_t stride)
{
    const AVFrame *f = v->frame;
    const int w = v->info.width, h = v->info.height;
    if (f->width != w || f->height != h)
        return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: frame %lld is %dx%d, the "
                            "stream's frames %dx%d", v->path, (long long)v->next, f->width,
                            f->height, w, h);
    if (f->format == AV_PIX_FMT_GRAY8) {
        av_image_copy_plane(dst, (int)stride, f->data[0], f->linesize[0], w, h);
        return SATFEAT_OK;
    }
    const int full = f->color_range == AVCOL_RANGE_JPEG;
    if (!v->sws || f->format != v->sws_format || full != v->sws_full) {
        sws_freeContext(v->sws);
        /* same size: no scaling; bit-exact, accurate rounding so every CPU gives the same gray */
        v->sws = sws_getContext(w, h, f->format, w, h, AV_PIX_FMT_GRAY8,
                                SWS_POINT | SWS_ACCURATE_RND | SWS_BITEXACT, NULL, NULL, NULL);
        if (!v->sws)
            return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: cannot convert the pixel "
                                "format %s to gray", v->path,
                                av_get_pix_fmt_name(f->format) ? av_get_pix_fmt_name(f->format)
                                                               : "?");
        if (full && !is_gray_format(f->format)) {
            /* a full-range (JPEG) YUV stream tagged as such: its luma is taken as is */
            int *inv, *table, src_range, dst_range, brightness, contrast, saturation;
            if (sws_getColorspaceDetails(v->sws, &inv, &src_range, &table, &dst_range,
                                         &brightness, &contrast, &saturation) >= 0)
                sws_setColorspaceDetails(v->sws, inv, 1, table, dst_range, brightness, contrast,
                                         saturation);
        }
        v->sws_format = f->format;
        v->sws_full = full;
    }
    AVFrame *g = v->converted;
    const int rows = sws_scale(v->sws, (const uint8_t *const *)f->data, f->linesize, 0, h, g->data,
                               g->linesize);
    if (rows != h)
        return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: cannot convert frame %lld to "
                            "gray", v->path, (long long)v->next);
    av_image_copy_plane(dst, (int)stride, g->data[0], g->linesize[0], w, h);
    return SATFEAT_OK;
}

satfeat_status satfeat_video_read_gray8(satfeat_video *v, uint8_t *dst, size_t stride,
                                        int *got_frame)
{
    if (got_frame) *got_frame = 0;
    if (!v || !dst || !got_frame) return SATFEAT_ERR_ARG;
    if (stride < (size_t)v->info.width || stride > INT_MAX)
        return satfeat_fail(v->ctx, SATFEAT_ERR_ARG, "video: stride %zu is not in [%d, %d]",
                            stride, v->info.width, INT_MAX);
    if (!v->have_frame) {
        const int r = decode_next(v);
        if (r < 0) return v->err;
        /* demuxers end quietly at a cut; a count from durations may be one frame off */
        if (r == 0 && v->next + 1 < v->info.frame_count)
            return satfeat_fail(v->ctx, SATFEAT_ERR_FORMAT, "video: %s: the stream ended after "
                                "%lld frames, but the container declares %lld: truncated or "
                                "damaged", v->path, (long long)v->next,
                                (long long)v->info.frame_count);
        if (r == 0) return SATFEAT_OK;
    }
    v->have_frame = 0;
    satfeat_status st = frame_to_gray(v, dst, stride);
    av_frame_unref(v->frame);
    if (st != SATFEAT_OK) return st;
    v->next++;
    *got_frame = 1;
    return SATFEAT_OK;
}

satfeat_status satfeat_video_next_gray8(satfeat_video *v, const uint8_t **pixels, int *got_frame)
{
    if (pixels) *pixels = NULL;
    if (!v || !pixels || !got_frame) {
        if (got_frame) *got_frame = 0;
        return SATFEAT_ERR_ARG;
    }
    satfeat_status st = satfeat_video_read_gray8(v, v->gray, (size_t)v->info.width, got_frame);
    if (st == SATFEAT_OK && *got_frame) *pixels = v->gray;
    return st;
}

/* The frame number of v->frame from its timestamp, or -1 when it has none. */
static int64_t frame_number(const satfeat_video *v)
{
    const int64_t ts = v->frame->best_effort_timestamp;
    if (ts == AV_NOPTS_VALUE || v->rate.num <= 0) return -1;
    return av_rescale_q_rnd(ts - v->start_pts, v->tb, av_inv_q(v->rate),
                            AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
}

/* Forgets the decoder's state after a container seek. */
static void reset_decoder(satfeat_video *v)
{
    avcodec_flush_buffers(v->dec);
    av_frame_unref(v->frame);
    v->have_frame = 0;
    v->draining = 0;
    v->at_end = 0;
}

/* Decodes and drops `n` frames (fewer at the end of the stream). */
static satfeat_status drop_frames(satfeat_video *v, int64_t n)
{
    if (v->have_frame && n > 0) {
        v->have_frame = 0;
        av_frame_unref(v->frame);
        v->next++;
        n--;
    }
    for (; n > 0; n--) {
        const int r = decode_next(v);
        if (r < 0) return v->err;
        if (r == 0) return SATFEAT_OK;
        av_frame_unref(v->frame);
        v->next++;
    }
    return SATFEAT_OK;
}

/* Back to the first frame, then `frame` frames decoded and dropped: exact without timestamps. */
static satfeat_status seek_by_counting(satfeat_video *v, int64_t frame)
{
    int r = av_seek_frame(v->fmt, v->stream, v->start_pts, AVSEEK_FLAG_BACKWARD);
    if (r < 0) r = av_seek_frame(v->fmt, -1, 0, AVSEEK_FLAG_BYTE);
    if (r < 0) return fail_av(v, SATFEAT_ERR_FORMAT, "cannot seek back to the first frame", r);
    reset_decoder(v);
    v->next = 0;
    return drop_frames(v, frame);
}

/* Seeks to the keyframe before `frame`'s timestamp and decodes up to it. Returns SATFEAT_OK,
 * an error, or SATFEAT_ERR_UNSUPPORTED (nothing recorded) when counting must do it instead. */
static satfeat_status seek_by_time(satfeat_video *v, int64_t frame)
{
    if (v->rate.num <= 0 || v->tb.num <= 0) return SATFEAT_ERR_UNSUPPORTED;
    const int64_t ts = v->start_pts + av_rescale_q(frame, av_inv_q(v->rate), v->tb);
    if (av_seek_frame(v->fmt, v->stream, ts, AVSEEK_FLAG_BACKWARD) < 0)
        return SATFEAT_ERR_UNSUPPORTED;
    reset_decoder(v);
    for (int first = 1;; first = 0) {
        const int r = decode_next(v);
        if (r < 0) return v->err;
        if (r == 0) { /* past the end */
            v->next = frame;
            return SATFEAT_OK;
        }
        const int64_t n = frame_number(v);
        if (n < 0 || (first && n > frame)) return SATFEAT_ERR_UNSUPPORTED; /* overshot */
        if (n >= frame) { /* n > frame: the wanted number is missing (variable rate) */
            v->have_frame = 1;
            v->next = frame;
            return SATFEAT_OK;
        }
        av_frame_unref(v->frame);
    }
}

satfeat_status satfeat_video_seek(satfeat_video *v, int64_t frame)
{
    if (!v) return SATFEAT_ERR_ARG;
    if (frame < 0)
        return satfeat_fail(v->ctx, SATFEAT_ERR_ARG, "video: %s: frame %lld is negative", v->path,
                            (long long)frame);
    if (frame >= v->next && frame - v->next < SHORT_JUMP && !v->at_end)
        return drop_frames(v, frame - v->next);
    if (!(v->fmt->pb && (v->fmt->pb->seekable & AVIO_SEEKABLE_NORMAL)) && !v->file)
        return satfeat_fail(v->ctx, SATFEAT_ERR_UNSUPPORTED, "video: %s: this source cannot "
                            "seek", v->path);
    satfeat_status st = seek_by_time(v, frame);
    if (st == SATFEAT_ERR_UNSUPPORTED) st = seek_by_counting(v, frame);
    return st;
}
