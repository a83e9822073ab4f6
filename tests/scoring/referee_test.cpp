// The referee: lake checksum (with a property test over generated lakes), pile check, deck sanity,
// and the everyone-stuck procedure of each preset.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <set>

#include "nertz/scoring.hpp"

namespace sc = nertz::scoring;

namespace {
sc::Card c(const char* name) {
    return *sc::parseAnyCard(name);
}
}  // namespace

// SPEC: "A lake pile whose top card is rank r holds exactly r cards (a closed king pile 13)."
TEST(LakeChecksum, TopsGiveTheCount) {
    EXPECT_EQ(sc::expectedLakeCards({}), 0);
    EXPECT_EQ(sc::expectedLakeCards({c("AH")}), 1);
    EXPECT_EQ(sc::expectedLakeCards({c("7H"), c("KS"), c("4D"), c("9C")}, 1), 7 + 13 + 4 + 9 + 13);
    EXPECT_EQ(sc::expectedLakeCards({c("7B"), c("13W")}, 2), 7 + 13 + 26);
    EXPECT_THROW(sc::expectedLakeCards({c("7H")}, -1), sc::InputError);
    EXPECT_THROW(sc::expectedLakeCards({sc::Card{14, sc::Suit::Hearts}}), sc::InputError);
}

// Each player's deck supplies one of each face to the lake, so two decks give a face at most two
// tops; a third is a misreading. The colour deck's faces are faces of their own.
TEST(LakeChecksum, AFaceOnMoreTopsThanDecksIsNamedOnce) {
    const std::vector<sc::Card> tops{c("QC"), c("4S"), c("QC"), c("QC"), c("QC"), c("4S")};
    EXPECT_TRUE(sc::facesBeyondDecks(tops, 0).empty());  // decks not known
    EXPECT_EQ(sc::facesBeyondDecks(tops, 1), (std::vector<sc::Card>{c("QC"), c("4S")}));
    EXPECT_EQ(sc::facesBeyondDecks(tops, 2), (std::vector<sc::Card>{c("QC")}));
    EXPECT_EQ(sc::facesBeyondDecks(tops, 3), (std::vector<sc::Card>{c("QC")}));
    EXPECT_TRUE(sc::facesBeyondDecks(tops, 4).empty());
    EXPECT_TRUE(sc::facesBeyondDecks({c("12R"), c("QH")}, 1).empty());
}

// SPEC.md: "lake piles start with an ace and go up in one suit to the king". A deck holds one ace
// of each suit, so a suit has at most one pile a deck: a suit read on more tops is a misreading.
TEST(LakeChecksum, ASuitOnMoreTopsThanDecksIsNamedOnce) {
    const std::vector<sc::Card> tops{c("QC"), c("4S"), c("2C"), c("9C"), c("KS"), c("AH")};
    EXPECT_TRUE(sc::suitsBeyondDecks(tops, 0).empty());  // decks not known
    EXPECT_EQ(sc::suitsBeyondDecks(tops, 1), (std::vector<sc::Suit>{sc::Suit::Clubs, sc::Suit::Spades}));
    EXPECT_EQ(sc::suitsBeyondDecks(tops, 2), (std::vector<sc::Suit>{sc::Suit::Clubs}));
    EXPECT_TRUE(sc::suitsBeyondDecks(tops, 3).empty());
    // the colour deck's colours are suits of their own
    EXPECT_TRUE(sc::suitsBeyondDecks({c("12R"), c("QH"), c("3B")}, 1).empty());
    EXPECT_EQ(sc::suitsBeyondDecks({c("12R"), c("3R")}, 1), (std::vector<sc::Suit>{sc::Suit::Red}));
    EXPECT_EQ(sc::suitName(sc::Suit::Hearts), "hearts");
    EXPECT_EQ(sc::suitName(sc::Suit::White), "white");
}

TEST(LakeChecksum, ComparesWithTheCounts) {
    const sc::HandResult hand{{{"Ann", 14, 0, true, 0, {}}, {"Bo", 9, 3, false, 0, {}}},
                              sc::HandEnd::Nertz};
    const auto ok = sc::checkLakeChecksum({c("KH"), c("10S")}, 0, hand);
    EXPECT_TRUE(ok.ok());
    EXPECT_EQ(ok.message(), "lake checksum ok: 23 cards");
    const auto off = sc::checkLakeChecksum({c("KH"), c("JS")}, 0, hand);
    EXPECT_FALSE(off.ok());
    EXPECT_EQ(off.expected, 24);
    EXPECT_EQ(off.counted, 23);
    EXPECT_EQ(off.message(),
              "lake checksum off: the pile tops say 24 cards, the counts add up to 23 (1 missing)");
    const auto over = sc::checkLakeChecksum({c("QH"), c("10S")}, 0, hand);
    EXPECT_NE(over.message().find("1 too many"), std::string::npos);
}

// Property: for any lake that real play can build (piles start with an ace and go up in one suit,
// each deck gives each card at most once), the tops' checksum equals the sum of per-deck counts,
// and every deck's share passes the deck sanity check.
TEST(LakeChecksum, PropertyHoldsForGeneratedLakes) {
    std::mt19937 rng(20261122);
    for (int trial = 0; trial < 2000; ++trial) {
        const int decks = std::uniform_int_distribution<int>(2, 8)(rng);
        const sc::DeckKind kind =
            trial % 5 == 0 ? sc::DeckKind::NertzColour : sc::DeckKind::Standard;
        std::vector<std::set<sc::Card>> given(decks);
        std::vector<sc::Card> tops;
        int closed = 0;
        for (int s = 0; s < 4; ++s) {
            const sc::Suit suit = sc::suitsOf(kind)[s];
            const int piles = std::uniform_int_distribution<int>(0, decks)(rng);
            for (int pile = 0; pile < piles; ++pile) {
                const int top = std::uniform_int_distribution<int>(1, 13)(rng);
                for (int r = 1; r <= top; ++r) {
                    std::vector<int> free;
                    for (int d = 0; d < decks; ++d) {
                        if (!given[d].count(sc::Card{r, suit})) free.push_back(d);
                    }
                    ASSERT_FALSE(free.empty());  // at most `decks` piles per suit
                    const int d =
                        free[std::uniform_int_distribution<std::size_t>(0, free.size() - 1)(rng)];
                    given[d].insert(sc::Card{r, suit});
                }
                if (top == 13 && rng() % 2) {
                    ++closed;  // a finished king pile, turned over and set aside
                } else {
                    tops.push_back(sc::Card{top, suit});
                }
            }
        }
        sc::HandResult hand;
        for (int d = 0; d < decks; ++d) {
            hand.sides.push_back(
                {"deck" + std::to_string(d), static_cast<int>(given[d].size()), 0, false, 0, {}});
            const std::vector<sc::Card> cards(given[d].begin(), given[d].end());
            EXPECT_TRUE(sc::checkDeck("deck", cards, 0, 13, kind).empty());
        }
        const auto result = sc::checkLakeChecksum(tops, closed, hand);
        ASSERT_TRUE(result.ok()) << "trial " << trial << ": " << result.message();
    }
}

// SPEC: "A fanned lake pile must read A, 2, 3, ... in one suit; the first wrong card is named."
TEST(PileCheck, NamesTheFirstWrongCard) {
    EXPECT_TRUE(sc::checkLakePile({c("AH"), c("2H"), c("3H")}).ok);
    EXPECT_EQ(sc::checkLakePile({c("AH"), c("2H"), c("3H")}).message(), "pile ok");
    std::vector<sc::Card> full;
    for (int r = 1; r <= 13; ++r) full.push_back({r, sc::Suit::Spades});
    EXPECT_TRUE(sc::checkLakePile(full).ok);

    const auto skip = sc::checkLakePile({c("AH"), c("2H"), c("4H"), c("5H")});
    EXPECT_FALSE(skip.ok);
    EXPECT_EQ(skip.firstWrong, 2u);
    EXPECT_EQ(skip.expected, c("3H"));
    EXPECT_EQ(skip.found, c("4H"));
    EXPECT_EQ(skip.message(), "card 3 from the bottom is 4H, expected 3H");

    const auto suit = sc::checkLakePile({c("AH"), c("2D")});
    EXPECT_EQ(suit.firstWrong, 1u);
    EXPECT_EQ(suit.expected, c("2H"));

    const auto noAce = sc::checkLakePile({c("2H"), c("3H")});
    EXPECT_EQ(noAce.firstWrong, 0u);
    EXPECT_EQ(noAce.expected, c("AH"));

    full.push_back(c("AS"));
    const auto pastKing = sc::checkLakePile(full);
    EXPECT_EQ(pastKing.firstWrong, 13u);
    EXPECT_FALSE(pastKing.expected);
    EXPECT_EQ(pastKing.message(), "card 14 from the bottom is AS, but nothing goes on a king");

    const auto empty = sc::checkLakePile({});
    EXPECT_FALSE(empty.ok);
    EXPECT_EQ(empty.message(), "the pile is empty");

    EXPECT_TRUE(sc::checkLakePile({c("1Y"), c("2Y"), c("3Y")}).ok);
    EXPECT_EQ(sc::checkLakePile({c("1Y"), c("2W")}).message(),
              "card 2 from the bottom is 2W, expected 2Y");
}

// SPEC: "A deck can contribute each card at most once; per deck, lake + Nertz left can never exceed
// 52 (nor Nertz left the pile size)."
TEST(DeckSanity, FindsEveryProblem) {
    EXPECT_TRUE(sc::checkDeck("Ann", {c("AH"), c("2H")}, 3, 13, sc::DeckKind::Standard).empty());
    const auto twice = sc::checkDeck("Ann", {c("AH"), c("AH")}, 0, 13, sc::DeckKind::Standard);
    ASSERT_EQ(twice.size(), 1u);
    EXPECT_EQ(twice[0], "deck 'Ann': AH is in the lake twice");
    const auto kind = sc::checkDeck("Ann", {c("7B")}, 0, 13, sc::DeckKind::Standard);
    ASSERT_EQ(kind.size(), 1u);
    EXPECT_NE(kind[0].find("not a card of a standard deck"), std::string::npos);
    EXPECT_EQ(sc::checkDeck("Ann", {}, 14, 13, sc::DeckKind::Standard).size(), 1u);
    EXPECT_EQ(sc::checkDeck("Ann", {}, -1, 13, sc::DeckKind::Standard).size(), 1u);
    std::vector<sc::Card> all;
    for (int s = 0; s < 4; ++s) {
        for (int r = 1; r <= 13; ++r) all.push_back({r, sc::suitsOf(sc::DeckKind::Standard)[s]});
    }
    EXPECT_TRUE(sc::checkDeck("Ann", all, 0, 13, sc::DeckKind::Standard).empty());
    const auto over = sc::checkDeck("Ann", all, 1, 13, sc::DeckKind::Standard);
    ASSERT_EQ(over.size(), 1u);
    EXPECT_EQ(over[0], "deck 'Ann': lake 52 + Nertz left 1 is more than 52 cards");
}

namespace {
std::vector<sc::IdleAction> actions(sc::IdleProcedure& idle, int stucks) {
    std::vector<sc::IdleAction> out;
    for (int i = 0; i < stucks; ++i) out.push_back(idle.stuck().action);
    return out;
}
constexpr auto kStock = sc::IdleAction::StockAction;
constexpr auto kBurn = sc::IdleAction::BurnNertzCard;
constexpr auto kEnd = sc::IdleAction::EndHand;
}  // namespace

// nna: "all players simultaneously burn a Stream card ... Stream piles burned at least three times
// without any resulting plays are required before burning Nertz pile cards."
TEST(IdleProcedure, NnaThreeStreamBurnsThenNertzBurns) {
    sc::IdleProcedure idle(sc::preset("nna"));
    EXPECT_EQ(actions(idle, 5),
              (std::vector<sc::IdleAction>{kStock, kStock, kStock, kBurn, kBurn}));
    idle.played();  // a play resets the count
    const auto step = idle.stuck();
    EXPECT_EQ(step.action, kStock);
    EXPECT_EQ(step.stockActions, 1);
    EXPECT_NE(step.instruction.find("stream"), std::string::npos);
    EXPECT_NE(step.instruction.find("1 of 3"), std::string::npos);
    EXPECT_FALSE(idle.handEnded());
}

// classic: "everyone picks up their waste pile to re-form their stock, and then puts the top card
// of the stock on the bottom" ... "If all players get so stuck that no card in their stock will
// play, play stops and the score is calculated as usual."
TEST(IdleProcedure, ClassicRecyclesOnceThenEnds) {
    sc::IdleProcedure idle(sc::preset("classic"));
    EXPECT_EQ(idle.stuck().action, kStock);
    idle.played();
    EXPECT_EQ(idle.stuck().action, kStock);
    const auto end = idle.stuck();
    EXPECT_EQ(end.action, kEnd);
    EXPECT_TRUE(idle.handEnded());
    EXPECT_EQ(idle.stuck().action, kEnd);
    idle.newHand();
    EXPECT_FALSE(idle.handEnded());
    EXPECT_EQ(idle.stuck().action, kStock);
}

// house: "When someone calls "Nertsz! or there are no legal plays for any player, play ends"
TEST(IdleProcedure, HouseEndsAtOnce) {
    sc::IdleProcedure idle(sc::preset("house"));
    EXPECT_EQ(idle.stuck().action, kEnd);
}

// flip: "ALL players are unable to play and the flip hands of ALL players have been flipped through
// a minimum of two times, the top card of the Nertz pile for every player is "burned.""
TEST(IdleProcedure, FlipTwoPassesThenNertzBurn) {
    sc::IdleProcedure idle(sc::preset("flip"));
    EXPECT_EQ(actions(idle, 4), (std::vector<sc::IdleAction>{kStock, kStock, kBurn, kBurn}));
}

// boxed: "This may be done up to THREE times per hand. If no plays can be made by any teams then
// the hand ends and all scores are tallied."
TEST(IdleProcedure, BoxedThreeDealerBurnsPerHandThenEnds) {
    sc::IdleProcedure idle(sc::preset("boxed"));
    EXPECT_EQ(idle.stuck().action, kStock);
    idle.played();  // plays do not reset the per-hand count
    EXPECT_EQ(idle.stuck().action, kStock);
    idle.played();
    const auto third = idle.stuck();
    EXPECT_EQ(third.action, kStock);
    EXPECT_NE(third.instruction.find("3 of 3 this hand"), std::string::npos);
    idle.played();
    EXPECT_EQ(idle.stuck().action, kEnd);
    EXPECT_EQ(idle.stockActions(), 3);
}

TEST(IdleProcedure, EveryStockActionHasAnInstruction) {
    for (auto a : {sc::StockAction::BurnStreamCard, sc::StockAction::RecycleAndBurn,
                   sc::StockAction::FlipThrough, sc::StockAction::BurnDealerCard}) {
        sc::RuleSet r = sc::preset("nna");
        r.idle = {a, std::nullopt, std::nullopt, sc::StuckScope::SinceLastPlay};
        sc::IdleProcedure idle(r);
        const auto step = idle.stuck();
        EXPECT_EQ(step.action, kStock);
        EXPECT_GT(step.instruction.size(), 20u);
        EXPECT_EQ(step.instruction.find("before"), std::string::npos) << "no limit, no count";
    }
    sc::RuleSet none = sc::preset("nna");
    none.idle = {sc::StockAction::None, 0, std::nullopt, sc::StuckScope::SinceLastPlay};
    sc::IdleProcedure idle(none);
    EXPECT_EQ(idle.stuck().action, kBurn);
}
