// first_program.cpp - first_program.c in C++ with satfeat.hpp: two frames -> descriptors ->
// matches -> homography -> inlier count, on the best backend there is, default parameters.
// Failures are exceptions (satfeat::error: status and message); the objects free themselves.
// usage: first_program_cpp FRAME1.png FRAME2.png
#include <satfeat.hpp>

#include <cstdio>

int main(int argc, char **argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s FRAME1 FRAME2\n", argv[0]);
        return 2;
    }
    try {
        satfeat::context ctx; // CUDA when a device is usable, else the CPU
        const satfeat::image a = satfeat::image::load(ctx, argv[1]);
        const satfeat::image b = satfeat::image::load(ctx, argv[2]);
        satfeat::detector det(ctx); // default parameters, sized by its frames
        const satfeat::features fa = det.detect(a.view()), fb = det.detect(b.view());
        const satfeat::matches m = satfeat::match(ctx, fa, fb);
        const auto motion = satfeat::estimate_motion(ctx, fa, fb, m);
        if (!motion) {
            std::printf("no homography fits the %zu matches\n", m.size());
            return 1;
        }
        std::printf("homography frame 1 -> frame 2:\n");
        for (int r = 0; r < 3; r++)
            std::printf("  %12.6g %12.6g %12.6g\n", motion->h[3 * r], motion->h[3 * r + 1],
                        motion->h[3 * r + 2]);
        std::printf("inliers: %zu (rms error %.3f px)\n", motion->inliers, motion->rms_error);
    } catch (const satfeat::error &e) {
        std::fprintf(stderr, "first_program: %s (status %d)\n", e.what(),
                     static_cast<int>(e.status()));
        return 1;
    }
    return 0;
}
