/* video_testutil.c - see video_testutil.h. */
#include "video_testutil.h"

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void video_test_frame(uint8_t *dst, size_t stride, int w, int h, int k)
{
    /* blob centres on a loose grid, jittered by a fixed pattern, moving with the frame */
    const double dx = 1.5 * k, dy = 0.75 * k;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const double u = x - dx, v = y - dy;
            double p = 110 + 18 * sin(u * 0.21) * cos(v * 0.17);
            for (int by = -1; by < 6; by++)
                for (int bx = -1; bx < 8; bx++) {
                    const double cx = 24 * bx + 7 * ((bx * 5 + by * 3) % 4),
                                 cy = 24 * by + 6 * ((bx * 3 + by * 7) % 3);
                    const double s = 2.5 + (double)((bx + 2 * by + 16) % 4);
                    const double amp = ((bx + by) & 1) ? 90 : -80;
                    const double r2 = (u - cx) * (u - cx) + (v - cy) * (v - cy);
                    if (r2 < 25 * s * s) p += amp * exp(-r2 / (2 * s * s));
                }
            dst[(size_t)y * stride + (size_t)x] = (uint8_t)(p < 0 ? 0 : p > 255 ? 255 : p + 0.5);
        }
}

void video_test_synthetic(uint8_t *dst, size_t stride, int w, int h, int k, void *user)
{
    (void)user;
    video_test_frame(dst, stride, w, h, k);
}

/* Sends `frame` (NULL: flush) and writes every packet the encoder has. 0 or -1. */
static int encode_write(AVCodecContext *enc, AVFormatContext *oc, AVStream *st, AVFrame *frame,
                        AVPacket *pkt)
{
    if (avcodec_send_frame(enc, frame) < 0) return -1;
    for (;;) {
        const int r = avcodec_receive_packet(enc, pkt);
        if (r == AVERROR(EAGAIN) || r == AVERROR_EOF) return 0;
        if (r < 0) return -1;
        if (pkt->duration <= 0) pkt->duration = 1; /* one frame: containers then store the true length */
        av_packet_rescale_ts(pkt, enc->time_base, st->time_base);
        pkt->stream_index = st->index;
        if (av_interleaved_write_frame(oc, pkt) < 0) return -1;
    }
}

int video_test_encode(const char *path, const char *container, const char *codec, int w, int h,
                      int n, int fps, int gop, int bframes, video_test_frame_fn frame_fn,
                      void *user)
{
    const AVCodec *c = avcodec_find_encoder_by_name(codec);
    if (!c) {
        fprintf(stderr, "video_test_encode: no encoder %s\n", codec);
        return -1;
    }
    const int gray = !strcmp(codec, "ffv1");
    AVFormatContext *oc = NULL;
    AVCodecContext *enc = avcodec_alloc_context3(c);
    AVFrame *f = av_frame_alloc();
    AVPacket *pkt = av_packet_alloc();
    AVStream *st = NULL;
    int ok = enc && f && pkt && avformat_alloc_output_context2(&oc, NULL, container, path) >= 0;
    if (ok) ok = (st = avformat_new_stream(oc, NULL)) != NULL;
    if (ok) {
        enc->width = w;
        enc->height = h;
        enc->pix_fmt = gray ? AV_PIX_FMT_GRAY8 : AV_PIX_FMT_YUV420P;
        enc->time_base = (AVRational){1, fps};
        enc->framerate = (AVRational){fps, 1};
        enc->gop_size = gop;
        enc->max_b_frames = bframes;
        if (!gray) enc->bit_rate = 4000000;
        if (oc->oformat->flags & AVFMT_GLOBALHEADER) enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
        if (gray) { /* FFV1 version 3 with slice CRCs: damaged data is then detectable */
            enc->level = 3;
            av_opt_set(enc->priv_data, "slicecrc", "1", 0);
        }
        ok = avcodec_open2(enc, c, NULL) >= 0 &&
             avcodec_parameters_from_context(st->codecpar, enc) >= 0;
    }
    if (ok) {
        st->time_base = enc->time_base;
        ok = avio_open(&oc->pb, path, AVIO_FLAG_WRITE) >= 0 && avformat_write_header(oc, NULL) >= 0;
    }
    if (ok) {
        f->format = enc->pix_fmt;
        f->width = w;
        f->height = h;
        ok = av_frame_get_buffer(f, 0) >= 0;
    }
    for (int k = 0; ok && k < n; k++) {
        ok = av_frame_make_writable(f) >= 0;
        if (!ok) break;
        frame_fn(f->data[0], (size_t)f->linesize[0], w, h, k, user);
        if (!gray)
            for (int p = 1; p < 3; p++)
                for (int y = 0; y < (h + 1) / 2; y++)
                    memset(f->data[p] + (size_t)y * (size_t)f->linesize[p], 128, (size_t)(w + 1) / 2);
        f->pts = k;
        ok = encode_write(enc, oc, st, f, pkt) == 0;
    }
    if (ok) ok = encode_write(enc, oc, st, NULL, pkt) == 0 && av_write_trailer(oc) >= 0;
    if (oc && oc->pb) avio_closep(&oc->pb);
    avformat_free_context(oc);
    avcodec_free_context(&enc);
    av_frame_free(&f);
    av_packet_free(&pkt);
    if (!ok) fprintf(stderr, "video_test_encode: cannot write %s (%s, %s)\n", path, container, codec);
    return ok ? 0 : -1;
}
