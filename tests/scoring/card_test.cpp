// Card names of both deck kinds, as SPEC.md writes them: "10H", "AS", and "7B" for the colour deck.
#include <gtest/gtest.h>

#include <set>

#include "nertz/scoring/card.hpp"

namespace sc = nertz::scoring;

TEST(Card, StandardNamesRoundTrip) {
    std::set<int> indices;
    for (int s = 0; s < 4; ++s) {
        for (int r = 1; r <= 13; ++r) {
            const sc::Card c{r, sc::suitsOf(sc::DeckKind::Standard)[s]};
            const auto parsed = sc::parseCard(c.name(), sc::DeckKind::Standard);
            ASSERT_TRUE(parsed) << c.name();
            EXPECT_EQ(*parsed, c);
            indices.insert(c.index());
        }
    }
    EXPECT_EQ(indices.size(), 52u);
    EXPECT_EQ(*indices.begin(), 0);
    EXPECT_EQ(*indices.rbegin(), 51);
}

TEST(Card, ParsesSpecNames) {
    EXPECT_EQ(sc::parseCard("10H", sc::DeckKind::Standard), (sc::Card{10, sc::Suit::Hearts}));
    EXPECT_EQ(sc::parseCard("AS", sc::DeckKind::Standard), (sc::Card{1, sc::Suit::Spades}));
    EXPECT_EQ(sc::parseCard("qc", sc::DeckKind::Standard), (sc::Card{12, sc::Suit::Clubs}));
    EXPECT_EQ(sc::parseCard("TD", sc::DeckKind::Standard), (sc::Card{10, sc::Suit::Diamonds}));
    EXPECT_EQ(sc::parseCard("7B", sc::DeckKind::NertzColour), (sc::Card{7, sc::Suit::Blue}));
    EXPECT_EQ(sc::parseCard("13W", sc::DeckKind::NertzColour), (sc::Card{13, sc::Suit::White}));
    EXPECT_EQ(sc::Card({13, sc::Suit::White}).name(), "13W");
    EXPECT_EQ(sc::Card({10, sc::Suit::Hearts}).name(), "10H");
}

TEST(Card, RejectsWhatIsNotACard) {
    for (const char* bad :
         {"", "H", "1H", "11H", "0B", "14B", "7X", "AB", "7H", "10", "XYZW", "01B"}) {
        const bool standard = sc::parseCard(bad, sc::DeckKind::Standard).has_value();
        const bool colour = sc::parseCard(bad, sc::DeckKind::NertzColour).has_value();
        // "7H" is a standard card but not a colour-deck card; "AB" neither.
        if (std::string(bad) == "7H") {
            EXPECT_TRUE(standard);
            EXPECT_FALSE(colour);
        } else {
            EXPECT_FALSE(standard) << bad;
            EXPECT_FALSE(colour && std::string(bad) != "1H") << bad;
        }
    }
    EXPECT_FALSE(sc::parseCard("1H", sc::DeckKind::Standard));
    EXPECT_EQ(sc::parseAnyCard("1R"), (sc::Card{1, sc::Suit::Red}));
    EXPECT_EQ(sc::parseAnyCard("KH"), (sc::Card{13, sc::Suit::Hearts}));
    EXPECT_FALSE(sc::parseAnyCard("ZZ"));
}

TEST(Card, ColoursAndKinds) {
    EXPECT_TRUE(sc::Card({5, sc::Suit::Hearts}).isRedOrDark());
    EXPECT_TRUE(sc::Card({5, sc::Suit::Diamonds}).isRedOrDark());
    EXPECT_FALSE(sc::Card({5, sc::Suit::Spades}).isRedOrDark());
    // Boxed text: "dark (red or blue) and light (yellow or white)".
    EXPECT_TRUE(sc::Card({5, sc::Suit::Blue}).isRedOrDark());
    EXPECT_TRUE(sc::Card({5, sc::Suit::Red}).isRedOrDark());
    EXPECT_FALSE(sc::Card({5, sc::Suit::Yellow}).isRedOrDark());
    EXPECT_EQ(sc::Card({5, sc::Suit::White}).deckKind(), sc::DeckKind::NertzColour);
    EXPECT_EQ(sc::parseDeckKind("nertz_colour"), sc::DeckKind::NertzColour);
    EXPECT_EQ(sc::parseDeckKind(sc::deckKindName(sc::DeckKind::Standard)), sc::DeckKind::Standard);
    EXPECT_FALSE(sc::parseDeckKind("tarot"));
}
