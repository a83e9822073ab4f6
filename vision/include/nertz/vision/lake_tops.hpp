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
// - a pile's top is not even outlined (a court card's picture on a table of its colours, a design
//   whose court cards print no index): with the picture, what stands out from the table where no
//   card was found, card-sized (0.3 of a card or more once slivers are opened away) and printed
//   (edges in 0.1 of its pixels or more: glare and hands are smooth), is listed (`unexplained`) and
//   the reading is not complete either. BACKS.md, "Lake piles nothing found".
// - two tops of different suits lie on one another (their middles closer than half the larger
//   card): one pile cannot hold both, so a card under the top was read in another suit, or the
//   top was misread. Such pairs are listed (`clashes`) and the reading is not complete.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/scoring/card.hpp"
#include "nertz/scoring/referee.hpp"
#include "nertz/vision/detector.hpp"

namespace nertz::vision {

struct LakeTop {
    scoring::Card card;
    cv::Point2f at;     // the card's middle (its outline's, or its index's where it has none)
    float scale = 0.f;  // the card's long side in pixels (from its outline, or its index's size)
    float confidence = 0.f;
    std::optional<Quad> quad;
    // Where the card's middle lies: its outline's, or as its corner index places the card (tested
    // for clashes: an index sits at its card's corner, half a card from a neighbouring pile's middle)
    cv::Point2f middle;
};

struct LakeTops {
    std::vector<LakeTop> tops;  // one per pile read, in the detector's order
    // Face-up card outlines with no face read and no top read on them: piles whose top is not
    // known (or other face-up cards in view). The expected total leaves them out.
    std::vector<Quad> unread;
    // Card-sized, printed things that stand out from the table where no card was found (the
    // rotated box around each): piles whose top was not even outlined. Only with the picture.
    std::vector<Quad> unexplained;
    // Pairs of tops (indices into `tops`) of different suits lying on one another.
    std::vector<std::pair<std::size_t, std::size_t>> clashes;
    // Faces read on more tops than the game has decks (checkAgainstDecks): each deck puts one of
    // each face in the lake, so at least one of those readings is wrong.
    std::vector<scoring::Card> beyondDecks;
    // Suits read on more tops than the game has decks (checkAgainstDecks): every pile starts at an
    // ace and each deck has one ace of a suit, so a top's suit is misread or one pile read twice.
    std::vector<scoring::Suit> suitsBeyondDecks;
    // Outlines of face-down cards that no top explains. The lake's piles lie face up; a card seen
    // face down there is a closed (finished, turned over) king pile, or a top whose face was taken
    // for a back (a court card's picture): more of them than closed piles leave a pile unread.
    std::vector<Quad> backs;
    // With `closedPiles` closed king piles in the lake (each may show as a back).
    bool complete(int closedPiles = 0) const noexcept {
        return unread.empty() && unexplained.empty() && clashes.empty() && beyondDecks.empty() &&
               suitsBeyondDecks.empty() && int(backs.size()) <= closedPiles;
    }
    // The tops' cards, for scoring::expectedLakeCards / checkLakeChecksum.
    std::vector<scoring::Card> cards() const;
};

// The lake's pile tops in a detection of a still picture of the lake (Detector::detect with
// DetectorOptions::stillPicture(), as `nertzref-cli lake` and the app's lake step read it). With
// the picture itself (BGR, the one detected), also what no card found explains (`unexplained`).
LakeTops readLakeTops(const Detection& detection, const cv::Mat& bgr = cv::Mat());

// With the number of decks in the game (one a player; 0: not known, nothing checked), lists in
// `beyondDecks` every face read on more of the lake's tops than there are decks, and in
// `suitsBeyondDecks` every suit read on more of them than there are decks (once each).
void checkAgainstDecks(LakeTops& lake, int decks);

// A fanned lake pile (SPEC, "Pile check": it must read A, 2, 3, ... in one suit) as read from a
// detection of a picture of that one fan: each card read, at its corner index on the fan's line (of
// a card's indices the one nearest the line through them all), ordered along that line from the
// pile's bottom: the end the ace lies at, else the end from which more neighbours rise. For
// scoring::checkLakePile.
struct FannedPile {
    std::vector<scoring::Card> bottomToTop;
    std::vector<cv::Point2f> at;  // where each was read (its index's middle), in that order
    // Cards the fan's spacing says lie unread: for each, k where it lies between bottomToTop[k - 1]
    // and bottomToTop[k] (k repeated for two or more there; 0: under the first card read). With
    // three cards read or more, two neighbours kUnreadStep or more times the steps beside them apart
    // have round(gap / step) - 1 cards between them. Given the picture, a first card read that is no
    // ace, with card (not table) in the strip a card under it would show, has one under it; and a
    // fan covering twice the table or more that its cards read explain has one unread over the last
    // card read (k = bottomToTop.size(): where is not known).
    std::vector<std::size_t> unreadBefore;
};
// With the detector that read the picture (and the picture), the indices the spacing says lie
// unread are looked for where they should lie (Detector::readAt): between two neighbours a gap
// apart, over a last card read that is no king and under a first that is no ace; what is read
// there is in place in
// bottomToTop, and only what is still not read is in unreadBefore.
FannedPile readFannedPile(const Detection& detection, const cv::Mat& bgr = cv::Mat(),
                          Detector* detector = nullptr);

// The pile check of a fan read from a picture: scoring::checkLakePile on the cards read where it
// names a wrong card below every card the spacing says lies unread; else, where some card lies
// unread, no verdict (`unreadAt`: the first such card's place from the bottom, 0-based, counting it);
// else the check's verdict on the cards read.
struct FannedPileCheck {
    scoring::PileCheck check;             // on the cards read; meaningful when !unreadAt
    std::optional<std::size_t> unreadAt;  // no verdict: the card at this place was not read
    std::string message(const FannedPile& pile) const;  // the check's, or "card 3 from the bottom (between 2H and 4H) could not be read: ..."
};
FannedPileCheck checkFannedPile(const FannedPile& pile);

// Card-sized, printed regions of a picture that stand out from its table (tableForeground) and lie
// outside every card of the detection (its outlines, and a card's reach around an index read with
// no outline), as rotated boxes in picture pixels. Empty when the detection holds no card to size
// them by. What readLakeTops lists as `unexplained`; exposed for tests.
std::vector<Quad> unexplainedRegions(const Detection& detection, const cv::Mat& bgr);

}  // namespace nertz::vision
