/* sat_timeline.h - the SKSS-LB timeline (a measuring aid, off by default): built with
 * -DSATFEAT_SAT_SKSS_TIMELINE=1, the kernel's thread 0 stamps each tile's phases with
 * %globaltimer (ns, one clock for the whole GPU) and clock64 (cycles of its SM) and writes one
 * record per tile to a device buffer attached by satfeat_sat_skss_timeline_attach; read by
 * tools/skss_timeline.c (docs/BENCHMARKS.md, "Issue 13, third session" and "fourth session").
 * Without the macro the kernel has no stamps and attaching fails with cudaErrorNotSupported. */
#ifndef SATFEAT_SAT_TIMELINE_H
#define SATFEAT_SAT_TIMELINE_H

#ifndef SATFEAT_SAT_SKSS_TIMELINE
#define SATFEAT_SAT_SKSS_TIMELINE 0
#endif

/* Phases stamped, in the order a tile passes them. */
enum satfeat_sat_tl_phase {
    SATFEAT_SAT_TL_START = 0,   /* block entry */
    SATFEAT_SAT_TL_TICKET,      /* ticket known (after the first barrier) */
    SATFEAT_SAT_TL_LOADED,      /* thread 0's rows arrived and walked for local sums */
    SATFEAT_SAT_TL_LOCAL,       /* the block's local row / column sums formed (barriers) */
    SATFEAT_SAT_TL_PUBLISHED,   /* thread 0's local row sum published (its pair stored) */
    SATFEAT_SAT_TL_LOOKED_BACK, /* row and column look-backs done (barrier) */
    SATFEAT_SAT_TL_CORNER,      /* the corner known to thread 0, GS published (RECT grids:
                                 * right after LOOKED_BACK, the corner being formed before it) */
    SATFEAT_SAT_TL_STORED,      /* thread 0's output rows issued */
    SATFEAT_SAT_TL_END,         /* every thread's stores issued (extra barrier) */
    SATFEAT_SAT_TL_PHASES
};

/* One record of SATFEAT_SAT_TL_WORDS 64-bit words per tile (indexed by tile row * tiles_x +
 * tile column): [0, PHASES) globaltimer, [PHASES, 2 PHASES) clock64, then the fields below. */
#define SATFEAT_SAT_TL_WORDS 32
#define SATFEAT_SAT_TL_TI (2 * SATFEAT_SAT_TL_PHASES)  /* tile row */
#define SATFEAT_SAT_TL_TJ (SATFEAT_SAT_TL_TI + 1)      /* tile column */
#define SATFEAT_SAT_TL_SM (SATFEAT_SAT_TL_TI + 2)      /* %smid */
#define SATFEAT_SAT_TL_TICKETNO (SATFEAT_SAT_TL_TI + 3) /* ticket */
#define SATFEAT_SAT_TL_ROW_STEPS (SATFEAT_SAT_TL_TI + 4) /* tiles thread 0 looked back at */
#define SATFEAT_SAT_TL_COL_STEPS (SATFEAT_SAT_TL_TI + 5) /* tiles thread 128 looked back at */
/* diagonal tiles read for the corner; RECT grids: the tiles up-left whose totals were added */
#define SATFEAT_SAT_TL_DIAG_STEPS (SATFEAT_SAT_TL_TI + 6)
/* 1: the corner was found early (diagonal); 2: RECT grid, corner from the tiles up-left */
#define SATFEAT_SAT_TL_EARLY (SATFEAT_SAT_TL_TI + 7)
#define SATFEAT_SAT_TL_ROW_SPIN (SATFEAT_SAT_TL_TI + 8) /* pair re-reads of thread 0 */
#define SATFEAT_SAT_TL_COL_SPIN (SATFEAT_SAT_TL_TI + 9) /* ... thread 128 */
#define SATFEAT_SAT_TL_CORNER_SPIN (SATFEAT_SAT_TL_TI + 10) /* RECT grids: rounds of pair
                                                              * re-reads of the corner's warp */

#ifdef __cplusplus
extern "C" {
#endif

/** Attaches a device buffer of `tiles` records (zeroed by the caller) that later SKSS-LB launches
 * of this process fill; null detaches. Returns a cudaError_t as int; cudaErrorNotSupported when
 * the library was built without SATFEAT_SAT_SKSS_TIMELINE. */
int satfeat_sat_skss_timeline_attach(unsigned long long *d_records, unsigned long long tiles);

#ifdef __cplusplus
}
#endif

#endif
