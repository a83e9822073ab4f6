// Games and their hands: a game stores the rule set as played (a snapshot in typed columns),
// its seats and teams, and every hand with its per-side breakdown. Every write is one
// transaction that also refreshes totals, results, aggregate rows, ratings and the audit log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nertz/db/database.hpp"
#include "nertz/scoring/game.hpp"

namespace nertz::db {

// Who entered a hand, who confirmed it, when, and the lake checksum when it was read.
struct HandMeta {
    std::string enteredBy = "cli";
    std::optional<std::string> confirmedBy;
    std::string enteredAt;  // UTC ISO-8601; empty: now
    std::optional<int> lakeChecksum;

    friend bool operator==(const HandMeta&, const HandMeta&) = default;
};

struct AuditEntry {
    std::string at;
    std::string who;
    std::string action;  // "edit_hand", "delete_hand", "rename_player"
    std::optional<int> handNumber;
    std::optional<std::string> reason;
    std::optional<std::string> oldValue;
    std::optional<std::string> newValue;

    friend bool operator==(const AuditEntry&, const AuditEntry&) = default;
};

// A game to create: where it belongs, when, the rules and the sides (player or team names).
struct NewGame {
    std::string league;
    std::optional<std::string> season;
    std::string date;       // YYYY-MM-DD; empty: today
    scoring::RuleSet rules;
    std::vector<scoring::Side> sides;
    std::string createdAt;  // empty: now
    // The deck each seat plays with (ids of decks), one per side or empty; nullopt: not chosen.
    std::vector<std::optional<std::int64_t>> seatDecks;
};

struct StoredGame {
    std::int64_t id = 0;
    std::string league;
    std::optional<std::string> season;
    std::string date;
    std::string createdAt;
    scoring::Game game;
    std::vector<HandMeta> meta;  // one per hand
};

class GameRepo {
public:
    explicit GameRepo(Database& db) : db_(db) {}

    // Creates a game with no hands; returns its id. Unknown league/season/player -> DbInputError.
    std::int64_t create(const NewGame& game);
    // Creates a game and stores all its hands in one transaction. `meta` has one entry per hand
    // or a single entry used for all of them.
    std::int64_t record(const NewGame& game, const std::vector<scoring::HandResult>& hands,
                        const std::vector<HandMeta>& meta);
    // Appends a hand; returns its number (1-based). InputError when it's invalid or the game is over.
    int addHand(std::int64_t gameId, scoring::HandResult hand, const HandMeta& meta);
    // Replaces hand `number` (1-based) and recomputes everything after it; audited.
    void editHand(std::int64_t gameId, int number, scoring::HandResult hand, const HandMeta& meta,
                  const std::string& reason);
    // Removes hand `number`; later hands move up one; audited.
    void deleteHand(std::int64_t gameId, int number, const std::string& who, const std::string& reason);

    StoredGame load(std::int64_t gameId);
    // The league's games in play order (date, then id).
    std::vector<std::int64_t> gameIds(std::int64_t leagueId);
    std::vector<AuditEntry> audit(std::int64_t gameId);
    // The deck of each seat (one entry per side; nullopt where none was chosen).
    std::vector<std::optional<std::int64_t>> seatDecks(std::int64_t gameId);
    // Chooses (or clears) the deck a seat plays with; DbInputError for an unknown game, seat or deck.
    void setSeatDeck(std::int64_t gameId, int seat, std::optional<std::int64_t> deckId);
    // Appends an audit entry as given (used by import).
    void addAudit(std::int64_t gameId, const AuditEntry& entry);

private:
    std::int64_t insertGame(const NewGame& game);
    StoredGame loadUnlocked(std::int64_t gameId);
    // Stores hands [from, end) of `game` (replacing what was there) and refreshes everything derived.
    void saveFrom(std::int64_t gameId, const scoring::Game& game, const std::vector<HandMeta>& meta,
                  std::size_t from);
    Database& db_;
};

// A one-line text form of a hand for the audit log: "nertz | Ann 14/0 called | Bo 9/3".
std::string describeHand(const scoring::HandResult& hand);

}  // namespace nertz::db
