/* match_cpu.c - the CPU matcher: every (query, train) pair once, threaded over queries (a
 * radius-gated problem takes the grid path of match_cpu_grid.c instead, same result).
 *
 * Each thread takes a contiguous range of queries (walked in increasing order) and for each
 * query walks all trains (the AVX2 path in train chunks that stay in L1, all of the thread's
 * queries per chunk), keeping the query's best/second state and, in its own column
 * arrays, each train's nearest query so far. The column arrays of the threads are merged with
 * the candidate order (distance, then index), which makes the result independent of the
 * thread count. The AVX2 path holds 8 trains per vector with the descriptors of image 2
 * transposed (dim-major) in scratch, and 8 accumulators, one per lane of the shared distance
 * order (descriptor_distance.h), so each vector lane computes exactly the scalar function. */
#include "match/match_cpu.h"
#include "src/features_internal.h"

#include "match/match_cpu_grid.h"

#include "match/descriptor_distance.h"
#include "match/match_rules.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define MATCH_CPU_AVX2 1
#endif

#define MATCH_ALIGN 64u

/* The best/second state of one query kept lane by lane (lane l sees trains jb + l). */
typedef struct match_lanes {
    float b1[8], b2[8];
    int32_t j1[8];
} match_lanes;

/* Scratch layout: byte offsets of each array (each 64-byte aligned). */
typedef struct match_layout {
    size_t n2pad;  /* n2 rounded up to 8, plus 8 (room for padding between the two signs) */
    size_t tdesc;  /* float [dim][n2pad]: desc2 transposed, zero padded */
    size_t tsign;  /* int32 [n2pad]: -1 when laplacian < 0, else 0 */
    size_t tvalid; /* int32 [n2pad]: -1 for real trains, 0 for padding */
    size_t tidx;   /* int32 [n2pad]: train index at each position */
    size_t tpos;   /* int32 [n2pad]: position of each train index */
    size_t tx, ty; /* double [n2pad]: train positions */
    size_t colb;   /* float [threads][n2pad]: nearest query's squared distance per train */
    size_t coli;   /* int32 [threads][n2pad]: its index */
    size_t rows;   /* satfeat_match_top2 [n1] */
    size_t lanes;  /* AVX2 path: per query 8 lanes of best, second (float) and best index */
    size_t grid;   /* grid path (match_cpu_grid.h): its cells and train order */
    size_t total;
} match_layout;

static uint64_t align_up(uint64_t v)
{
    return (v + MATCH_ALIGN - 1u) & ~(uint64_t)(MATCH_ALIGN - 1u);
}

static match_layout layout_of(int n1, int n2, int dim, int threads)
{
    match_layout l;
    const uint64_t n2pad = (((uint64_t)n2 + 7u) & ~(uint64_t)7u) + 8u;
    const uint64_t t = threads < 1 ? 1u : (uint64_t)threads;
    uint64_t off = 0;
    l.n2pad = (size_t)n2pad;
    l.tdesc = (size_t)off; off = align_up(off + (uint64_t)dim * n2pad * 4u);
    l.tsign = (size_t)off; off = align_up(off + n2pad * 4u);
    l.tvalid = (size_t)off; off = align_up(off + n2pad * 4u);
    l.tidx = (size_t)off; off = align_up(off + n2pad * 4u);
    l.tpos = (size_t)off; off = align_up(off + n2pad * 4u);
    l.tx = (size_t)off; off = align_up(off + n2pad * 8u);
    l.ty = (size_t)off; off = align_up(off + n2pad * 8u);
    l.colb = (size_t)off; off = align_up(off + t * n2pad * 4u);
    l.coli = (size_t)off; off = align_up(off + t * n2pad * 4u);
    l.rows = (size_t)off; off = align_up(off + (uint64_t)n1 * sizeof(satfeat_match_top2));
    l.lanes = (size_t)off; off = align_up(off + (uint64_t)n1 * sizeof(match_lanes));
    l.grid = (size_t)off; off = align_up(off + (uint64_t)satfeat_match_grid_scratch_bytes(n2));
    l.total = off > (uint64_t)SIZE_MAX - MATCH_ALIGN ? 0 : (size_t)(off + MATCH_ALIGN);
    return l;
}

size_t satfeat_match_cpu_scratch_bytes(int n1, int n2, int dim, int threads)
{
    return layout_of(n1, n2, dim, threads).total;
}

/* Pointers into the (64-byte aligned) scratch. */
typedef struct match_bufs {
    float *tdesc;
    int32_t *tsign, *tvalid, *tidx, *tpos;
    double *tx, *ty;
    float *colb;
    int32_t *coli;
    satfeat_match_top2 *rows;
    match_lanes *lanes;
    void *grid;
    size_t n2pad;
    size_t n2used; /* positions in use (a multiple of 8) */
} match_bufs;

static match_bufs bufs_of(const match_layout *l, void *scratch)
{
    unsigned char *base = (unsigned char *)align_up((uint64_t)(uintptr_t)scratch);
    match_bufs b;
    b.tdesc = (float *)(base + l->tdesc);
    b.tsign = (int32_t *)(base + l->tsign);
    b.tvalid = (int32_t *)(base + l->tvalid);
    b.tidx = (int32_t *)(base + l->tidx);
    b.tpos = (int32_t *)(base + l->tpos);
    b.tx = (double *)(base + l->tx);
    b.ty = (double *)(base + l->ty);
    b.colb = (float *)(base + l->colb);
    b.coli = (int32_t *)(base + l->coli);
    b.rows = (satfeat_match_top2 *)(base + l->rows);
    b.lanes = (match_lanes *)(base + l->lanes);
    b.grid = base + l->grid;
    b.n2pad = l->n2pad;
    b.n2used = l->n2pad;
    return b;
}

/* Updates the column state of train j with query i at squared distance d. */
static inline void column_add(float *colb, int32_t *coli, int j, float d, int i)
{
    if (satfeat_match_before(d, i, colb[j], coli[j])) {
        colb[j] = d;
        coli[j] = i;
    }
}

/* The scalar path for query i: every train through the shared functions. */
static void row_scalar(const satfeat_match_problem *p, int i, float *colb, int32_t *coli,
                       satfeat_match_top2 *row)
{
    const float *q = p->desc1 + (size_t)i * (size_t)p->dim;
    double qx, qy;
    satfeat_match_query_pos(p, i, &qx, &qy);
    const int lq = p->kp1[i].laplacian;
    satfeat_match_top2 t = satfeat_match_top2_empty();
    for (int j = 0; j < p->n2; j++) {
        const satfeat_keypoint *k = &p->kp2[j];
        if (!satfeat_match_gate(p->same_laplacian, lq, k->laplacian, p->radius2, qx, qy, k->x,
                                k->y))
            continue;
        const float d = satfeat_desc_dist_sq(q, p->desc2 + (size_t)j * (size_t)p->dim, p->dim);
        if (!satfeat_match_dist_ok(d)) continue;
        satfeat_match_top2_add(&t, d, j);
        column_add(colb, coli, j, d, i);
    }
    *row = t;
}

#ifdef MATCH_CPU_AVX2
/* Bytes of transposed train descriptors one chunk holds (stays in L1 while a thread's queries
 * pass over it). */
#define MATCH_CHUNK_BYTES 16384u

/*
 * The AVX2 path for query i over the trains [jb0, jb1) (multiples of 8): 8 trains per step,
 * lane l of every vector belongs to train jb + l. acc[k] holds lane k of the distance order for
 * the 8 trains. The query's per-lane best/second states live in `ls` between chunks (trains of
 * one lane come in increasing order, so a strict comparison keeps the smaller index).
 */
__attribute__((target("avx2"))) static void chunk_avx2(const satfeat_match_problem *p,
                                                       const match_bufs *b, int i, size_t jb0,
                                                       size_t jb1, float *colb, int32_t *coli,
                                                       match_lanes *ls)
{
    const int dim = p->dim;
    const size_t n2pad = b->n2pad;
    const float *q = p->desc1 + (size_t)i * (size_t)dim;
    double qx, qy;
    satfeat_match_query_pos(p, i, &qx, &qy);
    const __m256i qsign = _mm256_set1_epi32(p->kp1[i].laplacian < 0 ? -1 : 0);
    const __m256i bit_of_lane = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    const __m256d vqx = _mm256_set1_pd(qx), vqy = _mm256_set1_pd(qy);
    const __m256d vr2 = _mm256_set1_pd(p->radius2);
    const __m256 fmax = _mm256_set1_ps(FLT_MAX);
    const __m256i vi = _mm256_set1_epi32(i);
    __m256 b1 = _mm256_loadu_ps(ls->b1), b2 = _mm256_loadu_ps(ls->b2);
    __m256i j1 = _mm256_loadu_si256((const __m256i *)ls->j1);
    for (size_t jb = jb0; jb < jb1; jb += 8) {
        /* gates as a bit mask of the 8 lanes */
        __m256i g = _mm256_load_si256((const __m256i *)(b->tvalid + jb));
        if (p->same_laplacian)
            g = _mm256_and_si256(g, _mm256_cmpeq_epi32(
                                        _mm256_load_si256((const __m256i *)(b->tsign + jb)), qsign));
        int bits = _mm256_movemask_ps(_mm256_castsi256_ps(g));
        if (p->radius2 > 0.0 && bits) {
            __m256d dx = _mm256_sub_pd(_mm256_load_pd(b->tx + jb), vqx);
            __m256d dy = _mm256_sub_pd(_mm256_load_pd(b->ty + jb), vqy);
            __m256d r = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
            int in = _mm256_movemask_pd(_mm256_cmp_pd(r, vr2, _CMP_LE_OQ));
            dx = _mm256_sub_pd(_mm256_load_pd(b->tx + jb + 4), vqx);
            dy = _mm256_sub_pd(_mm256_load_pd(b->ty + jb + 4), vqy);
            r = _mm256_add_pd(_mm256_mul_pd(dx, dx), _mm256_mul_pd(dy, dy));
            in |= _mm256_movemask_pd(_mm256_cmp_pd(r, vr2, _CMP_LE_OQ)) << 4;
            bits &= in;
        }
        if (!bits) continue;
        /* the 8 lane sums of the shared order, for 8 trains at once */
        __m256 acc[SATFEAT_DESC_LANES];
        for (int k = 0; k < SATFEAT_DESC_LANES; k++) acc[k] = _mm256_setzero_ps();
        const float *col = b->tdesc + jb;
        for (int m = 0; m < dim; m += SATFEAT_DESC_LANES) {
            for (int k = 0; k < SATFEAT_DESC_LANES; k++) {
                const __m256 t = _mm256_sub_ps(_mm256_broadcast_ss(q + m + k),
                                               _mm256_load_ps(col + (size_t)(m + k) * n2pad));
                acc[k] = _mm256_add_ps(acc[k], _mm256_mul_ps(t, t));
            }
        }
        const __m256 d = _mm256_add_ps(
            _mm256_add_ps(_mm256_add_ps(acc[0], acc[4]), _mm256_add_ps(acc[2], acc[6])),
            _mm256_add_ps(_mm256_add_ps(acc[1], acc[5]), _mm256_add_ps(acc[3], acc[7])));
        const __m256i bitv = _mm256_and_si256(_mm256_set1_epi32(bits), bit_of_lane);
        __m256 ok = _mm256_castsi256_ps(_mm256_cmpeq_epi32(bitv, bit_of_lane));
        ok = _mm256_and_ps(ok, _mm256_cmp_ps(d, fmax, _CMP_LE_OQ));
        /* per-lane best / second */
        const __m256 lt1 = _mm256_and_ps(ok, _mm256_cmp_ps(d, b1, _CMP_LT_OQ));
        const __m256 lt2 = _mm256_and_ps(ok, _mm256_cmp_ps(d, b2, _CMP_LT_OQ));
        b2 = _mm256_blendv_ps(_mm256_blendv_ps(b2, d, lt2), b1, lt1);
        b1 = _mm256_blendv_ps(b1, d, lt1);
        const __m256 vj = _mm256_load_ps((const float *)(b->tidx + jb)); /* train indices */
        j1 = _mm256_castps_si256(_mm256_blendv_ps(_mm256_castsi256_ps(j1), vj, lt1));
        /* per-train nearest query of this thread (queries come in increasing order) */
        const __m256 cb = _mm256_load_ps(colb + jb);
        const __m256 ltc = _mm256_and_ps(ok, _mm256_cmp_ps(d, cb, _CMP_LT_OQ));
        _mm256_store_ps(colb + jb, _mm256_blendv_ps(cb, d, ltc));
        const __m256 ci = _mm256_load_ps((const float *)(coli + jb));
        _mm256_store_ps((float *)(coli + jb),
                        _mm256_blendv_ps(ci, _mm256_castsi256_ps(vi), ltc));
    }
    _mm256_storeu_ps(ls->b1, b1);
    _mm256_storeu_ps(ls->b2, b2);
    _mm256_storeu_si256((__m256i *)ls->j1, j1);
}

/* The AVX2 path for the queries [i0, i1): train chunks of MATCH_CHUNK_BYTES outside, the
 * queries inside, so each chunk is read from L1; then the lanes of each query are merged. */
static void rows_avx2(const satfeat_match_problem *p, const match_bufs *b, int i0, int i1,
                      float *colb, int32_t *coli)
{
    size_t chunk = MATCH_CHUNK_BYTES / ((size_t)p->dim * sizeof(float));
    chunk = chunk < 8 ? 8 : chunk & ~(size_t)7;
    for (int i = i0; i < i1; i++)
        for (int l = 0; l < 8; l++) {
            b->lanes[i].b1[l] = INFINITY;
            b->lanes[i].b2[l] = INFINITY;
            b->lanes[i].j1[l] = INT_MAX;
        }
    for (size_t c0 = 0; c0 < b->n2used; c0 += chunk) {
        const size_t c1 = c0 + chunk < b->n2used ? c0 + chunk : b->n2used;
        for (int i = i0; i < i1; i++) chunk_avx2(p, b, i, c0, c1, colb, coli, &b->lanes[i]);
    }
    for (int i = i0; i < i1; i++) {
        satfeat_match_top2 t = satfeat_match_top2_empty();
        for (int l = 0; l < 8; l++) {
            const satfeat_match_top2 o = {b->lanes[i].b1[l], b->lanes[i].j1[l], b->lanes[i].b2[l]};
            satfeat_match_top2_merge(&t, &o);
        }
        b->rows[i] = t;
    }
}
#endif

/* Fills the transposed descriptors and the train arrays of the AVX2 path. With the Laplacian
 * gate the trains are grouped by sign (negative first, padded to 8, then the others, each group
 * in index order), so a query's gate passes whole blocks of 8 or none and skips the other
 * group; the lanes of one group still see increasing indices. Returns the positions used. */
static size_t prepare_trains(const satfeat_match_problem *p, match_bufs *b, int threads)
{
    const int dim = p->dim, n2 = p->n2;
    const size_t n2pad = b->n2pad;
    size_t pos = 0;
    for (size_t k = 0; k < n2pad; k++) b->tidx[k] = -1;
    for (int group = 0; group < 2; group++) {
        for (int j = 0; j < n2; j++) {
            const int neg = p->kp2[j].laplacian < 0;
            if (p->same_laplacian ? neg != (group == 0) : group == 1) continue;
            b->tidx[pos] = j;
            b->tpos[j] = (int32_t)pos;
            pos++;
        }
        if (p->same_laplacian || group == 1) pos = (pos + 7u) & ~(size_t)7u;
    }
    b->n2used = pos;
    for (size_t k = 0; k < n2pad; k++) {
        const int j = b->tidx[k];
        b->tvalid[k] = j >= 0 ? -1 : 0;
        b->tsign[k] = j >= 0 && p->kp2[j].laplacian < 0 ? -1 : 0;
        b->tx[k] = j >= 0 ? p->kp2[j].x : 0.0;
        b->ty[k] = j >= 0 ? p->kp2[j].y : 0.0;
    }
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int d = 0; d < dim; d++) {
        float *row = b->tdesc + (size_t)d * n2pad;
        for (size_t k = 0; k < n2pad; k++) {
            const int j = b->tidx[k];
            row[k] = j >= 0 ? p->desc2[(size_t)j * (size_t)dim + (size_t)d] : 0.0f;
        }
    }
    return pos;
}

/* 1 when query i keeps its nearest train (ratio test and, with mutual, the train's own nearest). */
static int keeps_match(const satfeat_match_problem *p, const match_bufs *b, int use_avx2, int i)
{
    const satfeat_match_top2 *t = &b->rows[i];
    if (t->best_j == INT_MAX || !satfeat_match_ratio_ok(t, p->ratio2)) return 0;
    return !p->mutual || b->coli[use_avx2 ? b->tpos[t->best_j] : t->best_j] == i;
}

satfeat_status satfeat_match_cpu_run(const satfeat_match_problem *p, int threads,
                                     satfeat_match_cpu_isa isa, void *scratch,
                                     satfeat_matches *out)
{
    if (p->n1 == 0 || p->n2 == 0) return satfeat_matches_prepare(out, 0, NULL);
    if (threads < 1) threads = 1;
    const match_layout l = layout_of(p->n1, p->n2, p->dim, threads);
    match_bufs b = bufs_of(&l, scratch);
    /* a radius gate: the grid path (only the trains near each query); else brute force */
    const int use_grid = isa == SATFEAT_MATCH_CPU_BEST && satfeat_match_grid_applies(p);
    int use_avx2 = 0;
#ifdef MATCH_CPU_AVX2
    use_avx2 = !use_grid && isa != SATFEAT_MATCH_CPU_SCALAR && __builtin_cpu_supports("avx2");
#endif
    if (use_avx2) prepare_trains(p, &b, threads);
    for (size_t k = 0; k < (size_t)threads * b.n2pad; k++) {
        b.colb[k] = INFINITY;
        b.coli[k] = INT_MAX;
    }
    if (use_grid) {
        satfeat_match_grid_rows(p, threads, b.grid, b.colb, b.coli, b.n2pad, b.rows);
    } else {
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
            int tid, i0, i1;
            satfeat_match_thread_queries(p->n1, &tid, &i0, &i1);
            float *colb = b.colb + (size_t)tid * b.n2pad;
            int32_t *coli = b.coli + (size_t)tid * b.n2pad;
#ifdef MATCH_CPU_AVX2
            if (use_avx2)
                rows_avx2(p, &b, i0, i1, colb, coli);
            else
#endif
                for (int i = i0; i < i1; i++) row_scalar(p, i, colb, coli, &b.rows[i]);
        }
    }
    /* each train's nearest query over all threads, into thread 0's arrays */
    /* (column arrays are indexed by position: the train index on the scalar path) */
    if (p->mutual) {
        const int used = use_avx2 ? (int)b.n2used : p->n2;
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
        for (int j = 0; j < used; j++)
            for (int t = 1; t < threads; t++)
                column_add(b.colb, b.coli, j, b.colb[(size_t)t * b.n2pad + (size_t)j],
                           b.coli[(size_t)t * b.n2pad + (size_t)j]);
    }
    /* count, size the list exactly, then write in ascending query order */
    size_t n = 0;
    for (int i = 0; i < p->n1; i++) n += (size_t)keeps_match(p, &b, use_avx2, i);
    satfeat_match_pair *m = NULL;
    const satfeat_status st = satfeat_matches_prepare(out, n, &m);
    if (st != SATFEAT_OK) return st;
    n = 0;
    for (int i = 0; i < p->n1; i++) {
        if (!keeps_match(p, &b, use_avx2, i)) continue;
        m[n].query = i;
        m[n].train = b.rows[i].best_j;
        m[n].distance = sqrtf(b.rows[i].best);
        n++;
    }
    return SATFEAT_OK;
}
