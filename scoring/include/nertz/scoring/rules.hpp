// RuleSet: every setting in which the five Nertz rule texts differ, and the built-in presets.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nertz/scoring/card.hpp"

namespace nertz::scoring {

// Who loses points for the cards left in their Nertz pile.
enum class PenaltyPayers {
    NonCallers,              // everyone but the player who called Nertz (nna, flip)
    Everyone,                // every player, caller included (house, boxed)
    NonCallersOrAllIfStuck,  // non-callers; everyone when the hand ends all stuck (classic)
};

// What happens when a total reaches the target.
enum class AtTarget {
    HighestWins,      // the game ends; the highest total wins (a tie for first is a shared result)
    PlayOnWhileTied,  // the game ends only once first place is not tied (nna)
};

// What the winner is paid when the game ends.
enum class Settlement {
    None,
    WinnerCollectsDifference,  // each other player pays the winner the difference in totals
};

// The move every player makes together when the whole table is stuck, before any Nertz burn.
enum class StockAction {
    BurnStreamCard,  // top of the face-down stream to the bottom (nna)
    RecycleAndBurn,  // waste back to stock, top card to the bottom (classic)
    FlipThrough,     // keep flipping through the flip hand (flip: twice before a Nertz burn)
    BurnDealerCard,  // top card of the dealer stack to the bottom (boxed)
    None,            // nothing: the hand ends (house)
};

// How the stuck-table counters are reset.
enum class StuckScope {
    SinceLastPlay,  // counts restart whenever any card is played (nna, classic, flip)
    PerHand,        // counts only restart with a new hand (boxed: "up to three times per hand")
};

// The idle (everyone stuck) procedure of a rule set.
struct IdleRules {
    StockAction stockAction = StockAction::BurnStreamCard;
    // Stock actions without a play that must happen before players burn a Nertz card;
    // nullopt: Nertz cards are never burned.
    std::optional<int> stockActionsBeforeNertzBurn;
    // Stock actions after which, still stuck, the hand ends and is scored; nullopt: never ends.
    // 0 means the hand ends as soon as everyone is stuck.
    std::optional<int> stockActionsBeforeHandEnds;
    StuckScope scope = StuckScope::SinceLastPlay;

    friend bool operator==(const IdleRules&, const IdleRules&) = default;
};

// Every value that changes how a hand is scored, a game is won, or a stuck table proceeds.
struct RuleSet {
    std::string id;            // "nna", "classic", ... or the id of a custom set
    std::string name;          // human title
    std::string source;        // the rule text it comes from
    int lakeCardPoints = 1;    // per own card in the lake
    int nertzCardPoints = -2;  // per card left in the Nertz pile (negative)
    PenaltyPayers penaltyPayers = PenaltyPayers::NonCallers;
    int callerBonus = 0;      // added to the caller's hand score
    int falseCallPoints = 0;  // per call made with cards left (negative); 0: no false-call rule
    int target = 100;         // game ends when a total reaches or passes this
    AtTarget atTarget = AtTarget::HighestWins;
    Settlement settlement = Settlement::None;
    int pileSize = 13;    // Nertz pile dealt to each player (a handicap changes one player's)
    int minTeamSize = 1;  // players sharing one deck and one score
    int maxTeamSize = 1;
    DeckKind deck = DeckKind::Standard;
    IdleRules idle;

    bool hasFalseCalls() const noexcept { return falseCallPoints != 0; }

    // Throws InputError naming the first field that is out of range.
    void validate() const;

    friend bool operator==(const RuleSet&, const RuleSet&) = default;
};

// The ids of the built-in presets, in SPEC order: nna, classic, house, flip, boxed.
const std::vector<std::string>& presetIds();

// The preset called `id`; throws InputError (field "rules") naming the known ids otherwise.
RuleSet preset(std::string_view id);

// Names of the enum values as used in files and JSON ("non_callers", "highest_wins", ...).
std::string_view toString(PenaltyPayers v);
std::string_view toString(AtTarget v);
std::string_view toString(Settlement v);
std::string_view toString(StockAction v);
std::string_view toString(StuckScope v);
std::optional<PenaltyPayers> parsePenaltyPayers(std::string_view s);
std::optional<AtTarget> parseAtTarget(std::string_view s);
std::optional<Settlement> parseSettlement(std::string_view s);
std::optional<StockAction> parseStockAction(std::string_view s);
std::optional<StuckScope> parseStuckScope(std::string_view s);

}  // namespace nertz::scoring
