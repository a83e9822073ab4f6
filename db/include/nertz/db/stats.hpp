// Standings, a player's statistics and history, and head-to-head records, computed in SQL over
// the per-player per-game aggregate rows. Only finished games count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nertz/db/database.hpp"

namespace nertz::db {

struct StandingRow {
    std::string player;
    std::int64_t games = 0, wins = 0, losses = 0, ties = 0;
    std::int64_t points = 0, hands = 0, nertzCalls = 0, lakeCards = 0;
    std::optional<std::int64_t> bestHand;        // highest single-hand score
    std::optional<std::int64_t> largestMargin;   // largest winning margin over the runner-up
    double winPct = 0, pointsPerGame = 0, pointsPerHand = 0, callRate = 0, lakePerHand = 0;
    double mu = 25.0, sigma = 25.0 / 3.0;
    double rating = 0;  // mu - 3 sigma
};

// Rank order: rating, then points per game (both descending), then name.
std::vector<StandingRow> standings(Database& db, std::int64_t leagueId, std::optional<std::int64_t> seasonId = {});

struct HistoryEntry {
    std::int64_t gameId = 0;
    std::string league;
    std::string date;
    std::string result;  // win, loss, tie, or "open" for an unfinished game
    std::int64_t points = 0;
    std::int64_t hands = 0;
    std::optional<double> ratingAfter;  // mu - 3 sigma after the game
};

struct PlayerStats {
    std::string player;
    std::vector<std::pair<std::string, StandingRow>> leagues;  // per league the player has played in
    std::vector<HistoryEntry> history;                          // every game, in play order
};

// DbInputError when the player is unknown.
PlayerStats playerStats(Database& db, const std::string& player);

struct HeadToHeadGame {
    std::int64_t gameId = 0;
    std::string date;
    std::int64_t aPoints = 0, bPoints = 0;
};

struct HeadToHead {
    std::string a, b;
    std::int64_t games = 0, aWins = 0, bWins = 0, ties = 0;  // finished games, opposite sides
    std::int64_t aPoints = 0, bPoints = 0;
    std::vector<HeadToHeadGame> list;
};

HeadToHead headToHead(Database& db, const std::string& a, const std::string& b,
                      std::optional<std::int64_t> leagueId = {});

}  // namespace nertz::db
