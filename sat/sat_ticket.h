/* sat_ticket.h - the order in which SKSS-LB hands out its tiles: ticket t (0 .. n - 1, from one
 * atomic per block) names a tile in diagonal-major order, anti-diagonals ti + tj = 0, 1, ... in
 * turn, each by increasing tile row ti. Every tile a tile looks back at (left, above, up-left)
 * lies on an earlier diagonal and so has an earlier ticket, which is what lets a block wait for
 * them whatever order the blocks run in. Plain C, tested on the CPU against the diagonals
 * enumerated one by one; 32-bit integer arithmetic and one float square root (corrected
 * exactly), cheap enough for the one thread that works it out before the block's first barrier. */
#ifndef SATFEAT_SAT_TICKET_H
#define SATFEAT_SAT_TICKET_H

#include <math.h>
#include <stdint.h>

#include "src/hd.h"

/** Largest d with d (d + 1) / 2 <= t. */
static inline SATFEAT_HD uint32_t satfeat_sat_tri_root(uint32_t t)
{
    uint32_t d = (uint32_t)((sqrtf(8.0f * (float)t + 1.0f) - 1.0f) * 0.5f);
    while (d > 0 && (uint64_t)d * (d + 1u) / 2u > t) d--;
    while ((uint64_t)(d + 1u) * (d + 2u) / 2u <= t) d++;
    return d;
}

/** The tile of ticket t on a grid of ny rows x nx columns of tiles (nx * ny < 2^32): the first
 * min(nx, ny) diagonals grow by one tile each, the middle ones are min(nx, ny) tiles long, the
 * last ones mirror the first. */
static inline SATFEAT_HD void satfeat_sat_tile_of_ticket(uint32_t t, uint32_t nx, uint32_t ny,
                                                         uint32_t *ti, uint32_t *tj)
{
    const uint32_t m = nx < ny ? nx : ny, big = nx < ny ? ny : nx;
    const uint64_t tri = (uint64_t)m * (m + 1u) / 2u;
    const uint64_t band = (uint64_t)(big - m) * m;
    if (t < tri) {
        const uint32_t d = satfeat_sat_tri_root(t);
        const uint32_t i = t - d * (d + 1u) / 2u;
        *ti = i;
        *tj = d - i;
    } else if (t < tri + band) {
        const uint32_t q = t - (uint32_t)tri, k = q / m;
        const uint32_t d = m + k;
        const uint32_t imin = d + 1u > nx ? d + 1u - nx : 0u;
        *ti = imin + (q - k * m);
        *tj = d - *ti;
    } else {
        const uint32_t tm = nx * ny - 1u - t; /* mirrored into the first triangle */
        const uint32_t d = satfeat_sat_tri_root(tm);
        const uint32_t i = tm - d * (d + 1u) / 2u;
        *ti = ny - 1u - i;
        *tj = nx - 1u - (d - i);
    }
}

#endif
