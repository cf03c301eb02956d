/* frame_plan.h - the per-frame plan of the CUDA detector: for one frame size, which samples of
 * every layer have a response and which samples of every middle layer are tested for maxima,
 * and the tiles of the fused octave kernel (responses of all layers of a tile in shared memory,
 * then NMS of its middle layers), flattened into block ranges so that one launch covers every
 * octave. Built on the host (frame_plan.c), passed to the kernel by value, so it is baked into a
 * captured graph. */
#ifndef SATFEAT_FH_PLAN_H
#define SATFEAT_FH_PLAN_H

#include "detect/hessian_response.h"
#include "detect/order_buckets.h"
#include "detect/scale_space.h"
#include "satfeat.h"

#include <stddef.h>
#include <stdint.h>

#define SATFEAT_FH_MAX_MAPS (SATFEAT_FH_MAX_OCTAVES * SATFEAT_FH_MAX_LAYERS)
/** Tile of NMS centres of one block of the octave kernel (one thread per centre). */
#define SATFEAT_FH_TILE_X 32
#define SATFEAT_FH_TILE_Y 16
/** Rows of a tall tile: the fixed step-1 octave's tiles, two samples per thread, so its window
 * and apron serve twice the samples. */
#define SATFEAT_FH_TILE_Y_TALL 32
/** Half side (3l-1)/2 of a filter with lobe l: how far its table reads reach from the centre. */
#define SATFEAT_FH_REACH(lobe) ((3 * (lobe) - 1) / 2)
/** Side of the table window a tile of `tile` centres (step `step`, reach `reach`) reads: columns
 * (k0-1)*step - reach .. (k0+tile)*step + reach + 1. Macros so that the plan and the octave
 * kernel's compile-time geometry share one formula. */
#define SATFEAT_FH_WINDOW(tile, step, reach) (((tile) + 1) * (step) + 2 * (reach) + 2)
/** Row stride of a step-1 window of `width` entries staged with 16-byte copies: the window starts
 * at the 16-byte boundary at or below its first column (up to 3 entries earlier), its rows are
 * whole 16-byte groups, and the stride is 4 modulo 8 words, so that the same column of 8
 * consecutive rows falls in 8 different shared-memory banks (the octave kernel reads a tile's
 * last two columns down the rows). */
#define SATFEAT_FH_WINDOW_STRIDE16(width) ((((width) + 3 + 3) & ~3) | 4)
/** Entries of each plane of a split (step-2) window row of `width` entries staged in 16-byte
 * groups from the same boundary: at least (width + 3 + 1) / 2 and 2 modulo 4, so each plane
 * row starts 8-byte aligned, a group's two even and two odd columns are stored whole, and the
 * row stride (two planes) is 4 modulo 8 words as above. */
#define SATFEAT_FH_WINDOW_HALF16(width) ((((((width) + 3 + 1) / 2) + 1) & ~1) | 2)
/** Largest shared-memory table window (bytes) of an octave whose table reads are staged: 64 KB
 * holds octave 1 of the default 6 layers (142 x 110 entries), and two blocks of the octave
 * kernel (64 registers x 512 threads each) still fit an SM. */
#define SATFEAT_FH_STAGE_BYTES (64 * 1024)
/** Largest window of a tall tile (a fixed step-1 octave: 22 KB for 6 layers), so that tall
 * tiles never need more shared memory than the others. */
#define SATFEAT_FH_STAGE_BYTES_TALL (32 * 1024)
/** Bytes of the octave kernel's per-warp lists of samples above the threshold (16-bit codes: a
 * tile's samples of a tall tile x its middle layers), kept after the response tiles in the
 * table window's place (the window is no longer read then): a block's shared memory beyond its
 * response tiles is at least this. */
#define SATFEAT_FH_NMS_LIST_BYTES                                                              \
    (SATFEAT_FH_TILE_X * SATFEAT_FH_TILE_Y_TALL * (SATFEAT_FH_MAX_LAYERS - 2) * 2)
/** Most dynamic shared memory the octave kernel asks for: responses of 6 layers and the largest
 * window, for the usual and for tall tiles (93 KB, within the 99 KB a block may have on
 * sm_86/sm_89 GPUs). */
#define SATFEAT_FH_SMEM_OF(rows, window)                                                       \
    (SATFEAT_FH_MAX_LAYERS * (SATFEAT_FH_TILE_X + 2) * ((rows) + 2) * 8 + (window))
#define SATFEAT_FH_SMEM_MAX                                                                    \
    (SATFEAT_FH_SMEM_OF(SATFEAT_FH_TILE_Y, SATFEAT_FH_STAGE_BYTES) >                           \
             SATFEAT_FH_SMEM_OF(SATFEAT_FH_TILE_Y_TALL, SATFEAT_FH_STAGE_BYTES_TALL)           \
         ? SATFEAT_FH_SMEM_OF(SATFEAT_FH_TILE_Y, SATFEAT_FH_STAGE_BYTES)                       \
         : SATFEAT_FH_SMEM_OF(SATFEAT_FH_TILE_Y_TALL, SATFEAT_FH_STAGE_BYTES_TALL))

/* Launch order of the octave kernel: when the blocks of the octaves read through L1 (the coarse
 * ones, without a staged window) outnumber the kernel's resident blocks (2 an SM), they are
 * spread among the first SATFEAT_FH_COARSE_SPREAD_PCT percent of the staged octaves' blocks
 * instead of all going first (0: always first). A coarse block is bound by its SM's L1 fill
 * bandwidth (at steps of 4 and 8 a warp's table read fills 16 or 32 sectors for 32 words), so
 * coarse blocks started together wait on L2 together while the staged octaves' shared-memory
 * work waits behind them; spread, they overlap it. Half the staged blocks is the spread that
 * measured fastest at 1080p and 3840x2160 among 0, 25, 50 and 80 percent. */
#define SATFEAT_FH_COARSE_SPREAD_PCT 50

/** The tiles of one octave: a grid of tiles_x x tiles_y tiles from centre (kx0, ky0). */
typedef struct satfeat_fh_plan_octave {
    int octave, step;
    int kx0, ky0, tiles_x, tiles_y; /* the union of the octave's NMS rectangles, tiled */
    int tile_h;                     /* rows of samples of a tile: SATFEAT_FH_TILE_Y, or
                                       SATFEAT_FH_TILE_Y_TALL for a fixed step-1 octave */
    int first;                      /* first block of this octave in the launch */
    int reach;                      /* largest half side (3l-1)/2 of the octave's layers */
    int win_w, win_h;               /* staged table window: row stride and rows in elements;
                                       0: read the table */
    int fixed;                      /* 1: the compile-time geometry of octave_kernel.cu applies
                                       (staged, init_step 1, 4 or 6 layers, octave 0 or 1, every
                                       layer's norm fast) */
    int split;                      /* 1: the window keeps even columns, then odd columns, in
                                       each row (fixed step-2 octaves: no bank conflicts) */
} satfeat_fh_plan_octave;

/** The geometry of one layer for the current frame. */
typedef struct satfeat_fh_plan_map {
    satfeat_fh_norm norm;
    int lobe, side, side_step, step, gw, octave, layer, pad_;
    int rx0, rx1, ry0, ry1; /* samples with a response (empty: rx0 > rx1) */
    int nx0, nx1, ny0, ny1; /* middle layers: samples tested for maxima (empty: nx0 > nx1) */
} satfeat_fh_plan_map;

/** Everything the kernels need to know about one frame. */
typedef struct satfeat_fh_plan {
    satfeat_fh_plan_map maps[SATFEAT_FH_MAX_MAPS];
    satfeat_fh_plan_octave oct[SATFEAT_FH_MAX_OCTAVES]; /* octaves with something to test */
    int n_oct, blocks;
    int coarse_blocks;      /* blocks of the leading octaves of oct[] that read the table
                               through L1 (no staged window) */
    int coarse_stride;      /* launch order (satfeat_fh_block_slot): 1 = coarse first */
    size_t smem_bytes;      /* dynamic shared memory of the octave kernel */
    int width, height, octaves, layers, init_step, unique_scales;
    int dup_cw, dup_ch;     /* duplicate cells (order_buckets.h) the octave kernel counts its
                               candidates in; 0 x 0 without suppress_duplicates */
    double threshold, max_offset;
    uint32_t bucket_base;   /* satfeat_fh_bucket_base(threshold): the response buckets the octave
                               kernel counts its candidates in (order_buckets.h) */
    uint64_t sat_pitch;     /* table row stride in elements */
} satfeat_fh_plan;

/** The block, in oct[]'s order (first, tiles), that launch position b of the octave kernel
 * takes: while b < coarse_blocks * coarse_stride, the positions that are multiples of the stride
 * take the coarse blocks in order and the others the staged octaves' blocks in order; from there
 * on the remaining staged blocks. A permutation of [0, blocks) (test_detect_math). */
static inline SATFEAT_HD int satfeat_fh_block_slot(const satfeat_fh_plan *plan, int b)
{
    const int s = plan->coarse_stride, nc = plan->coarse_blocks;
    if (b >= nc * s) return b;
    const int q = b / s;
    return b == q * s ? q : nc + b - q - 1;
}

struct satfeat_fh_layer;

/** Fills `plan` for a width x height frame under `p` (layer records `layers`, as
 *  satfeat_fh_layers_init makes them) with a table of row stride `sat_pitch`, on a device of
 *  `sm_count` multiprocessors (0: unknown). */
void satfeat_fh_plan_build(const satfeat_detector_params *p, const struct satfeat_fh_layer *layers,
                           int sm_count, int width, int height, size_t sat_pitch,
                           satfeat_fh_plan *plan);

#endif
