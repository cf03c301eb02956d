/* satfeat/features.hpp - libsatfeat C++17 interface: image views, images, feature sets and match
 * lists. Part of satfeat.hpp, which includes every part; include satfeat.hpp. */
#ifndef SATFEAT_HPP_FEATURES
#define SATFEAT_HPP_FEATURES

#include "satfeat/core.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace satfeat {

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

} // namespace satfeat

#endif /* SATFEAT_HPP_FEATURES */
