// A card's outline from its middle, turn and size, shared by the back tests.
#pragma once

#include <cmath>

#include "nertz/vision/card_outlines.hpp"

namespace nertz::testing {

// A card `w` wide and `h` tall centred on `c`, its width along the angle `a` (radians): its
// corners in reading order.
inline vision::Quad cardQuad(cv::Point2f c, float a, float w, float h) {
    const cv::Point2f u(std::cos(a), std::sin(a)), v(-std::sin(a), std::cos(a));
    return {c - u * (w / 2) - v * (h / 2), c + u * (w / 2) - v * (h / 2),
            c + u * (w / 2) + v * (h / 2), c - u * (w / 2) + v * (h / 2)};
}

}  // namespace nertz::testing
