#include "nertz/scoring/referee.hpp"

#include <map>
#include <set>

#include "nertz/scoring/error.hpp"

namespace nertz::scoring {

int expectedLakeCards(const std::vector<Card>& pileTops, int closedKingPiles) {
    if (closedKingPiles < 0) {
        throw InputError("closed_piles",
                         "must not be negative, got " + std::to_string(closedKingPiles));
    }
    int total = closedKingPiles * kKing;
    for (std::size_t i = 0; i < pileTops.size(); ++i) {
        const Card& c = pileTops[i];
        if (c.rank < kAce || c.rank > kKing) {
            throw InputError("tops[" + std::to_string(i) + "]", "rank must be 1..13");
        }
        total += c.rank;
    }
    return total;
}

namespace {

// The keys (`key` of each top) found on more of `pileTops` than there are decks, once each, in the
// order their excess shows; none for 0 decks (not known).
template <class Key>
auto beyondDecks(const std::vector<Card>& pileTops, int decks, Key key) {
    using K = decltype(key(pileTops.front()));
    std::vector<K> out;
    if (decks <= 0) return out;
    std::map<K, int> seen;
    for (const Card& c : pileTops)
        if (++seen[key(c)] == decks + 1) out.push_back(key(c));
    return out;
}

}  // namespace

std::vector<Card> facesBeyondDecks(const std::vector<Card>& pileTops, int decks) {
    return beyondDecks(pileTops, decks, [](const Card& c) { return c; });
}

std::vector<Suit> suitsBeyondDecks(const std::vector<Card>& pileTops, int decks) {
    return beyondDecks(pileTops, decks, [](const Card& c) { return c.suit; });
}

std::string ChecksumResult::message() const {
    if (ok()) return "lake checksum ok: " + std::to_string(expected) + " cards";
    const int diff = counted - expected;
    return "lake checksum off: the pile tops say " + std::to_string(expected) +
           " cards, the counts add up to " + std::to_string(counted) + " (" +
           std::to_string(diff > 0 ? diff : -diff) + (diff > 0 ? " too many)" : " missing)");
}

ChecksumResult checkLakeChecksum(const std::vector<Card>& pileTops, int closedKingPiles,
                                 const HandResult& hand) {
    ChecksumResult r;
    r.expected = expectedLakeCards(pileTops, closedKingPiles);
    for (const SideHand& s : hand.sides) r.counted += s.lake;
    return r;
}

std::string PileCheck::message() const {
    if (ok) return "pile ok";
    if (!firstWrong) return "the pile is empty";
    const std::string where = "card " + std::to_string(*firstWrong + 1) + " from the bottom";
    if (!expected) return where + " is " + found->name() + ", but nothing goes on a king";
    return where + " is " + found->name() + ", expected " + expected->name();
}

PileCheck checkLakePile(const std::vector<Card>& bottomToTop) {
    PileCheck r;
    if (bottomToTop.empty()) {
        r.ok = false;
        return r;
    }
    const Suit suit = bottomToTop.front().suit;
    for (std::size_t i = 0; i < bottomToTop.size(); ++i) {
        const Card& c = bottomToTop[i];
        const Rank want = static_cast<Rank>(i) + 1;
        if (want > kKing || c.rank != want || c.suit != suit) {
            r.ok = false;
            r.firstWrong = i;
            r.found = c;
            if (want <= kKing) r.expected = Card{want, suit};
            return r;
        }
    }
    return r;
}

std::vector<std::string> checkDeck(const std::string& deckName, const std::vector<Card>& lakeCards,
                                   int nertzLeft, int pileSize, DeckKind kind) {
    std::vector<std::string> problems;
    const std::string who = "deck '" + deckName + "'";
    std::set<Card> seen;
    for (const Card& c : lakeCards) {
        if (c.deckKind() != kind) {
            problems.push_back(who + ": " + c.name() + " is not a card of a " +
                               std::string(deckKindName(kind)) + " deck");
        } else if (!seen.insert(c).second) {
            problems.push_back(who + ": " + c.name() + " is in the lake twice");
        }
    }
    if (nertzLeft < 0) {
        problems.push_back(who + ": Nertz left is negative (" + std::to_string(nertzLeft) + ")");
    } else if (nertzLeft > pileSize) {
        problems.push_back(who + ": " + std::to_string(nertzLeft) +
                           " Nertz cards left, but the pile has " + std::to_string(pileSize));
    }
    const int used = static_cast<int>(lakeCards.size()) + nertzLeft;
    if (used > kDeckSize) {
        problems.push_back(who + ": lake " + std::to_string(lakeCards.size()) + " + Nertz left " +
                           std::to_string(nertzLeft) + " is more than 52 cards");
    }
    return problems;
}

IdleProcedure::IdleProcedure(RuleSet rules) : rules_(std::move(rules)) {
    rules_.validate();
}

IdleStep IdleProcedure::stuck() {
    const IdleRules& idle = rules_.idle;
    IdleStep step;
    if (ended_ ||
        (idle.stockActionsBeforeHandEnds && stockActions_ >= *idle.stockActionsBeforeHandEnds)) {
        ended_ = true;
        step.action = IdleAction::EndHand;
        step.stockActions = stockActions_;
        step.instruction = "The hand ends: nobody can play. Score it as stuck (nobody called).";
        return step;
    }
    if (idle.stockActionsBeforeNertzBurn && stockActions_ >= *idle.stockActionsBeforeNertzBurn) {
        step.action = IdleAction::BurnNertzCard;
        step.stockActions = stockActions_;
        step.instruction =
            "Everyone together moves the top card of their Nertz pile to the bottom and turns up "
            "the next.";
        return step;
    }
    ++stockActions_;
    step.action = IdleAction::StockAction;
    step.stockActions = stockActions_;
    std::string count = std::to_string(stockActions_);
    if (idle.stockActionsBeforeNertzBurn) {
        count +=
            " of " + std::to_string(*idle.stockActionsBeforeNertzBurn) + " before a Nertz burn";
    } else if (idle.stockActionsBeforeHandEnds) {
        count += " of " + std::to_string(*idle.stockActionsBeforeHandEnds) +
                 (idle.scope == StuckScope::PerHand ? " this hand" : "") + " before the hand ends";
    }
    switch (idle.stockAction) {
        case StockAction::BurnStreamCard:
            step.instruction =
                "Everyone together moves the top card of their face-down stream to the bottom"
                " (stream burn " +
                count + ").";
            break;
        case StockAction::RecycleAndBurn:
            step.instruction =
                "Everyone turns the waste back into the stock and moves the top stock card"
                " to the bottom (" +
                count + ").";
            break;
        case StockAction::FlipThrough:
            step.instruction =
                "Everyone flips through the whole flip hand again (pass " + count + ").";
            break;
        case StockAction::BurnDealerCard:
            step.instruction =
                "Each dealer moves the top card of the dealer stack to the bottom and deals on"
                " (" +
                count + ").";
            break;
        case StockAction::None:
            step.instruction = "Nothing to burn: wait for a play.";
            break;
    }
    return step;
}

void IdleProcedure::played() {
    if (rules_.idle.scope == StuckScope::SinceLastPlay) stockActions_ = 0;
}

void IdleProcedure::newHand() {
    stockActions_ = 0;
    ended_ = false;
}

}  // namespace nertz::scoring
