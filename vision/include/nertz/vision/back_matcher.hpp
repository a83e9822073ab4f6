// Attribution of a face-down card to one of the enrolled decks by its back, or to nobody
// (`unknown`) when no deck is close enough or two decks are about equally close; and the warning
// at enrolment when a new deck's back is too close to an enrolled one to be told apart.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "nertz/vision/back_signature.hpp"

namespace nertz::vision {

struct EnrolledDeck {
    std::string name;
    BackSignature signature;
};

// The answer for one card. deck == -1 means unknown.
struct BackMatch {
    int deck = -1;
    float confidence =
        0.f;               // 0..1: how clearly the best deck beats the runner-up and the threshold
    float distance = 0.f;  // to the best deck
    float runnerUp = 0.f;  // to the second best deck (or maxDistance when there is one deck)
    int nearest = -1;      // the nearest deck, also when the answer is unknown (-1: no decks)
    int second = -1;       // the second nearest deck (-1: fewer than two decks)
};

// A new back that the matcher could confuse with an enrolled one.
struct ClosenessWarning {
    std::string deck;  // the enrolled deck it is close to
    float distance = 0.f;
    std::string message;
};

// Counting a picture (countBacks): a loose card left unknown is most often a wrong outline (on the
// train batch set 71 of its 86 unknown cards lie at IoU < 0.7 from every true card: two cards of
// different decks taken as one, a card fitted off its place). Card-sized outlines around it, of
// the scene's card size, are read over what shows of them, and the nearest one given to a deck
// takes its place; where the outline is longer than a card, a second one beside the first (read
// without it) is one more card. Tuned on the train sets; models/training/BACKS.md, "Unknown cards
// fitted again".
struct RefitOptions {
    bool on = true;
    int minSceneCards = 2;     // surely attributed whole cards that give the scene's card size
    float longer = 1.15f;      // a side this much longer than the card's: guesses at either end
    float shift = 0.20f;       // else at its middle and shifted by this share of the card 4 ways
    // a covered card (BackCandidate::shows) is also guessed centred on what shows of it and
    // shifted by this share of the card four ways; 0: not
    float showsShift = 0.15f;
    float maxOverlap = 0.5f;   // a guess lying this much over a counted card is that card
    float minShows = 0.10f;    // a guess is read when at least this share of it shows
    float confidence = 0.25f;  // a guess given to a deck with this confidence is a card
};

// The least white (sceneWhite, grey levels) of a picture in which cards are checked for lying far
// lighter than their deck (MatcherOptions::leastWhite, StreamOptions::leastWhite).
inline constexpr float kLeastSceneWhite = 160.f;

struct MatcherOptions {
    float maxDistance = 1.0f;     // farther than this from every deck: unknown
    float minConfidence = 0.25f;  // below this confidence: unknown
    float tooClose = 0.30f;       // enrolment warning below this distance between two decks' backs
    // Counting a picture (countBacks): a card left unknown between two decks is looked at again
    // beside the scene's own cards of those decks (whole cards read with confidence), described over
    // the same part (strip, or what shows), so the light, blur and camera are the same; it goes to the
    // nearer deck when that is at most `sceneRatio` of the other's distance.
    bool sceneExemplars = true;
    float sceneRatio = 0.7f;
    // Counting a picture (countBacks, last: settleBetweenTwoDecks): a card still unknown between
    // two decks whose backs lie at least tooClose apart is given to the nearer one when its pair
    // ratio (BackMatcher::pairRatio: the distance terms weighted by how much the two decks differ in
    // each) gives it at least pairConfidence on the matcher's own scale ((1 - ratio) / 0.5); 0.25
    // gave more cards right on the train sets but also wrong ones on two colours of one design
    // (models/training/BACKS.md, "Cards between two decks: what tells those two apart").
    bool pairLook = true;
    float pairConfidence = 0.5f;
    // Counting a picture (countBacks): a row most of whose strips lie farther than this many times
    // maxDistance from every deck is no row of this table's backs (a hand, a glare, a face-up card's
    // pips, a keyboard, a chair's mesh): it is left out and listed (DeckCount::rowsLeftOut). 1.5
    // until 2026-11-30 (models/training/BACKS.md, "Rows that look like no deck").
    float rowLikeNoDeck = 1.2f;
    // Counting with a face reader: a row most of whose cards' long sides are under this share of
    // the face-up cards' (faceUpCardSide) is no row of backs (a face's print, a cloth's knit, a
    // keyboard cut into strips): left out and listed (DeckCount::rowsLeftOut); the faces are then
    // read wherever a row is kept, also when all its cards are sure of their deck. 0: off.
    // models/training/BACKS.md, "Rows far smaller than the face-up cards".
    float rowUnderFaceUp = 0.4f;
    // Counting a picture (countBacks, last: unknownWhereLightnessDiffers): a whole card given to a
    // deck whose lightness against its picture (cardLightness over sceneWhite), plus
    // kLightnessFloor, is more than `lighterBy` times its deck's lightest enrolment view's (plus the
    // floor) is left unknown, its deck given as likely; a strip of a row more than
    // `stripLighterBy` times (a strip holds more of a card's light margin than its interior does).
    // Each card back is white-balanced and toned on itself, so a beige knitted blanket and a black
    // back with a gold print can be near in every distance term; how light they lie against the
    // table is not. On the train sets right cards lie at most 2.26 (whole) and 2.69 (strips) times
    // lighter. 0: off. Decks of version 3 signatures are not checked. models/training/BACKS.md,
    // "Cards far lighter than their deck".
    float lighterBy = 2.5f;
    float stripLighterBy = 3.0f;
    // ... checked only in pictures whose white (sceneWhite) is at least this: something near white
    // in view (a light thing brings its own; face-up cards, a card's white border). A picture of
    // dark or coloured backs on a dark table has for white the lightest part of a back, against
    // which its right cards read several times lighter than at enrolment (frames of the synthetic
    // deals: up to 2.76 times under a white of 100, at most 1.76 from 160; the still pictures of the
    // same decks: LakeCounter.ADarkTableWithNothingWhiteIsNotCheckedForLightness). 0: every picture.
    // The stream counter's frames have their own (StreamOptions::leastWhite, the same default).
    float leastWhite = kLeastSceneWhite;
    RefitOptions refit;
};

class BackMatcher {
  public:
    explicit BackMatcher(MatcherOptions options = {}) : options_(options) {}

    // Adds a deck; throws scoring::InputError("deck", ...) for an empty or repeated name or a
    // signature without a whole-card view.
    void add(std::string name, BackSignature signature);

    // Enrolled decks whose backs are within options().tooClose of `signature` (closest first).
    std::vector<ClosenessWarning> closeTo(const BackSignature& signature) const;

    // The best deck for a card (whole card) or a strip of one (probe.region not whole). `moving`:
    // the card was seen in motion (StreamCounter), so the longer smeared copies count too.
    BackMatch match(const BackDescriptor& probe, bool moving = false) const;

    // Distance from a probe to one deck (smallest over its descriptors of the same region kind,
    // blurred enrolment copies included).
    float distanceTo(const BackDescriptor& probe, int deck) const;

    // How a probe lies between decks a and b on what tells those two apart (pairRatio).
    struct PairLook {
        // the distance terms (backTerms) to a's and to b's nearest descriptor, each weighted by
        // kBackTermWeights times how far that descriptor lies from its counterpart in the other
        // deck (the same region and enrolment copy) in that term, summed; a's sum over b's (< 1:
        // nearer a). Two decks of one design in two colours differ in the colour terms, and what
        // the table adds to both distances alike (a shadow, a pattern's blur) drops out.
        // 1 when the decks do not differ.
        float ratio = 1.f;
        // backDistance between those counterparts (the mean of the two pairs): how far apart the
        // two decks' backs are; -1 when a or b is no deck or has no descriptor to compare
        float apart = -1.f;
    };
    PairLook pairRatio(const BackDescriptor& probe, int a, int b, bool moving = false) const;

    // Calls f(descriptor) for each of deck's enrolled descriptors that a probe is compared with:
    // those of its region kind (a strip: the enrolled strips of the width nearest the probe's, at
    // either edge), and of the copies only those of a still card (`moving`: the longer smears too;
    // `asSeenOnly`: no copies, the views as seen).
    template <class F>
    void forEachCompared(const BackDescriptor& probe, int deck, bool asSeenOnly, bool moving,
                         F&& f) const {
        const auto& descriptors = decks_[std::size_t(deck)].signature.descriptors;
        const bool whole = probe.region.whole();
        const float width = probe.region.x1 - probe.region.x0;
        float nearestWidth = 2.f;
        if (!whole)
            for (const auto& d : descriptors)
                if (!d.region.whole() &&
                    std::abs((d.region.x1 - d.region.x0) - width) < std::abs(nearestWidth - width))
                    nearestWidth = d.region.x1 - d.region.x0;
        static const float still = stillSpread();  // once: this runs for every card and deck
        for (const auto& d : descriptors) {
            if (d.region.whole() != whole) continue;
            if (asSeenOnly && d.blur != 0.f) continue;
            if (!moving && d.blur > still) continue;
            if (!whole && std::abs((d.region.x1 - d.region.x0) - nearestWidth) > 1e-4f) continue;
            f(d);
        }
    }

    const std::vector<EnrolledDeck>& decks() const noexcept { return decks_; }
    const MatcherOptions& options() const noexcept { return options_; }

  private:
    // asSeenOnly: only the deck's descriptors of views as seen (blur 0), not its blurred copies.
    float distanceTo(const BackDescriptor& probe, int deck, bool asSeenOnly,
                     bool moving = false) const;
    // The deck's descriptor nearest to the probe among those forEachCompared gives (nullptr: none),
    // and its distance (the float's maximum when none).
    const BackDescriptor* nearestDescriptor(const BackDescriptor& probe, int deck, bool asSeenOnly,
                                            bool moving, float& distance) const;
    MatcherOptions options_;
    std::vector<EnrolledDeck> decks_;
};

}  // namespace nertz::vision
