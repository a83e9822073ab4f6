#include "nertz/db/stats.hpp"

#include <algorithm>

#include "nertz/db/players.hpp"

namespace nertz::db {
namespace {

// Columns 0..10 of every standings query.
constexpr const char* kAggregates =
    "COUNT(*), SUM(s.result = 'win'), SUM(s.result = 'loss'), SUM(s.result = 'tie'), SUM(s.points), SUM(s.hands), "
    "SUM(s.nertz_calls), SUM(s.lake_cards), MAX(s.best_hand), MAX(s.margin)";

void fill(StandingRow& r, const Statement& st, int c) {
    r.games = st.getInt(c);
    r.wins = st.getInt(c + 1);
    r.losses = st.getInt(c + 2);
    r.ties = st.getInt(c + 3);
    r.points = st.getInt(c + 4);
    r.hands = st.getInt(c + 5);
    r.nertzCalls = st.getInt(c + 6);
    r.lakeCards = st.getInt(c + 7);
    r.bestHand = st.getOptInt(c + 8);
    r.largestMargin = st.getOptInt(c + 9);
    if (!st.isNull(c + 10)) {
        r.mu = st.getDouble(c + 10);
        r.sigma = st.getDouble(c + 11);
    }
    r.rating = r.mu - 3.0 * r.sigma;
    const auto div = [](double a, double b) { return b > 0 ? a / b : 0.0; };
    r.winPct = div(100.0 * static_cast<double>(r.wins), static_cast<double>(r.games));
    r.pointsPerGame = div(static_cast<double>(r.points), static_cast<double>(r.games));
    r.pointsPerHand = div(static_cast<double>(r.points), static_cast<double>(r.hands));
    r.callRate = div(static_cast<double>(r.nertzCalls), static_cast<double>(r.hands));
    r.lakePerHand = div(static_cast<double>(r.lakeCards), static_cast<double>(r.hands));
}

}  // namespace

std::vector<StandingRow> standings(Database& db, std::int64_t leagueId, std::optional<std::int64_t> seasonId) {
    // Aggregate first (a scan of the covering index), then join the ~100 result rows.
    const std::string sql = std::string("SELECT p.name, a.*, r.mu, r.sigma FROM (SELECT s.player_id AS pid, ") +
                            kAggregates + " FROM player_game_stats s " +
                            (seasonId ? "WHERE s.season_id = ?2 AND s.over = 1 " : "WHERE s.league_id = ?1 AND s.over = 1 ") +
                            "GROUP BY s.player_id) a JOIN players p ON p.id = a.pid "
                            "LEFT JOIN ratings r ON r.league_id = ?1 AND r.player_id = a.pid";
    auto& st = db.cached(sql);
    st.bind(1, leagueId);
    if (seasonId) st.bind(2, *seasonId);
    std::vector<StandingRow> out;
    while (st.step()) {
        StandingRow r;
        r.player = st.getText(0);
        fill(r, st, 2);
        out.push_back(std::move(r));
    }
    st.reset();
    std::sort(out.begin(), out.end(), [](const StandingRow& a, const StandingRow& b) {
        if (a.rating != b.rating) return a.rating > b.rating;
        if (a.pointsPerGame != b.pointsPerGame) return a.pointsPerGame > b.pointsPerGame;
        return a.player < b.player;
    });
    return out;
}

PlayerStats playerStats(Database& db, const std::string& player) {
    const std::int64_t id = PlayerRepo(db).idOf(player);
    PlayerStats out;
    out.player = player;
    auto& st = db.cached(std::string("SELECT l.name, ") + kAggregates +
                         ", r.mu, r.sigma FROM player_game_stats s JOIN leagues l ON l.id = s.league_id "
                         "LEFT JOIN ratings r ON r.league_id = s.league_id AND r.player_id = s.player_id "
                         "WHERE s.player_id = ? AND s.over = 1 GROUP BY s.league_id ORDER BY l.name");
    st.bind(1, id);
    while (st.step()) {
        StandingRow r;
        r.player = player;
        fill(r, st, 1);
        out.leagues.emplace_back(st.getText(0), std::move(r));
    }
    st.reset();
    auto& h = db.cached(
        "SELECT s.game_id, l.name, g.played_on, COALESCE(s.result, 'open'), s.points, s.hands, "
        "(SELECT rh.mu_after - 3 * rh.sigma_after FROM rating_history rh WHERE rh.game_id = s.game_id AND rh.player_id = s.player_id) "
        "FROM player_game_stats s JOIN games g ON g.id = s.game_id JOIN leagues l ON l.id = s.league_id "
        "WHERE s.player_id = ? ORDER BY g.played_on, g.id");
    h.bind(1, id);
    while (h.step()) {
        HistoryEntry e{h.getInt(0), h.getText(1), h.getText(2), h.getText(3), h.getInt(4), h.getInt(5), std::nullopt};
        if (!h.isNull(6)) e.ratingAfter = h.getDouble(6);
        out.history.push_back(std::move(e));
    }
    h.reset();
    return out;
}

HeadToHead headToHead(Database& db, const std::string& a, const std::string& b, std::optional<std::int64_t> leagueId) {
    PlayerRepo players(db);
    const std::int64_t ia = players.idOf(a, "a"), ib = players.idOf(b, "b");
    if (ia == ib) throw DbInputError("b", "head-to-head needs two different players");
    auto& st = db.cached(
        "SELECT g.id, g.played_on, sa.total, sb.total FROM game_players pa "
        "JOIN game_players pb ON pb.game_id = pa.game_id AND pb.player_id = ?2 AND pb.seat <> pa.seat "
        "JOIN games g ON g.id = pa.game_id "
        "JOIN game_sides sa ON sa.game_id = g.id AND sa.seat = pa.seat "
        "JOIN game_sides sb ON sb.game_id = g.id AND sb.seat = pb.seat "
        "WHERE pa.player_id = ?1 AND g.over = 1 AND (?3 IS NULL OR g.league_id = ?3) ORDER BY g.played_on, g.id");
    st.bindAll(ia, ib, leagueId);
    HeadToHead out{a, b, 0, 0, 0, 0, 0, 0, {}};
    while (st.step()) {
        HeadToHeadGame g{st.getInt(0), st.getText(1), st.getInt(2), st.getInt(3)};
        ++out.games;
        out.aPoints += g.aPoints;
        out.bPoints += g.bPoints;
        if (g.aPoints > g.bPoints) ++out.aWins;
        else if (g.bPoints > g.aPoints) ++out.bWins;
        else ++out.ties;
        out.list.push_back(g);
    }
    st.reset();
    return out;
}

}  // namespace nertz::db
