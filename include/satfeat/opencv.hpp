/*
 * satfeat/opencv.hpp - libsatfeat as an OpenCV cv::Feature2D, and conversions between the
 * library's types and OpenCV's (cv::Mat, cv::KeyPoint, cv::DMatch). Header-only over
 * satfeat.hpp: the library itself does not link OpenCV; a program that includes this header
 * links OpenCV's core, imgproc and features2d modules besides libsatfeat.
 *
 * The swap, in a program written against cv::Feature2D:
 *     cv::Ptr<cv::Feature2D> detector = cv::xfeatures2d::SURF::create();   // or cv::SIFT::create()
 * becomes
 *     cv::Ptr<cv::Feature2D> detector = satfeat::cv::Detector::create();
 * and detect, compute, detectAndCompute, cv::BFMatcher (NORM_L2), cv::drawMatches and
 * cv::findHomography work on its output unchanged.
 *
 * Keypoint conventions (those of cv::KeyPoint and of OpenCV's SURF):
 *  - pt: the library's (x, y) as float; both put pixel centres at integer coordinates.
 *  - size: the library's size, the side L of the box filter that found the keypoint (9, 15, 21,
 *    27 in the first octave), which is what OpenCV's SURF reports as size; L = 7.5 sigma
 *    (sigma = 1.2 L / 9), the orientation window has radius 6 sigma = 0.8 L and the descriptor
 *    window side 20 sigma = 2.67 L.
 *  - angle: degrees in [0, 360), the library's radians * 180 / pi: clockwise on the image
 *    (x right, y down), the direction cv::drawKeypoints draws; -1 ("not applicable") for an
 *    upright detector.
 *  - response: the library's normalised determinant (intensities in [0, 1], divided by L^4);
 *    not on the scale of OpenCV SURF's hessianThreshold.
 *  - octave: the 0-based octave (as OpenCV's SURF; not SIFT's packed octave and layer).
 *  - class_id: the Laplacian sign, -1 bright blob, +1 dark blob (OpenCV's SURF stores the same
 *    sign of Dxx + Dyy there); satfeat::cv::from_keypoint maps class_id > 0 to +1, all else to -1.
 */
#ifndef SATFEAT_OPENCV_HPP
#define SATFEAT_OPENCV_HPP

#include <satfeat.hpp>

#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <unordered_map>
#include <vector>

namespace satfeat {
namespace cv {

namespace detail {
constexpr double pi = 3.14159265358979323846;

/** Throws cv::Exception (code StsBadArg, or `code`) with `message` unless `ok`. OpenCV's own
 *  CV_Assert cannot be used in this namespace: its expansion names `cv::`, which here means
 *  satfeat::cv. */
inline void require(bool ok, const char *message, int code = ::cv::Error::StsBadArg)
{
    if (!ok) ::cv::error(code, message, "satfeat::cv", __FILE__, __LINE__);
}
} // namespace detail

/** A view of an 8-bit single-channel cv::Mat's pixels (no copy; any row step, ROIs included):
 *  valid while the Mat's data lives. Throws cv::Exception for another type or an empty Mat. */
inline satfeat::image_view to_image_view(const ::cv::Mat &gray)
{
    detail::require(!gray.empty() && gray.dims == 2 && gray.type() == CV_8UC1,
                    "to_image_view: an 8-bit single-channel (CV_8UC1) 2D Mat is needed");
    return satfeat::image_view(gray.ptr<std::uint8_t>(), gray.cols, gray.rows, gray.step[0]);
}

/** A CV_8UC1 cv::Mat header over a host view's pixels (no copy, the view's stride): read it
 *  only (the view's memory is const), or clone() it. */
inline ::cv::Mat to_mat(const satfeat::image_view &view)
{
    return ::cv::Mat(view.height(), view.width(), CV_8UC1,
                     const_cast<std::uint8_t *>(view.pixels()), view.stride());
}

/** The cv::KeyPoint of a library keypoint (conventions above); `upright` gives angle -1. */
inline ::cv::KeyPoint to_keypoint(const satfeat_keypoint &k, bool upright = false)
{
    float angle = -1.0f;
    if (!upright) {
        angle = static_cast<float>(k.angle * (180.0 / detail::pi));
        if (!(angle >= 0.0f && angle < 360.0f)) angle = 0.0f; /* 2 pi - tiny rounds to 360 */
    }
    return ::cv::KeyPoint(static_cast<float>(k.x), static_cast<float>(k.y),
                          static_cast<float>(k.size), angle, static_cast<float>(k.response),
                          k.octave, k.laplacian);
}

/** The cv::KeyPoints of library keypoints, in their order. */
inline std::vector<::cv::KeyPoint> to_keypoints(satfeat::span<const satfeat_keypoint> kp,
                                                bool upright = false)
{
    std::vector<::cv::KeyPoint> out;
    out.reserve(kp.size());
    for (const satfeat_keypoint &k : kp) out.push_back(to_keypoint(k, upright));
    return out;
}

/** The library keypoint of a cv::KeyPoint (conventions above): sigma = 1.2 size / 9, angle in
 *  radians (a negative angle, "not applicable", gives 0), Laplacian from class_id. */
inline satfeat_keypoint from_keypoint(const ::cv::KeyPoint &k)
{
    satfeat_keypoint s{};
    s.x = k.pt.x;
    s.y = k.pt.y;
    s.size = k.size;
    s.sigma = 1.2 * s.size / 9.0;
    s.response = k.response;
    s.angle = k.angle >= 0.0f ? static_cast<double>(k.angle) * (detail::pi / 180.0) : 0.0;
    if (!(s.angle < 2.0 * detail::pi)) s.angle = 0.0;
    s.laplacian = k.class_id > 0 ? 1 : -1;
    s.octave = k.octave;
    return s;
}

/** The library keypoints of cv::KeyPoints, in their order. */
inline std::vector<satfeat_keypoint> from_keypoints(const std::vector<::cv::KeyPoint> &kp)
{
    std::vector<satfeat_keypoint> out;
    out.reserve(kp.size());
    for (const ::cv::KeyPoint &k : kp) out.push_back(from_keypoint(k));
    return out;
}

/** The descriptors of a feature set as a size() x descriptor_size() CV_32F Mat (a copy; an
 *  empty Mat when the set has none). */
inline ::cv::Mat to_descriptor_mat(const satfeat::features &f)
{
    const int dim = f.descriptor_size();
    if (dim == 0 || f.empty()) return ::cv::Mat();
    /* a header over the set's memory, then a copy the Mat owns */
    return ::cv::Mat(static_cast<int>(f.size()), dim, CV_32F,
                     const_cast<float *>(f.descriptors().data()))
        .clone();
}

/** A feature set of cv::KeyPoints and their descriptors (N x 64 or N x 128 CV_32F, or empty:
 *  keypoints only) found in a width x height image, for the library's matcher and motion
 *  estimator. Throws cv::Exception when the descriptors do not fit the keypoints. */
inline satfeat::features to_features(const std::vector<::cv::KeyPoint> &kp,
                                     const ::cv::Mat &descriptors, int width, int height)
{
    const std::vector<satfeat_keypoint> k = from_keypoints(kp);
    if (descriptors.empty())
        return satfeat::features(k, {}, SATFEAT_DESCRIPTOR_NONE, width, height);
    detail::require(descriptors.type() == CV_32F &&
                        descriptors.rows == static_cast<int>(kp.size()) &&
                        (descriptors.cols == 64 || descriptors.cols == 128),
                    "to_features: descriptors must be CV_32F, one row of 64 or 128 per keypoint");
    const ::cv::Mat d = descriptors.isContinuous() ? descriptors : descriptors.clone();
    const std::size_t n = static_cast<std::size_t>(d.rows) * static_cast<std::size_t>(d.cols);
    return satfeat::features(k, satfeat::span<const float>(d.ptr<float>(), n),
                             static_cast<satfeat_descriptor_kind>(d.cols), width, height);
}

/** The cv::DMatches of a match list (queryIdx, trainIdx, L2 distance; imgIdx 0). */
inline std::vector<::cv::DMatch> to_dmatches(const satfeat::matches &m)
{
    std::vector<::cv::DMatch> out;
    out.reserve(m.size());
    for (const satfeat_match_pair &p : m) out.emplace_back(p.query, p.train, p.distance);
    return out;
}

/**
 * The library's Fast-Hessian detector with SURF descriptors as a cv::Feature2D. Images: CV_8UC1,
 * or CV_8UC3 / CV_8UC4 (converted with cv::cvtColor, BGR order); masks: CV_8UC1 of the image's
 * size (keypoints kept where the mask at the rounded position is not 0). Descriptors: CV_32F,
 * 64 or 128 per keypoint, compared with NORM_L2. Keypoints come strongest first. A Detector owns
 * its library context; like the context, one Detector must not be used by two threads at once.
 * Library failures throw satfeat::error (a std::runtime_error); bad OpenCV input throws
 * cv::Exception.
 */
class Detector : public ::cv::Feature2D {
public:
    /** Creates a detector with the library's parameters (satfeat_detector_params_default():
     *  4 octaves, threshold 0.0004, oriented SURF-64) on `backend` (AUTO: CUDA when usable). */
    static ::cv::Ptr<Detector> create(
        const satfeat_detector_params &params = satfeat_detector_params_default(),
        satfeat_backend backend = SATFEAT_BACKEND_AUTO, int device = -1)
    {
        return ::cv::makePtr<Detector>(params, backend, device);
    }

    /** See create(). */
    Detector(const satfeat_detector_params &params, satfeat_backend backend, int device)
        : ctx_(backend, device), params_(params), det_(ctx_, params)
    {
    }

    /** Detects keypoints (and, when `descriptors` is wanted, their descriptors), or with
     *  useProvidedKeypoints describes the given keypoints (satfeat_describe_keypoints: their
     *  angle is recomputed, as OpenCV's SURF does; the mask drops keypoints first). Given
     *  keypoints that are cv::KeyPoints of this Detector's last detection are described at the
     *  library's double-precision position and scale, so detect() then compute() on one image
     *  gives detectAndCompute()'s descriptors exactly; other keypoints are taken as the floats
     *  they hold (docs/CPP.md has the measured effect). */
    void detectAndCompute(::cv::InputArray image, ::cv::InputArray mask,
                          std::vector<::cv::KeyPoint> &keypoints, ::cv::OutputArray descriptors,
                          bool useProvidedKeypoints = false) override
    {
        const ::cv::Mat gray = gray_of(image);
        const ::cv::Mat m = mask.getMat();
        detail::require(m.empty() || (m.type() == CV_8UC1 && m.size() == gray.size()),
                        "Detector: the mask must be CV_8UC1 of the image's size");
        satfeat::image_view view = to_image_view(gray);
        const bool upright = params_.upright != 0;
        if (useProvidedKeypoints) {
            if (!m.empty()) ::cv::KeyPointsFilter::runByPixelsMask(keypoints, m);
            det_.describe(view, restore_detected(keypoints), out_);
            const satfeat::span<const satfeat_keypoint> kp = out_.keypoints();
            for (std::size_t i = 0; i < kp.size(); i++)
                keypoints[i].angle = to_keypoint(kp[i], upright).angle;
        } else {
            if (!m.empty()) view = view.with_mask(m.ptr<std::uint8_t>(), m.step[0]);
            (descriptors.needed() ? det_ : keypoint_detector()).detect(view, out_);
            keypoints = to_keypoints(out_.keypoints(), upright);
            detected_.assign(out_.keypoints().begin(), out_.keypoints().end());
        }
        if (!descriptors.needed()) return;
        if (out_.descriptor_size() == 0 || out_.empty()) {
            descriptors.release();
            return;
        }
        to_descriptor_mat(out_).copyTo(descriptors);
    }

    /** Floats per descriptor: 64 or 128 (0 for a detector without descriptors). */
    int descriptorSize() const override { return static_cast<int>(params_.descriptor); }
    /** CV_32F. */
    int descriptorType() const override { return CV_32F; }
    /** cv::NORM_L2, the distance the library's matcher uses. */
    int defaultNorm() const override { return ::cv::NORM_L2; }
    /** "Feature2D.satfeat". */
    ::cv::String getDefaultName() const override { return "Feature2D.satfeat"; }
    /** False: a Detector is always ready. */
    bool empty() const override { return false; }

    /** The parameters it was created with. */
    const satfeat_detector_params &params() const noexcept { return params_; }
    /** The library context it owns (backend, threads, memory limit). */
    satfeat::context &library_context() noexcept { return ctx_; }
    /** The last frame's features as the library returned them (double precision, descriptors
     *  in place): what the last call put in its cv::KeyPoints and descriptor Mat. */
    const satfeat::features &last_features() const noexcept { return out_; }

private:
    /** The input as an 8-bit gray Mat (colour converted by OpenCV). */
    static ::cv::Mat gray_of(::cv::InputArray image)
    {
        const ::cv::Mat img = image.getMat();
        if (img.type() == CV_8UC1) return img;
        ::cv::Mat gray;
        if (img.type() == CV_8UC3) {
            ::cv::cvtColor(img, gray, ::cv::COLOR_BGR2GRAY);
        } else if (img.type() == CV_8UC4) {
            ::cv::cvtColor(img, gray, ::cv::COLOR_BGRA2GRAY);
        } else {
            detail::require(false, "Detector: 8-bit gray, BGR or BGRA images only",
                            ::cv::Error::StsUnsupportedFormat);
        }
        return gray;
    }

    /** The library keypoints of `kp`: each one that is the cv::KeyPoint of a keypoint of the
     *  last detection (same float position, size, response, octave and class_id) is that
     *  keypoint, with its double-precision fields; the others are from_keypoint's. */
    std::vector<satfeat_keypoint> restore_detected(const std::vector<::cv::KeyPoint> &kp) const
    {
        std::vector<satfeat_keypoint> out = from_keypoints(kp);
        if (detected_.empty()) return out;
        std::unordered_map<std::uint64_t, std::size_t> where; /* float bits of x, y -> index */
        const auto key = [](float x, float y) {
            std::uint32_t bx, by;
            std::memcpy(&bx, &x, sizeof bx);
            std::memcpy(&by, &y, sizeof by);
            return (static_cast<std::uint64_t>(bx) << 32) | by;
        };
        for (std::size_t i = 0; i < detected_.size(); i++)
            where.emplace(key(static_cast<float>(detected_[i].x),
                              static_cast<float>(detected_[i].y)),
                          i);
        for (std::size_t i = 0; i < kp.size(); i++) {
            const auto it = where.find(key(kp[i].pt.x, kp[i].pt.y));
            if (it == where.end()) continue;
            const ::cv::KeyPoint d = to_keypoint(detected_[it->second]);
            if (d.size == kp[i].size && d.response == kp[i].response &&
                d.octave == kp[i].octave && d.class_id == kp[i].class_id)
                out[i] = detected_[it->second];
        }
        return out;
    }

    /** A detector of the same parameters without descriptors, for detect() (made on first use). */
    satfeat::detector &keypoint_detector()
    {
        if (!kp_det_) {
            satfeat_detector_params p = params_;
            p.descriptor = SATFEAT_DESCRIPTOR_NONE;
            kp_det_.emplace(ctx_, p);
        }
        return *kp_det_;
    }

    satfeat::context ctx_;
    satfeat_detector_params params_;
    satfeat::detector det_;
    std::optional<satfeat::detector> kp_det_;
    satfeat::features out_;
    std::vector<satfeat_keypoint> detected_; /* the last detection's keypoints */
};

} // namespace cv
} // namespace satfeat

#endif /* SATFEAT_OPENCV_HPP */
