/* tracker_confirm.c - birth confirmation: a keypoint of a frame after the first becomes a track
 * only when the previous frame had a keypoint where the frame's motion says it was. A keypoint
 * that the detector reports in one frame only (a response near the threshold, noise, a blob
 * that exists at one blur level) would otherwise start a track that is never seen again; such
 * one-frame tracks were a third of all tracks on the generated sequences (docs/TRACKING.md). */
#include "track/tracker_internal.h"

void satfeat_tracker_confirm_prepare(satfeat_tracker *t, const satfeat_frame_motion *fm)
{
    t->confirm_ready = 0;
    if (!(t->params.birth_confirm_radius > 0.0) || !fm->valid || t->frame == 0) return;
    satfeat_spatial_grid_clear(&t->confirm_grid);
    for (size_t j = 0; j < t->n_prev; j++) {
        double x = t->prev_xy[2 * j], y = t->prev_xy[2 * j + 1];
        if (tracker_map_point(fm->h_prev, &x, &y) == 0)
            satfeat_spatial_grid_insert(&t->confirm_grid, x, y);
    }
    t->confirm_ready = 1;
}

int satfeat_tracker_birth_confirmed(const satfeat_tracker *t, double x, double y)
{
    if (!(t->params.birth_confirm_radius > 0.0) || t->frame == 0) return 1;
    if (!t->confirm_ready) return 1; /* no motion to carry the last frame's keypoints: a cut */
    const double r = t->params.birth_confirm_radius;
    return satfeat_spatial_grid_any_within(&t->confirm_grid, x, y, r * r);
}

void satfeat_tracker_confirm_keep(satfeat_tracker *t, size_t nk)
{
    if (!(t->params.birth_confirm_radius > 0.0)) return;
    for (size_t j = 0; j < nk; j++) {
        t->prev_xy[2 * j] = t->kps[j].x;
        t->prev_xy[2 * j + 1] = t->kps[j].y;
    }
    t->n_prev = nk;
}
