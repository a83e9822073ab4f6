#include "nertz/scoring/hand.hpp"

#include <set>

#include "nertz/scoring/error.hpp"

namespace nertz::scoring {
namespace {

std::string at(std::size_t i, const char* field) {
    return "players[" + std::to_string(i) + "]." + field;
}

bool isTrueCaller(const SideHand& s) {
    return s.called && s.nertzLeft == 0;
}

bool paysPenalty(const SideHand& s, HandEnd end, PenaltyPayers payers) {
    switch (payers) {
        case PenaltyPayers::Everyone:
            return true;
        case PenaltyPayers::NonCallersOrAllIfStuck:
            return end == HandEnd::Stuck || !isTrueCaller(s);
        case PenaltyPayers::NonCallers:
            break;
    }
    return !isTrueCaller(s);
}

}  // namespace

void validateHand(const HandResult& hand, const RuleSet& rules) {
    if (hand.sides.size() < 2) {
        throw InputError("players", "a hand needs at least two players or teams, got " +
                                        std::to_string(hand.sides.size()));
    }
    std::set<std::string> names;
    const SideHand* caller = nullptr;
    for (std::size_t i = 0; i < hand.sides.size(); ++i) {
        const SideHand& s = hand.sides[i];
        if (s.name.empty()) throw InputError(at(i, "name"), "must not be empty");
        if (!names.insert(s.name).second) {
            throw InputError(at(i, "name"), "'" + s.name + "' appears twice in the hand");
        }
        if (s.lake < 0)
            throw InputError(at(i, "lake"), "must not be negative, got " + std::to_string(s.lake));
        if (s.lake > kDeckSize) {
            throw InputError(at(i, "lake"), std::to_string(s.lake) +
                                                " lake cards, but one deck has only 52 cards");
        }
        if (s.nertzLeft < 0) {
            throw InputError(at(i, "nertz_left"),
                             "must not be negative, got " + std::to_string(s.nertzLeft));
        }
        const int pile = s.pileSize.value_or(rules.pileSize);
        if (s.pileSize && (pile < 1 || pile > kDeckSize)) {
            throw InputError(at(i, "pile_size"), "must be 1..52, got " + std::to_string(pile));
        }
        if (s.nertzLeft > pile) {
            throw InputError(at(i, "nertz_left"),
                             std::to_string(s.nertzLeft) + " cards left, but the Nertz pile of '" +
                                 s.name + "' has only " + std::to_string(pile));
        }
        if (s.lake + s.nertzLeft > kDeckSize) {
            throw InputError(at(i, "lake"), "lake " + std::to_string(s.lake) + " + Nertz left " +
                                                std::to_string(s.nertzLeft) +
                                                " is more than the 52 cards of a deck");
        }
        if (s.falseCalls < 0) throw InputError(at(i, "false_calls"), "must not be negative");
        if (s.falseCalls > 0 && !rules.hasFalseCalls()) {
            throw InputError(at(i, "false_calls"),
                             "rule set '" + rules.id + "' has no false-call penalty");
        }
        if (s.called) {
            if (caller) {
                throw InputError(at(i, "called"), "only one player can call Nertz, and '" +
                                                      caller->name + "' already called");
            }
            caller = &s;
            if (hand.end == HandEnd::Stuck) {
                throw InputError(at(i, "called"), "the hand ended stuck, so nobody called Nertz");
            }
            if (s.nertzLeft > 0 && !rules.hasFalseCalls()) {
                throw InputError(at(i, "called"), "'" + s.name + "' called Nertz with " +
                                                      std::to_string(s.nertzLeft) +
                                                      " cards left, and rule set '" + rules.id +
                                                      "' has no false calls");
            }
        }
    }
    if (hand.end == HandEnd::Nertz && !caller) {
        throw InputError("end", "'nertz' needs the player who called (\"called\": true)");
    }
}

HandScore scoreHand(const HandResult& hand, const RuleSet& rules) {
    validateHand(hand, rules);
    HandScore out;
    out.sides.reserve(hand.sides.size());
    for (const SideHand& s : hand.sides) {
        SideScore sc;
        sc.name = s.name;
        sc.lakePoints = s.lake * rules.lakeCardPoints;
        if (s.nertzLeft > 0 && paysPenalty(s, hand.end, rules.penaltyPayers)) {
            sc.penalty = s.nertzLeft * rules.nertzCardPoints;
        }
        if (isTrueCaller(s)) sc.bonus = rules.callerBonus;
        const int falseCalls = s.falseCalls + (s.called && s.nertzLeft > 0 ? 1 : 0);
        sc.falseCall = falseCalls * rules.falseCallPoints;
        sc.score = sc.lakePoints + sc.penalty + sc.bonus + sc.falseCall;
        out.sides.push_back(std::move(sc));
    }
    return out;
}

std::string_view toString(HandEnd end) {
    return end == HandEnd::Nertz ? "nertz" : "stuck";
}

std::optional<HandEnd> parseHandEnd(std::string_view s) {
    if (s == "nertz") return HandEnd::Nertz;
    if (s == "stuck") return HandEnd::Stuck;
    return std::nullopt;
}

}  // namespace nertz::scoring
