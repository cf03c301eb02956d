/* sat_cuda_check.c - see sat_cuda_check.h. */
#include "sat_cuda_check.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sat_check_small(void)
{
    const char *v = getenv("SATFEAT_TEST_SMALL");
    return v && *v && strcmp(v, "0") != 0;
}

static void watchdog_fired(int sig)
{
    (void)sig;
    static const char msg[] = "watchdog: GPU SAT test did not finish in time (hang?)\n";
    ssize_t n = write(2, msg, sizeof msg - 1);
    (void)n;
    _exit(3);
}

void sat_check_watchdog(unsigned seconds)
{
    signal(SIGALRM, watchdog_fired);
    alarm(seconds);
}

void sat_case_u8_new(sat_case_u8 *c, satfeat_ctx *cpu, test_rng *rng, int w, int h)
{
    memset(c, 0, sizeof *c);
    c->w = w;
    c->h = h;
    c->src_stride = (size_t)w + (size_t)test_rng_range(rng, 0, 3) * 16u + (size_t)test_rng_range(rng, 0, 1) * 3u;
    c->dst_stride = ((size_t)w + 1) * 4u + (size_t)test_rng_range(rng, 0, 2) * 16u;
    c->src = malloc(c->src_stride * (size_t)h);
    c->ref = malloc(((size_t)w + 1) * ((size_t)h + 1) * 4u);
    c->out = malloc(c->dst_stride * ((size_t)h + 1));
    assert_non_null(c->src);
    assert_non_null(c->ref);
    assert_non_null(c->out);
    test_fill_u8(rng, c->src, c->src_stride * (size_t)h);
    assert_int_equal(satfeat_sat_u8(cpu, c->src, c->src_stride, w, h, c->ref, ((size_t)w + 1) * 4u,
                                    SATFEAT_SAT_CPU),
                     SATFEAT_OK);
    CUDA_OK(cudaMalloc((void **)&c->d_src, c->src_stride * (size_t)h));
    CUDA_OK(cudaMalloc((void **)&c->d_dst, c->dst_stride * ((size_t)h + 1)));
    CUDA_OK(cudaMemcpy(c->d_src, c->src, c->src_stride * (size_t)h, cudaMemcpyHostToDevice));
}

void sat_case_u8_free(sat_case_u8 *c)
{
    free(c->src);
    free(c->ref);
    free(c->out);
    cudaFree(c->d_src);
    cudaFree(c->d_dst);
    memset(c, 0, sizeof *c);
}

void sat_case_u8_poison(sat_case_u8 *c, cudaStream_t s)
{
    CUDA_OK(cudaMemsetAsync(c->d_dst, 0xab, c->dst_stride * ((size_t)c->h + 1), s));
}

void sat_case_u8_expect(sat_case_u8 *c, const char *what)
{
    CUDA_OK(cudaMemcpy(c->out, c->d_dst, c->dst_stride * ((size_t)c->h + 1), cudaMemcpyDeviceToHost));
    const size_t tw = (size_t)c->w + 1;
    const size_t step = c->dst_stride / 4u;
    for (size_t y = 0; y <= (size_t)c->h; y++) {
        const uint32_t *got = c->out + y * step;
        const uint32_t *want = c->ref + y * tw;
        if (memcmp(got, want, tw * 4u) != 0) {
            size_t x = 0;
            while (got[x] == want[x]) x++;
            print_error("%s %dx%d: entry (%zu, %zu) is %u, want %u\n", what, c->w, c->h, x, y,
                        got[x], want[x]);
            fail();
        }
        for (size_t x = tw; x < step; x++)
            if (got[x] != 0xababababu) {
                print_error("%s %dx%d: padding (%zu, %zu) overwritten\n", what, c->w, c->h, x, y);
                fail();
            }
    }
}

void sat_check_u8_device(satfeat_ctx *ctx, sat_case_u8 *c, satfeat_sat_algo algo)
{
    sat_case_u8_poison(c, NULL);
    satfeat_status st = satfeat_sat_u8_device(ctx, c->d_src, c->src_stride, c->w, c->h, c->d_dst,
                                              c->dst_stride, algo, NULL);
    if (st != SATFEAT_OK) print_error("%s\n", satfeat_ctx_last_error(ctx));
    assert_int_equal(st, SATFEAT_OK);
    CUDA_OK(cudaDeviceSynchronize());
    sat_case_u8_expect(c, algo == SATFEAT_SAT_2R1W ? "2R1W" : algo == SATFEAT_SAT_SKSS_LB ? "SKSS-LB" : "AUTO");
}

double sat_check_f32_gamma(int w, int h)
{
    const double u = 1.0 / 16777216.0;
    const double d = 2.0 * ((double)((w + 32) / 32) + (double)((h + 32) / 32)) + 336.0;
    return d * u / (1.0 - d * u);
}
