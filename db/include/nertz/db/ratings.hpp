// League ratings: OpenSkill (Plackett-Luce) over the league's finished games in play order,
// kept current per player with a history row per player and game.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "nertz/db/database.hpp"
#include "nertz/scoring/ratings.hpp"

namespace nertz::db {

struct PlayerRating {
    scoring::Rating rating;
    std::int64_t games = 0;
    friend bool operator==(const PlayerRating&, const PlayerRating&) = default;
};

class RatingRepo {
public:
    explicit RatingRepo(Database& db, scoring::RatingModel model = {}) : db_(db), model_(model) {}

    // Re-rates the league from the game at (playedOn, gameId) onward: earlier history is kept,
    // later history is rolled back and replayed. Call inside a write transaction.
    void recomputeFrom(std::int64_t leagueId, const std::string& playedOn, std::int64_t gameId);
    // Forgets every rating of the league and replays all its games (own transaction).
    void recomputeAll(std::int64_t leagueId);
    // player id -> current rating.
    std::map<std::int64_t, PlayerRating> current(std::int64_t leagueId);

private:
    void replay(std::int64_t leagueId, const std::string& playedOn, std::int64_t gameId,
                std::map<std::int64_t, PlayerRating>& ratings);
    Database& db_;
    scoring::RatingModel model_;
};

}  // namespace nertz::db
