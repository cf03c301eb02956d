/* video_none.c - the video calls of a build without FFmpeg (SATFEAT_WITH_VIDEO=OFF or FFmpeg not
 * found): each exists and answers SATFEAT_ERR_UNSUPPORTED "video support was not built". */
#include "src/context_internal.h"

#define NOT_BUILT "video support was not built (FFmpeg's libav* were not found or " \
                  "SATFEAT_WITH_VIDEO=OFF)"

int satfeat_has_video_build(void)
{
    return 0;
}

satfeat_status satfeat_video_open(satfeat_ctx *ctx, const char *path, unsigned flags,
                                  satfeat_video **out)
{
    (void)path;
    (void)flags;
    if (out) *out = NULL;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, NOT_BUILT);
}

void satfeat_video_delete(satfeat_video *video)
{
    (void)video; /* no video object can exist in this build */
}

satfeat_status satfeat_video_get_info(const satfeat_video *video, satfeat_video_info *info)
{
    (void)video;
    (void)info;
    return SATFEAT_ERR_UNSUPPORTED;
}

satfeat_status satfeat_video_read_gray8(satfeat_video *video, uint8_t *dst, size_t stride,
                                        int *got_frame)
{
    (void)video;
    (void)dst;
    (void)stride;
    if (got_frame) *got_frame = 0;
    return SATFEAT_ERR_UNSUPPORTED;
}

satfeat_status satfeat_video_next_gray8(satfeat_video *video, const uint8_t **pixels,
                                        int *got_frame)
{
    (void)video;
    if (pixels) *pixels = NULL;
    if (got_frame) *got_frame = 0;
    return SATFEAT_ERR_UNSUPPORTED;
}

satfeat_status satfeat_video_seek(satfeat_video *video, int64_t frame)
{
    (void)video;
    (void)frame;
    return SATFEAT_ERR_UNSUPPORTED;
}

int64_t satfeat_video_tell(const satfeat_video *video)
{
    (void)video;
    return -1;
}

satfeat_status satfeat_video_probe(satfeat_ctx *ctx, const char *path, int *is_video)
{
    (void)path;
    if (is_video) *is_video = 0;
    return satfeat_fail(ctx, SATFEAT_ERR_UNSUPPORTED, NOT_BUILT);
}
