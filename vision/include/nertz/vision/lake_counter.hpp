// Counting the sorted lake by deck from one picture: every face-down card found (loose, batched or
// in a ribbon spread) is attributed to an enrolled deck or to `unknown`, with its outline as
// evidence.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/vision/back_finder.hpp"
#include "nertz/vision/back_matcher.hpp"
#include "nertz/vision/detector.hpp"

namespace nertz::vision {

// One counted card, for a person to check and correct.
struct CountedCard {
    Quad quad;             // the card's outline in the picture
    int deck = -1;         // index into the matcher's decks; -1: unknown
    std::string deckName;  // "unknown" when deck == -1
    float confidence = 0.f;
    float distance = 0.f;  // back distance to the chosen (or nearest) deck
    float runnerUp = 0.f;  // to the second nearest deck
    int nearest = -1;      // the nearest deck, also for an unknown card
    // An unknown card near two decks, unsettled between them (within the matcher's maxDistance of
    // the nearest): that nearest deck, the likelier, for a person to check; empty otherwise (a card
    // like no deck gets no suggestion).
    std::string likely;
    bool strip = false;    // attributed from a strip of a ribbon spread, not the whole back
    float stripShare = 1.f;  // a strip: the share of the card's width it shows (1: not a strip)
    // A card others lie across: `quad` is the whole card as estimated, attributed from this part of
    // it that shows (picture pixels); empty when the whole card (or a strip) was read.
    std::vector<cv::Point2f> shows;
    // The share of the card's interior that the back segmenter is sure is no face-down card, left
    // out of its reading where that is at least 5% (attributeCards): a hand or a face-up card on
    // it, or, most often on the synthetic loose sorts, table under an outline fitted too large;
    // 0 without the segmenter's card probability, for strips, and where what it hides looks like
    // the rest of the card (a faint back the segmenter is unsure of: all of it is read).
    float hidden = 0.f;
    // Left unknown because it lies far lighter against its picture than its deck's back did when
    // enrolled (unknownWhereLightnessDiffers); `likely` names that deck.
    bool lighterThanDeck = false;
    // The mean grey of what was read of the card (cardLightness over the part described), as
    // seen; -1 where it was not read.
    float grey = -1.f;
    int frame = -1;        // video: the frame it was counted in
};

// A ribbon's strip that shows less than this share of its card's width is read right about half
// the time and mostly left unknown (BACKS.md, "Where the ribbon's per-deck error comes from": on
// the train ribbons, strips under an eighth right 192 times of 381, from a fifth on 235 of 246).
// `count` asks for a wider spread when such strips are left unknown (DeckCount::narrowUnknown).
inline constexpr float kNarrowStrip = 0.125f;

// Under this share of the card mask explained (DeckCount::explained), `count` warns that the
// picture is unlike the tables the finder knows.
inline constexpr float kFewExplained = 0.5f;

// A count of at least this many unknown cards, more than half of all it found, is not to be trusted
// unseen either (mostlyUnknown).
inline constexpr int kManyUnknown = 10;

struct DeckCount {
    std::map<std::string, int> counts;  // every enrolled deck, also those with 0 cards
    int unknown = 0;
    std::vector<CountedCard> cards;
    // Found card shapes left out because they are face-up cards (countBacks with a face reader):
    // not counted, neither to a deck nor as unknown; their outlines, for a person to check.
    std::vector<Quad> faceUp;
    // Strips of rows that look like no enrolled deck (most of them far from every deck), or whose
    // cards are far smaller than the face-up cards (MatcherOptions::rowUnderFaceUp), left out as no
    // cards of this table (a hand, a glare, a face-up card's pips, a keyboard, a cloth's knit): not
    // counted; their outlines, for a person to check.
    std::vector<Quad> rowsLeftOut;
    // How much of what the back finder took for cards its segmenter's instances explain
    // (findBackCards' `explained`); under kFewExplained the count is not to be trusted unseen.
    float explained = 1.f;
    double ms = 0;       // processing time, milliseconds (the faces' reading included)
    double facesMs = 0;  // of it, reading the faces (0: not read)

    int total() const;
    // kManyUnknown or more cards given to no deck, and more than half of all: a deck of the table not
    // enrolled, or a picture that is no table of backs although the finder explains it (a mottled
    // cloth cut into card-sized pieces); a person should look.
    bool mostlyUnknown() const;
    // Unknown cards read from strips under kNarrowStrip of their card: spreading the ribbon wider
    // (a quarter to a half of each card) lets them be told apart.
    int narrowUnknown() const;
};

// Attributes one card outline (whole, or the region of it that shows, or the polygon `shows` of
// it: see BackCandidate). `moving`: seen in motion (BackMatcher::match).
CountedCard attributeCard(const cv::Mat& bgr, const Quad& quad, const BackRegion& region,
                          const BackMatcher& matcher, const std::vector<cv::Point2f>& shows = {},
                          bool moving = false);

// The cards of one picture attributed together, as countBacks does: each alone (attributeCard),
// then those left unknown between two decks read again beside the scene's own whole cards of those
// decks (MatcherOptions::sceneExemplars). One card per candidate, in order. With
// `cardProbability` (the back segmenter's BackSegmentation::card of the picture, at any size:
// findBackCards gives it) a whole card is read without what the segmenter sees as no face-down card
// on it (a hand, a face-up card), where that hides a noticeable part of it.
std::vector<CountedCard> attributeCards(const cv::Mat& bgr, const std::vector<BackCandidate>& cards,
                                        const BackMatcher& matcher,
                                        const cv::Mat& cardProbability = {});

// Cards of `cards` (read from `found`, one for one) still unknown between their two nearest decks
// go to the nearer one where BackMatcher::pairRatio, on what tells those two decks apart, gives it
// confidence >= MatcherOptions::pairConfidence, and the two decks' backs lie at least
// MatcherOptions::tooClose apart (closer ones the enrolment warned of). The ratio of the plain
// distances leaves such a card unknown where the table moves it about as far from both decks: two
// colours of one design, whose distances then differ by their colour terms only. Given cards get
// that confidence. countBacks runs it last (after the refit); off with MatcherOptions::pairLook
// false. `cardProbability`: as attributeCards reads it.
void settleBetweenTwoDecks(const cv::Mat& bgr, const std::vector<BackCandidate>& found,
                           std::vector<CountedCard>& cards, const BackMatcher& matcher,
                           const cv::Mat& cardProbability = {});

// Cards of `cards` (read from `bgr` by attributeCards or the refit: CountedCard::grey; a card
// without it is left as it is) given to a deck that lie far lighter in `bgr` than the deck's back
// in its enrolment pictures (MatcherOptions::lighterBy, stripLighterBy) are left unknown, with that
// deck as the likely one (CountedCard::lighterThanDeck), where the picture's white is at least
// MatcherOptions::leastWhite (nothing else is measured against). countBacks runs it last. The floor
// added to both lightnesses keeps a black back in a dim picture from being called several times
// lighter than its deck over a few grey levels.
inline constexpr float kLightnessFloor = 0.1f;
void unknownWhereLightnessDiffers(const cv::Mat& bgr, std::vector<CountedCard>& cards,
                                  const BackMatcher& matcher);
// The same against a white already read (sceneWhite of the picture the cards were read from), with
// no floor on it; the stream counter reads it once a frame and checks only frames whose white is
// near white (StreamOptions::leastWhite).
void unknownWhereLightnessDiffers(float white, std::vector<CountedCard>& cards,
                                  const BackMatcher& matcher);

// RefitOptions applied to `cards` (attributeCards of `found`): unknown loose cards fitted again by
// card-sized guesses around them; a card placed beside one adds to both vectors. `faceUp`: outlines
// of face-up cards (DeckCount::faceUp), which no guess may be and which hide what lies under them.
// `cardProbability`: as attributeCards reads it.
void refitUnknownCards(const cv::Mat& bgr, const BackMatcher& matcher,
                       std::vector<BackCandidate>& found, std::vector<CountedCard>& cards,
                       const std::vector<Quad>& faceUp = {}, const cv::Mat& cardProbability = {});

// Which of the found cards are not backs, judged by `faces` (Vision I's reading of the same
// picture). Only cards read face up with an index of at least `minConfidence` are taken as face up
// (a back's pattern is now and then read as an index, at 0.80-0.89 on the train designs' backs).
// A found card is not a back when one of their corner indices lies on what shows of it, when what
// shows of it lies by at least `inside` of its area within one of their outlines, or when its long
// side is under `minSize` of theirs (the median): pieces of a face's print or of the table. The
// lake's face-up piles and the face-up cards beside a sort are not backs; without this the finder
// takes them, and the pips and court art on them, for backs (models/training/BACKS.md, "Face-up
// cards left out").
std::vector<bool> faceUpCards(const std::vector<BackCandidate>& found, const Detection& faces,
                              float inside = 0.5f, float minSize = 0.6f,
                              float minConfidence = 0.9f);

// The long side of a card in this picture by its face-up cards (the median over those read with an
// index of at least `minConfidence`; from their index boxes, a lower bound, where no outline was
// found); 0 when none was read.
double faceUpCardSide(const Detection& faces, float minConfidence = 0.9f);

// Which of the found cards lie in a row (BackCandidate::inRow; a row's cards consecutive) most of
// whose cards' long sides are under `minSize` of the face-up cards' (faceUpCardSide): all cards on a
// table are of one size, give or take the view's perspective, so such a row is no ribbon of backs.
// None without a face-up card read. countBacks applies it with MatcherOptions::rowUnderFaceUp.
std::vector<bool> rowsSmallerThanFaceUp(const std::vector<BackCandidate>& found,
                                        const Detection& faces, float minSize);

// faceUpCards applied: the face-up ones are taken out of `found` (the others keep their order) and
// their outlines returned.
std::vector<Quad> leaveOutFaceUp(std::vector<BackCandidate>& found, const Detection& faces);

// Finds and attributes every face-down card in an 8-bit BGR picture. Rows whose strips mostly lie
// far from every deck (MatcherOptions::rowLikeNoDeck) are left out (DeckCount::rowsLeftOut). With a
// `faceReader`, when some
// found cards are not surely given to a deck (confidence under 0.95, or far from it), the
// picture's faces are read, the cards surely given to a deck painted over, and those others that
// are face up are left out (faceUpCards; DeckCount::faceUp; where such a card lies on a face-up
// card the reader outlined but read nothing of, that card's box is read again at 1.25 and 0.75 of
// the working scale first: Detector::readAgainAt); so are rows far smaller than the
// face-up cards (rowsSmallerThanFaceUp, MatcherOptions::rowUnderFaceUp; DeckCount::rowsLeftOut),
// for which the faces are read also where a row's cards are all sure. A frame of loose cards all
// sure costs no reading. Loose cards still unknown then are fitted again (refitUnknownCards, unless the
// matcher's RefitOptions are off).
DeckCount countBacks(const cv::Mat& bgr, const BackMatcher& matcher,
                     const BackFinderOptions& options = {}, Detector* faceReader = nullptr);

}  // namespace nertz::vision
