// Hand scoring under every preset, with worked examples from the rule texts, and the bad input
// that must be refused with the offending field named.
#include <gtest/gtest.h>

#include "input_error.hpp"

#include "nertz/scoring.hpp"

namespace sc = nertz::scoring;

namespace {

sc::SideHand player(std::string name, int lake, int left, bool called = false, int falseCalls = 0,
                    std::optional<int> pile = std::nullopt) {
    return {std::move(name), lake, left, called, falseCalls, pile};
}

sc::SideScore expectScore(std::string name, int lake, int penalty, int bonus, int falseCall) {
    return {std::move(name), lake, penalty, bonus, falseCall, lake + penalty + bonus + falseCall};
}

std::string failingField(const sc::HandResult& hand, const std::string& rules) {
    return nertz::testing::failingField([&] { sc::scoreHand(hand, sc::preset(rules)); });
}

}  // namespace

// nna: "To calculate a player's score for a hand, subtract Nertz points from Lake points. The
// player that called "Nertz" receives ten bonus points and adds it to their Lake total."
TEST(HandNna, CallerGetsTenNonCallersPayTwoPerCard) {
    const sc::HandResult hand{{player("Ann", 14, 0, true), player("Bo", 9, 3), player("Cy", 0, 13)},
                              sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, sc::preset("nna"));
    ASSERT_EQ(s.sides.size(), 3u);
    EXPECT_EQ(s.sides[0], expectScore("Ann", 14, 0, 10, 0));
    EXPECT_EQ(s.sides[1], expectScore("Bo", 9, -6, 0, 0));
    EXPECT_EQ(s.sides[2], expectScore("Cy", 0, -26, 0, 0));
    EXPECT_EQ(s.sides[0].score, 24);
    EXPECT_EQ(s.sides[2].score, -26);
}

// nna: "Calling "Nertz" before or without all Nertz cards being played results in a 5 point
// deduction."
TEST(HandNna, FalseCallsCostFiveEach) {
    const sc::HandResult hand{{player("Ann", 14, 0, true), player("Bo", 9, 3, false, 2)},
                              sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, sc::preset("nna"));
    EXPECT_EQ(s.sides[1], expectScore("Bo", 9, -6, 0, -10));
}

// A caller with cards left under nna made a false call: no bonus, -5, and the pile penalty.
TEST(HandNna, CallWithCardsLeftIsAFalseCall) {
    const sc::HandResult hand{{player("Ann", 10, 2, true, 1), player("Bo", 9, 3)},
                              sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, sc::preset("nna"));
    EXPECT_EQ(s.sides[0], expectScore("Ann", 10, -4, 0, -10));
    EXPECT_EQ(s.sides[1], expectScore("Bo", 9, -6, 0, 0));
}

// classic: "All players except the one who called Nerts then subtracts two points for every card
// left in their Nerts pile when play ended. Thus calling Nerts does not guarantee the highest
// score"
TEST(HandClassic, CallerCanScoreLessThanANonCaller) {
    const sc::HandResult hand{{player("Ann", 5, 0, true), player("Bo", 21, 2)}, sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, sc::preset("classic"));
    EXPECT_EQ(s.sides[0], expectScore("Ann", 5, 0, 0, 0));
    EXPECT_EQ(s.sides[1], expectScore("Bo", 21, -4, 0, 0));
    EXPECT_GT(s.sides[1].score, s.sides[0].score);
}

// classic: "If all players get so stuck ... play stops and the score is calculated as usual. In
// this case everyone will have to subtract two points for each card that is left in their Nerts
// pile."
TEST(HandClassic, StuckHandEveryonePays) {
    const sc::HandResult hand{{player("Ann", 12, 1), player("Bo", 8, 4)}, sc::HandEnd::Stuck};
    const auto s = sc::scoreHand(hand, sc::preset("classic"));
    EXPECT_EQ(s.sides[0], expectScore("Ann", 12, -2, 0, 0));
    EXPECT_EQ(s.sides[1], expectScore("Bo", 8, -8, 0, 0));
}

// house: "Each player scores one point for each of their own cards ... Two points are subtracted
// for every card left in their Nertz pile (if any) when play ended." No caller bonus.
TEST(HandHouse, EveryPlayerPaysNoBonus) {
    const sc::HandResult hand{{player("Ann", 14, 0, true), player("Bo", 9, 3)}, sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, sc::preset("house"));
    EXPECT_EQ(s.sides[0], expectScore("Ann", 14, 0, 0, 0));
    EXPECT_EQ(s.sides[1], expectScore("Bo", 9, -6, 0, 0));
    // "or there are no legal plays for any player, play ends and scoring takes place"
    const sc::HandResult stuck{{player("Ann", 7, 5), player("Bo", 9, 3)}, sc::HandEnd::Stuck};
    const auto t = sc::scoreHand(stuck, sc::preset("house"));
    EXPECT_EQ(t.sides[0].score, -3);
    EXPECT_EQ(t.sides[1].score, 3);
}

// flip: "The players who did NOT call Nertz then count the number of cards left in their Nertz pile
// and subtract two points from their score for each card left on thier pile. ... Thus, a negative
// score is possible."
TEST(HandFlip, NegativeScoresHappen) {
    const sc::HandResult hand{{player("Team A", 18, 0, true), player("Team B", 2, 10)},
                              sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, sc::preset("flip"));
    EXPECT_EQ(s.sides[0].score, 18);
    EXPECT_EQ(s.sides[1], expectScore("Team B", 2, -20, 0, 0));
    EXPECT_EQ(s.sides[1].score, -18);
}

// boxed: "The cards in the COMMON SCORE AREA are worth 1 point each. Cards left in each team's
// NERTZ PILE are worth 2 points each. The NERTZ PILE points are subtracted"
TEST(HandBoxed, EveryTeamWithCardsLeftPays) {
    const sc::HandResult hand{{player("Blue team", 16, 0, true), player("Gold team", 11, 6)},
                              sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, sc::preset("boxed"));
    EXPECT_EQ(s.sides[0].score, 16);
    EXPECT_EQ(s.sides[1].score, 11 - 12);
}

TEST(HandScore, PenaltyPayersSettingDecidesWhoPays) {
    sc::RuleSet r = sc::preset("nna");
    // A caller never has cards left (that would be a false call), so the caller's breakdown is the
    // same either way; the setting shows for a stuck hand where nobody called.
    const sc::HandResult stuck{{player("Ann", 3, 4), player("Bo", 2, 5)}, sc::HandEnd::Stuck};
    for (auto payers : {sc::PenaltyPayers::NonCallers, sc::PenaltyPayers::Everyone,
                        sc::PenaltyPayers::NonCallersOrAllIfStuck}) {
        r.penaltyPayers = payers;
        const auto s = sc::scoreHand(stuck, r);
        EXPECT_EQ(s.sides[0].penalty, -8);
        EXPECT_EQ(s.sides[1].penalty, -10);
    }
}

TEST(HandScore, CustomPointValuesAndHandicapPile) {
    sc::RuleSet r = sc::preset("house");
    r.lakeCardPoints = 2;
    r.nertzCardPoints = -3;
    const sc::HandResult hand{{player("Ann", 10, 0, true), player("Bo", 4, 8, false, 0, 8)},
                              sc::HandEnd::Nertz};
    const auto s = sc::scoreHand(hand, r);
    EXPECT_EQ(s.sides[0].score, 20);
    EXPECT_EQ(s.sides[1].score, 8 - 24);
}

TEST(HandValidate, NamesTheBadField) {
    using H = sc::HandResult;
    const auto N = sc::HandEnd::Nertz;
    const auto S = sc::HandEnd::Stuck;
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 3)}, N}, "nna"), "");
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0, true)}, N}, "nna"), "players");
    EXPECT_EQ(failingField(H{{player("Ann", -1, 0, true), player("Bo", 9, 3)}, N}, "nna"),
              "players[0].lake");
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, -3)}, N}, "nna"),
              "players[1].nertz_left");
    // 53 lake cards from one deck
    EXPECT_EQ(failingField(H{{player("Ann", 53, 0, true), player("Bo", 9, 3)}, N}, "nna"),
              "players[0].lake");
    // lake + Nertz left over 52 (pile of 13 allows 13 left; 40 + 13 = 53)
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0, true), player("Bo", 40, 13)}, N}, "nna"),
              "players[1].lake");
    // more left than the pile holds; a handicap pile of 10
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 14)}, N}, "nna"),
              "players[1].nertz_left");
    EXPECT_EQ(
        failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 11, false, 0, 10)}, N}, "nna"),
        "players[1].nertz_left");
    EXPECT_EQ(
        failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 1, false, 0, 0)}, N}, "nna"),
        "players[1].pile_size");
    // two callers
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 0, true)}, N}, "nna"),
              "players[1].called");
    // a caller with cards left where there are no false calls
    EXPECT_EQ(failingField(H{{player("Ann", 14, 2, true), player("Bo", 9, 3)}, N}, "house"),
              "players[0].called");
    // false calls only where the preset has them
    EXPECT_EQ(
        failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 3, false, 1)}, N}, "classic"),
        "players[1].false_calls");
    EXPECT_EQ(
        failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 3, false, -1)}, N}, "nna"),
        "players[1].false_calls");
    // the end must agree with the call
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0), player("Bo", 9, 3)}, N}, "nna"), "end");
    EXPECT_EQ(failingField(H{{player("Ann", 14, 0, true), player("Bo", 9, 3)}, S}, "nna"),
              "players[0].called");
    // names
    EXPECT_EQ(failingField(H{{player("", 14, 0, true), player("Bo", 9, 3)}, N}, "nna"),
              "players[0].name");
    EXPECT_EQ(failingField(H{{player("Bo", 14, 0, true), player("Bo", 9, 3)}, N}, "nna"),
              "players[1].name");
}

TEST(HandValidate, MessageSaysWhatIsWrong) {
    try {
        sc::scoreHand({{player("Ann", 14, 0, true), player("Bo", 9, 0, true)}, sc::HandEnd::Nertz},
                      sc::preset("nna"));
        FAIL();
    } catch (const sc::InputError& e) {
        EXPECT_STREQ(e.what(),
                     "players[1].called: only one player can call Nertz, and 'Ann' already called");
    }
}
