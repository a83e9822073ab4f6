// The size a picture takes when scaled to a working size, shared by the vision stages (detector,
// back finder, stream counter); internal to nertz::vision.
#pragma once

#include <opencv2/core.hpp>

namespace nertz::vision::detail {

// What cv::resize(src, dst, cv::Size(), fx, fy) makes of a picture of `size` (each side rounded).
inline cv::Size scaledSize(cv::Size size, double fx, double fy) {
    return {cvRound(double(size.width) * fx), cvRound(double(size.height) * fy)};
}

// Whether a picture of `size` keeps at least a pixel each way at that scale. A picture much
// thinner than it is long (a 1 x 4000 strip) would not, and cv::resize refuses a zero size: such a
// picture can show no card, so the stages give no cards for it rather than fail.
inline bool keepsPixels(cv::Size size, double fx, double fy) {
    const cv::Size s = scaledSize(size, fx, fy);
    return s.width >= 1 && s.height >= 1;
}

}  // namespace nertz::vision::detail
