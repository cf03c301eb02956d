/* test_sat_skss_arith.c - host/device arithmetic of the GPU SAT's SKSS-LB kernel, on the CPU.
 * The ticket order (sat_ticket.h): every grid shape's tickets name each tile once, in the order of
 * the anti-diagonals enumerated one by one. The packed-byte arithmetic of the u8 walk
 * (sat_byte_words.h): each function against a byte-by-byte reference on random and extreme words, then
 * the walk's decomposition replayed for one group (8 lanes x 16 columns, 4 rows, the strip's
 * left neighbour column) through those functions in the kernel's order: shifted words, row sums
 * and the lanes-before sums two rows a word, column partials as 16-bit pairs, the run prefix and
 * the carry rows, checked against a plain SAT of the same strip. */
#include "sat/sat_byte_words.h"
#include "sat/sat_ticket.h"
#include "test_util.h"

#include <stdlib.h>
#include <string.h>

/* Every ticket of an ny x nx grid against the diagonals walked one by one. */
static void check_ticket_order(uint32_t nx, uint32_t ny)
{
    uint32_t t = 0;
    for (uint32_t d = 0; d + 2 <= nx + ny; d++)
        for (uint32_t i = 0; i < ny; i++) {
            if (d < i || d - i >= nx) continue;
            uint32_t ti = 99999, tj = 99999;
            satfeat_sat_tile_of_ticket(t, nx, ny, &ti, &tj);
            if (ti != i || tj != d - i)
                fail_msg("grid %ux%u ticket %u: tile (%u, %u), want (%u, %u)", nx, ny, t, ti, tj, i,
                         d - i);
            t++;
        }
    assert_int_equal(t, nx * ny);
}

static void test_ticket_order(void **state)
{
    (void)state;
    for (uint32_t nx = 1; nx <= 40; nx++)
        for (uint32_t ny = 1; ny <= 40; ny++) check_ticket_order(nx, ny);
    static const uint32_t shapes[][2] = {{1, 7813},  {7813, 1}, {9, 16},   {16, 9},
                                         {65, 65},   {257, 257}, {2, 5000}, {300, 1000}};
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        check_ticket_order(shapes[k][0], shapes[k][1]);
    /* the square root's correction at large tickets: the triangle root against its definition */
    for (uint64_t t = 0; t < 4000000000u; t += t / 3 + 1) {
        const uint32_t d = satfeat_sat_tri_root((uint32_t)t);
        assert_true((uint64_t)d * (d + 1) / 2 <= t && (uint64_t)(d + 1) * (d + 2) / 2 > t);
    }
}

static uint32_t byte_of(uint32_t w, int m)
{
    return (w >> (8 * m)) & 0xffu;
}

static void test_word_functions(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 11);
    for (int it = 0; it < 20000; it++) {
        uint32_t w = (uint32_t)test_rng_next(&r), prev = (uint32_t)test_rng_next(&r);
        const uint32_t acc = (uint32_t)test_rng_next(&r);
        if (it % 4 == 1) w = 0xffffffffu;
        if (it % 4 == 2) prev = 0xff000000u;
        const uint32_t s = satfeat_sat_word_shift(w, prev);
        assert_int_equal(byte_of(s, 0), byte_of(prev, 3));
        for (int m = 1; m < 4; m++) assert_int_equal(byte_of(s, m), byte_of(w, m - 1));
        uint32_t want = acc;
        for (int m = 0; m < 4; m++) {
            want += byte_of(w, m);
            assert_int_equal(satfeat_sat_word_prefix(w, m, acc), want); /* wraps modulo 2^32 */
        }
        assert_int_equal(satfeat_sat_word_sum(w, acc), want);
        const uint32_t e = satfeat_sat_word_even(w), o = satfeat_sat_word_odd(w);
        assert_int_equal(satfeat_sat_half(e, 0), byte_of(w, 0));
        assert_int_equal(satfeat_sat_half(e, 1), byte_of(w, 2));
        assert_int_equal(satfeat_sat_half(o, 0), byte_of(w, 1));
        assert_int_equal(satfeat_sat_half(o, 1), byte_of(w, 3));
        const uint32_t a = w & 0xffffu, b = prev >> 16;
        const uint32_t p = satfeat_sat_half_pack(a, b);
        assert_int_equal(satfeat_sat_half(p, 0), a);
        assert_int_equal(satfeat_sat_half(p, 1), b);
    }
    for (int m = 0; m < 4; m++)
        assert_int_equal(satfeat_sat_word_prefix(0x01010101u, m, 0), (uint32_t)(m + 1));
}

enum { LANES = 8, RUN = 16, ROWS = 4, COLS = LANES * RUN };

/* One group's strip: rows of input columns 0 .. COLS-1 plus `left` (the column before the
 * strip), above: the table row above the group (COLS values), carry[u]: row u's sum left of the
 * strip. Replays the kernel and compares every output with a plain running sum. */
static void replay_group(const uint8_t in[ROWS][COLS], const uint8_t left[ROWS],
                         const uint32_t above[COLS], const uint32_t carry[ROWS])
{
    uint32_t sw[LANES][ROWS][4], own[LANES][ROWS];
    uint32_t even[LANES][4], odd[LANES][4];
    memset(even, 0, sizeof even);
    memset(odd, 0, sizeof odd);
    for (int l = 0; l < LANES; l++)
        for (int u = 0; u < ROWS; u++) {
            uint32_t raw[4] = {0, 0, 0, 0};
            for (int m = 0; m < RUN; m++) raw[m / 4] |= (uint32_t)in[u][RUN * l + m] << (8 * (m % 4));
            uint32_t prev = l == 0 ? (uint32_t)left[u] << 24 : 0u;
            if (l > 0) /* the lane before's last input word, as the shuffle gives it */
                for (int m = 0; m < 4; m++) prev |= (uint32_t)in[u][RUN * l - 4 + m] << (8 * m);
            uint32_t s = 0;
            for (int j = 0; j < 4; j++) {
                sw[l][u][j] = satfeat_sat_word_shift(raw[j], prev);
                prev = raw[j];
                s = satfeat_sat_word_sum(sw[l][u][j], s);
                even[l][j] += satfeat_sat_word_even(sw[l][u][j]);
                odd[l][j] += satfeat_sat_word_odd(sw[l][u][j]);
            }
            own[l][u] = s;
        }
    /* table column c of the strip holds input column c - 1 (left for c = 0) */
    uint32_t want_row_sum[ROWS] = {0}, want_col[COLS] = {0};
    for (int u = 0; u < ROWS; u++)
        for (int c = 0; c < COLS; c++) {
            const uint32_t v = c == 0 ? left[u] : in[u][c - 1];
            want_row_sum[u] += v;
            want_col[c] += v;
        }
    uint32_t ex[LANES][ROWS / 2];
    for (int p = 0; p < ROWS / 2; p++) {
        uint32_t incl = 0;
        for (int l = 0; l < LANES; l++) {
            const uint32_t mine = satfeat_sat_half_pack(own[l][2 * p], own[l][2 * p + 1]);
            incl += mine;
            ex[l][p] = incl - mine;
        }
        assert_int_equal(satfeat_sat_half(incl, 0), want_row_sum[2 * p]);
        assert_int_equal(satfeat_sat_half(incl, 1), want_row_sum[2 * p + 1]);
    }
    for (int l = 0; l < LANES; l++)
        for (int j = 0; j < 4; j++) {
            assert_int_equal(satfeat_sat_half(even[l][j], 0), want_col[RUN * l + 4 * j]);
            assert_int_equal(satfeat_sat_half(odd[l][j], 0), want_col[RUN * l + 4 * j + 1]);
            assert_int_equal(satfeat_sat_half(even[l][j], 1), want_col[RUN * l + 4 * j + 2]);
            assert_int_equal(satfeat_sat_half(odd[l][j], 1), want_col[RUN * l + 4 * j + 3]);
        }
    /* the carry rows: o starts as the row above, each row adds its prefix along the strip */
    uint32_t o[COLS], want[COLS];
    memcpy(o, above, sizeof o);
    memcpy(want, above, sizeof want);
    for (int u = 0; u < ROWS; u++) {
        for (int l = 0; l < LANES; l++) {
            uint32_t base = satfeat_sat_half(ex[l][u / 2], u % 2) + carry[u];
            for (int j = 0; j < 4; j++) {
                uint32_t next = base;
                for (int m = 0; m < 4; m++) {
                    const uint32_t p = satfeat_sat_word_prefix(sw[l][u][j], m, base);
                    o[RUN * l + 4 * j + m] += p;
                    if (m == 3) next = p;
                }
                base = next;
            }
        }
        uint32_t run = carry[u];
        for (int c = 0; c < COLS; c++) {
            run += c == 0 ? left[u] : in[u][c - 1];
            want[c] += run;
        }
        assert_memory_equal(o, want, sizeof o);
    }
}

static void test_group_replay(void **state)
{
    (void)state;
    test_rng r;
    test_rng_seed(&r, 5);
    uint8_t in[ROWS][COLS], left[ROWS];
    uint32_t above[COLS], carry[ROWS];
    for (int it = 0; it < 200; it++) {
        test_fill_u8(&r, &in[0][0], sizeof in);
        test_fill_u8(&r, left, sizeof left);
        if (it % 3 == 0) { /* the largest sums the 16-bit halves must hold */
            memset(in, 0xff, sizeof in);
            memset(left, 0xff, sizeof left);
        }
        for (int c = 0; c < COLS; c++) above[c] = (uint32_t)test_rng_next(&r);
        for (int u = 0; u < ROWS; u++) carry[u] = (uint32_t)test_rng_next(&r);
        replay_group((const uint8_t(*)[COLS])in, left, above, carry);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_ticket_order),
                                       cmocka_unit_test(test_word_functions),
                                       cmocka_unit_test(test_group_replay)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
