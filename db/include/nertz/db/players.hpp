// Players and their decks (owner, name, UI colour, the back signature bytes from vision).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nertz/db/database.hpp"

namespace nertz::db {

struct Player {
    std::int64_t id = 0;
    std::string name;
    std::string createdAt;
};

struct Deck {
    std::int64_t id = 0;
    std::string owner;
    std::string name;
    std::optional<std::string> colour;
    std::vector<std::uint8_t> backSignature;  // opaque bytes from the vision module
};

class PlayerRepo {
public:
    explicit PlayerRepo(Database& db) : db_(db) {}

    // Adds a player; DbInputError("name") when the name is empty or taken.
    std::int64_t add(const std::string& name, const std::string& createdAt = {});
    std::vector<Player> list();
    // DbInputError when `oldName` is unknown or `newName` is taken.
    void rename(const std::string& oldName, const std::string& newName);
    std::optional<std::int64_t> find(const std::string& name);
    // The player's id; DbInputError(field, "unknown player ...") when there is none.
    std::int64_t idOf(const std::string& name, const std::string& field = "player");

    std::int64_t addDeck(const Deck& deck);
    std::vector<Deck> decks(const std::optional<std::string>& owner = std::nullopt);
    // The deck with this id; DbInputError("deck") when there is none.
    Deck deck(std::int64_t id);
    // The deck `owner` calls `name`, if there is one (unknown owner: nullopt too).
    std::optional<Deck> findDeck(const std::string& owner, const std::string& name);
    // Stores a deck's back signature (opaque bytes; empty clears it) and, when given, its overlay
    // colour; DbInputError("deck") when the deck does not exist.
    void setDeckBack(std::int64_t deckId, const std::vector<std::uint8_t>& backSignature,
                     const std::optional<std::string>& colour = std::nullopt);

private:
    Database& db_;
};

// Names must be non-empty UTF-8, at most 64 characters (code points), without control characters
// or commas.
void checkName(const std::string& name, const std::string& field);

// Free text stored for people to read (a deck's colour, a correction's reason, who entered a hand)
// must be UTF-8: what is stored is shown by the app and printed as JSON, where stray bytes (a
// terminal or file in Latin-1) cannot go. Throws DbInputError(field, ...) naming the first bad byte.
void checkText(const std::string& text, const std::string& field);

}  // namespace nertz::db
