// Card values of the standard 52-card deck and of the boxed NERTZ colour deck, and their names.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace nertz::scoring {

// Which kind of deck a game is played with.
enum class DeckKind : std::uint8_t {
    Standard,     // A..K in clubs, diamonds, hearts, spades; names like "10H", "AS"
    NertzColour,  // boxed NERTZ deck: 1..13 in blue, red, yellow, white; names like "7B"
};

// Suits of both deck kinds. The first four belong to Standard, the last four to NertzColour.
enum class Suit : std::uint8_t { Clubs, Diamonds, Hearts, Spades, Blue, Red, Yellow, White };

using Rank = int;  // 1 (ace) .. 13 (king)

inline constexpr Rank kAce = 1;
inline constexpr Rank kKing = 13;
inline constexpr int kDeckSize = 52;
inline constexpr int kSuitsPerDeck = 4;

// One card face. Value type; ordered by suit then rank, so it can key a set or map.
struct Card {
    Rank rank = kAce;
    Suit suit = Suit::Clubs;

    friend constexpr auto operator<=>(const Card&, const Card&) = default;

    DeckKind deckKind() const noexcept;
    // "10H", "AS", "QC" for standard cards; "7B", "13W" for the colour deck.
    std::string name() const;
    // A dense index 0..51 within its deck: suit index * 13 + rank - 1.
    int index() const noexcept;
    // Red suits (hearts, diamonds) and dark colours (red, blue) answer true.
    bool isRedOrDark() const noexcept;
};

// The card named `text` in a deck of `kind`, or nullopt when it is not a card name of that deck.
// Accepts upper or lower case, and "T" for ten.
std::optional<Card> parseCard(std::string_view text, DeckKind kind);

// Like parseCard, trying the standard deck first and then the colour deck.
std::optional<Card> parseAnyCard(std::string_view text);

// The four suits of a deck kind, in name order (C D H S, or B R Y W).
const Suit* suitsOf(DeckKind kind) noexcept;

char suitLetter(Suit suit) noexcept;
std::string_view suitName(Suit suit) noexcept;  // "clubs" .. "spades", "blue" .. "white"
std::string_view deckKindName(DeckKind kind) noexcept;         // "standard" / "nertz_colour"
std::optional<DeckKind> parseDeckKind(std::string_view text);  // inverse of deckKindName

}  // namespace nertz::scoring
