#include "nertz/scoring/card.hpp"

#include <array>
#include <cctype>

namespace nertz::scoring {
namespace {

constexpr std::array<Suit, 4> kStandardSuits{Suit::Clubs, Suit::Diamonds, Suit::Hearts,
                                             Suit::Spades};
constexpr std::array<Suit, 4> kColourSuits{Suit::Blue, Suit::Red, Suit::Yellow, Suit::White};
constexpr std::string_view kSuitLetters = "CDHSBRYW";

std::optional<Suit> suitFromLetter(char letter, DeckKind kind) {
    const auto& suits = kind == DeckKind::Standard ? kStandardSuits : kColourSuits;
    for (Suit s : suits) {
        if (suitLetter(s) == letter) return s;
    }
    return std::nullopt;
}

std::optional<Rank> standardRank(std::string_view r) {
    if (r == "A") return 1;
    if (r == "J") return 11;
    if (r == "Q") return 12;
    if (r == "K") return 13;
    if (r == "T" || r == "10") return 10;
    if (r.size() == 1 && r[0] >= '2' && r[0] <= '9') return r[0] - '0';
    return std::nullopt;
}

std::optional<Rank> colourRank(std::string_view r) {
    if (r.empty() || r.size() > 2 || r[0] == '0') return std::nullopt;
    int value = 0;
    for (char c : r) {
        if (c < '0' || c > '9') return std::nullopt;
        value = value * 10 + (c - '0');
    }
    if (value < kAce || value > kKing) return std::nullopt;
    return value;
}

}  // namespace

DeckKind Card::deckKind() const noexcept {
    return static_cast<int>(suit) < 4 ? DeckKind::Standard : DeckKind::NertzColour;
}

std::string Card::name() const {
    std::string out;
    if (deckKind() == DeckKind::Standard) {
        static constexpr std::array<std::string_view, 14> kNames{
            "?", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"};
        out = rank >= kAce && rank <= kKing ? std::string(kNames[rank]) : "?";
    } else {
        out = std::to_string(rank);
    }
    out += suitLetter(suit);
    return out;
}

int Card::index() const noexcept {
    return (static_cast<int>(suit) % 4) * 13 + rank - 1;
}

bool Card::isRedOrDark() const noexcept {
    return suit == Suit::Diamonds || suit == Suit::Hearts || suit == Suit::Red ||
           suit == Suit::Blue;
}

std::optional<Card> parseCard(std::string_view text, DeckKind kind) {
    std::string upper;
    for (char c : text) {
        if (!std::isspace(static_cast<unsigned char>(c)))
            upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    if (upper.size() < 2 || upper.size() > 3) return std::nullopt;
    auto suit = suitFromLetter(upper.back(), kind);
    if (!suit) return std::nullopt;
    std::string_view rankText(upper.data(), upper.size() - 1);
    auto rank = kind == DeckKind::Standard ? standardRank(rankText) : colourRank(rankText);
    if (!rank) return std::nullopt;
    return Card{*rank, *suit};
}

std::optional<Card> parseAnyCard(std::string_view text) {
    if (auto c = parseCard(text, DeckKind::Standard)) return c;
    return parseCard(text, DeckKind::NertzColour);
}

const Suit* suitsOf(DeckKind kind) noexcept {
    return kind == DeckKind::Standard ? kStandardSuits.data() : kColourSuits.data();
}

char suitLetter(Suit suit) noexcept {
    return kSuitLetters[static_cast<std::size_t>(suit)];
}

std::string_view suitName(Suit suit) noexcept {
    static constexpr std::array<std::string_view, 8> kNames{"clubs", "diamonds", "hearts", "spades",
                                                            "blue",  "red",      "yellow", "white"};
    return kNames[static_cast<std::size_t>(suit)];
}

std::string_view deckKindName(DeckKind kind) noexcept {
    return kind == DeckKind::Standard ? "standard" : "nertz_colour";
}

std::optional<DeckKind> parseDeckKind(std::string_view text) {
    if (text == "standard") return DeckKind::Standard;
    if (text == "nertz_colour") return DeckKind::NertzColour;
    return std::nullopt;
}

}  // namespace nertz::scoring
