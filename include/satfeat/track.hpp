/* satfeat/track.hpp - libsatfeat C++17 interface: the frame-to-frame tracker and video input. Part
 * of satfeat.hpp, which includes every part; include satfeat.hpp. */
#ifndef SATFEAT_HPP_TRACK
#define SATFEAT_HPP_TRACK

#include "satfeat/features.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

namespace satfeat {

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

} // namespace satfeat

#endif /* SATFEAT_HPP_TRACK */
