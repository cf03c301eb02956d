/* layers.c - layer geometry and the candidate bound (layers.h). */
#include "detect/layers.h"

void satfeat_fh_layers_init(const satfeat_detector_params *p, satfeat_fh_layer *layers)
{
    for (int o = 0; o < p->octaves; o++)
        for (int i = 0; i < p->layers; i++) {
            satfeat_fh_layer *ly = &layers[o * p->layers + i];
            ly->octave = o;
            ly->layer = i;
            ly->lobe = satfeat_fh_lobe(o, i);
            ly->side = satfeat_fh_side(o, i);
            ly->side_step = satfeat_fh_side_step(o);
            ly->step = satfeat_fh_step(p->init_step, o);
            ly->norm = satfeat_fh_layer_norm(ly->lobe);
        }
}

size_t satfeat_fh_map_doubles(int width, int height, int step)
{
    return (size_t)satfeat_fh_grid_len(width, step) * (size_t)satfeat_fh_grid_len(height, step);
}

size_t satfeat_fh_candidate_bound(const satfeat_detector_params *p, int width, int height)
{
    size_t total = 0;
    for (int o = 0; o < p->octaves; o++) {
        const int step = satfeat_fh_step(p->init_step, o);
        const size_t gw = (size_t)satfeat_fh_grid_len(width, step);
        const size_t gh = (size_t)satfeat_fh_grid_len(height, step);
        total += (size_t)(p->layers - 1) / 2 * ((gw + 1) / 2) * ((gh + 1) / 2);
    }
    return total;
}
