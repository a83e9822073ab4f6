// The league schema: versioned with PRAGMA user_version, built by forward-only migrations.
// Version 1: players, teams, decks, leagues, seasons, events, games (rule-set snapshot as typed
// columns), sides, hands, hand results. Version 2: audit log and ratings. Version 3: per-player
// per-game aggregate rows and the indexes that make standings fast. Version 4: the deck per
// seat (game_sides.deck_id).
#pragma once

namespace nertz::db {

class Database;

inline constexpr int kSchemaVersion = 4;

// Applies the migrations from the file's version up to `target` (each in its own
// BEGIN IMMEDIATE transaction, so two processes opening a new file don't race).
void migrate(Database& db, int target = kSchemaVersion);

}  // namespace nertz::db
