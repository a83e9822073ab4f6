// Leagues, their seasons, and events (one game night of a league on one date).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nertz/db/database.hpp"

namespace nertz::db {

struct League {
    std::int64_t id = 0;
    std::string name;
    std::string createdAt;
    std::int64_t games = 0;  // games recorded in it
};

struct Season {
    std::int64_t id = 0;
    std::string name;
};

class LeagueRepo {
public:
    explicit LeagueRepo(Database& db) : db_(db) {}

    // DbInputError("name") when the name is bad or taken.
    std::int64_t create(const std::string& name, const std::string& createdAt = {});
    std::vector<League> list();
    std::optional<std::int64_t> find(const std::string& name);
    // DbInputError(field, "unknown league ...") when there is none.
    std::int64_t idOf(const std::string& name, const std::string& field = "league");
    League get(std::int64_t id);

    std::int64_t createSeason(const std::string& league, const std::string& name);
    std::vector<Season> seasons(std::int64_t leagueId);
    // DbInputError when the league has no such season.
    std::int64_t seasonId(std::int64_t leagueId, const std::string& name, const std::string& field = "season");
    // The event (game night) of a league on a date, created when missing. Call inside a transaction.
    std::int64_t eventFor(std::int64_t leagueId, const std::string& date);

private:
    Database& db_;
};

}  // namespace nertz::db
