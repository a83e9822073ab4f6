// Counting cards dealt one at a time onto a spot, from video: a card is counted once, when the
// view comes to rest with a new card-sized change against the last rest (so a card staying in view,
// or a hand passing over, is never counted again), and attributed to a deck by its back.
#pragma once

#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/vision/back_matcher.hpp"
#include "nertz/vision/lake_counter.hpp"

namespace nertz::vision {

struct StreamOptions {
    int workLongSide = 320;          // frames are compared at this size
    int pixelThreshold = 28;         // a pixel changed: largest channel difference above this
    float stillFraction = 0.004f;    // a frame is at rest when fewer pixels than this share moved
    float minCardFraction = 0.004f;  // smallest change counted as a card, share of the frame
};

class StreamCounter {
  public:
    explicit StreamCounter(const BackMatcher& matcher, StreamOptions options = {});

    // Feeds the next frame (8-bit BGR, any size but the same all clip); returns the cards counted
    // on it (usually none, at most one). Throws ImageError-like std::invalid_argument on an empty
    // frame or a size change.
    std::vector<CountedCard> push(const cv::Mat& bgr);

    // The count so far (cards with the frame they were counted in).
    const DeckCount& count() const noexcept { return count_; }
    int frames() const noexcept { return frame_; }
    // False while something moved since the last rest: a clip ending now may have a card in flight.
    bool atRest() const noexcept { return !pending_; }

  private:
    const BackMatcher* matcher_;
    StreamOptions options_;
    DeckCount count_;
    cv::Mat previous_, reference_;
    cv::Size size_;
    float scale_ = 1.f;
    int frame_ = 0;
    bool pending_ = false;
};

}  // namespace nertz::vision
