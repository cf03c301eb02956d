/* satfeat/ar.hpp - libsatfeat C++17 interface: augmented reality: planar targets, the camera
 * model, sessions. Part of satfeat.hpp, which includes every part; include satfeat.hpp. */
#ifndef SATFEAT_HPP_AR
#define SATFEAT_HPP_AR

#include "satfeat/features.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace satfeat {

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

} // namespace satfeat

#endif /* SATFEAT_HPP_AR */
