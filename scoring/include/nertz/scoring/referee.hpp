// Referee checks: the lake checksum, the lake pile check, deck sanity, and the stuck procedure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nertz/scoring/card.hpp"
#include "nertz/scoring/hand.hpp"
#include "nertz/scoring/rules.hpp"

namespace nertz::scoring {

// --- Lake checksum ------------------------------------------------------------------------
// A lake pile whose top card has rank r holds exactly r cards; a closed king pile holds 13.

// The number of cards the lake must hold, from the top card of every open pile plus the
// number of closed (finished, turned over) king piles. Throws InputError for a negative count
// A top more often than decks could supply is NOT checked here (see facesBeyondDecks).
int expectedLakeCards(const std::vector<Card>& pileTops, int closedKingPiles = 0);

// Each deck puts one of each face in the lake: the faces found on more of `pileTops` than there
// are decks, once each, in the order their excess shows. Empty for 0 decks (not known).
std::vector<Card> facesBeyondDecks(const std::vector<Card>& pileTops, int decks);

// Every lake pile starts at an ace and each deck has one ace of a suit, so a suit has at most as
// many piles as there are decks: the suits of more of `pileTops` than there are decks, once each,
// in the order their excess shows. Empty for 0 decks (not known).
std::vector<Suit> suitsBeyondDecks(const std::vector<Card>& pileTops, int decks);

struct ChecksumResult {
    int expected = 0;  // from the pile tops
    int counted = 0;   // sum of the sides' lake counts
    bool ok() const noexcept { return expected == counted; }
    std::string message() const;  // "lake checksum ok: 37 cards" or what is off and by how much
};

ChecksumResult checkLakeChecksum(const std::vector<Card>& pileTops, int closedKingPiles,
                                 const HandResult& hand);

// --- Pile check ---------------------------------------------------------------------------

struct PileCheck {
    bool ok = true;
    std::optional<std::size_t> firstWrong;  // 0-based position from the bottom
    std::optional<Card> expected;           // what should have been there
    std::optional<Card> found;
    std::string message() const;  // "pile ok: AH..7H" or "card 4 is 5H, expected 4H"
};

// A fanned lake pile read from the bottom card up must be A, 2, 3, ... in the bottom card's suit.
PileCheck checkLakePile(const std::vector<Card>& bottomToTop);

// --- Deck sanity --------------------------------------------------------------------------

// Problems with one deck's part of a hand, each a readable sentence; empty when it is sane:
// a card of the wrong deck kind, a card twice, lake + Nertz left over 52, Nertz left over the
// pile size or negative.
std::vector<std::string> checkDeck(const std::string& deckName, const std::vector<Card>& lakeCards,
                                   int nertzLeft, int pileSize, DeckKind kind);

// --- Idle (everyone stuck) procedure ---------------------------------------------------------

enum class IdleAction {
    StockAction,    // everyone performs the rule set's StockAction together
    BurnNertzCard,  // everyone moves the top Nertz card to the bottom of the pile
    EndHand,        // the hand ends and is scored as stuck
};

struct IdleStep {
    IdleAction action = IdleAction::StockAction;
    std::string instruction;  // what the table must do now, in words
    int stockActions = 0;     // stock actions counted (in the rule set's scope) after this step
};

// A small state machine: tell it when the whole table is stuck and when a card was played,
// and it says what the table must do next under the rule set.
class IdleProcedure {
  public:
    explicit IdleProcedure(RuleSet rules);

    IdleStep stuck();  // the whole table is stuck: the next step
    void played();     // someone played a card: counters in SinceLastPlay scope restart
    void newHand();    // all counters restart
    bool handEnded() const noexcept { return ended_; }
    int stockActions() const noexcept { return stockActions_; }

  private:
    RuleSet rules_;
    int stockActions_ = 0;
    bool ended_ = false;
};

}  // namespace nertz::scoring
