// opencv_swap.cpp - an ordinary OpenCV program: two images -> keypoints and descriptors ->
// cv::BFMatcher with Lowe's ratio test -> cv::findHomography (RANSAC) -> cv::drawMatches. Its
// feature detector is libsatfeat's; the line marked SWAP is the only one that differs from the
// same program written for SURF or SIFT.
// usage: opencv_swap IMAGE1 IMAGE2 [MATCHES.png]
#include <satfeat/opencv.hpp>

#include <opencv2/calib3d.hpp>
#include <opencv2/core.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char **argv)
{
    if (argc != 3 && argc != 4) {
        std::fprintf(stderr, "usage: %s IMAGE1 IMAGE2 [MATCHES.png]\n", argv[0]);
        return 2;
    }
    try {
        const cv::Mat img1 = cv::imread(argv[1], cv::IMREAD_GRAYSCALE);
        const cv::Mat img2 = cv::imread(argv[2], cv::IMREAD_GRAYSCALE);
        if (img1.empty() || img2.empty()) {
            std::fprintf(stderr, "opencv_swap: cannot read %s\n", img1.empty() ? argv[1] : argv[2]);
            return 1;
        }

        // SWAP: was  cv::xfeatures2d::SURF::create()  or  cv::SIFT::create()
        cv::Ptr<cv::Feature2D> detector = satfeat::cv::Detector::create();

        std::vector<cv::KeyPoint> kp1, kp2;
        cv::Mat desc1, desc2;
        detector->detectAndCompute(img1, cv::noArray(), kp1, desc1);
        detector->detectAndCompute(img2, cv::noArray(), kp2, desc2);

        cv::BFMatcher matcher(detector->defaultNorm());
        std::vector<std::vector<cv::DMatch>> knn;
        matcher.knnMatch(desc1, desc2, knn, 2);
        std::vector<cv::DMatch> good;
        std::vector<cv::Point2f> pts1, pts2;
        for (const std::vector<cv::DMatch> &m : knn) {
            if (m.size() == 2 && m[0].distance < 0.8f * m[1].distance) {
                good.push_back(m[0]);
                pts1.push_back(kp1[static_cast<size_t>(m[0].queryIdx)].pt);
                pts2.push_back(kp2[static_cast<size_t>(m[0].trainIdx)].pt);
            }
        }
        std::printf("%zu and %zu keypoints, %zu matches pass the ratio test\n", kp1.size(),
                    kp2.size(), good.size());
        if (good.size() < 4) {
            std::fprintf(stderr, "opencv_swap: too few matches for a homography\n");
            return 1;
        }
        std::vector<unsigned char> inlier;
        const cv::Mat h = cv::findHomography(pts1, pts2, cv::RANSAC, 3.0, inlier);
        if (h.empty()) {
            std::fprintf(stderr, "opencv_swap: findHomography found no model\n");
            return 1;
        }
        std::printf("homography image 1 -> image 2:\n");
        for (int r = 0; r < 3; r++)
            std::printf("  %12.6g %12.6g %12.6g\n", h.at<double>(r, 0), h.at<double>(r, 1),
                        h.at<double>(r, 2));
        std::printf("inliers: %d of %zu matches\n", cv::countNonZero(inlier), good.size());
        if (argc == 4) {
            std::vector<char> draw(inlier.begin(), inlier.end());
            cv::Mat canvas;
            cv::drawMatches(img1, kp1, img2, kp2, good, canvas, cv::Scalar::all(-1),
                            cv::Scalar::all(-1), draw);
            if (!cv::imwrite(argv[3], canvas)) {
                std::fprintf(stderr, "opencv_swap: cannot write %s\n", argv[3]);
                return 1;
            }
            std::printf("inlier matches drawn to %s\n", argv[3]);
        }
    } catch (const std::exception &e) { // cv::Exception and satfeat::error
        std::fprintf(stderr, "opencv_swap: %s\n", e.what());
        return 1;
    }
    return 0;
}
