/* bench_video.c - video decoding against tracking on the CPU: is decoding ever the bottleneck of
 * `satfeat track VIDEO`?
 *
 * usage: satfeat_bench_video [--threads N] [--passes P] [--loops L] OUT_DIR FRAME...
 *
 * Loads the frames (8-bit gray, cropped or nearest-upscaled to 640x480), makes a sequence of L
 * ping-pong loops over them (forwards then backwards, so the motion stays continuous), and
 * encodes it with each 8-bit encoder this libavcodec has of libx264 (H.264), mpeg4 (MPEG-4 Part
 * 2) and ffv1 (lossless), YUV 4:2:0 with the gray as luma, into OUT_DIR/bench_<codec>.mkv. Then
 * per file: decode ms/frame (satfeat_video_read_gray8 over the whole file on a CPU context of N
 * threads, median of P passes) and track ms/frame (satfeat_tracker_track with the tracker's
 * defaults on the decoded frames, same context threads, one pass after a warm-up frame).
 * Prints one table row per codec. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include "bench_clock.h"
#include "satfeat.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BW 640
#define BH 480

/* The frame at (BW x BH) from a w x h image: centre crop where larger, nearest upscaling where
 * smaller. */
static void fit(const uint8_t *src, int w, int h, uint8_t *dst)
{
    for (int y = 0; y < BH; y++)
        for (int x = 0; x < BW; x++) {
            const int sx = w >= BW ? x + (w - BW) / 2 : x * w / BW;
            const int sy = h >= BH ? y + (h - BH) / 2 : y * h / BH;
            dst[(size_t)y * BW + (size_t)x] = src[(size_t)sy * (size_t)w + (size_t)sx];
        }
}

/* Writes the encoder's packets; 0 or -1. */
static int drain(AVCodecContext *enc, AVFormatContext *oc, AVStream *st, AVPacket *pkt)
{
    for (;;) {
        const int r = avcodec_receive_packet(enc, pkt);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
        if (r < 0) return -1;
        if (pkt->duration <= 0) pkt->duration = 1;
        av_packet_rescale_ts(pkt, enc->time_base, st->time_base);
        pkt->stream_index = st->index;
        if (av_interleaved_write_frame(oc, pkt) < 0) return -1;
    }
}

/* Encodes n frames of BW x BH (frames[i] tight) with encoder `name` into `path`: 0 or -1. */
static int encode(const char *path, const char *name, uint8_t *const *frames, int n)
{
    const AVCodec *c = avcodec_find_encoder_by_name(name);
    if (!c) return -1;
    AVFormatContext *oc = NULL;
    AVCodecContext *enc = avcodec_alloc_context3(c);
    AVFrame *f = av_frame_alloc();
    AVPacket *pkt = av_packet_alloc();
    AVStream *st = NULL;
    int ok = enc && f && pkt && avformat_alloc_output_context2(&oc, NULL, "matroska", path) >= 0 &&
             (st = avformat_new_stream(oc, NULL)) != NULL;
    if (ok) {
        enc->width = BW;
        enc->height = BH;
        enc->pix_fmt = AV_PIX_FMT_YUV420P;
        enc->time_base = (AVRational){1, 30};
        enc->framerate = (AVRational){30, 1};
        enc->gop_size = 30;
        enc->bit_rate = 4000000; /* 4 Mbit/s: a common rate for 640x480 */
        if (oc->oformat->flags & AVFMT_GLOBALHEADER) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        ok = avcodec_open2(enc, c, NULL) >= 0 &&
             avcodec_parameters_from_context(st->codecpar, enc) >= 0;
    }
    if (ok) {
        st->time_base = enc->time_base;
        f->format = AV_PIX_FMT_YUV420P;
        f->width = BW;
        f->height = BH;
        ok = avio_open(&oc->pb, path, AVIO_FLAG_WRITE) >= 0 &&
             avformat_write_header(oc, NULL) >= 0 && av_frame_get_buffer(f, 0) >= 0;
    }
    for (int k = 0; ok && k < n; k++) {
        ok = av_frame_make_writable(f) >= 0;
        for (int y = 0; ok && y < BH; y++)
            memcpy(f->data[0] + (size_t)y * (size_t)f->linesize[0], frames[k] + (size_t)y * BW, BW);
        for (int p = 1; ok && p < 3; p++)
            for (int y = 0; y < BH / 2; y++)
                memset(f->data[p] + (size_t)y * (size_t)f->linesize[p], 128, BW / 2);
        f->pts = k;
        ok = ok && avcodec_send_frame(enc, f) >= 0 && drain(enc, oc, st, pkt) == 0;
    }
    if (ok) ok = avcodec_send_frame(enc, NULL) >= 0 && drain(enc, oc, st, pkt) == 0 &&
                 av_write_trailer(oc) >= 0;
    if (oc && oc->pb) avio_closep(&oc->pb);
    avformat_free_context(oc);
    avcodec_free_context(&enc);
    av_frame_free(&f);
    av_packet_free(&pkt);
    return ok ? 0 : -1;
}

/* Decodes the whole file into frames[] (n slots); returns ms, or -1. */
static double decode_all(satfeat_ctx *ctx, const char *path, uint8_t **frames, int n, int *got_n)
{
    satfeat_video *v = NULL;
    const double t0 = bench_now_ms();
    if (satfeat_video_open(ctx, path, 0, &v) != SATFEAT_OK) return -1;
    int k = 0, got = 1;
    for (; k < n && got; k += got)
        if (satfeat_video_read_gray8(v, frames[k], BW, &got) != SATFEAT_OK) {
            satfeat_video_delete(v);
            return -1;
        }
    const double ms = bench_now_ms() - t0;
    satfeat_video_delete(v);
    *got_n = k;
    return ms;
}

int main(int argc, char **argv)
{
    int threads = 2, passes = 5, loops = 2, a = 1;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (!strcmp(argv[a], "--threads")) threads = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--passes")) passes = atoi(argv[a + 1]);
        else if (!strcmp(argv[a], "--loops")) loops = atoi(argv[a + 1]);
        else break;
    }
    if (argc - a < 2 || passes < 1 || passes > 99 || loops < 1) {
        fprintf(stderr, "usage: satfeat_bench_video [--threads N] [--passes P] [--loops L] "
                        "OUT_DIR FRAME...\n");
        return 2;
    }
    av_log_set_level(AV_LOG_ERROR); /* the encoders' statistics are not the benchmark's output */
    const char *out_dir = argv[a++];
    const int nsrc = argc - a, n = loops * 2 * nsrc;
    uint8_t **seq = calloc((size_t)n, sizeof *seq), **dec = calloc((size_t)n, sizeof *dec);
    satfeat_ctx *ctx = NULL;
    if (!seq || !dec || satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK ||
        satfeat_ctx_set_threads(ctx, threads) != SATFEAT_OK)
        return 1;
    for (int i = 0; i < nsrc; i++) {
        uint8_t *px = NULL;
        int w = 0, h = 0;
        if (satfeat_image_load_gray8(ctx, argv[a + i], &px, &w, &h) != SATFEAT_OK) {
            fprintf(stderr, "cannot read %s: %s\n", argv[a + i], satfeat_ctx_last_error(ctx));
            return 1;
        }
        if (!(seq[i] = malloc(BW * BH))) return 1;
        fit(px, w, h, seq[i]);
        satfeat_free(px);
    }
    for (int k = nsrc; k < n; k++) { /* ping-pong: 0..n-1, n-1..0, ... */
        const int loop_pos = k % (2 * nsrc);
        seq[k] = seq[loop_pos < nsrc ? loop_pos : 2 * nsrc - 1 - loop_pos];
    }
    for (int k = 0; k < n; k++)
        if (!(dec[k] = malloc(BW * BH))) return 1;
    printf("# %d frames of %dx%d (%d source frames, %d ping-pong loops), %d threads, decode median "
           "of %d passes\n", n, BW, BH, nsrc, loops, threads, passes);
    printf("# codec    file_KiB  decode_ms/frame  track_ms/frame  track/decode\n");
    static const char *const codecs[] = {"libx264", "mpeg4", "ffv1"};
    for (size_t c = 0; c < sizeof codecs / sizeof codecs[0]; c++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/bench_%s.mkv", out_dir, codecs[c]);
        if (encode(path, codecs[c], seq, n) != 0) {
            printf("# %s: no such encoder here (or it failed)\n", codecs[c]);
            continue;
        }
        double t[99];
        int got = 0;
        for (int p = 0; p < passes; p++)
            if ((t[p] = decode_all(ctx, path, dec, n, &got)) < 0 || got != n) {
                fprintf(stderr, "decoding %s failed: %s\n", path, satfeat_ctx_last_error(ctx));
                return 1;
            }
        bench_sort(t, (size_t)passes);
        const double decode = t[passes / 2] / n;
        satfeat_tracker_params tp = satfeat_tracker_params_default();
        satfeat_tracker *tr = NULL;
        if (satfeat_tracker_new(ctx, &tp, BW, BH, &tr) != SATFEAT_OK) return 1;
        satfeat_frame_motion m;
        /* warm-up frame, then a reset: the timed pass starts from a first frame */
        const satfeat_image_view v0 = satfeat_image_view_host(dec[0], BW, BH, 0);
        if (satfeat_tracker_track(tr, &v0, &m) != SATFEAT_OK ||
            satfeat_tracker_reset(tr) != SATFEAT_OK)
            return 1;
        const double t0 = bench_now_ms();
        for (int k = 0; k < n; k++) {
            const satfeat_image_view v = satfeat_image_view_host(dec[k], BW, BH, 0);
            if (satfeat_tracker_track(tr, &v, &m) != SATFEAT_OK) return 1;
        }
        const double track = (bench_now_ms() - t0) / n;
        satfeat_tracker_delete(tr);
        FILE *f = fopen(path, "rb");
        long bytes = -1;
        if (f && fseek(f, 0, SEEK_END) == 0) bytes = ftell(f);
        if (f) fclose(f);
        printf("%-9s %9.0f  %15.3f  %14.3f  %12.1f\n", codecs[c], (double)bytes / 1024.0, decode,
               track, track / decode);
    }
    satfeat_ctx_delete(ctx);
    return 0;
}
