// Scoring one hand: what each player (or team) did -> the breakdown and the hand score.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nertz/scoring/rules.hpp"

namespace nertz::scoring {

// How a hand stopped.
enum class HandEnd {
    Nertz,  // somebody called Nertz
    Stuck,  // nobody could play and the rule set ended the hand (nobody called)
};

// One scoring side's result for a hand: a player, or a team sharing a deck.
struct SideHand {
    std::string name;
    int lake = 0;         // cards of this side's deck in the lake
    int nertzLeft = 0;    // cards left in this side's Nertz pile
    bool called = false;  // this side called Nertz and ended the hand
    int falseCalls =
        0;  // calls made earlier in the hand with cards left (rule sets with false calls)
    std::optional<int> pileSize;  // this side's Nertz pile size, when not the rule set's

    friend bool operator==(const SideHand&, const SideHand&) = default;
};

struct HandResult {
    std::vector<SideHand> sides;
    HandEnd end = HandEnd::Nertz;

    friend bool operator==(const HandResult&, const HandResult&) = default;
};

// The score of one side for one hand; penalties are negative so `score` is the plain sum.
struct SideScore {
    std::string name;
    int lakePoints = 0;
    int penalty = 0;    // Nertz cards left x nertzCardPoints, when this side pays
    int bonus = 0;      // caller bonus
    int falseCall = 0;  // false calls x falseCallPoints
    int score = 0;

    friend bool operator==(const SideScore&, const SideScore&) = default;
};

struct HandScore {
    std::vector<SideScore> sides;  // in the order of HandResult::sides
};

// Checks `hand` against `rules` and throws InputError naming the first bad field (for example
// "players[1].nertz_left"). Checks: names present and unique; counts not negative; lake <= 52;
// lake + Nertz left <= 52; Nertz left <= pile size; at most one caller; `end` agrees with the
// caller; a caller with cards left only where false calls exist; false calls only where they exist.
void validateHand(const HandResult& hand, const RuleSet& rules);

// Validates, then scores. Under a rule set with false calls, a caller with cards left made a
// false call: no bonus, the false-call points, and the Nertz penalty like any non-caller.
HandScore scoreHand(const HandResult& hand, const RuleSet& rules);

std::string_view toString(HandEnd end);
std::optional<HandEnd> parseHandEnd(std::string_view s);

}  // namespace nertz::scoring
