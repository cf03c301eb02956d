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
 * docs/CPP.md describes both. Programs include satfeat.hpp, which includes every part.
 */
#ifndef SATFEAT_HPP
#define SATFEAT_HPP

#include "satfeat/core.hpp"     /* satfeat::error, spans, the version, the context */
#include "satfeat/features.hpp" /* image views, images, feature sets, match lists */
#include "satfeat/detect.hpp"   /* the detector, sequences, summed area tables */
#include "satfeat/motion.hpp"   /* matching, robust motion, homography files */
#include "satfeat/track.hpp"    /* the tracker, video input */
#include "satfeat/ar.hpp"       /* AR targets, cameras, sessions */

#endif /* SATFEAT_HPP */
