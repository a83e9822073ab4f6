// Pictures made from back artwork for enrolment, tests, evaluation and benchmarks: one card lying
// flat as a player photographs it to enrol a deck, and clips of cards dealt one at a time onto a
// spot (hands included). Deterministic for a seed.
#pragma once

#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/vision/back_signature.hpp"

namespace nertz::vision {

struct RenderedView {
    cv::Mat image;  // 8-bit BGR
    Quad quad;      // the card's outline in it
};

// Draws `backBgra` (CV_8UC4, alpha outside the rounded card) onto `dst` through the card-to-picture
// homography of `quad` (corners of the artwork's top-left, top-right, bottom-right, bottom-left).
void drawCard(cv::Mat& dst, const cv::Mat& backBgra, const Quad& quad);

// One back lying flat on a plain table, slightly turned and tilted, under soft uneven light, with
// noise and JPEG coding: what `deck enroll` gets from a phone.
RenderedView renderEnrolmentView(const cv::Mat& backBgra, std::uint64_t seed,
                                 cv::Size size = {640, 480});

struct DealClipOptions {
    cv::Size size{1280, 720};
    int cards = 50;
    int framesPerCard = 5;     // 15 fps and 3 cards a second
    bool hands = true;         // a hand carries each card in and covers part of the spot
    // Onto a spot: before a card, with this chance, a hand reaches over the pile and leaves without
    // laying a card (straightening the pile, or a feint): no card to count. 0: never (the clips of
    // a seed stay as they were).
    float emptyPasses = 0.f;
    int stopAfterFrames = -1;  // >= 0: the clip is cut after this many frames (a camera that stops)
    // the camera's sensor noise: standard deviation per channel, 8-bit levels (a webcam in good
    // light 2, in a dim room 5 or more)
    float noise = 2.f;
    // Through the view instead of onto a spot: every framesPerCard frames a card enters at one edge
    // and slides across to leave at the other in crossFrames frames (so about crossFrames /
    // framesPerCard cards are in view at once), smeared along its motion like a camera's exposure;
    // `hands` then adds a hand reaching in and out now and then, carrying nothing.
    bool through = false;
    int crossFrames = 10;
    float exposure =
        1.f / 3.f;  // through the view: the share of the frame interval a frame exposes
};

struct DealClip {
    std::vector<cv::Mat> frames;  // 8-bit BGR
    std::vector<int> decks;       // the deck (index into the backs) of each card dealt, in order
};

// Cards of random decks (one of `backsBgra` each) dealt one at a time onto a spot: each card slides
// in under a hand for two frames, then rests; the pile grows with every card slightly off square.
// With options.through, the cards pass through the view instead and the clip ends on the empty
// table once the last has left.
DealClip renderDealClip(const std::vector<cv::Mat>& backsBgra, std::uint64_t seed,
                        const DealClipOptions& options = {});

}  // namespace nertz::vision
