#include "nertz/db/ratings.hpp"

#include <set>
#include <vector>

namespace nertz::db {
namespace sc = nertz::scoring;

namespace {
constexpr const char* kAtOrAfter = "(g.played_on > ?2 OR (g.played_on = ?2 AND g.id >= ?3))";
}

std::map<std::int64_t, PlayerRating> RatingRepo::current(std::int64_t leagueId) {
    auto& st = db_.cached("SELECT player_id, mu, sigma, games FROM ratings WHERE league_id = ?");
    st.bind(1, leagueId);
    std::map<std::int64_t, PlayerRating> out;
    while (st.step()) out[st.getInt(0)] = {{st.getDouble(1), st.getDouble(2)}, st.getInt(3)};
    st.reset();
    return out;
}

void RatingRepo::recomputeFrom(std::int64_t leagueId, const std::string& playedOn, std::int64_t gameId) {
    std::map<std::int64_t, PlayerRating> ratings = current(leagueId);
    // Roll back: the first rolled-back row of each player holds their rating before it.
    auto& hist = db_.cached(std::string("SELECT h.player_id, h.mu_before, h.sigma_before FROM games g "
                                        "JOIN rating_history h ON h.game_id = g.id "
                                        "WHERE g.league_id = ?1 AND ") +
                            kAtOrAfter + " ORDER BY h.id");
    hist.bindAll(leagueId, playedOn, gameId);
    std::set<std::int64_t> seen;
    while (hist.step()) {
        const std::int64_t p = hist.getInt(0);
        PlayerRating& r = ratings[p];
        if (seen.insert(p).second) r.rating = {hist.getDouble(1), hist.getDouble(2)};
        --r.games;
    }
    hist.reset();
    if (!seen.empty()) {
        db_.cached(std::string("DELETE FROM rating_history WHERE game_id IN (SELECT g.id FROM games g "
                               "WHERE g.league_id = ?1 AND ") +
                   kAtOrAfter + ")")
            .bindAll(leagueId, playedOn, gameId)
            .run();
    }
    replay(leagueId, playedOn, gameId, ratings);
}

void RatingRepo::recomputeAll(std::int64_t leagueId) {
    Transaction tx(db_);
    db_.cached("DELETE FROM rating_history WHERE league_id = ?").bindAll(leagueId).run();
    db_.cached("DELETE FROM ratings WHERE league_id = ?").bindAll(leagueId).run();
    std::map<std::int64_t, PlayerRating> ratings;
    replay(leagueId, "", 0, ratings);
    tx.commit();
}

void RatingRepo::replay(std::int64_t leagueId, const std::string& playedOn, std::int64_t gameId,
                        std::map<std::int64_t, PlayerRating>& ratings) {
    auto& st = db_.cached(std::string("SELECT g.id, gs.seat, gs.total, gp.player_id FROM games g "
                                      "JOIN game_sides gs ON gs.game_id = g.id "
                                      "JOIN game_players gp ON gp.game_id = gs.game_id AND gp.seat = gs.seat "
                                      "WHERE g.league_id = ?1 AND g.over = 1 AND ") +
                          kAtOrAfter + " ORDER BY g.played_on, g.id, gs.seat, gp.player_id");
    st.bindAll(leagueId, playedOn, gameId);
    auto& ins = db_.cached(
        "INSERT INTO rating_history(league_id, game_id, player_id, mu_before, sigma_before, mu_after, sigma_after) "
        "VALUES(?, ?, ?, ?, ?, ?, ?)");
    const sc::Rating fresh = sc::initialRating(model_);

    std::int64_t current = -1;
    std::vector<std::vector<std::int64_t>> members;  // per seat
    std::vector<int> totals;
    auto flush = [&] {
        if (current < 0 || members.size() < 2) return;
        std::vector<std::vector<sc::Rating>> teams;
        for (const auto& seat : members) {
            std::vector<sc::Rating> t;
            for (std::int64_t p : seat) {
                auto it = ratings.find(p);
                t.push_back(it == ratings.end() ? fresh : it->second.rating);
            }
            teams.push_back(std::move(t));
        }
        const auto after = sc::ratePlackettLuce(teams, sc::ranksFromScores(totals), model_);
        for (std::size_t s = 0; s < members.size(); ++s) {
            for (std::size_t m = 0; m < members[s].size(); ++m) {
                const std::int64_t p = members[s][m];
                ins.bindAll(leagueId, current, p, teams[s][m].mu, teams[s][m].sigma, after[s][m].mu, after[s][m].sigma)
                    .run();
                PlayerRating& r = ratings[p];
                r.rating = after[s][m];
                ++r.games;
            }
        }
    };
    int lastSeat = -1;
    while (st.step()) {
        const std::int64_t g = st.getInt(0);
        const int seat = static_cast<int>(st.getInt(1));
        if (g != current) {
            flush();
            current = g;
            members.clear();
            totals.clear();
            lastSeat = -1;
        }
        if (seat != lastSeat) {
            members.emplace_back();
            totals.push_back(static_cast<int>(st.getInt(2)));
            lastSeat = seat;
        }
        members.back().push_back(st.getInt(3));
    }
    st.reset();
    flush();

    db_.cached("DELETE FROM ratings WHERE league_id = ?").bindAll(leagueId).run();
    auto& put = db_.cached("INSERT INTO ratings(league_id, player_id, mu, sigma, games) VALUES(?, ?, ?, ?, ?)");
    for (const auto& [p, r] : ratings) {
        if (r.games <= 0) continue;
        put.bindAll(leagueId, p, r.rating.mu, r.rating.sigma, r.games).run();
    }
}

}  // namespace nertz::db
