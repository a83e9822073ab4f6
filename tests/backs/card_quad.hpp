// A card's outline from its middle, turn and size, and a card cut out of a picture, shared by the
// back tests (and the app's).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "nertz/vision/card_outlines.hpp"

namespace nertz::testing {

// A card `w` wide and `h` tall centred on `c`, its width along the angle `a` (radians): its
// corners in reading order.
inline vision::Quad cardQuad(cv::Point2f c, float a, float w, float h) {
    const cv::Point2f u(std::cos(a), std::sin(a)), v(-std::sin(a), std::cos(a));
    return {c - u * (w / 2) - v * (h / 2), c + u * (w / 2) - v * (h / 2),
            c + u * (w / 2) + v * (h / 2), c - u * (w / 2) + v * (h / 2)};
}

// What lies inside `quad` of `img` (8-bit BGR), rectified upright to 200 x 280 (its longer sides
// down the picture) as opaque BGRA card art for vision::renderDealClip and drawCard.
inline cv::Mat cutOutCard(const cv::Mat& img, const vision::Quad& quad) {
    std::array<cv::Point2f, 4> q{quad[0], quad[1], quad[2], quad[3]};
    if (cv::norm(q[1] - q[0]) > cv::norm(q[2] - q[1])) std::rotate(q.begin(), q.begin() + 1, q.end());
    const cv::Size size(200, 280);
    const std::array<cv::Point2f, 4> to{cv::Point2f(0, 0), cv::Point2f(float(size.width), 0),
                                        cv::Point2f(float(size.width), float(size.height)),
                                        cv::Point2f(0, float(size.height))};
    cv::Mat bgr, bgra;
    cv::warpPerspective(img, bgr, cv::getPerspectiveTransform(q.data(), to.data()), size, cv::INTER_AREA);
    cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
    return bgra;
}

}  // namespace nertz::testing
