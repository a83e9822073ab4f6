// Games: running totals, the end at the target per preset, ties, settlement, teams, handicaps,
// and the recompute after an earlier hand is edited or deleted.
#include <gtest/gtest.h>

#include "input_error.hpp"

#include "nertz/scoring.hpp"

namespace sc = nertz::scoring;
using nertz::testing::failingField;

namespace {

sc::SideHand p(std::string name, int lake, int left, bool called = false) {
    return {std::move(name), lake, left, called, 0, std::nullopt};
}

std::vector<sc::Side> singles(std::initializer_list<const char*> names) {
    std::vector<sc::Side> out;
    for (const char* n : names) out.push_back({n, {}, {}});
    return out;
}

}  // namespace

// nna: "After every hand, scores are recorded and added to the previous game scores, until a player
// reaches or surpasses a total of 150 points."
TEST(GameNna, RunningTotalsUntilSomeoneReaches150) {
    sc::Game g(sc::preset("nna"), singles({"Ann", "Bo"}));
    for (int h = 0; h < 5; ++h) {
        EXPECT_FALSE(g.outcome().over) << "after hand " << h;
        g.addHand({{p("Ann", 20, 0, true), p("Bo", 10, 2)}, sc::HandEnd::Nertz});  // +30, +6
    }
    EXPECT_EQ(g.totals(), (std::vector<int>{150, 30}));
    EXPECT_EQ(g.totalsAfter(2), (std::vector<int>{60, 12}));
    const auto out = g.outcome();
    EXPECT_TRUE(out.over);
    EXPECT_EQ(out.winner, "Ann");
    EXPECT_EQ(out.handsPlayed, 5u);
    EXPECT_TRUE(out.settlement.empty());
    EXPECT_EQ(failingField([&] {
                  g.addHand({{p("Ann", 1, 0, true), p("Bo", 1, 2)}, sc::HandEnd::Nertz});
              }),
              "hands[5]");
}

// nna: "If there is a tie score for first place, the game continues with all players until the tie
// is broken, and the player with the highest score (totaling 150 points or more) is the winner."
TEST(GameNna, TieForFirstPlaysOn) {
    sc::Game g(sc::preset("nna"), singles({"Ann", "Bo", "Cy"}));
    g.addHand({{p("Ann", 40, 0, true), p("Bo", 50, 0), p("Cy", 5, 3)},
               sc::HandEnd::Nertz});  // 50, 50, -1
    g.addHand({{p("Ann", 40, 0, true), p("Bo", 50, 0), p("Cy", 5, 3)},
               sc::HandEnd::Nertz});  // 100, 100, -2
    g.addHand({{p("Ann", 50, 0, true), p("Bo", 52, 0), p("Cy", 5, 3)},
               sc::HandEnd::Nertz});  // 160, 152 ...
    EXPECT_TRUE(g.outcome().over);
    sc::Game tie(sc::preset("nna"), singles({"Ann", "Bo"}));
    tie.addHand({{p("Ann", 45, 0, true), p("Bo", 50, 0)}, sc::HandEnd::Nertz});  // 55, 50
    tie.addHand({{p("Ann", 45, 0, true), p("Bo", 50, 0)}, sc::HandEnd::Nertz});  // 110, 100
    tie.addHand({{p("Ann", 40, 0), p("Bo", 40, 0, true)}, sc::HandEnd::Nertz});  // 150, 150
    EXPECT_EQ(tie.totals(), (std::vector<int>{150, 150}));
    EXPECT_FALSE(tie.outcome().over) << "tied for first at the target: play on";
    tie.addHand({{p("Ann", 3, 1), p("Bo", 2, 0, true)}, sc::HandEnd::Nertz});  // 151, 162
    EXPECT_TRUE(tie.outcome().over);
    EXPECT_EQ(tie.outcome().winner, "Bo");
}

// classic: "At this point the player with the highest score wins from each other player in
// proportion to the difference between their scores."
TEST(GameClassic, WinnerCollectsTheDifferenceFromEachPlayer) {
    sc::Game g(sc::preset("classic"), singles({"Ann", "Bo", "Cy"}));
    g.addHand(
        {{p("Ann", 52, 0, true), p("Bo", 30, 0), p("Cy", 20, 5)}, sc::HandEnd::Nertz});  // 52 30 10
    g.addHand({{p("Ann", 50, 0, true), p("Bo", 40, 0), p("Cy", 30, 0)},
               sc::HandEnd::Nertz});  // 102 70 40
    const auto out = g.outcome();
    ASSERT_TRUE(out.over);
    EXPECT_EQ(out.winner, "Ann");
    EXPECT_EQ(out.settlement, (std::vector<sc::Transfer>{{"Bo", "Ann", 32}, {"Cy", "Ann", 62}}));
}

// house/classic/flip/boxed: reaching the target ends the game; a shared first place is a tie.
TEST(GameHouse, TieAtTheTopEndsAsATie) {
    sc::RuleSet r = sc::preset("house");
    r.target = 40;
    sc::Game g(r, singles({"Ann", "Bo", "Cy"}));
    g.addHand({{p("Ann", 40, 0, true), p("Bo", 40, 0), p("Cy", 10, 0)}, sc::HandEnd::Nertz});
    const auto out = g.outcome();
    EXPECT_TRUE(out.over);
    EXPECT_FALSE(out.winner);
    EXPECT_EQ(out.tiedLeaders, (std::vector<std::string>{"Ann", "Bo"}));
}

// boxed: "The game continues until one or more teams reach or pass 100 points. The team with the
// highest score is declared the WINNER!"
TEST(GameBoxed, HighestPastTheTargetWinsWithTeams) {
    sc::Game g(sc::preset("boxed"), {{"Blue", {"Ann", "Bo"}, {}}, {"Gold", {"Cy"}, {}}});
    g.addHand({{p("Blue", 52, 0, true), p("Gold", 50, 0)}, sc::HandEnd::Nertz});
    EXPECT_FALSE(g.outcome().over);
    g.addHand({{p("Blue", 49, 0, true), p("Gold", 52, 0)}, sc::HandEnd::Nertz});  // 101, 102
    EXPECT_TRUE(g.outcome().over);
    EXPECT_EQ(g.outcome().winner, "Gold");
}

TEST(GameTeams, SizesAndMembersAreChecked) {
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("flip"), {{"A", {"Ann", "Bo", "Cy"}, {}}, {"B", {"Di"}, {}}});
              }),
              "teams[0].members");
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("nna"), {{"A", {"Ann", "Bo"}, {}}, {"B", {"Di"}, {}}});
              }),
              "teams[0].members");
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("flip"), {{"A", {"Ann", "Bo"}, {}}, {"B", {"Bo"}, {}}});
              }),
              "teams[1].members[0]");
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("flip"), {{"A", {"Ann", ""}, {}}, {"B", {"Bo"}, {}}});
              }),
              "teams[0].members[1]");
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("flip"), {{"A", {"Ann", "Bo"}, {}}, {"B", {"Cy", "Di"}, {}}});
              }),
              "");
}

TEST(GameSides, AreChecked) {
    EXPECT_EQ(failingField([] { sc::Game(sc::preset("nna"), singles({"Ann"})); }), "players");
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("nna"), singles({"Ann", "Ann"}));
              }),
              "players[1].name");
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("nna"), singles({"Ann", ""}));
              }),
              "players[1].name");
    EXPECT_EQ(failingField([] {
                  sc::Game(sc::preset("nna"), {{"Ann", {}, 0}, {"Bo", {}, {}}});
              }),
              "players[0].pile_size");
    sc::RuleSet bad = sc::preset("nna");
    bad.target = -1;
    EXPECT_EQ(failingField([&] { sc::Game(bad, singles({"Ann", "Bo"})); }), "target");
}

TEST(GameHands, MustNameExactlyTheGamesSides) {
    sc::Game g(sc::preset("nna"), singles({"Ann", "Bo", "Cy"}));
    EXPECT_EQ(
        failingField([&] {
            g.addHand({{p("Ann", 1, 0, true), p("Bo", 1, 1), p("Di", 1, 1)}, sc::HandEnd::Nertz});
        }),
        "hands[0].players[2].name");
    EXPECT_EQ(failingField([&] {
                  g.addHand({{p("Ann", 1, 0, true), p("Bo", 1, 1)}, sc::HandEnd::Nertz});
              }),
              "hands[0].players");
    EXPECT_EQ(
        failingField([&] {
            g.addHand({{p("Ann", 1, 0, true), p("Bo", -1, 1), p("Cy", 0, 0)}, sc::HandEnd::Nertz});
        }),
        "hands[0].players[1].lake");
    EXPECT_TRUE(g.hands().empty()) << "nothing half-applied";
    // Any order in, game order stored.
    g.addHand({{p("Cy", 3, 2), p("Ann", 10, 0, true), p("Bo", 4, 1)}, sc::HandEnd::Nertz});
    ASSERT_EQ(g.hands().size(), 1u);
    EXPECT_EQ(g.hands()[0].sides[0].name, "Ann");
    EXPECT_EQ(g.hands()[0].sides[2].name, "Cy");
    EXPECT_EQ(g.totals(), (std::vector<int>{20, 2, -1}));
    EXPECT_EQ(g.sideIndex("Bo"), 1u);
    EXPECT_FALSE(g.sideIndex("Zed"));
}

TEST(GameHandicap, SidePileSizeAppliesToEveryHand) {
    sc::Game g(sc::preset("nna"), {{"Ann", {}, 10}, {"Bo", {}, {}}});
    EXPECT_EQ(failingField([&] {
                  g.addHand({{p("Ann", 1, 11), p("Bo", 1, 0, true)}, sc::HandEnd::Nertz});
              }),
              "hands[0].players[0].nertz_left");
    g.addHand({{p("Ann", 1, 10), p("Bo", 1, 13 - 13, true)}, sc::HandEnd::Nertz});
    EXPECT_EQ(g.hands()[0].sides[0].pileSize, 10);
    EXPECT_EQ(g.hands()[0].sides[1].pileSize, 13);
}

TEST(GameCorrections, EditRecomputesEverythingAfter) {
    sc::Game g(sc::preset("nna"), singles({"Ann", "Bo"}));
    g.addHand({{p("Ann", 20, 0, true), p("Bo", 10, 2)}, sc::HandEnd::Nertz});  // 30, 6
    g.addHand({{p("Ann", 10, 3), p("Bo", 15, 0, true)}, sc::HandEnd::Nertz});  // 4, 25
    g.addHand({{p("Ann", 12, 0, true), p("Bo", 9, 4)}, sc::HandEnd::Nertz});   // 22, 1
    EXPECT_EQ(g.totals(), (std::vector<int>{56, 32}));
    // Bo actually had 5 cards in the lake in hand 1, not 10.
    g.editHand(0, {{p("Ann", 20, 0, true), p("Bo", 5, 2)}, sc::HandEnd::Nertz});
    EXPECT_EQ(g.scores()[0].sides[1].score, 1);
    EXPECT_EQ(g.totals(), (std::vector<int>{56, 27}));
    EXPECT_EQ(g.totalsAfter(1), (std::vector<int>{30, 1}));
    g.deleteHand(1);
    EXPECT_EQ(g.hands().size(), 2u);
    EXPECT_EQ(g.totals(), (std::vector<int>{52, 2}));
    EXPECT_EQ(failingField([&] { g.deleteHand(5); }), "hand");
    EXPECT_EQ(failingField([&] { g.editHand(2, {}); }), "hand");
}

TEST(GameCorrections, InvalidEditChangesNothing) {
    sc::Game g(sc::preset("nna"), singles({"Ann", "Bo"}));
    g.addHand({{p("Ann", 20, 0, true), p("Bo", 10, 2)}, sc::HandEnd::Nertz});
    g.addHand({{p("Ann", 10, 3), p("Bo", 15, 0, true)}, sc::HandEnd::Nertz});
    const auto before = g.hands();
    EXPECT_EQ(
        failingField([&] {
            g.editHand(1, {{p("Ann", 10, 3, true), p("Bo", 15, 0, true)}, sc::HandEnd::Nertz});
        }),
        "hands[1].players[1].called");
    EXPECT_EQ(g.hands(), before);
    EXPECT_EQ(g.totals(), (std::vector<int>{34, 31}));
}

TEST(GameCorrections, EditThatWouldEndTheGameEarlyIsRefused) {
    sc::RuleSet r = sc::preset("nna");
    r.target = 100;
    sc::Game g(r, singles({"Ann", "Bo"}));
    for (int h = 0; h < 2; ++h)
        g.addHand({{p("Ann", 30, 0, true), p("Bo", 10, 2)}, sc::HandEnd::Nertz});  // +40
    g.addHand({{p("Ann", 5, 0, true), p("Bo", 10, 2)}, sc::HandEnd::Nertz});       // +15
    EXPECT_EQ(g.totals(), (std::vector<int>{95, 18}));
    EXPECT_FALSE(g.outcome().over);
    // Hand 2 really gave Ann 52 lake cards: 40 + 62 = 102 after hand 2, but hand 3 follows.
    EXPECT_EQ(failingField([&] {
                  g.editHand(1, {{p("Ann", 52, 0, true), p("Bo", 0, 0)}, sc::HandEnd::Nertz});
              }),
              "hands[1]");
    EXPECT_EQ(g.totals(), (std::vector<int>{95, 18})) << "the refused edit changed nothing";
    // Deleting the later hand first makes the same edit possible, and it ends the game.
    g.deleteHand(2);
    g.editHand(1, {{p("Ann", 52, 0, true), p("Bo", 0, 0)}, sc::HandEnd::Nertz});
    EXPECT_EQ(g.totals(), (std::vector<int>{102, 6}));
    EXPECT_TRUE(g.outcome().over);
    EXPECT_EQ(g.outcome().winner, "Ann");
}
