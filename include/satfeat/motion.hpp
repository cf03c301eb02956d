/* satfeat/motion.hpp - libsatfeat C++17 interface: descriptor matching, robust motion estimation
 * and homography files. Part of satfeat.hpp, which includes every part; include satfeat.hpp. */
#ifndef SATFEAT_HPP_MOTION
#define SATFEAT_HPP_MOTION

#include "satfeat/features.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace satfeat {

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

#endif /* SATFEAT_HPP_MOTION */
