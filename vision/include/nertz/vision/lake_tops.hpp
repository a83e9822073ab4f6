// The lake checksum from a picture (issue 5): the top card of every lake pile, read by the face
// reader (Detector), and the face-up outlines where no face was read (piles whose top is not known).
//
// A lake pile is one suit built up from the ace, so its top card's rank is the pile's size and the
// lake holds the sum of the tops' ranks (scoring::expectedLakeCards). Two things make a reading of a
// picture wrong for that sum, and readLakeTops handles both:
// - a card under the top peeks out and its corner is read too: of two readings of one suit closer
//   than 0.6 of a card (the larger's long side; a reading's place is its outline's middle, or its
//   index's), the higher rank is the top and the lower one is left out. Piles of one suit (two
//   players' hearts) a card apart stay two. (Also taking a corner index within a quarter of a card
//   of an outlined top as a card under it merged neighbouring piles of one suit: the expected
//   total exact in 26 of 100 train lake scenes against 31, within a tenth of a card 30.)
// - a pile's top is outlined but not read (small, blurred, glared, covered by a hand): the sum
//   would silently leave that pile out. Such outlines are listed (`unread`), and the reading is
//   complete only when there are none; the CLI and the app say so instead of giving a total that
//   looks sure. models/training/BACKS.md, "The lake checksum measured".
#pragma once

#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/scoring/card.hpp"
#include "nertz/vision/detector.hpp"

namespace nertz::vision {

struct LakeTop {
    scoring::Card card;
    cv::Point2f at;     // the card's middle (its outline's, or its index's where it has none)
    float scale = 0.f;  // the card's long side in pixels (from its outline, or its index's size)
    float confidence = 0.f;
    std::optional<Quad> quad;
};

struct LakeTops {
    std::vector<LakeTop> tops;  // one per pile read, in the detector's order
    // Face-up card outlines with no face read and no top read on them: piles whose top is not
    // known (or other face-up cards in view). The expected total leaves them out.
    std::vector<Quad> unread;
    bool complete() const noexcept { return unread.empty(); }
    // The tops' cards, for scoring::expectedLakeCards / checkLakeChecksum.
    std::vector<scoring::Card> cards() const;
};

// The lake's pile tops in a detection of a still picture of the lake (Detector::detect with
// DetectorOptions::stillPicture(), as `nertzref-cli lake` and the app's lake step read it).
LakeTops readLakeTops(const Detection& detection);

}  // namespace nertz::vision
