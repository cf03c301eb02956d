// test_cpp_api.cpp - satfeat.hpp against the C calls it wraps: the same keypoints and
// descriptors as satfeat_detect (count and coordinates, bit for bit), the same matches, motions,
// tracks, sequences, tables and AR poses; move-only ownership; and the exceptions: a bad call
// throws satfeat::error with the status the C call returns and the library's message.
// usage: test_cpp_api DATA_DIR TMP_DIR
#include <satfeat.hpp>

#include "cpp_check.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

namespace {

// Runs `call`, which must throw satfeat::error with status `want` and a message containing
// `needle`.
template <class Call>
void expect_error(satfeat_status want, const char *needle, Call &&call, int line)
{
    try {
        call();
        cpp_check::fail(__FILE__, line, "no exception");
        return;
    } catch (const satfeat::error &e) {
        if (e.status() == want && std::strstr(e.what(), needle)) {
            CHECK(true);
            std::printf("  expected error %d: %s\n", static_cast<int>(e.status()), e.what());
            return;
        }
        std::fprintf(stderr, "error %d \"%s\", wanted %d containing \"%s\"\n",
                     static_cast<int>(e.status()), e.what(), static_cast<int>(want), needle);
    }
    cpp_check::fail(__FILE__, line, "not the expected error");
}
#define EXPECT_ERROR(status, needle, ...)                                                        \
    expect_error(status, needle, [&] { __VA_ARGS__; }, __LINE__)

std::string data_dir, tmp_dir;

std::string data(const std::string &name) { return data_dir + "/" + name; }

// A C feature set and its context, freed at scope exit.
struct c_features {
    satfeat_features *f = nullptr;
    ~c_features() { satfeat_features_delete(f); }
};

// True when `f` holds exactly the C set's keypoints and descriptors.
bool same_features(const satfeat::features &f, const satfeat_features *c)
{
    const std::size_t n = satfeat_features_count(c);
    if (f.size() != n || f.descriptor_kind() != satfeat_features_descriptor_kind(c)) return false;
    if (n == 0) return true;
    if (std::memcmp(f.keypoints().data(), satfeat_features_keypoints(c),
                    n * sizeof(satfeat_keypoint)) != 0)
        return false;
    const float *d = satfeat_features_descriptors(c);
    return !d || std::memcmp(f.descriptors().data(), d,
                             f.descriptors().size() * sizeof(float)) == 0;
}

// satfeat_detect through the C API on a C context of the same backend.
void c_detect(const satfeat_image_view &v, const satfeat_detector_params &p, c_features &out)
{
    satfeat_ctx *ctx = nullptr;
    satfeat_detector *det = nullptr;
    CHECK(satfeat_ctx_new(&ctx, SATFEAT_BACKEND_CPU, -1) == SATFEAT_OK);
    CHECK(satfeat_detector_new(ctx, &p, 0, 0, &det) == SATFEAT_OK);
    CHECK(satfeat_detect(det, &v, &out.f) == SATFEAT_OK);
    satfeat_detector_delete(det);
    satfeat_ctx_delete(ctx);
}

// (a) the same keypoints as the C API: whole images, a strided part, a mask, refilled sets,
// keypoints only; describe() of the detector's own keypoints.
void test_detect(satfeat::context &ctx)
{
    for (const char *name : {"scene.png", "dune/frame001.png"}) {
        const satfeat::image img = satfeat::image::load(ctx, data(name));
        satfeat::detector det(ctx);
        const satfeat::features f = det.detect(img.view());
        c_features c;
        c_detect(img.view().c_view(), satfeat_detector_params_default(), c);
        std::printf("%s: %zu keypoints (C API: %zu)\n", name, f.size(),
                    satfeat_features_count(c.f));
        CHECK(f.size() > 100);
        CHECK(same_features(f, c.f));
        CHECK(f.image_width() == img.width() && f.image_height() == img.height());
        CHECK(f.descriptor_size() == 64 && f.descriptors().size() == 64 * f.size());
        CHECK(f.descriptor(3).data() == f.descriptors().data() + 3 * 64);

        // a part of the image through its stride, refilling one set
        satfeat::features part;
        const satfeat::image_view pv(img.pixels().data() + 40 * img.width() + 30, 300, 200,
                                     static_cast<std::size_t>(img.width()));
        for (int k = 0; k < 2; k++) det.detect(pv, part);
        c_features cp;
        c_detect(pv.c_view(), satfeat_detector_params_default(), cp);
        CHECK(part.size() > 0 && same_features(part, cp.f));

        // a mask: the left half off
        std::vector<std::uint8_t> mask(img.pixels().size(), 0);
        for (int y = 0; y < img.height(); y++)
            for (int x = img.width() / 2; x < img.width(); x++)
                mask[static_cast<std::size_t>(y * img.width() + x)] = 1;
        const satfeat::image_view mv = img.view().with_mask(mask.data());
        const satfeat::features fm = det.detect(mv);
        c_features cm;
        c_detect(mv.c_view(), satfeat_detector_params_default(), cm);
        CHECK(fm.size() > 0 && fm.size() < f.size() && same_features(fm, cm.f));
        for (const satfeat_keypoint &k : fm.keypoints()) CHECK(k.x >= img.width() / 2 - 0.5);

        // keypoints only
        satfeat_detector_params p = satfeat_detector_params_default();
        p.descriptor = SATFEAT_DESCRIPTOR_NONE;
        satfeat::detector kp_only(ctx, p);
        const satfeat::features fk = kp_only.detect(img.view());
        CHECK(fk.size() == f.size() && fk.descriptors().empty() && fk.descriptor_size() == 0);
        CHECK(std::memcmp(fk.keypoints().data(), f.keypoints().data(),
                          f.size() * sizeof(satfeat_keypoint)) == 0);

        // describe() of the detector's own keypoints gives detect()'s features again
        const satfeat::features fd = det.describe(img.view(), f.keypoints());
        CHECK(fd.size() == f.size());
        CHECK(std::memcmp(fd.descriptors().data(), f.descriptors().data(),
                          f.descriptors().size() * sizeof(float)) == 0);
    }
}

// Matching, motion from matches and from points, against the C calls and the true homography.
void test_match_motion(satfeat::context &ctx)
{
    const satfeat::image a = satfeat::image::load(ctx, data("dune/frame001.png"));
    const satfeat::image b = satfeat::image::load(ctx, data("dune/frame002.png"));
    satfeat::detector det(ctx);
    const satfeat::features fa = det.detect(a.view()), fb = det.detect(b.view());
    const satfeat::matches m = satfeat::match(ctx, fa, fb);
    satfeat_matches *cm = nullptr;
    CHECK(satfeat_match(ctx.get(), fa.get(), fb.get(), nullptr, &cm) == SATFEAT_OK);
    CHECK(m.size() > 50 && m.size() == satfeat_matches_count(cm));
    CHECK(std::memcmp(m.pairs().data(), satfeat_matches_data(cm),
                      m.size() * sizeof(satfeat_match_pair)) == 0);
    std::size_t ascending = 0; // iteration gives the pairs in ascending query order
    for (std::size_t i = 1; i < m.size(); i++) ascending += m[i - 1].query < m[i].query;
    CHECK(ascending + 1 == m.size());

    const std::optional<satfeat::motion_estimate> est = satfeat::estimate_motion(ctx, fa, fb, m);
    satfeat_motion c_motion;
    std::vector<std::uint8_t> c_mask(m.size());
    CHECK(satfeat_estimate_motion_matches(ctx.get(), fa.get(), fb.get(), cm, nullptr, &c_motion,
                                          c_mask.data()) == SATFEAT_OK);
    satfeat_matches_delete(cm);
    CHECK(est.has_value());
    if (!est) return;
    CHECK(std::memcmp(est->h, c_motion.h, sizeof c_motion.h) == 0);
    CHECK(est->inliers == c_motion.inliers && est->inlier_mask == c_mask);
    // against the truth: the frame's corners within 1 px
    const std::array<double, 9> t = satfeat::homography_read(data("dune/H1to002p"));
    double worst = 0;
    for (double x : {0.0, 639.0})
        for (double y : {0.0, 479.0}) {
            const double *h = est->h;
            const double we = h[6] * x + h[7] * y + h[8], wt = t[6] * x + t[7] * y + t[8];
            const double dx = (h[0] * x + h[1] * y + h[2]) / we - (t[0] * x + t[1] * y + t[2]) / wt;
            const double dy = (h[3] * x + h[4] * y + h[5]) / we - (t[3] * x + t[4] * y + t[5]) / wt;
            worst = std::fmax(worst, std::hypot(dx, dy));
        }
    std::printf("frame 1 -> 2: %zu matches, %zu inliers, corners within %.3f px of the truth\n",
                m.size(), est->inliers, worst);
    CHECK(worst < 1.0);

    // points: a pure translation by (3, -2) of 20 points; three points are too few (no model)
    std::vector<double> src, dst;
    for (int i = 0; i < 20; i++) {
        const double x = 10.0 + 37.0 * (i % 5), y = 20.0 + 23.0 * (i / 5) + (i % 3);
        src.insert(src.end(), {x, y});
        dst.insert(dst.end(), {x + 3.0, y - 2.0});
    }
    satfeat_motion_params mp = satfeat_motion_params_default();
    mp.model = SATFEAT_MOTION_SIMILARITY;
    const auto pts = satfeat::estimate_motion(ctx, src, dst, {}, mp);
    CHECK(pts && pts->inliers == 20 && std::fabs(pts->h[2] - 3.0) < 1e-9 &&
          std::fabs(pts->h[5] + 2.0) < 1e-9);
    const std::vector<double> s3(src.begin(), src.begin() + 6), d3(dst.begin(), dst.begin() + 6);
    CHECK(!satfeat::estimate_motion(ctx, s3, d3).has_value());

    // guided matching with every query predicted at its own position and a radius
    std::vector<double> predicted;
    for (const satfeat_keypoint &k : fa.keypoints()) predicted.insert(predicted.end(), {k.x, k.y});
    satfeat_match_params gp = satfeat_match_params_default();
    gp.radius = 40;
    const satfeat::matches g = satfeat::match_guided(ctx, fa, fb, predicted, gp);
    CHECK(g.size() > 0);
    for (const satfeat_match_pair &p : g) {
        const satfeat_keypoint q = fa.keypoints()[static_cast<std::size_t>(p.query)];
        const satfeat_keypoint r = fb.keypoints()[static_cast<std::size_t>(p.train)];
        CHECK(std::hypot(q.x - r.x, q.y - r.y) <= 40.0);
    }
}

// The tracker and the sequence give what their C calls give.
void test_tracker_sequence(satfeat::context &ctx)
{
    std::vector<satfeat::image> frames;
    for (int k = 1; k <= 5; k++) {
        char name[64];
        std::snprintf(name, sizeof name, "dune/frame%03d.png", k);
        frames.push_back(satfeat::image::load(ctx, data(name)));
    }
    satfeat::tracker tr(ctx, 640, 480);
    satfeat_tracker *ct = nullptr;
    CHECK(satfeat_tracker_new(ctx.get(), nullptr, 640, 480, &ct) == SATFEAT_OK);
    for (const satfeat::image &f : frames) {
        const satfeat_frame_motion m = tr.track(f.view());
        satfeat_frame_motion cmo;
        CHECK(satfeat_tracker_track(ct, &f.view().c_view(), &cmo) == SATFEAT_OK);
        CHECK(std::memcmp(&m, &cmo, sizeof m) == 0);
        std::size_t n = 0;
        const satfeat_track *t = satfeat_tracker_tracks(ct, &n);
        CHECK(tr.tracks().size() == n && n > 0);
        CHECK(std::memcmp(tr.tracks().data(), t, n * sizeof *t) == 0);
        CHECK(tr.descriptors().size() == n * 64);
    }
    std::printf("tracker: %zu live tracks after 5 frames, the C tracker's\n", tr.tracks().size());
    satfeat_tracker_delete(ct);
    tr.reset();
    CHECK(tr.tracks().empty());

    // pushed frames come back with the motions of track()
    satfeat::tracker a(ctx, 640, 480), b(ctx, 640, 480);
    std::vector<satfeat_frame_motion> pushed;
    for (const satfeat::image &f : frames)
        if (auto m = a.push(f.view())) pushed.push_back(*m);
    while (a.pending() > 0) pushed.push_back(a.pop());
    CHECK(pushed.size() == frames.size());
    for (std::size_t k = 0; k < frames.size() && k < pushed.size(); k++) {
        const satfeat_frame_motion m = b.track(frames[k].view());
        CHECK(std::memcmp(&m, &pushed[k], sizeof m) == 0);
    }

    // a sequence of 2 slots returns detect()'s features in push order
    satfeat::detector det(ctx);
    satfeat::sequence seq(det, 2);
    std::vector<satfeat::features> got;
    satfeat::features popped;
    for (const satfeat::image &f : frames)
        if (seq.push(f.view(), popped)) got.push_back(std::move(popped));
    while (seq.pending() > 0) got.push_back(seq.pop());
    CHECK(got.size() == frames.size());
    satfeat::detector ref(ctx);
    for (std::size_t k = 0; k < got.size(); k++) {
        const satfeat::features f = ref.detect(frames[k].view());
        CHECK(got[k].size() == f.size() &&
              std::memcmp(got[k].keypoints().data(), f.keypoints().data(),
                          f.size() * sizeof(satfeat_keypoint)) == 0);
    }
}

// Tables, AR, feature sets from arrays, spans, moves.
void test_misc(satfeat::context &ctx)
{
    const satfeat::image scene = satfeat::image::load(ctx, data("scene.png"));
    const std::vector<std::uint32_t> table = satfeat::sat_u8(ctx, scene.view());
    CHECK(table.size() == 641u * 481u);
    CHECK(table.back() == 41058234u); // data/README.md: the bottom-right entry of scene.png's table

    // AR: a target from frame 1, a session on frames 1 and 2 as the C session sees them
    const satfeat::image f1 = satfeat::image::load(ctx, data("dune/frame001.png"));
    const satfeat::image f2 = satfeat::image::load(ctx, data("dune/frame002.png"));
    const satfeat::ar_target target(ctx, f1.view(), 0.4);
    CHECK(target.info().features > 16 && target.info().width == 640);
    const std::string saved = tmp_dir + "/cpp_api_target.bin";
    target.save(ctx, saved);
    const satfeat::ar_target loaded = satfeat::ar_target::load(ctx, saved);
    CHECK(loaded.info().features == target.info().features);
    const satfeat_ar_camera cam = satfeat::ar_camera_from_fov(640, 480, 60.0);
    satfeat::ar_session session(ctx, {&target}, cam, 640, 480);
    satfeat_ar_session *cs = nullptr;
    const satfeat_ar_target *ct = target.get();
    const satfeat_ar_params ap = satfeat_ar_params_default();
    CHECK(satfeat_ar_session_new(ctx.get(), &ct, 1, &cam, &ap, 640, 480, &cs) == SATFEAT_OK);
    for (const satfeat::image *f : {&f1, &f2}) {
        const std::vector<satfeat_ar_result> r = session.process(f->view());
        satfeat_ar_result cr;
        CHECK(satfeat_ar_session_process(cs, &f->view().c_view(), &cr, 1) == SATFEAT_OK);
        CHECK(r.size() == 1 && r[0].state != SATFEAT_AR_LOST);
        CHECK(r.size() == 1 && std::memcmp(&r[0], &cr, sizeof cr) == 0);
    }
    satfeat_ar_session_delete(cs);

    // a set from arrays keeps them; matched against itself every feature finds itself
    satfeat::detector det(ctx);
    const satfeat::features f = det.detect(f1.view());
    satfeat::features copy(f.keypoints(), f.descriptors(), SATFEAT_DESCRIPTOR_SURF64, 640,
                                 480);
    CHECK(copy.size() == f.size() &&
          std::memcmp(copy.descriptors().data(), f.descriptors().data(),
                      f.descriptors().size() * sizeof(float)) == 0);
    const satfeat::matches self = satfeat::match(ctx, copy, f);
    std::size_t identical = 0;
    for (const satfeat_match_pair &p : self) identical += p.query == p.train && p.distance == 0.0f;
    CHECK(identical == self.size() && identical > f.size() / 2);

    // spans over vectors, arrays and subspans
    const std::vector<double> v{1, 2, 3, 4};
    const satfeat::span<const double> sv(v);
    const double arr[3] = {5, 6, 7};
    const satfeat::span<const double> sa(arr);
    CHECK(sv.size() == 4 && sv[2] == 3 && sa.size() == 3 && sa[0] == 5);
    CHECK(sv.subspan(1, 9).size() == 3 && sv.subspan(5, 1).empty());
    CHECK(sv.to_vector() == v);

    // moves: the source is left empty, the target owns the handle, nothing is freed twice
    satfeat::features moved = std::move(copy);
    CHECK(copy.get() == nullptr && copy.size() == 0 && moved.size() == f.size());
    satfeat::detector det2 = std::move(det);
    CHECK(det.get() == nullptr && det2.detect(f1.view()).size() == f.size());
    satfeat::context ctx2 = std::move(ctx);
    CHECK(ctx.get() == nullptr && ctx2.get() != nullptr);
    CHECK(det2.detect(f1.view()).size() == f.size()); // the C context did not move
    ctx = std::move(ctx2);
}

// (c) every failure is a satfeat::error with the C call's status and message; the objects stay
// usable after it.
void test_errors(satfeat::context &ctx)
{
    satfeat_detector_params bad = satfeat_detector_params_default();
    bad.octaves = 0;
    EXPECT_ERROR(SATFEAT_ERR_ARG, "octaves", satfeat::detector(ctx, bad));
    EXPECT_ERROR(SATFEAT_ERR_IO, "no-such-file.png",
                 satfeat::image::load(data("no-such-file.png")));
    EXPECT_ERROR(SATFEAT_ERR_FORMAT, "", satfeat::image::load(data("README.md")));
    const satfeat::image scene = satfeat::image::load(ctx, data("scene.png"));
    satfeat::detector small(ctx, satfeat_detector_params_default(), 100, 100);
    EXPECT_ERROR(SATFEAT_ERR_ARG, "exceeds", small.detect(scene.view()));
    const satfeat::image tiny(80, 60);
    CHECK(small.detect(tiny.view()).size() == 0); // still usable
    satfeat_detector_params none = satfeat_detector_params_default();
    none.descriptor = SATFEAT_DESCRIPTOR_NONE;
    satfeat::detector kp_only(ctx, none);
    const satfeat::features fk = kp_only.detect(scene.view());
    EXPECT_ERROR(SATFEAT_ERR_ARG, "descriptor", satfeat::match(ctx, fk, fk));
    EXPECT_ERROR(SATFEAT_ERR_ARG, "thread count", ctx.set_threads(-1));
    EXPECT_ERROR(SATFEAT_ERR_ARG, "predicted", satfeat::match_guided(ctx, fk, fk, {}));
    EXPECT_ERROR(SATFEAT_ERR_ARG, "descriptor floats",
                 satfeat::features(fk.keypoints(), {}, SATFEAT_DESCRIPTOR_SURF64, 640, 480));
    const std::vector<std::uint8_t> ten(10);
    EXPECT_ERROR(SATFEAT_ERR_ARG, "fewer than", satfeat::image_view(ten, 4, 3));
    satfeat_keypoint nan_kp{};
    nan_kp.x = std::nan("");
    nan_kp.sigma = 2;
    satfeat::detector det(ctx);
    EXPECT_ERROR(SATFEAT_ERR_ARG, "keypoint 0",
                 det.describe(scene.view(), satfeat::span<const satfeat_keypoint>(&nan_kp, 1)));
    satfeat::sequence seq(det, 2);
    EXPECT_ERROR(SATFEAT_ERR_ARG, "", seq.pop());
    satfeat::tracker tr(ctx, 640, 480);
    const std::vector<std::uint8_t> mask(scene.pixels().size(), 1);
    EXPECT_ERROR(SATFEAT_ERR_ARG, "mask", tr.track(scene.view().with_mask(mask.data())));
    EXPECT_ERROR(satfeat_has_video_build() ? SATFEAT_ERR_FORMAT : SATFEAT_ERR_UNSUPPORTED, "",
                 satfeat::video(ctx, data("README.md")));
    if (!satfeat::has_cuda_build())
        EXPECT_ERROR(SATFEAT_ERR_UNSUPPORTED, "", satfeat::context{SATFEAT_BACKEND_CUDA});
    else if (satfeat::cuda_device_count() == 0)
        EXPECT_ERROR(SATFEAT_ERR_NO_DEVICE, "", satfeat::context{SATFEAT_BACKEND_CUDA});
    // the memory limit of the context applies to reads through it
    satfeat::context limited(SATFEAT_BACKEND_CPU);
    limited.set_memory_limit(1024);
    EXPECT_ERROR(SATFEAT_ERR_LIMIT, "memory limit",
                 satfeat::image::load(limited, data("scene.png")));
    CHECK(!limited.last_error().empty());
    CHECK(det.detect(scene.view()).size() > 100); // still usable
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s DATA_DIR TMP_DIR\n", argv[0]);
        return 2;
    }
    data_dir = argv[1];
    tmp_dir = argv[2];
    try {
        satfeat::context ctx(SATFEAT_BACKEND_CPU);
        ctx.set_threads(2);
        CHECK(ctx.backend() == SATFEAT_BACKEND_CPU && ctx.threads() == 2 && ctx.device() == -1);
        CHECK(satfeat::version() == satfeat_version_string());
        test_detect(ctx);
        test_match_motion(ctx);
        test_tracker_sequence(ctx);
        test_misc(ctx);
        test_errors(ctx);
    } catch (const std::exception &e) {
        std::fprintf(stderr, "unexpected exception: %s\n", e.what());
        return 1;
    }
    return cpp_check::finish("cpp_api");
}
