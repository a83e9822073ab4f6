// Game: the hands of one game under one rule set; running totals, the end, winner, settlement.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "nertz/scoring/hand.hpp"
#include "nertz/scoring/rules.hpp"

namespace nertz::scoring {

// A scoring side: one player, or a team sharing one deck and one score.
struct Side {
    std::string name;
    std::vector<std::string> members;  // empty for a single player (the member is `name`)
    std::optional<int> pileSize;       // handicap: this side's Nertz pile size for every hand

    friend bool operator==(const Side&, const Side&) = default;
};

// One payment of the settlement (classic: the winner collects the difference from each player).
struct Transfer {
    std::string from;
    std::string to;
    int amount = 0;

    friend bool operator==(const Transfer&, const Transfer&) = default;
};

struct GameOutcome {
    bool over = false;
    std::optional<std::string> winner;     // set when over with a single highest total
    std::vector<std::string> tiedLeaders;  // set when over and first place is shared (HighestWins)
    std::size_t handsPlayed = 0;
    std::vector<Transfer> settlement;
};

class Game {
  public:
    // Throws InputError for bad sides: none, fewer than two, duplicate names or members,
    // team sizes outside the rule set's limits, bad pile sizes. Rules are validated too.
    Game(RuleSet rules, std::vector<Side> sides);

    const RuleSet& rules() const noexcept { return rules_; }
    const std::vector<Side>& sides() const noexcept { return sides_; }
    // The hands as stored: sides reordered to the game's side order, pile sizes filled in.
    const std::vector<HandResult>& hands() const noexcept { return hands_; }
    const std::vector<HandScore>& scores() const noexcept { return scores_; }

    // Scores and appends a hand. Its sides must be exactly the game's sides (any order).
    // Throws InputError (nothing changes) when the hand is invalid or the game is over.
    const HandScore& addHand(HandResult hand);
    // Replaces hand `index` (0-based) and recomputes everything after it. Throws InputError,
    // leaving the game unchanged, if the hand is invalid or the edit would end the game before
    // its last hand (delete the later hands first).
    void editHand(std::size_t index, HandResult hand);
    // Removes hand `index`; same recompute and checks as editHand.
    void deleteHand(std::size_t index);

    // Running totals per side (game side order) after all hands, or after the first `hands`.
    std::vector<int> totals() const { return totalsAfter(hands_.size()); }
    std::vector<int> totalsAfter(std::size_t hands) const;
    GameOutcome outcome() const;

    // The index of the side called `name`, or nullopt.
    std::optional<std::size_t> sideIndex(const std::string& name) const;

  private:
    struct Replay {
        std::vector<HandResult> hands;
        std::vector<HandScore> scores;
    };
    HandResult normalise(HandResult hand, const std::string& field) const;
    Replay replay(std::vector<HandResult> hands) const;  // throws if the game ends early
    GameOutcome outcomeOf(const std::vector<int>& totals, std::size_t hands) const;

    RuleSet rules_;
    std::vector<Side> sides_;
    std::vector<HandResult> hands_;
    std::vector<HandScore> scores_;
};

}  // namespace nertz::scoring
