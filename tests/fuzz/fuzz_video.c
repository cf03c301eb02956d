/* fuzz_video.c - libFuzzer harness of the video frame source (satfeat_video_*): the input is
 * written to a file and opened as a video (the container probed from its bytes by FFmpeg), then
 * at most FUZZ_FRAMES frames are read, a seek is made and read again. The context's memory limit
 * caps the frame size (so each input stays fast) and every answer is checked: sizes inside the
 * limits, a rate that is finite and >= 0, positions that move one frame per read, end of stream
 * stable, statuses with a message. */
#include "fuzz_file.h"
#include "satfeat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FUZZ_FRAMES 6
#define FUZZ_MEMORY (8u << 20) /* 8 MiB: frames of at most about 1.5 million pixels */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz invariant violated: %s\n", what);
    abort();
}

/* A failed call must leave a message. */
static void check_failure(satfeat_ctx *ctx, satfeat_status st)
{
    if (st != SATFEAT_OK && satfeat_ctx_last_error(ctx)[0] == '\0') fuzz_fail("error without message");
}

/* Reads up to n frames, checking positions; returns the frames read. */
static int read_some(satfeat_ctx *ctx, satfeat_video *v, const satfeat_video_info *info,
                     uint8_t *buf, int n)
{
    int frames = 0;
    for (int i = 0; i < n; i++) {
        const int64_t before = satfeat_video_tell(v);
        int got = 0;
        satfeat_status st = satfeat_video_read_gray8(v, buf, (size_t)info->width + 3, &got);
        check_failure(ctx, st);
        if (st != SATFEAT_OK) return frames;
        if (!got) {
            if (satfeat_video_tell(v) != before) fuzz_fail("position moved at the end");
            got = 1;
            st = satfeat_video_read_gray8(v, buf, (size_t)info->width + 3, &got);
            if (st == SATFEAT_OK && got) fuzz_fail("a frame after the end");
            return frames;
        }
        if (satfeat_video_tell(v) != before + 1) fuzz_fail("position not one frame on");
        frames++;
    }
    return frames;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_file_write("video", NULL, 0, data, size);
    if (!path) return 0;
    satfeat_ctx *ctx = NULL;
    if (satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) != SATFEAT_OK) return 0;
    satfeat_ctx_set_threads(ctx, 1);
    satfeat_ctx_set_memory_limit(ctx, FUZZ_MEMORY);
    satfeat_video *v = NULL;
    satfeat_status st = satfeat_video_open(ctx, path, 0, &v);
    check_failure(ctx, st);
    if (st != SATFEAT_OK) {
        if (v) fuzz_fail("a video object on failure");
        satfeat_ctx_delete(ctx);
        return 0;
    }
    satfeat_video_info info;
    if (satfeat_video_get_info(v, &info) != SATFEAT_OK) fuzz_fail("get_info");
    if (info.width < 1 || info.height < 1 || info.width > SATFEAT_IMAGE_MAX_SIDE ||
        info.height > SATFEAT_IMAGE_MAX_SIDE ||
        (uint64_t)info.width * (uint64_t)info.height > FUZZ_MEMORY)
        fuzz_fail("frame size outside the limits");
    if (!isfinite(info.fps) || info.fps < 0 || info.frame_count < 0) fuzz_fail("rate or count");
    if (info.codec[sizeof info.codec - 1] != '\0') fuzz_fail("codec name not terminated");
    uint8_t *buf = malloc(((size_t)info.width + 3) * (size_t)info.height);
    if (buf) {
        const int frames = read_some(ctx, v, &info, buf, FUZZ_FRAMES);
        st = satfeat_video_seek(v, frames > 1 ? 1 : 0);
        check_failure(ctx, st);
        if (st == SATFEAT_OK) read_some(ctx, v, &info, buf, 2);
        free(buf);
    }
    satfeat_video_delete(v);
    satfeat_ctx_delete(ctx);
    return 0;
}
