// Counting cards dealt one at a time from video, each exactly once, either way a table deals them:
// - onto a spot: a card is counted when the view comes to rest with a new card-sized change against
//   the last rest (so a card staying in view, or a hand passing over, is never counted again);
// - through the view: what differs from the last rest is followed from frame to frame as moving
//   pieces. A piece that was card-shaped (whole in the frame, filling a rectangle of a card's
//   aspect once the smear of its motion is taken off) in at least minCardViews frames (or in one,
//   when it was followed for oneViewAge frames and a hand joined it in the others) and then
//   leaves (its place shows the rest view again, or it went out of the frame) is one card,
//   attributed from its surest view. While a card and a hand (or two cards) make one piece, each is
//   carried on as it moved. Pieces still in view when the view rests are the spot's business and
//   are dropped; a hand is never card-shaped. Back signatures carry motion-smeared enrolment copies
//   for these cards (back_signature.hpp, kEnrolmentSmear).
// Either way the card is attributed to a deck by its back.
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
    // Cards through the view (see above): a piece is card-shaped when it fills >= cardFill of its
    // smallest rectangle (movingFill when it moves), of aspect minAspect..maxAspect; counted after
    // >= minCardViews such frames (1 finds a few more fast cards and counts a few twice: BACKS.md).
    // false: only cards dealt onto a spot are counted (the counter before 2026-11-24).
    bool through = true;
    // a pixel differs from the rest view (the pieces followed): largest channel difference above
    // this; lower than pixelThreshold, so that a card near the table's colour still shows whole
    int followThreshold = 18;
    // A pixel also differs where its 5x5 neighbourhood differs on average by more than meanShare x
    // the threshold (a back near the table's colour differs by its pattern, in speckles); 0: off.
    float meanShare = 0.4f;
    float cardFill = 0.85f;
    float movingFill = 0.75f;  // the same for a piece that moves (smeared at a slant)
    float minAspect = 1.2f, maxAspect = 1.9f;
    int minCardViews = 2;
    // ... or in one frame only, when it was followed for >= oneViewAge frames (a hand joined it in
    // the others: a fast card is whole in view for 3-4 frames); 0: never.
    int oneViewAge = 4;
    // A moving piece may be smeared along its motion by up to smear x its speed (pixels a frame):
    // the exposure's share of the frame interval, and some (a camera at 1/30 s exposes nearly all).
    float smear = 0.6f;
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
    // False while something moved since the last rest or a card passing through is still in view:
    // a clip ending now may have a card in flight.
    bool atRest() const noexcept { return !pending_ && tracks_.empty(); }

  private:
    // A piece that differs from the last rest, followed from frame to frame.
    struct Track {
        cv::Point2f centre, velocity;
        bool moved = false;  // velocity measured (seen on two frames)
        cv::Rect box;        // where it was last seen (working pixels)
        float area = 0;      // its pixels then
        int views = 0;       // frames it was card-shaped in
        CountedCard best;    // its surest attribution so far
        int lost = 0;        // frames since it was last seen
        int age = 0;         // frames followed (seen, carried on in a joined piece, or unseen)

        // How far it has gone since it was last seen, at its speed.
        cv::Point2f step() const { return velocity * float(1 + lost); }
        // Where it is expected now.
        cv::Point2f expected() const { return centre + step(); }
        // Moved on at its speed, unseen (inside a piece it joined): seen again now.
        void carryOn();
    };
    void follow(const cv::Mat& bgr, const cv::Mat& small, int index,
                std::vector<CountedCard>& fresh);
    void countCard(CountedCard c, int index, std::vector<CountedCard>& fresh);
    std::vector<Track> tracks_;

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
