/* satfeat/detect.hpp - libsatfeat C++17 interface: the detector, sequences of frames in flight and
 * summed area tables. Part of satfeat.hpp, which includes every part; include satfeat.hpp. */
#ifndef SATFEAT_HPP_DETECT
#define SATFEAT_HPP_DETECT

#include "satfeat/features.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace satfeat {

/** The Fast-Hessian detector (satfeat_detector): keypoints with orientations and SURF
 *  descriptors, bit-identical on the CPU and CUDA backends. */
class detector {
public:
    /** A detector on `ctx` with `params` for frames up to max_width x max_height (0 x 0: sized
     *  by its frames, growing for a larger one). Throws SATFEAT_ERR_ARG for bad parameters. */
    explicit detector(context &ctx,
                      const satfeat_detector_params &params = satfeat_detector_params_default(),
                      int max_width = 0, int max_height = 0)
        : ctx_(ctx.get())
    {
        satfeat_detector *raw = nullptr;
        detail::check(satfeat_detector_new(ctx_, &params, max_width, max_height, &raw), ctx_,
                      "detector_new");
        det_.reset(raw);
    }

    /** Detects the features of `image` (satfeat_detect): keypoints sorted strongest first,
     *  with descriptors of the detector's kind. */
    features detect(const image_view &image)
    {
        features out;
        detect(image, out);
        return out;
    }

    /** detect() into an existing set, reusing its memory (the steady state allocates nothing). */
    void detect(const image_view &image, features &out)
    {
        out.fill(ctx_, "detect", [&](satfeat_features **f) {
            return satfeat_detect(det_.get(), &image.c_view(), f);
        });
    }

    /** Orientations and descriptors of the given keypoints in `image` with this detector's
     *  parameters (satfeat_describe_keypoints): keypoints of another source, in their order,
     *  their angle recomputed (0 when upright). */
    features describe(const image_view &image, span<const satfeat_keypoint> keypoints)
    {
        features out;
        describe(image, keypoints, out);
        return out;
    }

    /** describe() into an existing set. */
    void describe(const image_view &image, span<const satfeat_keypoint> keypoints, features &out)
    {
        out.fill(ctx_, "describe_keypoints", [&](satfeat_features **f) {
            return satfeat_describe_keypoints(det_.get(), &image.c_view(), keypoints.data(),
                                              keypoints.size(), f);
        });
    }

    /** Floats per descriptor: 0, 64 or 128. */
    int descriptor_size() const noexcept { return satfeat_detector_descriptor_dim(det_.get()); }
    /** The C handle, owned by this object. */
    satfeat_detector *get() const noexcept { return det_.get(); }
    /** The C context the detector was made on. */
    satfeat_ctx *context_handle() const noexcept { return ctx_; }

private:
    satfeat_ctx *ctx_;
    detail::handle<satfeat_detector, satfeat_detector_delete> det_;
};

/** Several frames in flight on one detector (satfeat_sequence): on CUDA, uploads, detection
 *  and downloads of successive frames overlap; frames come back in push order with exactly
 *  the features detector::detect gives. The detector must outlive it. */
class sequence {
public:
    /** A sequence of `slots` frames in flight on `det`, spread over `lanes` detectors. */
    sequence(detector &det, int slots, int lanes = 1) : ctx_(det.context_handle())
    {
        satfeat_sequence *raw = nullptr;
        detail::check(satfeat_sequence_new_lanes(det.get(), slots, lanes, &raw), ctx_,
                      "sequence_new");
        seq_.reset(raw);
    }

    /** Queues a host frame (copied before the call returns). When every slot was taken, the
     *  oldest frame is finished into `popped` and the call returns true, else false. */
    bool push(const image_view &frame, features &popped)
    {
        int flag = 0;
        popped.fill(ctx_, "sequence_push", [&](satfeat_features **f) {
            return satfeat_sequence_push(seq_.get(), &frame.c_view(), f, &flag);
        });
        return flag != 0;
    }

    /** Finishes the oldest pending frame into `out`. Throws SATFEAT_ERR_ARG when none is. */
    void pop(features &out)
    {
        out.fill(ctx_, "sequence_pop",
                 [&](satfeat_features **f) { return satfeat_sequence_pop(seq_.get(), f); });
    }

    /** Finishes the oldest pending frame. */
    features pop()
    {
        features out;
        pop(out);
        return out;
    }

    /** Frames pushed and not yet popped. */
    int pending() const noexcept { return satfeat_sequence_pending(seq_.get()); }
    /** The C handle, owned by this object. */
    satfeat_sequence *get() const noexcept { return seq_.get(); }

private:
    satfeat_ctx *ctx_;
    detail::handle<satfeat_sequence, satfeat_sequence_delete> seq_;
};

/** The (width+1) x (height+1) summed area table of a host image (satfeat_sat_u8), row-major
 *  with rows of width+1 entries, on the context's backend. */
inline std::vector<std::uint32_t> sat_u8(context &ctx, const image_view &image,
                                         satfeat_sat_algo algo = SATFEAT_SAT_AUTO)
{
    if (image.width() < 1 || image.height() < 1)
        throw error(SATFEAT_ERR_ARG, "sat_u8: size below 1");
    const std::size_t cols = static_cast<std::size_t>(image.width()) + 1;
    const std::size_t rows = static_cast<std::size_t>(image.height()) + 1;
    std::vector<std::uint32_t> table(cols * rows);
    detail::check(satfeat_sat_u8(ctx.get(), image.pixels(), image.stride(), image.width(),
                                 image.height(), table.data(), cols * sizeof(std::uint32_t), algo),
                  ctx.get(), "sat_u8");
    return table;
}

} // namespace satfeat

#endif /* SATFEAT_HPP_DETECT */
