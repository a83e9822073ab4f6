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
    // A card others lie across: `quad` is the whole card as estimated, attributed from this part of
    // it that shows (picture pixels); empty when the whole card (or a strip) was read.
    std::vector<cv::Point2f> shows;
    int frame = -1;        // video: the frame it was counted in
};

struct DeckCount {
    std::map<std::string, int> counts;  // every enrolled deck, also those with 0 cards
    int unknown = 0;
    std::vector<CountedCard> cards;
    double ms = 0;  // processing time, milliseconds

    int total() const;
};

// Attributes one card outline (whole, or the region of it that shows, or the polygon `shows` of
// it: see BackCandidate). `moving`: seen in motion (BackMatcher::match).
CountedCard attributeCard(const cv::Mat& bgr, const Quad& quad, const BackRegion& region,
                          const BackMatcher& matcher, const std::vector<cv::Point2f>& shows = {},
                          bool moving = false);

// Finds and attributes every face-down card in an 8-bit BGR picture.
DeckCount countBacks(const cv::Mat& bgr, const BackMatcher& matcher,
                     const BackFinderOptions& options = {});

}  // namespace nertz::vision
