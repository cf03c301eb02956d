/*
 * satfeat.hpp - the C++17 interface of libsatfeat: header-only, over the C API of satfeat.h
 * (which it includes, so every C call stays available).
 *
 *  - Objects own their C handle and free it (RAII); they are move-only, and a moved-from object
 *    is empty. An object made on a context (detector, tracker, video, AR session) keeps a pointer
 *    to it: the context must outlive it, as in C.
 *  - A failed call throws satfeat::error, carrying the satfeat_status and the library's message.
 *    satfeat::estimate_motion returns an empty std::optional when no model is found instead.
 *  - Results of variable size are read through satfeat::span, a pointer and a count into memory
 *    the owning object keeps (valid until that object is refilled or destroyed).
 *  - Parameters are the C structs (satfeat_detector_params, ...): take the defaults from the
 *    *_params_default() call and change fields, as in C.
 *  - One object must not be used by two threads at once; two contexts never interfere.
 *
 * The OpenCV adapter (satfeat::cv::Detector, a cv::Feature2D) is in <satfeat/opencv.hpp>.
 * docs/CPP.md describes both.
 */
#ifndef SATFEAT_HPP
#define SATFEAT_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "satfeat.hpp needs C++17 (-std=c++17); C programs include satfeat.h"
#endif

#include "satfeat.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace satfeat {

/** The exception every failed call throws: what() is the library's message (the context's last
 *  error, or the status's description where the call has no context); status() the C status. */
class error : public std::runtime_error {
public:
    /** An error of `status` with `message`. */
    error(satfeat_status status, const std::string &message)
        : std::runtime_error(message), status_(status)
    {
    }

    /** The status of the failed call (never SATFEAT_OK). */
    satfeat_status status() const noexcept { return status_; }

private:
    satfeat_status status_;
};

namespace detail {

/** Throws satfeat::error for a status other than SATFEAT_OK: the context's message when it has
 *  one, else "`call`: <description of the status>". */
inline void check(satfeat_status status, const satfeat_ctx *ctx, const char *call)
{
    if (status == SATFEAT_OK) return;
    const char *text = ctx ? satfeat_ctx_last_error(ctx) : nullptr;
    if (text && *text) throw error(status, text);
    throw error(status, std::string(call) + ": " + satfeat_status_string(status));
}

/** A deleter for std::unique_ptr that calls the C destructor `Delete`. */
template <class T, void (*Delete)(T *)>
struct deleter {
    /** Frees `p` (NULL is allowed). */
    void operator()(T *p) const noexcept { Delete(p); }
};

/** A move-only owner of a C handle of type T freed by `Delete`. */
template <class T, void (*Delete)(T *)>
using handle = std::unique_ptr<T, deleter<T, Delete>>;

/** Runs a C call of the `T **` output convention (NULL: the call creates the object, else it
 *  refills it) on the object `h` owns, keeps what the call leaves there, and throws on failure
 *  with `ctx`'s message. */
template <class T, void (*Delete)(T *), class Call>
void refill(handle<T, Delete> &h, const satfeat_ctx *ctx, const char *name, Call &&call)
{
    T *raw = h.release();
    const satfeat_status st = call(&raw);
    h.reset(raw);
    check(st, ctx, name);
}

} // namespace detail

/** A view of `size()` contiguous elements owned elsewhere (C++20's std::span, reduced to what
 *  C++17 needs). Built from a pointer and a count, or from any contiguous container (std::vector,
 *  std::array, a C array) whose elements convert to T. */
template <class T>
class span {
public:
    using element_type = T;
    using value_type = std::remove_cv_t<T>;
    using size_type = std::size_t;
    using iterator = T *;

    /** An empty view. */
    constexpr span() noexcept = default;

    /** A view of `size` elements at `data`. */
    constexpr span(T *data, std::size_t size) noexcept : data_(data), size_(size) {}

    /** A view of a contiguous container's elements (std::data and std::size of it). */
    template <class C, class = std::enable_if_t<
                           !std::is_same_v<std::decay_t<C>, span> &&
                           std::is_convertible_v<decltype(std::data(std::declval<C &>())), T *>>>
    constexpr span(C &&container) noexcept
        : data_(std::data(container)), size_(std::size(container))
    {
    }

    /** The first element (nullptr when empty). */
    constexpr T *data() const noexcept { return data_; }
    /** The number of elements. */
    constexpr std::size_t size() const noexcept { return size_; }
    /** True when there is no element. */
    constexpr bool empty() const noexcept { return size_ == 0; }
    /** Element i (unchecked, i < size()). */
    constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
    /** Iterators over the elements. */
    constexpr T *begin() const noexcept { return data_; }
    /** The end iterator. */
    constexpr T *end() const noexcept { return data_ + size_; }
    /** The elements [offset, offset + count), clamped to the view. */
    constexpr span subspan(std::size_t offset, std::size_t count) const noexcept
    {
        if (offset > size_) offset = size_;
        if (count > size_ - offset) count = size_ - offset;
        return span(data_ + offset, count);
    }
    /** A copy of the elements. */
    std::vector<value_type> to_vector() const { return std::vector<value_type>(begin(), end()); }

private:
    T *data_ = nullptr;
    std::size_t size_ = 0;
};

/** The library's version as "MAJOR.MINOR.PATCH" (the library the program runs against). */
inline std::string version() { return satfeat_version_string(); }

/** True when the library was built with the CUDA backend. */
inline bool has_cuda_build() noexcept { return satfeat_has_cuda_build() != 0; }

/** The number of usable CUDA devices (0 without any, or without the CUDA backend). */
inline int cuda_device_count() noexcept { return satfeat_cuda_device_count(); }

/** A context: the backend (CPU or a CUDA device), thread count, memory limit, stream and the
 *  message of the last failure (satfeat_ctx). Every other object of a context must be
 *  destroyed before it. */
class context {
public:
    /** A context on `backend` (AUTO: CUDA when a device is usable, else the CPU) and CUDA device
     *  `device` (negative: device 0). Throws SATFEAT_ERR_NO_DEVICE / _UNSUPPORTED for CUDA
     *  without a device or a CUDA build. */
    explicit context(satfeat_backend backend = SATFEAT_BACKEND_AUTO, int device = -1)
    {
        satfeat_ctx *raw = nullptr;
        detail::check(satfeat_ctx_new(&raw, backend, device), nullptr, "context");
        ctx_.reset(raw);
    }

    /** The resolved backend: SATFEAT_BACKEND_CPU or SATFEAT_BACKEND_CUDA. */
    satfeat_backend backend() const noexcept { return satfeat_ctx_backend(ctx_.get()); }
    /** The CUDA device ordinal, -1 on the CPU. */
    int device() const noexcept { return satfeat_ctx_device(ctx_.get()); }
    /** The CPU threads the context uses (>= 1). */
    int threads() const noexcept { return satfeat_ctx_threads(ctx_.get()); }
    /** Sets the CPU threads (0: the OpenMP default, 1: serial). */
    void set_threads(int threads)
    {
        detail::check(satfeat_ctx_set_threads(ctx_.get(), threads), ctx_.get(), "set_threads");
    }
    /** The memory limit in bytes (satfeat_ctx_set_memory_limit). */
    std::size_t memory_limit() const noexcept { return satfeat_ctx_memory_limit(ctx_.get()); }
    /** Sets the memory limit in bytes (0: the default). */
    void set_memory_limit(std::size_t bytes)
    {
        detail::check(satfeat_ctx_set_memory_limit(ctx_.get(), bytes), ctx_.get(),
                      "set_memory_limit");
    }
    /** Sets the CUDA stream (a cudaStream_t) of host-memory calls; CUDA contexts only. */
    void set_stream(void *stream)
    {
        detail::check(satfeat_ctx_set_stream(ctx_.get(), stream), ctx_.get(), "set_stream");
    }
    /** The message of the last failed call ("" when none). */
    std::string last_error() const { return satfeat_ctx_last_error(ctx_.get()); }
    /** The C handle (owned by this object). */
    satfeat_ctx *get() const noexcept { return ctx_.get(); }

private:
    detail::handle<satfeat_ctx, satfeat_ctx_delete> ctx_;
};

/** A non-owning view of 8-bit gray pixels, with an optional mask (satfeat_image_view): the
 *  memory stays the caller's and must outlive the calls that read it. */
class image_view {
public:
    /** A view of width x height host pixels whose rows are `stride` bytes apart (0: width). */
    image_view(const std::uint8_t *pixels, int width, int height, std::size_t stride = 0) noexcept
        : v_(satfeat_image_view_host(pixels, width, height, stride))
    {
    }

    /** A view of a tightly packed width x height image in `pixels`; throws SATFEAT_ERR_ARG when
     *  the vector holds fewer than width * height bytes. */
    image_view(const std::vector<std::uint8_t> &pixels, int width, int height)
        : image_view(pixels.data(), width, height, 0)
    {
        if (width < 1 || height < 1 ||
            pixels.size() / static_cast<std::size_t>(width) < static_cast<std::size_t>(height))
            throw error(SATFEAT_ERR_ARG, "image_view: the vector holds fewer than width x height "
                                         "bytes");
    }

    /** Not from a temporary vector: the view would outlive its pixels. */
    image_view(std::vector<std::uint8_t> &&, int, int) = delete;

    /** A view of the C struct as it is (host or device pixels, mask and stream included). */
    explicit image_view(const satfeat_image_view &view) noexcept : v_(view) {}

    /** A view of CUDA device pixels ready on `stream` (a cudaStream_t; nullptr: the legacy
     *  default stream), for the calls of a CUDA context that take device views. */
    static image_view device(const std::uint8_t *d_pixels, int width, int height,
                             std::size_t stride = 0, void *stream = nullptr) noexcept
    {
        return image_view(satfeat_image_view_device(d_pixels, width, height, stride, stream));
    }

    /** This view with a mask of the same size in the same memory (rows `mask_stride` bytes
     *  apart, 0: width): keypoints are kept only where the mask is not 0. */
    image_view with_mask(const std::uint8_t *mask, std::size_t mask_stride = 0) const noexcept
    {
        satfeat_image_view v = v_;
        v.mask = mask;
        v.mask_stride = mask_stride ? mask_stride : static_cast<std::size_t>(v.width);
        return image_view(v);
    }

    /** The top-left pixel. */
    const std::uint8_t *pixels() const noexcept { return v_.pixels; }
    /** Pixels per row. */
    int width() const noexcept { return v_.width; }
    /** Rows. */
    int height() const noexcept { return v_.height; }
    /** Bytes from one row to the next. */
    std::size_t stride() const noexcept { return v_.stride; }
    /** The mask, or nullptr. */
    const std::uint8_t *mask() const noexcept { return v_.mask; }
    /** The C struct the calls take. */
    const satfeat_image_view &c_view() const noexcept { return v_; }

private:
    satfeat_image_view v_;
};

/** An 8-bit gray image that owns its pixels (tightly packed rows): read from a file, or made
 *  blank and filled by the program. */
class image {
public:
    /** An empty image (0 x 0). */
    image() = default;

    /** A width x height image of zero pixels; throws SATFEAT_ERR_ARG for a size below 1. */
    image(int width, int height) : width_(width), height_(height)
    {
        if (width < 1 || height < 1) throw error(SATFEAT_ERR_ARG, "image: size below 1");
        pixels_.assign(static_cast<std::size_t>(width) * static_cast<std::size_t>(height), 0);
    }

    /** Reads a PNG, JPEG, PGM or PPM file as 8-bit gray (satfeat_image_read_gray8: its
     *  conversion, its limits, the memory limit of `ctx`); throws SATFEAT_ERR_IO,
     *  SATFEAT_ERR_FORMAT, ... with the library's message. */
    static image load(context &ctx, const std::string &path)
    {
        satfeat_image_info info{};
        detail::check(satfeat_image_read_info(ctx.get(), path.c_str(), &info), ctx.get(),
                      "image_read_info");
        image img(info.width, info.height);
        detail::check(satfeat_image_read_gray8(ctx.get(), path.c_str(), img.pixels_.data(),
                                               static_cast<std::size_t>(info.width), info.width,
                                               info.height),
                      ctx.get(), "image_read_gray8");
        return img;
    }

    /** load() with a CPU context of its own for the message (the default memory limit). */
    static image load(const std::string &path)
    {
        context ctx(SATFEAT_BACKEND_CPU);
        return load(ctx, path);
    }

    /** Writes the image as an 8-bit gray PNG (satfeat_image_write_png). */
    void save_png(const std::string &path) const
    {
        context ctx(SATFEAT_BACKEND_CPU);
        detail::check(satfeat_image_write_png(ctx.get(), path.c_str(), pixels_.data(),
                                              static_cast<std::size_t>(width_), width_, height_, 1),
                      ctx.get(), "image_write_png");
    }

    /** Pixels per row. */
    int width() const noexcept { return width_; }
    /** Rows. */
    int height() const noexcept { return height_; }
    /** The pixels, row after row (width() bytes each). */
    std::vector<std::uint8_t> &pixels() noexcept { return pixels_; }
    /** The pixels, read-only. */
    const std::vector<std::uint8_t> &pixels() const noexcept { return pixels_; }
    /** A view of the whole image (valid while the image lives and keeps its size). */
    image_view view() const noexcept { return image_view(pixels_.data(), width_, height_, 0); }

private:
    std::vector<std::uint8_t> pixels_;
    int width_ = 0, height_ = 0;
};

/** Keypoints with their descriptors and the size of their image (satfeat_features), filled by
 *  detector::detect and the other producing calls and reused frame after frame (the library
 *  grows it when needed and never shrinks it). */
class features {
public:
    /** An empty set (no C object until a call fills it). */
    features() noexcept = default;

    /** A set holding copies of `keypoints` and, unless kind is SATFEAT_DESCRIPTOR_NONE, of their
     *  descriptors (kind floats each, keypoint order), found in a width x height image: features
     *  from elsewhere for matching and evaluation. Throws SATFEAT_ERR_ARG when the descriptor
     *  count does not fit (satfeat_features_assign's checks otherwise). */
    features(span<const satfeat_keypoint> keypoints, span<const float> descriptors,
             satfeat_descriptor_kind kind, int width, int height)
    {
        const std::size_t dim = static_cast<std::size_t>(kind);
        if (descriptors.size() != keypoints.size() * dim)
            throw error(SATFEAT_ERR_ARG, "features: " + std::to_string(descriptors.size()) +
                                             " descriptor floats for " +
                                             std::to_string(keypoints.size()) + " keypoints of " +
                                             std::to_string(dim));
        satfeat_features *raw = nullptr;
        detail::check(satfeat_features_new(&raw), nullptr, "features_new");
        f_.reset(raw);
        detail::check(satfeat_features_assign(raw, keypoints.data(),
                                              dim ? descriptors.data() : nullptr,
                                              keypoints.size(), kind, width, height),
                      nullptr, "features_assign");
    }

    /** The number of features. */
    std::size_t size() const noexcept { return satfeat_features_count(f_.get()); }
    /** True when there is no feature. */
    bool empty() const noexcept { return size() == 0; }
    /** The keypoints, in the order of the call that produced them. */
    span<const satfeat_keypoint> keypoints() const noexcept
    {
        return span<const satfeat_keypoint>(satfeat_features_keypoints(f_.get()), size());
    }
    /** The descriptor kind (SATFEAT_DESCRIPTOR_NONE: keypoints only). */
    satfeat_descriptor_kind descriptor_kind() const noexcept
    {
        return satfeat_features_descriptor_kind(f_.get());
    }
    /** Floats per descriptor: 0, 64 or 128. */
    int descriptor_size() const noexcept { return static_cast<int>(descriptor_kind()); }
    /** All descriptors, descriptor_size() floats per keypoint in keypoint order (empty when
     *  the set has none). */
    span<const float> descriptors() const noexcept
    {
        const float *d = satfeat_features_descriptors(f_.get());
        return span<const float>(d, d ? size() * static_cast<std::size_t>(descriptor_size()) : 0);
    }
    /** The descriptor of feature i (empty when the set has none; i < size()). */
    span<const float> descriptor(std::size_t i) const noexcept
    {
        const std::size_t dim = static_cast<std::size_t>(descriptor_size());
        return descriptors().subspan(i * dim, dim);
    }
    /** The width of the image the features were found in (0 for an empty new set). */
    int image_width() const noexcept
    {
        int w = 0;
        satfeat_features_image_size(f_.get(), &w, nullptr);
        return w;
    }
    /** The height of the image the features were found in. */
    int image_height() const noexcept
    {
        int h = 0;
        satfeat_features_image_size(f_.get(), nullptr, &h);
        return h;
    }
    /** The C handle (nullptr until filled), owned by this object. */
    const satfeat_features *get() const noexcept { return f_.get(); }

    /** Runs a C call of the `satfeat_features **` convention on this set (created when it has
     *  none, refilled otherwise) and throws on failure, with `ctx`'s message. */
    template <class Call>
    void fill(const satfeat_ctx *ctx, const char *name, Call &&call)
    {
        detail::refill(f_, ctx, name, std::forward<Call>(call));
    }

private:
    detail::handle<satfeat_features, satfeat_features_delete> f_;
};

/** A list of matches (satfeat_matches): pairs of a query and a train feature index with their
 *  descriptor distance, in ascending query order. */
class matches {
public:
    /** An empty list. */
    matches() noexcept = default;
    /** The number of matches. */
    std::size_t size() const noexcept { return satfeat_matches_count(m_.get()); }
    /** True when there is no match. */
    bool empty() const noexcept { return size() == 0; }
    /** The matches. */
    span<const satfeat_match_pair> pairs() const noexcept
    {
        return span<const satfeat_match_pair>(satfeat_matches_data(m_.get()), size());
    }
    /** Iterators over the matches. */
    const satfeat_match_pair *begin() const noexcept { return pairs().begin(); }
    /** The end iterator. */
    const satfeat_match_pair *end() const noexcept { return pairs().end(); }
    /** Match i (unchecked, i < size()). */
    const satfeat_match_pair &operator[](std::size_t i) const noexcept { return pairs()[i]; }
    /** The C handle (nullptr until filled), owned by this object. */
    const satfeat_matches *get() const noexcept { return m_.get(); }

    /** Runs a C call of the `satfeat_matches **` convention on this list and throws on failure,
     *  with `ctx`'s message. */
    template <class Call>
    void fill(const satfeat_ctx *ctx, const char *name, Call &&call)
    {
        detail::refill(m_, ctx, name, std::forward<Call>(call));
    }

private:
    detail::handle<satfeat_matches, satfeat_matches_delete> m_;
};

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

/** Matches query against train (satfeat_match): nearest neighbours with the ratio test, the
 *  mutual check and the Laplacian gate of `params`, in ascending query order. */
inline void match(context &ctx, const features &query, const features &train,
                  const satfeat_match_params &params, matches &out)
{
    out.fill(ctx.get(), "match", [&](satfeat_matches **m) {
        return satfeat_match(ctx.get(), query.get(), train.get(), &params, m);
    });
}

/** match() into a new list, with the default parameters unless given. */
inline matches match(context &ctx, const features &query, const features &train,
                     const satfeat_match_params &params = satfeat_match_params_default())
{
    matches out;
    match(ctx, query, train, params, out);
    return out;
}

/** Matching with a predicted position per query (satfeat_match_guided): `predicted` holds
 *  x, y for each query feature; params.radius > 0 gates the train features around it. Throws
 *  SATFEAT_ERR_ARG when `predicted` does not hold 2 * query.size() values. */
inline matches match_guided(context &ctx, const features &query, const features &train,
                            span<const double> predicted,
                            const satfeat_match_params &params = satfeat_match_params_default())
{
    if (predicted.size() != 2 * query.size())
        throw error(SATFEAT_ERR_ARG, "match_guided: predicted holds " +
                                         std::to_string(predicted.size()) + " values, not 2 x " +
                                         std::to_string(query.size()));
    matches out;
    out.fill(ctx.get(), "match_guided", [&](satfeat_matches **m) {
        return satfeat_match_guided(ctx.get(), query.get(), train.get(), predicted.data(),
                                    &params, m);
    });
    return out;
}

/** A motion estimate: the C result (h, inliers, rms_error, iterations) and one inlier flag
 *  per correspondence (1: inlier under h). */
struct motion_estimate : satfeat_motion {
    std::vector<std::uint8_t> inlier_mask; /**< one flag per correspondence, 1 for inliers */
};

namespace detail {

/** Runs an estimator call: the estimate, empty on SATFEAT_ERR_NO_MODEL, throws otherwise. */
template <class Call>
std::optional<motion_estimate> estimate(context &ctx, std::size_t n, const char *name, Call &&call)
{
    motion_estimate est{};
    est.inlier_mask.assign(n, 0);
    const satfeat_status st = call(static_cast<satfeat_motion *>(&est), est.inlier_mask.data());
    if (st == SATFEAT_ERR_NO_MODEL) return std::nullopt;
    check(st, ctx.get(), name);
    return est;
}

} // namespace detail

/** Robust 2D motion from correspondences (satfeat_estimate_motion): src_xy and dst_xy hold x, y
 *  pairs; `quality` (empty: uniform RANSAC, else one value per correspondence, higher first)
 *  orders PROSAC. Returns no value when no model is found; throws for bad arguments. */
inline std::optional<motion_estimate>
estimate_motion(context &ctx, span<const double> src_xy, span<const double> dst_xy,
                span<const float> quality = {},
                const satfeat_motion_params &params = satfeat_motion_params_default())
{
    const std::size_t n = src_xy.size() / 2;
    if (src_xy.size() % 2 || dst_xy.size() != src_xy.size() ||
        (!quality.empty() && quality.size() != n))
        throw error(SATFEAT_ERR_ARG, "estimate_motion: src_xy and dst_xy must hold the same "
                                     "even count, quality none or one value per pair");
    return detail::estimate(ctx, n, "estimate_motion", [&](satfeat_motion *m, std::uint8_t *mask) {
        return satfeat_estimate_motion(ctx.get(), src_xy.data(), dst_xy.data(), n,
                                       quality.empty() ? nullptr : quality.data(), &params, m,
                                       mask);
    });
}

/** Robust motion from feature set `from` to `to` through their matches
 *  (satfeat_estimate_motion_matches; PROSAC ordered by descriptor distance); the inlier mask
 *  has one flag per match. Returns no value when no model is found. */
inline std::optional<motion_estimate>
estimate_motion(context &ctx, const features &from, const features &to, const matches &m,
                const satfeat_motion_params &params = satfeat_motion_params_default())
{
    return detail::estimate(ctx, m.size(), "estimate_motion_matches",
                            [&](satfeat_motion *out, std::uint8_t *mask) {
                                return satfeat_estimate_motion_matches(
                                    ctx.get(), from.get(), to.get(), m.get(), &params, out, mask);
                            });
}

/** The frame-to-frame tracker (satfeat_tracker): detection, guided matching, motion and track
 *  bookkeeping, one frame at a time; the same tracks bit for bit on every backend. */
class tracker {
public:
    /** A tracker on `ctx` for frames up to max_width x max_height with `params`. */
    tracker(context &ctx, int max_width, int max_height,
            const satfeat_tracker_params &params = satfeat_tracker_params_default())
        : ctx_(ctx.get()), dim_(static_cast<int>(params.detector.descriptor))
    {
        satfeat_tracker *raw = nullptr;
        detail::check(satfeat_tracker_new(ctx_, &params, max_width, max_height, &raw), ctx_,
                      "tracker_new");
        t_.reset(raw);
    }

    /** Feeds one frame; returns its motion (valid 0 when no model was found: no exception). */
    satfeat_frame_motion track(const image_view &frame)
    {
        satfeat_frame_motion m{};
        detail::check(satfeat_tracker_track(t_.get(), &frame.c_view(), &m), ctx_, "tracker_track");
        return m;
    }

    /** Queues a host frame (copied); when 3 were pending the oldest is finished and its motion
     *  returned (its tracks then readable through tracks()), else no value. */
    std::optional<satfeat_frame_motion> push(const image_view &frame)
    {
        satfeat_frame_motion m{};
        int popped = 0;
        detail::check(satfeat_tracker_push(t_.get(), &frame.c_view(), &m, &popped), ctx_,
                      "tracker_push");
        if (!popped) return std::nullopt;
        return m;
    }

    /** Finishes the oldest pushed frame and returns its motion (SATFEAT_ERR_ARG when none). */
    satfeat_frame_motion pop()
    {
        satfeat_frame_motion m{};
        detail::check(satfeat_tracker_pop(t_.get(), &m), ctx_, "tracker_pop");
        return m;
    }

    /** Frames pushed and not yet popped. */
    int pending() const noexcept { return satfeat_tracker_pending(t_.get()); }

    /** The live tracks after the last frame consumed, in ascending id order. */
    span<const satfeat_track> tracks() const noexcept
    {
        std::size_t n = 0;
        const satfeat_track *t = satfeat_tracker_tracks(t_.get(), &n);
        return span<const satfeat_track>(t, n);
    }

    /** The tracks' last descriptors, descriptor_size() floats each, in the order of tracks(). */
    span<const float> descriptors() const noexcept
    {
        const float *d = satfeat_tracker_track_descriptors(t_.get());
        return span<const float>(d, d ? tracks().size() * static_cast<std::size_t>(dim_) : 0);
    }

    /** Floats per track descriptor (64 or 128). */
    int descriptor_size() const noexcept { return dim_; }

    /** Forgets every track and the motion history (ids are never reused). */
    void reset() { detail::check(satfeat_tracker_reset(t_.get()), ctx_, "tracker_reset"); }

    /** The C handle, owned by this object. */
    satfeat_tracker *get() const noexcept { return t_.get(); }

private:
    satfeat_ctx *ctx_;
    int dim_;
    detail::handle<satfeat_tracker, satfeat_tracker_delete> t_;
};

/** Frames of a video file or a V4L2 camera as 8-bit gray, through FFmpeg (satfeat_video);
 *  throws SATFEAT_ERR_UNSUPPORTED in a build without video support. */
class video {
public:
    /** Opens `path` (flags: SATFEAT_VIDEO_DEVICE for a camera) on `ctx`. */
    video(context &ctx, const std::string &path, unsigned flags = 0) : ctx_(ctx.get())
    {
        satfeat_video *raw = nullptr;
        detail::check(satfeat_video_open(ctx_, path.c_str(), flags, &raw), ctx_, "video_open");
        v_.reset(raw);
    }

    /** What the container says: size, frame count, rate, codec. */
    satfeat_video_info info() const
    {
        satfeat_video_info i{};
        detail::check(satfeat_video_get_info(v_.get(), &i), ctx_, "video_get_info");
        return i;
    }

    /** Reads the next frame into `frame` (made the stream's size); false at the end. */
    bool read(image &frame)
    {
        const satfeat_video_info i = info();
        if (frame.width() != i.width || frame.height() != i.height)
            frame = image(i.width, i.height);
        int got = 0;
        detail::check(satfeat_video_read_gray8(v_.get(), frame.pixels().data(),
                                               static_cast<std::size_t>(i.width), &got),
                      ctx_, "video_read_gray8");
        return got != 0;
    }

    /** Positions the video so the next read returns frame `frame` (0-based). */
    void seek(std::int64_t frame)
    {
        detail::check(satfeat_video_seek(v_.get(), frame), ctx_, "video_seek");
    }

    /** The 0-based number of the frame the next read returns. */
    std::int64_t tell() const noexcept { return satfeat_video_tell(v_.get()); }
    /** The C handle, owned by this object. */
    satfeat_video *get() const noexcept { return v_.get(); }

private:
    satfeat_ctx *ctx_;
    detail::handle<satfeat_video, satfeat_video_delete> v_;
};

/** The (width+1) x (height+1) summed area table of a host image (satfeat_sat_u8), row-major
 *  with rows of width+1 entries, on the context's backend. */
inline std::vector<std::uint32_t> sat_u8(context &ctx, const image_view &image,
                                         satfeat_sat_algo algo = SATFEAT_SAT_AUTO)
{
    const std::size_t cols = static_cast<std::size_t>(image.width()) + 1;
    const std::size_t rows = static_cast<std::size_t>(image.height()) + 1;
    if (image.width() < 1 || image.height() < 1)
        throw error(SATFEAT_ERR_ARG, "sat_u8: size below 1");
    std::vector<std::uint32_t> table(cols * rows);
    detail::check(satfeat_sat_u8(ctx.get(), image.pixels(), image.stride(), image.width(),
                                 image.height(), table.data(), cols * sizeof(std::uint32_t), algo),
                  ctx.get(), "sat_u8");
    return table;
}

/** A planar AR target (satfeat_ar_target): a reference image's features at several scales. */
class ar_target {
public:
    /** Builds a target from a gray host reference image printed `width_m` metres wide. */
    ar_target(context &ctx, const image_view &reference, double width_m,
              const satfeat_ar_target_params &params = satfeat_ar_target_params_default())
    {
        satfeat_ar_target *raw = nullptr;
        detail::check(satfeat_ar_target_new(ctx.get(), reference.pixels(), reference.stride(),
                                            reference.width(), reference.height(), width_m,
                                            &params, &raw),
                      ctx.get(), "ar_target_new");
        t_.reset(raw);
    }

    /** Loads a target saved by save(). */
    static ar_target load(context &ctx, const std::string &path)
    {
        satfeat_ar_target *raw = nullptr;
        detail::check(satfeat_ar_target_load(ctx.get(), path.c_str(), &raw), ctx.get(),
                      "ar_target_load");
        return ar_target(raw);
    }

    /** Saves the target (a failed write leaves an existing file as it was). */
    void save(context &ctx, const std::string &path) const
    {
        detail::check(satfeat_ar_target_save(ctx.get(), t_.get(), path.c_str()), ctx.get(),
                      "ar_target_save");
    }

    /** Its size, physical width, feature count, scales and descriptor size. */
    satfeat_ar_target_info info() const
    {
        satfeat_ar_target_info i{};
        detail::check(satfeat_ar_target_get_info(t_.get(), &i), nullptr, "ar_target_get_info");
        return i;
    }

    /** The C handle, owned by this object. */
    const satfeat_ar_target *get() const noexcept { return t_.get(); }

private:
    explicit ar_target(satfeat_ar_target *raw) noexcept : t_(raw) {}
    detail::handle<satfeat_ar_target, satfeat_ar_target_delete> t_;
};

/** The camera model of a camera of known horizontal field of view (satfeat_ar_camera_from_fov). */
inline satfeat_ar_camera ar_camera_from_fov(int width, int height, double hfov_degrees)
{
    satfeat_ar_camera cam{};
    detail::check(satfeat_ar_camera_from_fov(width, height, hfov_degrees, &cam), nullptr,
                  "ar_camera_from_fov");
    return cam;
}

/** An AR session (satfeat_ar_session): finds and follows its targets frame after frame and
 *  reports the camera's pose for each. The targets are copied: they may be destroyed after. */
class ar_session {
public:
    /** A session on `ctx` for `targets` seen through `camera`, frames up to
     *  max_width x max_height. */
    ar_session(context &ctx, const std::vector<const ar_target *> &targets,
               const satfeat_ar_camera &camera, int max_width, int max_height,
               const satfeat_ar_params &params = satfeat_ar_params_default())
        : ctx_(ctx.get()), n_(static_cast<int>(targets.size()))
    {
        std::vector<const satfeat_ar_target *> raw_targets;
        for (const ar_target *t : targets) raw_targets.push_back(t ? t->get() : nullptr);
        satfeat_ar_session *raw = nullptr;
        detail::check(satfeat_ar_session_new(ctx_, raw_targets.data(), n_, &camera, &params,
                                             max_width, max_height, &raw),
                      ctx_, "ar_session_new");
        s_.reset(raw);
    }

    /** Processes one frame: one result per target, in the targets' order (lost: NaN pose). */
    std::vector<satfeat_ar_result> process(const image_view &frame)
    {
        std::vector<satfeat_ar_result> results(static_cast<std::size_t>(n_));
        detail::check(satfeat_ar_session_process(s_.get(), &frame.c_view(), results.data(), n_),
                      ctx_, "ar_session_process");
        return results;
    }

    /** Forgets every target's state. */
    void reset() { detail::check(satfeat_ar_session_reset(s_.get()), ctx_, "ar_session_reset"); }
    /** The C handle, owned by this object. */
    satfeat_ar_session *get() const noexcept { return s_.get(); }

private:
    satfeat_ctx *ctx_;
    int n_;
    detail::handle<satfeat_ar_session, satfeat_ar_session_delete> s_;
};

/** Reads a 3x3 homography (nine numbers, row-major, the Oxford format). */
inline std::array<double, 9> homography_read(const std::string &path)
{
    context ctx(SATFEAT_BACKEND_CPU);
    std::array<double, 9> h{};
    detail::check(satfeat_homography_read(ctx.get(), path.c_str(), h.data()), ctx.get(),
                  "homography_read");
    return h;
}

} // namespace satfeat

#endif /* SATFEAT_HPP */
