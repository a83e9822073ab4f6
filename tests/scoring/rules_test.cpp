// Presets carry the values of their rule texts (../shared/rules/), quoted next to each check.
#include <gtest/gtest.h>

#include "input_error.hpp"

#include "nertz/scoring.hpp"

namespace sc = nertz::scoring;

TEST(Presets, AllFiveInSpecOrder) {
    EXPECT_EQ(sc::presetIds(),
              (std::vector<std::string>{"nna", "classic", "house", "flip", "boxed"}));
    for (const auto& id : sc::presetIds()) {
        const sc::RuleSet r = sc::preset(id);
        EXPECT_EQ(r.id, id);
        EXPECT_NO_THROW(r.validate()) << id;
        // Every text: "Each Lake card played is worth one point and each Nertz card remaining is
        // worth two points." (nna) / "Cards left in each team's NERTZ PILE are worth 2 points
        // each." (boxed)
        EXPECT_EQ(r.lakeCardPoints, 1) << id;
        EXPECT_EQ(r.nertzCardPoints, -2) << id;
        // "The Nertz pile consists of 13 cards" / "thirteen cards are dealt face down"
        EXPECT_EQ(r.pileSize, 13) << id;
    }
}

TEST(Presets, Nna) {
    const sc::RuleSet r = sc::preset("nna");
    // "The player who called Nertz receives a 10 point Nertz bonus added to their hand score."
    EXPECT_EQ(r.callerBonus, 10);
    // "Calling "Nertz" before or without all Nertz cards being played results in a 5 point
    // deduction."
    EXPECT_EQ(r.falseCallPoints, -5);
    EXPECT_TRUE(r.hasFalseCalls());
    // "the players that did not call "Nertz" count the remaining cards left in their Nertz piles"
    EXPECT_EQ(r.penaltyPayers, sc::PenaltyPayers::NonCallers);
    // "until a player reaches or surpasses a total of 150 points. If there is a tie score for first
    // place, the game continues with all players until the tie is broken"
    EXPECT_EQ(r.target, 150);
    EXPECT_EQ(r.atTarget, sc::AtTarget::PlayOnWhileTied);
    EXPECT_EQ(r.settlement, sc::Settlement::None);
    EXPECT_EQ(r.maxTeamSize, 1);  // "(Singles Edition)"
    // "Stream piles burned at least three times without any resulting plays are required before
    // burning Nertz pile cards."
    EXPECT_EQ(r.idle.stockAction, sc::StockAction::BurnStreamCard);
    EXPECT_EQ(r.idle.stockActionsBeforeNertzBurn, 3);
    EXPECT_EQ(r.idle.stockActionsBeforeHandEnds, std::nullopt);
    EXPECT_EQ(r.deck, sc::DeckKind::Standard);
}

TEST(Presets, Classic) {
    const sc::RuleSet r = sc::preset("classic");
    EXPECT_EQ(r.callerBonus, 0);
    EXPECT_FALSE(r.hasFalseCalls());
    // "All players except the one who called Nerts then subtracts two points" and "In this case
    // everyone will have to subtract two points for each card that is left in their Nerts pile."
    EXPECT_EQ(r.penaltyPayers, sc::PenaltyPayers::NonCallersOrAllIfStuck);
    // "an agreed target score (usually 100). At this point the player with the highest score wins
    // from each other player in proportion to the difference between their scores."
    EXPECT_EQ(r.target, 100);
    EXPECT_EQ(r.atTarget, sc::AtTarget::HighestWins);
    EXPECT_EQ(r.settlement, sc::Settlement::WinnerCollectsDifference);
    EXPECT_GT(r.maxTeamSize, 1);  // "Each player (team) scores one point ..."
    // "everyone picks up their waste pile to re-form their stock, and then puts the top card of
    // the stock on the bottom" ... "If all players get so stuck that no card in their stock will
    // play, play stops and the score is calculated as usual."
    EXPECT_EQ(r.idle.stockAction, sc::StockAction::RecycleAndBurn);
    EXPECT_EQ(r.idle.stockActionsBeforeHandEnds, 1);
}

TEST(Presets, House) {
    const sc::RuleSet r = sc::preset("house");
    // "Two points are subtracted for every card left in their Nertz pile (if any) when play ended."
    EXPECT_EQ(r.penaltyPayers, sc::PenaltyPayers::Everyone);
    // "until an agreed upon score is reached (usually 300)"
    EXPECT_EQ(r.target, 300);
    EXPECT_EQ(r.callerBonus, 0);
    // "When someone calls "Nertsz! or there are no legal plays for any player, play ends"
    EXPECT_EQ(r.idle.stockAction, sc::StockAction::None);
    EXPECT_EQ(r.idle.stockActionsBeforeHandEnds, 0);
}

TEST(Presets, Flip) {
    const sc::RuleSet r = sc::preset("flip");
    // "The players who did NOT call Nertz then count the number of cards left in their Nertz pile"
    EXPECT_EQ(r.penaltyPayers, sc::PenaltyPayers::NonCallers);
    // "Play continues until a player reaches a predetermined score (usually 250 or 500)."
    EXPECT_EQ(r.target, 250);
    // "Occasionally, Nertz is played with teams of two."
    EXPECT_EQ(r.maxTeamSize, 2);
    // "the flip hands of ALL players have been flipped through a minimum of two times, the top card
    // of the Nertz pile for every player is "burned.""
    EXPECT_EQ(r.idle.stockAction, sc::StockAction::FlipThrough);
    EXPECT_EQ(r.idle.stockActionsBeforeNertzBurn, 2);
    EXPECT_EQ(r.idle.stockActionsBeforeHandEnds, std::nullopt);
}

TEST(Presets, Boxed) {
    const sc::RuleSet r = sc::preset("boxed");
    // "numbered 1,2,3,...,13 in four color suits. The Blue, Red, Yellow and White suits"
    EXPECT_EQ(r.deck, sc::DeckKind::NertzColour);
    // "Cards left in each team's NERTZ PILE are worth 2 points each."
    EXPECT_EQ(r.penaltyPayers, sc::PenaltyPayers::Everyone);
    // "The game continues until one or more teams reach or pass 100 points. The team with the
    // highest score is declared the WINNER!"
    EXPECT_EQ(r.target, 100);
    EXPECT_EQ(r.atTarget, sc::AtTarget::HighestWins);
    // "Two or more opposing teams of one or two members per team."
    EXPECT_EQ(r.minTeamSize, 1);
    EXPECT_EQ(r.maxTeamSize, 2);
    // "This may be done up to THREE times per hand. If no plays can be made by any teams then the
    // hand ends and all scores are tallied."
    EXPECT_EQ(r.idle.stockAction, sc::StockAction::BurnDealerCard);
    EXPECT_EQ(r.idle.stockActionsBeforeHandEnds, 3);
    EXPECT_EQ(r.idle.scope, sc::StuckScope::PerHand);
}

TEST(Presets, UnknownIdNamesTheKnownOnes) {
    try {
        sc::preset("poker");
        FAIL() << "expected InputError";
    } catch (const sc::InputError& e) {
        EXPECT_EQ(e.field(), "rules");
        EXPECT_NE(std::string(e.what()).find("nna, classic, house, flip, boxed"),
                  std::string::npos);
    }
}

namespace {
std::string failingField(const sc::RuleSet& r) {
    return nertz::testing::failingField([&] { r.validate(); });
}
}  // namespace

TEST(RuleSetValidate, NamesTheBadField) {
    const sc::RuleSet base = sc::preset("nna");
    auto with = [&](auto change) {
        sc::RuleSet r = base;
        change(r);
        return failingField(r);
    };
    EXPECT_EQ(with([](sc::RuleSet& r) { r.id = ""; }), "id");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.lakeCardPoints = -1; }), "lake_card_points");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.nertzCardPoints = 2; }), "nertz_card_points");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.callerBonus = -3; }), "caller_bonus");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.falseCallPoints = 5; }), "false_call_points");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.target = 0; }), "target");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.pileSize = 0; }), "pile_size");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.pileSize = 53; }), "pile_size");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.minTeamSize = 0; }), "min_team_size");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.minTeamSize = 3; }), "max_team_size");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.idle.stockActionsBeforeNertzBurn = -1; }),
              "idle.stock_actions_before_nertz_burn");
    EXPECT_EQ(with([](sc::RuleSet& r) { r.idle.stockActionsBeforeHandEnds = -1; }),
              "idle.stock_actions_before_hand_ends");
    EXPECT_EQ(with([](sc::RuleSet& r) {
                  r.idle.stockAction = sc::StockAction::None;
                  r.idle.stockActionsBeforeNertzBurn.reset();
                  r.idle.stockActionsBeforeHandEnds.reset();
              }),
              "idle.stock_action");
    EXPECT_EQ(with([](sc::RuleSet&) {}), "");
}

TEST(RuleSetNames, RoundTrip) {
    for (auto v : {sc::PenaltyPayers::NonCallers, sc::PenaltyPayers::Everyone,
                   sc::PenaltyPayers::NonCallersOrAllIfStuck}) {
        EXPECT_EQ(sc::parsePenaltyPayers(sc::toString(v)), v);
    }
    for (auto v : {sc::AtTarget::HighestWins, sc::AtTarget::PlayOnWhileTied})
        EXPECT_EQ(sc::parseAtTarget(sc::toString(v)), v);
    for (auto v : {sc::Settlement::None, sc::Settlement::WinnerCollectsDifference}) {
        EXPECT_EQ(sc::parseSettlement(sc::toString(v)), v);
    }
    for (auto v :
         {sc::StockAction::BurnStreamCard, sc::StockAction::RecycleAndBurn,
          sc::StockAction::FlipThrough, sc::StockAction::BurnDealerCard, sc::StockAction::None}) {
        EXPECT_EQ(sc::parseStockAction(sc::toString(v)), v);
    }
    for (auto v : {sc::StuckScope::SinceLastPlay, sc::StuckScope::PerHand})
        EXPECT_EQ(sc::parseStuckScope(sc::toString(v)), v);
    for (auto v : {sc::HandEnd::Nertz, sc::HandEnd::Stuck})
        EXPECT_EQ(sc::parseHandEnd(sc::toString(v)), v);
    EXPECT_FALSE(sc::parsePenaltyPayers("nobody"));
    EXPECT_FALSE(sc::parseAtTarget("x"));
    EXPECT_FALSE(sc::parseSettlement("x"));
    EXPECT_FALSE(sc::parseStockAction("x"));
    EXPECT_FALSE(sc::parseStuckScope("x"));
    EXPECT_FALSE(sc::parseHandEnd("x"));
}
