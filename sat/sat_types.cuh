/* sat_types.cuh - element types and launch geometry shared by the CUDA SAT kernels (sat_2r1w.cu,
 * sat_skss_lb.cu): u8 -> u32 (wrap-around) and f32 -> f32 accumulators, their 16-byte vectors,
 * and the geometry every kernel takes by value. */
#ifndef SATFEAT_SAT_TYPES_CUH
#define SATFEAT_SAT_TYPES_CUH

#include <cstddef>
#include <cstdint>

#include "sat/sat_layout.h"

namespace satfeat_sat {

/** Input and accumulator types: u8 -> u32 (wrap-around) and f32 -> f32. */
template <typename In>
struct SatTypes;

template <>
struct SatTypes<uint8_t> {
    using Acc = uint32_t;
};

template <>
struct SatTypes<float> {
    using Acc = float;
};

/** The 16-byte vector of four accumulators. */
template <typename Acc>
struct AccVec;

template <>
struct AccVec<uint32_t> {
    using type = uint4;
};

template <>
struct AccVec<float> {
    using type = float4;
};

/** Geometry of one launch, passed by value to every kernel. tiles_x x tiles_y: the strips and
 * bands (2R1W) or tiles (SKSS-LB) that cover the (width+1) x (height+1) table. */
struct SatGeom {
    const void *src;
    size_t src_stride; /* bytes */
    void *dst;
    size_t dst_stride; /* bytes */
    int width, height; /* image size: the table is (width+1) x (height+1) */
    int tiles_x, tiles_y;
};

} // namespace satfeat_sat

#endif
