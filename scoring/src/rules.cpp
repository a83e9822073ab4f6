#include "nertz/scoring/rules.hpp"

#include <array>
#include <utility>

#include "nertz/scoring/error.hpp"

namespace nertz::scoring {
namespace {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<PenaltyPayers, 3> kPayers{{
    {PenaltyPayers::NonCallers, "non_callers"},
    {PenaltyPayers::Everyone, "everyone"},
    {PenaltyPayers::NonCallersOrAllIfStuck, "non_callers_or_all_if_stuck"},
}};
constexpr NameTable<AtTarget, 2> kAtTarget{{
    {AtTarget::HighestWins, "highest_wins"},
    {AtTarget::PlayOnWhileTied, "play_on_while_tied"},
}};
constexpr NameTable<Settlement, 2> kSettlement{{
    {Settlement::None, "none"},
    {Settlement::WinnerCollectsDifference, "winner_collects_difference"},
}};
constexpr NameTable<StockAction, 5> kStock{{
    {StockAction::BurnStreamCard, "burn_stream_card"},
    {StockAction::RecycleAndBurn, "recycle_and_burn"},
    {StockAction::FlipThrough, "flip_through"},
    {StockAction::BurnDealerCard, "burn_dealer_card"},
    {StockAction::None, "none"},
}};
constexpr NameTable<StuckScope, 2> kScope{{
    {StuckScope::SinceLastPlay, "since_last_play"},
    {StuckScope::PerHand, "per_hand"},
}};

template <typename E, std::size_t N>
std::string_view nameOf(const NameTable<E, N>& table, E value) {
    for (const auto& [v, name] : table) {
        if (v == value) return name;
    }
    return "?";
}

template <typename E, std::size_t N>
std::optional<E> valueOf(const NameTable<E, N>& table, std::string_view name) {
    for (const auto& [v, n] : table) {
        if (n == name) return v;
    }
    return std::nullopt;
}

RuleSet makeNna() {
    RuleSet r;
    r.id = "nna";
    r.name = "NNA singles";
    r.source = "nna-singles.txt";
    r.penaltyPayers = PenaltyPayers::NonCallers;
    r.callerBonus = 10;      // "receives a 10 point Nertz bonus"
    r.falseCallPoints = -5;  // "results in a 5 point deduction"
    r.target = 150;          // "The first player to reach 150 points wins the game."
    r.atTarget = AtTarget::PlayOnWhileTied;
    r.idle = {StockAction::BurnStreamCard, 3, std::nullopt, StuckScope::SinceLastPlay};
    return r;
}

RuleSet makeClassic() {
    RuleSet r;
    r.id = "classic";
    r.name = "Nerts (classic)";
    r.source = "nerts-classic.txt";
    r.penaltyPayers = PenaltyPayers::NonCallersOrAllIfStuck;
    r.target = 100;  // "an agreed target score (usually 100)"
    r.atTarget = AtTarget::HighestWins;
    r.settlement = Settlement::WinnerCollectsDifference;
    r.maxTeamSize = 4;  // "Each player (team) scores ..."
    r.idle = {StockAction::RecycleAndBurn, std::nullopt, 1, StuckScope::SinceLastPlay};
    return r;
}

RuleSet makeHouse() {
    RuleSet r;
    r.id = "house";
    r.name = "Nertz house rules to 300";
    r.source = "nertz-house-300.txt";
    r.penaltyPayers = PenaltyPayers::Everyone;
    r.target = 300;  // "an agreed upon score is reached (usually 300)"
    r.atTarget = AtTarget::HighestWins;
    r.idle = {StockAction::None, std::nullopt, 0, StuckScope::SinceLastPlay};
    return r;
}

RuleSet makeFlip() {
    RuleSet r;
    r.id = "flip";
    r.name = "Nertz with a flip hand";
    r.source = "nertz-flip-hand.txt";
    r.penaltyPayers = PenaltyPayers::NonCallers;
    r.target = 250;  // "a predetermined score (usually 250 or 500)"
    r.atTarget = AtTarget::HighestWins;
    r.maxTeamSize = 2;  // "teams of two. One person flips ... the other plays the Nertz pile"
    r.idle = {StockAction::FlipThrough, 2, std::nullopt, StuckScope::SinceLastPlay};
    return r;
}

RuleSet makeBoxed() {
    RuleSet r;
    r.id = "boxed";
    r.name = "NERTZ boxed game";
    r.source = "nertz-boxed-game.txt";
    r.penaltyPayers = PenaltyPayers::Everyone;
    r.target = 100;  // "until one or more teams reach or pass 100 points"
    r.atTarget = AtTarget::HighestWins;
    r.maxTeamSize = 2;  // "teams of one or two members per team"
    r.deck = DeckKind::NertzColour;
    r.idle = {StockAction::BurnDealerCard, std::nullopt, 3, StuckScope::PerHand};
    return r;
}

}  // namespace

void RuleSet::validate() const {
    if (id.empty()) throw InputError("id", "must not be empty");
    if (lakeCardPoints < 0) throw InputError("lake_card_points", "must not be negative");
    if (nertzCardPoints > 0) throw InputError("nertz_card_points", "must be 0 or negative");
    if (callerBonus < 0) throw InputError("caller_bonus", "must not be negative");
    if (falseCallPoints > 0) throw InputError("false_call_points", "must be 0 or negative");
    if (target <= 0) throw InputError("target", "must be positive");
    if (pileSize < 1 || pileSize > kDeckSize) throw InputError("pile_size", "must be 1..52");
    if (minTeamSize < 1) throw InputError("min_team_size", "must be at least 1");
    if (maxTeamSize < minTeamSize) {
        throw InputError("max_team_size", "must be at least min_team_size");
    }
    if (idle.stockActionsBeforeNertzBurn && *idle.stockActionsBeforeNertzBurn < 0) {
        throw InputError("idle.stock_actions_before_nertz_burn", "must not be negative");
    }
    if (idle.stockActionsBeforeHandEnds && *idle.stockActionsBeforeHandEnds < 0) {
        throw InputError("idle.stock_actions_before_hand_ends", "must not be negative");
    }
    if (idle.stockAction == StockAction::None &&
        idle.stockActionsBeforeHandEnds.value_or(-1) != 0 && !idle.stockActionsBeforeNertzBurn) {
        throw InputError(
            "idle.stock_action",
            "'none' needs the hand to end when stuck (stock_actions_before_hand_ends 0)"
            " or a Nertz burn");
    }
}

const std::vector<std::string>& presetIds() {
    static const std::vector<std::string> ids{"nna", "classic", "house", "flip", "boxed"};
    return ids;
}

RuleSet preset(std::string_view id) {
    if (id == "nna") return makeNna();
    if (id == "classic") return makeClassic();
    if (id == "house") return makeHouse();
    if (id == "flip") return makeFlip();
    if (id == "boxed") return makeBoxed();
    throw InputError("rules", "unknown rule set '" + std::string(id) +
                                  "' (known: nna, classic, house, flip, boxed)");
}

std::string_view toString(PenaltyPayers v) {
    return nameOf(kPayers, v);
}
std::string_view toString(AtTarget v) {
    return nameOf(kAtTarget, v);
}
std::string_view toString(Settlement v) {
    return nameOf(kSettlement, v);
}
std::string_view toString(StockAction v) {
    return nameOf(kStock, v);
}
std::string_view toString(StuckScope v) {
    return nameOf(kScope, v);
}
std::optional<PenaltyPayers> parsePenaltyPayers(std::string_view s) {
    return valueOf(kPayers, s);
}
std::optional<AtTarget> parseAtTarget(std::string_view s) {
    return valueOf(kAtTarget, s);
}
std::optional<Settlement> parseSettlement(std::string_view s) {
    return valueOf(kSettlement, s);
}
std::optional<StockAction> parseStockAction(std::string_view s) {
    return valueOf(kStock, s);
}
std::optional<StuckScope> parseStuckScope(std::string_view s) {
    return valueOf(kScope, s);
}

}  // namespace nertz::scoring
