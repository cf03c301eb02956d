/* octave_timeline.h - the octave kernel's timeline (a measuring aid, off by default): built with
 * -DSATFEAT_FH_TIMELINE=1, thread 0 of each block of fh_octave_kernel stamps the block's phases
 * with %globaltimer (ns, one clock for the whole GPU) and writes one record per block to a device
 * buffer attached by satfeat_fh_timeline_attach; read by tools/fh_timeline.c (docs/BENCHMARKS.md,
 * "Issue 12: sixth session"). Without the macro the kernel has no stamps and attaching fails with
 * cudaErrorNotSupported. */
#ifndef SATFEAT_FH_TIMELINE_H
#define SATFEAT_FH_TIMELINE_H

#ifndef SATFEAT_FH_TIMELINE
#define SATFEAT_FH_TIMELINE 0
#endif

/* Phases stamped, in the order a block passes them. */
enum satfeat_fh_tl_phase {
    SATFEAT_FH_TL_START = 0,  /* block entry (after the dependent-launch wait) */
    SATFEAT_FH_TL_RESPONSES,  /* window staged, middle-layer responses in shared memory (barrier) */
    SATFEAT_FH_TL_LISTED,     /* maxima listed (barrier) */
    SATFEAT_FH_TL_SPARSE,     /* outer samples and pending maxima tested (barrier; = LISTED
                               * when the tile has no sparse outer layers) */
    SATFEAT_FH_TL_END,        /* every candidate refined and appended (extra barrier) */
    SATFEAT_FH_TL_PHASES
};

/* One record of SATFEAT_FH_TL_WORDS 64-bit words per block (indexed by blockIdx.x): the
 * globaltimer stamps of the phases, then the fields below. */
#define SATFEAT_FH_TL_WORDS 8
#define SATFEAT_FH_TL_SM SATFEAT_FH_TL_PHASES           /* %smid */
#define SATFEAT_FH_TL_OCTAVE (SATFEAT_FH_TL_PHASES + 1) /* octave of the block's tile */
#define SATFEAT_FH_TL_MAXIMA (SATFEAT_FH_TL_PHASES + 2) /* maxima the block refined */

#ifdef __cplusplus
extern "C" {
#endif

/** Attaches a device buffer of `blocks` records (zeroed by the caller) that later octave-kernel
 * launches of this process fill (blocks past `blocks` stamp nothing); null detaches. Returns a
 * cudaError_t as int; cudaErrorNotSupported when the library was built without
 * SATFEAT_FH_TIMELINE. */
int satfeat_fh_timeline_attach(unsigned long long *d_records, unsigned long long blocks);

#ifdef __cplusplus
}
#endif

#endif
