#include "nertz/scoring/game.hpp"

#include <algorithm>
#include <set>

#include "nertz/scoring/error.hpp"

namespace nertz::scoring {
namespace {

std::string joinNames(const std::vector<Side>& sides) {
    std::string out;
    for (const Side& s : sides) out += (out.empty() ? "" : ", ") + s.name;
    return out;
}

// Re-throws an InputError with its field placed under `prefix` ("hands[2]").
[[noreturn]] void rethrowUnder(const std::string& prefix, const InputError& e) {
    const std::string field = e.field().empty() ? prefix : prefix + "." + e.field();
    std::string message = e.what();
    if (!e.field().empty()) message = message.substr(e.field().size() + 2);
    throw InputError(field, message);
}

}  // namespace

Game::Game(RuleSet rules, std::vector<Side> sides)
    : rules_(std::move(rules)), sides_(std::move(sides)) {
    rules_.validate();
    if (sides_.size() < 2) {
        throw InputError("players", "a game needs at least two players or teams, got " +
                                        std::to_string(sides_.size()));
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < sides_.size(); ++i) {
        const Side& s = sides_[i];
        const std::string field =
            (s.members.empty() ? "players[" : "teams[") + std::to_string(i) + "]";
        if (s.name.empty()) throw InputError(field + ".name", "must not be empty");
        if (!names.insert(s.name).second) {
            throw InputError(field + ".name", "'" + s.name + "' appears twice");
        }
        const int size = s.members.empty() ? 1 : static_cast<int>(s.members.size());
        if (size < rules_.minTeamSize || size > rules_.maxTeamSize) {
            throw InputError(field + ".members", "rule set '" + rules_.id + "' allows " +
                                                     std::to_string(rules_.minTeamSize) + ".." +
                                                     std::to_string(rules_.maxTeamSize) +
                                                     " players per side, '" + s.name + "' has " +
                                                     std::to_string(size));
        }
        for (std::size_t m = 0; m < s.members.size(); ++m) {
            const std::string& member = s.members[m];
            if (member.empty()) {
                throw InputError(field + ".members[" + std::to_string(m) + "]",
                                 "must not be empty");
            }
            if (member != s.name && !names.insert(member).second) {
                throw InputError(field + ".members[" + std::to_string(m) + "]",
                                 "'" + member + "' already plays on another side");
            }
        }
        if (s.pileSize && (*s.pileSize < 1 || *s.pileSize > kDeckSize)) {
            throw InputError(field + ".pile_size",
                             "must be 1..52, got " + std::to_string(*s.pileSize));
        }
    }
}

std::optional<std::size_t> Game::sideIndex(const std::string& name) const {
    for (std::size_t i = 0; i < sides_.size(); ++i) {
        if (sides_[i].name == name) return i;
    }
    return std::nullopt;
}

HandResult Game::normalise(HandResult hand, const std::string& field) const {
    try {
        for (std::size_t i = 0; i < hand.sides.size(); ++i) {
            SideHand& s = hand.sides[i];
            auto idx = sideIndex(s.name);
            if (!idx) {
                throw InputError("players[" + std::to_string(i) + "].name",
                                 "'" + s.name + "' does not play in this game (sides: " +
                                     joinNames(sides_) + ")");
            }
            if (!s.pileSize) s.pileSize = sides_[*idx].pileSize.value_or(rules_.pileSize);
        }
        validateHand(hand, rules_);
        if (hand.sides.size() != sides_.size()) {
            for (const Side& side : sides_) {
                const bool present =
                    std::any_of(hand.sides.begin(), hand.sides.end(),
                                [&](const SideHand& s) { return s.name == side.name; });
                if (!present)
                    throw InputError("players", "'" + side.name + "' is missing from the hand");
            }
        }
    } catch (const InputError& e) {
        rethrowUnder(field, e);
    }
    std::sort(hand.sides.begin(), hand.sides.end(), [this](const SideHand& a, const SideHand& b) {
        return *sideIndex(a.name) < *sideIndex(b.name);
    });
    return hand;
}

Game::Replay Game::replay(std::vector<HandResult> hands) const {
    Replay r;
    std::vector<int> totals(sides_.size(), 0);
    for (std::size_t h = 0; h < hands.size(); ++h) {
        if (h > 0 && outcomeOf(totals, h).over) {
            throw InputError("hands[" + std::to_string(h - 1) + "]",
                             "with this change the game ends after hand " + std::to_string(h) +
                                 ", but " + std::to_string(hands.size() - h) +
                                 " more hand(s) follow; delete those first");
        }
        HandResult hand = normalise(std::move(hands[h]), "hands[" + std::to_string(h) + "]");
        HandScore score = scoreHand(hand, rules_);
        for (std::size_t i = 0; i < totals.size(); ++i) totals[i] += score.sides[i].score;
        r.hands.push_back(std::move(hand));
        r.scores.push_back(std::move(score));
    }
    return r;
}

const HandScore& Game::addHand(HandResult hand) {
    const GameOutcome now = outcome();
    if (now.over) {
        throw InputError("hands[" + std::to_string(hands_.size()) + "]",
                         "the game is over after " + std::to_string(hands_.size()) + " hands (" +
                             (now.winner ? "won by " + *now.winner : "tied") +
                             "); start a new game");
    }
    HandResult normal = normalise(std::move(hand), "hands[" + std::to_string(hands_.size()) + "]");
    HandScore score = scoreHand(normal, rules_);
    hands_.push_back(std::move(normal));
    scores_.push_back(std::move(score));
    return scores_.back();
}

void Game::editHand(std::size_t index, HandResult hand) {
    if (index >= hands_.size()) {
        throw InputError("hand", "no hand " + std::to_string(index + 1) + " (the game has " +
                                     std::to_string(hands_.size()) + ")");
    }
    std::vector<HandResult> next = hands_;
    next[index] = std::move(hand);
    Replay r = replay(std::move(next));
    hands_ = std::move(r.hands);
    scores_ = std::move(r.scores);
}

void Game::deleteHand(std::size_t index) {
    if (index >= hands_.size()) {
        throw InputError("hand", "no hand " + std::to_string(index + 1) + " (the game has " +
                                     std::to_string(hands_.size()) + ")");
    }
    std::vector<HandResult> next = hands_;
    next.erase(next.begin() + static_cast<std::ptrdiff_t>(index));
    Replay r = replay(std::move(next));
    hands_ = std::move(r.hands);
    scores_ = std::move(r.scores);
}

std::vector<int> Game::totalsAfter(std::size_t hands) const {
    std::vector<int> totals(sides_.size(), 0);
    for (std::size_t h = 0; h < std::min(hands, scores_.size()); ++h) {
        for (std::size_t i = 0; i < totals.size(); ++i) totals[i] += scores_[h].sides[i].score;
    }
    return totals;
}

GameOutcome Game::outcome() const {
    return outcomeOf(totals(), hands_.size());
}

GameOutcome Game::outcomeOf(const std::vector<int>& totals, std::size_t hands) const {
    GameOutcome out;
    out.handsPlayed = hands;
    if (totals.empty()) return out;
    const int best = *std::max_element(totals.begin(), totals.end());
    if (best < rules_.target) return out;
    std::vector<std::size_t> leaders;
    for (std::size_t i = 0; i < totals.size(); ++i) {
        if (totals[i] == best) leaders.push_back(i);
    }
    if (leaders.size() > 1) {
        if (rules_.atTarget == AtTarget::PlayOnWhileTied) return out;  // play on
        out.over = true;
        for (std::size_t i : leaders) out.tiedLeaders.push_back(sides_[i].name);
        return out;
    }
    out.over = true;
    const std::size_t w = leaders.front();
    out.winner = sides_[w].name;
    if (rules_.settlement == Settlement::WinnerCollectsDifference) {
        for (std::size_t i = 0; i < totals.size(); ++i) {
            if (i != w)
                out.settlement.push_back({sides_[i].name, sides_[w].name, best - totals[i]});
        }
    }
    return out;
}

}  // namespace nertz::scoring
