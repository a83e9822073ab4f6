// The colour of a corner index's suit pip, as evidence for the suit: red ink is a heart or a
// diamond, neutral (black, grey) ink a club or a spade; a light green-to-violet glow is no card. The reader tells small clubs from spades
// and hearts from diamonds well but mixes the colours on webcam pictures (models/MODEL.md,
// "Faces, 2026-11-24: the pip's ink colour").
#pragma once

#include <opencv2/core.hpp>

#include "nertz/vision/index_reader.hpp"

namespace nertz::vision {

// Glow: the "pip" is lighter than its ground and of a strong colour no light-on-dark deck prints
// (green, cyan, blue, violet; not red, gold or white): a lit key, a screen or a LED, never a card.
enum class PipInk { Unknown, Red, Neutral, Glow };

// Whether a picture carries no colour to speak of (a grayscale photo or export): fewer than 1% of
// its pixels (every 8th row and column) reach Lab chroma 12. Pip colour says nothing there.
bool colourless(const cv::Mat& bgr);

// The ink at a pip centred at `pip`, with `d` the index's rank-to-pip distance (pixels of `bgr`,
// 8-bit BGR): the median Lab colour within 0.12 d of the centre against the median of the ring
// 0.35-0.5 d out (the card's paper). Red: chroma above 12 at a hue of 10-60 degrees (from +a
// towards +b); neutral: chroma below 4; Unknown otherwise, where the centre is not 10 (of 255)
// lightness levels off the paper (no ink there), or where the ring leaves the picture.
// Glow: the centre is lighter than the ring and its own Lab chroma is above 25 at a hue of 110-340
// degrees.
PipInk pipInk(const cv::Mat& bgr, cv::Point2f pip, float d);

// face and confidence taken again from reading.faces after they were changed (conditionOnInk, the
// detector's black suit read again): the likeliest face, or "not an index" (face nullopt,
// confidence 1 - the faces' sum) where that is likelier.
void chooseFace(PatchReading& reading);

// The reading given the ink: the faces of the suits the ink rules out get no probability, the
// others share the reader's index probability in proportion (the reader's p(rank) p(suit),
// conditioned on the ink's suits), and face / confidence are taken again. Glow makes the reading
// "not an index". Unknown ink, or a patch the gate dropped, changes nothing.
void conditionOnInk(PatchReading& reading, PipInk ink);

}  // namespace nertz::vision
