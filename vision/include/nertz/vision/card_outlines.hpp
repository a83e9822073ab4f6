// Card outlines: quadrilaterals of whole, separated cards found as bright or uniform four-sided
// regions, with a first guess of the side (face: light, little colour; back: patterned/coloured).
#pragma once

#include <array>
#include <vector>

#include <opencv2/core.hpp>

namespace nertz::vision {

enum class Side { Face, Back };

// Four corners in reading order: top-left, top-right, bottom-right, bottom-left (image pixels).
using Quad = std::array<cv::Point2f, 4>;

struct CardOutline {
    Quad quad;
    Side side = Side::Face;
};

// Card-shaped quadrilaterals in an 8-bit BGR picture (separated cards; a pile's top card when its
// edges show). Overlapping fans are left to the index reader.
std::vector<CardOutline> findCardOutlines(const cv::Mat& bgr);

// Light, four-sided cards found by their edges (Canny) instead of a global brightness threshold:
// face-up cards on a light table (white laminate, a pale cloth), which that threshold merges with
// the table. Only outlines judged faces, none lying on one of `known` (its middle inside it or
// the other way round). For still pictures (DetectorOptions::edgeOutlines).
std::vector<CardOutline> findCardOutlinesByEdges(const cv::Mat& bgr,
                                                 const std::vector<CardOutline>& known = {});

// Corners sorted to reading order (top-left first, clockwise).
Quad orderCorners(const std::vector<cv::Point2f>& pts);

bool quadContains(const Quad& q, cv::Point2f p);

}  // namespace nertz::vision
