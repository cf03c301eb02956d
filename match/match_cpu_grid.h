/* match_cpu_grid.h - the CPU matcher's grid path for radius-gated problems (match_cpu_grid.c):
 * the same result as the brute-force paths, visiting only the trains near each query. */
#ifndef SATFEAT_MATCH_CPU_GRID_H
#define SATFEAT_MATCH_CPU_GRID_H

#include "match/match_cpu.h"
#include "match/match_rules.h"

#include <stddef.h>
#include <stdint.h>

/* Largest |coordinate| (train positions, radius) the grid path takes, in pixels: far beyond any
 * image, and small enough that the gate's rounding stays below its margin. */
#define SATFEAT_MATCH_GRID_MAX_COORD 1e7

/** 1 when p has a radius gate and every train position (and the radius) lies within
 *  SATFEAT_MATCH_GRID_MAX_COORD, so the grid path gives the brute-force result. */
int satfeat_match_grid_applies(const satfeat_match_problem *p);

/** Bytes of grid memory satfeat_match_grid_rows needs for n2 trains. */
size_t satfeat_match_grid_scratch_bytes(int n2);

/**
 * Fills rows[i] (best/second of query i) and the per-thread column arrays (thread t's nearest
 * query of train j at colb/coli[t * col_stride + j], initialised by the caller to +inf /
 * INT_MAX) with `threads` OpenMP threads, each over a contiguous range of queries. `mem` holds
 * satfeat_match_grid_scratch_bytes(p->n2) bytes, 4-byte aligned. p must satisfy
 * satfeat_match_grid_applies.
 */
void satfeat_match_grid_rows(const satfeat_match_problem *p, int threads, void *mem,
                             float *colb, int32_t *coli, size_t col_stride,
                             satfeat_match_top2 *rows);

#endif
