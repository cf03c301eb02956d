/* sat_kernels.h - extern "C" launchers of the CUDA SAT kernels (sat_2r1w.cu, sat_skss_lb.cu),
 * called by sat_cuda_host.c. Arguments are validated before they get here. */
#ifndef SATFEAT_SAT_KERNELS_H
#define SATFEAT_SAT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** One SAT launch: device image and table, the context's work buffer, tile height, stream. */
typedef struct satfeat_sat_launch {
    const void *src;   /* device image (uint8_t or float) */
    size_t src_stride; /* bytes */
    void *dst;         /* device table (uint32_t or float), (width+1) x (height+1) */
    size_t dst_stride; /* bytes */
    int width;
    int height;
    void *work;        /* the SATFEAT_SLOT_SAT_WORK buffer (layout in sat_layout.h) */
    int tile;          /* rows per band (2R1W) or tile (SKSS-LB, 128 columns): 32, 64, 128, u8 SKSS 256 */
    void *stream;      /* cudaStream_t */
} satfeat_sat_launch;

/*
 * Each launcher enqueues its kernels and returns a cudaError_t as int (0 = success); on
 * failure *failed_call names the CUDA call or kernel that failed.
 */
int satfeat_sat_2r1w_u8_launch(const satfeat_sat_launch *l, const char **failed_call);
int satfeat_sat_2r1w_f32_launch(const satfeat_sat_launch *l, const char **failed_call);
int satfeat_sat_skss_lb_u8_launch(const satfeat_sat_launch *l, const char **failed_call);
int satfeat_sat_skss_lb_f32_launch(const satfeat_sat_launch *l, const char **failed_call);

#ifdef __cplusplus
}
#endif

#endif
