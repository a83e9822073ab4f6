// A picture's colour at a sub-pixel point, shared by the finders that look for card sides in the
// full picture (backs/back_finder.cpp, grouping.cpp); internal to nertz::vision.
#pragma once

#include <algorithm>

#include <opencv2/core.hpp>

namespace nertz::vision::detail {

// BGR value of an 8-bit BGR picture at `p` (bilinear; clamped to the picture).
inline cv::Vec3f sampleBgr(const cv::Mat& bgr, cv::Point2f p) {
    const float x = std::clamp(p.x, 0.f, float(bgr.cols - 1) - 1e-3f);
    const float y = std::clamp(p.y, 0.f, float(bgr.rows - 1) - 1e-3f);
    const int x0 = int(x), y0 = int(y);
    const int x1 = std::min(x0 + 1, bgr.cols - 1), y1 = std::min(y0 + 1, bgr.rows - 1);
    const float fx = x - float(x0), fy = y - float(y0);
    const cv::Vec3b* r0 = bgr.ptr<cv::Vec3b>(y0);
    const cv::Vec3b* r1 = bgr.ptr<cv::Vec3b>(y1);
    cv::Vec3f out;
    for (int c = 0; c < 3; ++c)
        out[c] = (1 - fy) * ((1 - fx) * float(r0[x0][c]) + fx * float(r0[x1][c])) +
                 fy * ((1 - fx) * float(r1[x0][c]) + fx * float(r1[x1][c]));
    return out;
}

}  // namespace nertz::vision::detail
