#include "league_generator.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "nertz/db/database.hpp"
#include "nertz/db/games.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"

namespace nertz::bench {
namespace sc = nertz::scoring;

long generateLeague(const std::string& file, const LeagueSize& size) {
    db::OpenOptions bulk;
    bulk.synchronous = "OFF";
    db::Database d(file, bulk);
    std::mt19937 rng(size.seed);
    db::LeagueRepo(d).create("Bench", "2020-01-01T00:00:00Z");
    std::vector<std::string> pool;
    db::PlayerRepo players(d);
    for (int p = 0; p < size.players; ++p) {
        pool.push_back("P" + std::to_string(p + 100));
        players.add(pool.back(), "2020-01-01T00:00:00Z");
    }
    // Games are played to exactly `handsPerGame` hands: every hand scores >= 0 for everyone
    // (lake >= 2 x Nertz left), so totals only grow; in the last hand the leader calls with 20
    // lake cards and the target is set to exactly their final total: a unique winner, and
    // nobody reaches the target earlier.
    db::GameRepo games(d);
    long hands = 0;
    std::uniform_int_distribution<int> count(2, 5), left(1, 6);
    db::Transaction tx(d);
    for (int g = 0; g < size.games; ++g) {
        std::vector<std::string> pick = pool;
        std::shuffle(pick.begin(), pick.end(), rng);
        pick.resize(static_cast<std::size_t>(count(rng)));
        db::NewGame ng;
        ng.league = "Bench";
        const int day = g / 20;  // 20 games a night
        const int month = 1 + (day / 28) % 12, dom = 1 + day % 28, year = 2020 + day / 336;
        char date[16];
        std::snprintf(date, sizeof date, "%04d-%02d-%02d", year, month, dom);
        ng.date = date;
        ng.createdAt = "2020-01-01T00:00:00Z";
        ng.rules = sc::preset("house");
        for (const auto& n : pick) ng.sides.push_back({n, {}, {}});
        std::vector<sc::HandResult> hs;
        std::vector<int> totals(pick.size(), 0);
        for (int h = 0; h < size.handsPerGame; ++h) {
            const bool last = h + 1 == size.handsPerGame;
            const std::size_t leader =
                static_cast<std::size_t>(std::max_element(totals.begin(), totals.end()) - totals.begin());
            const std::size_t caller =
                last ? leader : std::uniform_int_distribution<std::size_t>(0, pick.size() - 1)(rng);
            sc::HandResult hand;
            for (std::size_t i = 0; i < pick.size(); ++i) {
                sc::SideHand s;
                s.name = pick[i];
                s.called = i == caller;
                s.nertzLeft = s.called ? 0 : left(rng);
                s.lake = last && s.called ? 20 : std::uniform_int_distribution<int>(2 * s.nertzLeft, 20)(rng);
                totals[i] += s.lake - 2 * s.nertzLeft;
                hand.sides.push_back(s);
            }
            hand.end = sc::HandEnd::Nertz;
            hs.push_back(hand);
        }
        ng.rules.target = std::max(1, *std::max_element(totals.begin(), totals.end()));
        hands += static_cast<long>(hs.size());
        games.record(ng, hs, {});
    }
    tx.commit();
    return hands;
}

}  // namespace nertz::bench
