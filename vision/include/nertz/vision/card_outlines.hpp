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
// edges show). Overlapping fans are left to the index reader. With indexCornerSides, an outline
// whose mean colour says back is a face where it showsIndexCorners (a court card's picture).
std::vector<CardOutline> findCardOutlines(const cv::Mat& bgr, bool indexCornerSides = false);

// Light, four-sided cards found by their edges (Canny) instead of a global brightness threshold:
// face-up cards on a light table (white laminate, a pale cloth), which that threshold merges with
// the table. Only outlines judged faces, none lying on one of `known` (its middle inside it or
// the other way round); a face is an outline of little colour, or one that showsIndexCorners. For
// still pictures (DetectorOptions::edgeOutlines). A contour is fitted with four sides at 3% of its
// length, else at 5%, ..., up to `loosestFit` (0.07: a pile's top card, whose contour the cards
// peeking out under it bend, fits at 5-7%; findCardOutlines fits at 3% only).
std::vector<CardOutline> findCardOutlinesByEdges(const cv::Mat& bgr,
                                                 const std::vector<CardOutline>& known = {},
                                                 double loosestFit = 0.07);

// Whether the card inside `q` (8-bit BGR picture) shows a face's corner indices: seen upright at
// 60 x 90, two opposite corners each hold paper white (at least 0.45 of the corner) with ink on it
// (at least 0.06: dark, or saturated like a red pip), or hold ink on at least 0.2 paper white with
// the other two corners bare paper; and a fifth of the card is paper white. A court card's picture
// is colourful enough that the outline's mean colour takes it for a back; most backs print their
// pattern into all four corners alike, or leave them bare. (2026-12-02: synthetic train-design
// lake and batch scenes, cards 97% in view: number cards 0.86, courts 0.84, backs 0.07.) For still
// pictures (DetectorOptions::edgeOutlines).
bool showsIndexCorners(const cv::Mat& bgr, const Quad& q);

// Corners sorted to reading order (top-left first, clockwise).
Quad orderCorners(const std::vector<cv::Point2f>& pts);

bool quadContains(const Quad& q, cv::Point2f p);

}  // namespace nertz::vision
