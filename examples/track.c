/* track.c - the smallest complete feature tracker: follows features over frames given in order
 * on the command line and prints every live track of every frame.
 * usage: track FRAME... */
#include <satfeat.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FRAME...\n", argv[0]);
        return 2;
    }
    satfeat_ctx *ctx = NULL;
    satfeat_tracker *tracker = NULL;
    satfeat_status st = satfeat_ctx_new(&ctx, SATFEAT_BACKEND_AUTO, -1);
    printf("# frame id x y age inlier\n");
    for (int i = 1; st == SATFEAT_OK && i < argc; i++) {
        uint8_t *img = NULL;
        int w = 0, h = 0;
        satfeat_frame_motion motion;
        st = satfeat_image_load_gray8(ctx, argv[i], &img, &w, &h);
        if (st == SATFEAT_OK && !tracker) /* sized by the first frame, default parameters */
            st = satfeat_tracker_new(ctx, NULL, w, h, &tracker);
        if (st == SATFEAT_OK) {
            const satfeat_image_view frame = satfeat_image_view_host(img, w, h, 0);
            st = satfeat_tracker_track(tracker, &frame, &motion);
        }
        satfeat_free(img);
        if (st != SATFEAT_OK) {
            fprintf(stderr, "track: %s: %s: %s\n", argv[i], satfeat_status_string(st),
                    satfeat_ctx_last_error(ctx));
            break;
        }
        size_t n = 0; /* the live tracks, owned by the tracker until the next frame */
        const satfeat_track *tracks = satfeat_tracker_tracks(tracker, &n);
        for (size_t k = 0; k < n; k++)
            printf("%d %llu %.2f %.2f %d %d\n", i, (unsigned long long)tracks[k].id, tracks[k].x,
                   tracks[k].y, tracks[k].age, tracks[k].inlier);
        fprintf(stderr, "frame %d: %zu tracks, %zu matched, %zu inliers, %zu born, %zu ended\n", i,
                n, motion.matches, motion.inliers, motion.born, motion.ended);
    }
    if (st != SATFEAT_OK && !ctx) fprintf(stderr, "track: no context\n");
    satfeat_tracker_delete(tracker);
    satfeat_ctx_delete(ctx);
    return st == SATFEAT_OK ? 0 : 1;
}
