// Counting cards dealt one at a time from video, each exactly once, either way a table deals them:
// - onto a spot: a card is counted when the view comes to rest with a new card-sized change against
//   the last rest (so a card staying in view, or a hand passing over, is never counted again);
// - through the view: what differs from the last rest (less what has held still since) is
//   followed from frame to frame as moving pieces. A piece that was card-shaped (whole in the
//   frame, filling a rectangle of a card's aspect once the smear of its motion is taken off) in at
//   least minCardViews frames (or in one, when it was followed for oneViewAge frames and no other
//   track saw the same card then) and then leaves (its place shows the rest view again, or it went
//   out of the frame, also on the frame the view comes to rest) is one card, attributed from its
//   surest view. While a card and a hand (or two cards) make one piece, each is carried on as it
//   moved. Pieces still in view when the view rests are the spot's business and are dropped; a
//   hand is never card-shaped. Back signatures carry motion-smeared enrolment copies for these
//   cards (back_signature.hpp, kEnrolmentSmears).
// Either way the card is attributed to a deck by its back, and left unknown where it lies far lighter
// against a frame with something near white in view than that deck's back did at enrolment
// (StreamOptions::lightness: a sheet of paper, a white object).
#pragma once

#include <optional>
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
    // ... or, after something moved, a change of this share lying at the card counted last on the
    // spot (a card of the same back landing nearly square on it: only a sliver shows the change;
    // a hand that nudges the pile is counted too); 0: off
    float sliverFraction = 0.0015f;
    // ... or, after something moved and nothing changed at the working size, at least this share
    // of the pile's top card changed at the frame's own size within its outline (a card landing
    // within a working pixel of the one under it: its pattern, shifted by a few of the frame's
    // pixels, averages out at the working size; a hand passing without a card changes nothing
    // there). The same look vetoes a change held to the sliver's bar above: a hand that left the
    // pile's side since the last rest (taken with it in view) changes the working size there, but
    // not the top card's own pixels. 0: off. models/training/BACKS.md, "A card landing square on
    // the pile, seen at full size" and "The top card's own outline at full size".
    float fineShare = 0.1f;
    // ... a pixel changed there: largest channel difference above this (below pixelThreshold: a
    // card landing exactly square shifts its pattern by a pixel or two, a small change at each
    // pixel; the 3x3 opening takes the sensor's noise off)
    int fineThreshold = 14;
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
    // ... or, moving, >= bittenFill when its convex hull fills >= hullFill of the rectangle (part
    // of a smeared card differs too little from the table: a bite out of the piece); 0: off
    float bittenFill = 0.55f, hullFill = 0.9f;
    float minAspect = 1.2f, maxAspect = 1.9f;
    int minCardViews = 2;
    // ... or in one frame only, when it was followed for >= oneViewAge frames (a hand joined it in
    // the others: a fast card is whole in view for 3-4 frames); 0: never. Such a card is settled
    // sameCardFrames frames after its view: it is not counted when another track (one counted, or
    // about to be) was card-shaped within sameCardFrames of that frame where, at its own speed, it
    // would have been within sameCardReach x the card's short side of that view (a hand's track
    // that took the card's piece for one frame; the card went on as its own track).
    int oneViewAge = 4;
    int sameCardFrames = 3;
    // A pixel that differs from the rest view but holds still for absorbFrames moving frames joins
    // the rest view the moving pieces are cut against (what was in view when the rest view was
    // taken and has left since; the rest view is otherwise only renewed when the view rests). The
    // spot's count still compares with the last rest, so a card laid on the spot while things
    // move elsewhere is counted at the next rest; 0: never.
    int absorbFrames = 10;
    float sameCardReach = 0.35f;
    // A moving piece may be smeared along its motion by up to smear x its speed (pixels a frame):
    // the exposure's share of the frame interval, and some (a camera at 1/30 s exposes nearly all).
    float smear = 0.6f;
    // A card given to a deck that lies far lighter against its frame than the deck's back did at
    // enrolment is left unknown (unknownWhereLightnessDiffers, by the matcher's lighterBy), in
    // flight and at rest, on frames whose white (sceneWhite) is at least leastWhite: something
    // near white in view (a light thing brings its own; the lake's face-up cards, a card's white
    // border). A frame without (a dark table, dark backs) has for white the lightest part of a
    // back: on the synthetic sweep's clips, frames of white under 100 read right cards up to 2.76
    // times lighter than their deck, from 160 at most 1.76 (models/training/BACKS.md, "Cards far
    // lighter than their deck, on video"). false: not checked (the counter before 2026-12-02).
    bool lightness = true;
    float leastWhite = kLeastSceneWhite;
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
    bool atRest() const noexcept { return !pending_ && tracks_.empty() && oneView_.empty(); }

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
        int id = 0;
        // its first card-shaped view: frame, middle and the card's short side (working pixels)
        int viewFrame = -1;
        cv::Point2f viewCentre;
        float viewSide = 0;

        // How far it has gone since it was last seen, at its speed.
        cv::Point2f step() const { return velocity * float(1 + lost); }
        // Where it is expected now.
        cv::Point2f expected() const { return centre + step(); }
        // Moved on at its speed, unseen (inside a piece it joined): seen again now.
        void carryOn();
    };
    void follow(const cv::Mat& bgr, const cv::Mat& small, const cv::Mat& previous, int index,
                std::vector<CountedCard>& fresh);
    void countCard(CountedCard c, int index, std::vector<CountedCard>& fresh);
    // Whether, at the frame's own size, the outline of the pile's top card (spotTop_) changed by
    // at least StreamOptions::fineShare of the card against the last rest (referenceFull_).
    bool pileChangedFinely(const cv::Mat& bgr) const;
    // Whether that look can be taken (on, a working size below the frame's, a top card, a rest).
    bool looksFinely(const cv::Mat& bgr) const;
    // A box of working pixels as an outline in the picture's pixels.
    Quad inPicture(const cv::RotatedRect& r) const;
    // The pile's box (`grow` times its top card, spotTop_) scaled by `toScale` from working pixels.
    std::vector<cv::Point> pileBox(float toScale, float grow = 1.3f) const;
    // The view at rest becomes the last rest (reference_, and referenceFull_ where the fine check
    // reads it).
    void takeRest(const cv::Mat& small, const cv::Mat& bgr);
    // The card with outline `q` (picture pixels; `moving`: smeared by its motion) read by its back,
    // left unknown where it lies far lighter than its deck (StreamOptions::lightness).
    CountedCard read(const cv::Mat& bgr, const Quad& q, bool moving = false) const;
    // The card at rest on the spot with outline `q` (picture pixels): read there, or by its
    // reading in flight where that gave it a deck and the rest's reading did not.
    CountedCard restingCard(const cv::Mat& bgr, const Quad& q,
                            const std::optional<CountedCard>& inFlight) const;
    // Whether a track's place (moved on by its speed) shows the rest view again or lies outside
    // the frame, on the mask of what differs from the rest view.
    bool placeClear(const Track& t, const cv::Mat& away) const;
    // A track that left: counted, or kept to be settled when it was seen whole once.
    void left(const Track& t, int index, std::vector<CountedCard>& fresh);
    // Counts the cards seen whole once whose look-ahead has passed (all of them when `all`),
    // unless another track saw the same card (StreamOptions::sameCardFrames).
    void settleOneView(int index, bool all, std::vector<CountedCard>& fresh);
    // Whether track `id` counts as another sighting of a card: counted, waiting to be settled,
    // or still in view with enough views to be counted.
    bool countsAsCard(int id) const;
    std::vector<Track> tracks_;
    // card-shaped views of the last frames (for settling cards seen once)
    struct Sighting {
        int frame, track;
        cv::Point2f centre, velocity;
    };
    std::vector<Sighting> sightings_;
    std::vector<Track> oneView_;   // gone, seen whole once, waiting to be settled
    std::vector<int> countedIds_;  // tracks counted lately (the last few dozen)
    int nextId_ = 0;

    const BackMatcher* matcher_;
    StreamOptions options_;
    DeckCount count_;
    cv::Mat previous_, reference_;
    cv::Mat referenceFull_;  // reference_ at the frame's own size (the pile's fine check)
    // The rest view the moving pieces are cut against: reference_ (the last rest) with what held
    // still since taken in (StreamOptions::absorbFrames); the spot's count keeps the last rest.
    cv::Mat followView_;
    cv::Mat heldFor_;          // frames each pixel has differed from followView_ without changing
    cv::RotatedRect spotTop_;  // outline of the card counted last on the spot (working pixels)
    cv::Size size_;
    float scale_ = 1.f;
    int frame_ = 0;
    bool pending_ = false;
    mutable float white_ = -1.f;  // the frame's white (sceneWhite), once a card read on it needs it
};

}  // namespace nertz::vision
