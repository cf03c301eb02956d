/* make_test_video.c - writes the video CLI tests' fixtures: OUT/video.mkv (FFV1 gray, N frames of
 * the synthetic sequence at 25 fps, a keyframe every 4 frames), the same frames as
 * OUT/frameNNN.png (satfeat_image_write_png), OUT/truncated.mkv (the file cut at 60%) and
 * OUT/video.nut (FFV1 in NUT), the NUT again as OUT/clip.data (no video extension), a text file
 * OUT/notes.mkv and a FIFO OUT/fifo.mkv. Usage: make_test_video OUT_DIR N W H */
#define _XOPEN_SOURCE 700 /* mkfifo */
#include "satfeat.h"
#include "video_testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: make_test_video OUT_DIR N W H\n");
        return 2;
    }
    const char *dir = argv[1];
    const int n = atoi(argv[2]), w = atoi(argv[3]), h = atoi(argv[4]);
    char path[4096];
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "%s/video.mkv", dir);
    if (video_test_encode(path, "matroska", "ffv1", w, h, n, 25, 4, 0, video_test_synthetic, NULL))
        return 1;
    snprintf(path, sizeof path, "%s/video.nut", dir);
    if (video_test_encode(path, "nut", "ffv1", w, h, n, 25, 4, 0, video_test_synthetic, NULL))
        return 1;
    snprintf(path, sizeof path, "%s/clip.data", dir);
    if (video_test_encode(path, "nut", "ffv1", w, h, n, 25, 4, 0, video_test_synthetic, NULL))
        return 1;
    snprintf(path, sizeof path, "%s/notes.mkv", dir);
    FILE *notes = fopen(path, "w");
    if (!notes || fputs("this is a text file, not a video\n", notes) < 0 || fclose(notes) != 0)
        return 1;
    snprintf(path, sizeof path, "%s/fifo.mkv", dir);
    unlink(path);
    if (mkfifo(path, 0600) != 0) return 1;
    uint8_t *px = malloc((size_t)w * (size_t)h);
    if (!px) return 1;
    for (int k = 0; k < n; k++) {
        video_test_frame(px, (size_t)w, w, h, k);
        snprintf(path, sizeof path, "%s/frame%03d.png", dir, k + 1);
        if (satfeat_image_write_png(NULL, path, px, (size_t)w, w, h, 1) != SATFEAT_OK) return 1;
    }
    free(px);
    /* the container cut at 60%: frames in the middle of the file lose their data */
    snprintf(path, sizeof path, "%s/video.mkv", dir);
    FILE *in = fopen(path, "rb");
    if (!in || fseek(in, 0, SEEK_END) != 0) return 1;
    const long size = ftell(in);
    rewind(in);
    char *bytes = malloc((size_t)size);
    if (!bytes || fread(bytes, 1, (size_t)size, in) != (size_t)size) return 1;
    fclose(in);
    snprintf(path, sizeof path, "%s/truncated.mkv", dir);
    FILE *out = fopen(path, "wb");
    if (!out || fwrite(bytes, 1, (size_t)(size * 6 / 10), out) != (size_t)(size * 6 / 10)) return 1;
    free(bytes);
    return fclose(out) == 0 ? 0 : 1;
}
