// League database benchmarks: recording one hand durably, standings and a full rating recompute
// for a generated league of 10,000 games / 100,000 hands (built once, cached in the temp dir).
#include <benchmark/benchmark.h>

#include <filesystem>
#include <random>

#include "league_generator.hpp"
#include "nertz/db/database.hpp"
#include "nertz/db/games.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"
#include "nertz/db/ratings.hpp"
#include "nertz/db/stats.hpp"

namespace fs = std::filesystem;
using namespace nertz;

namespace {

const std::string& benchLeague() {
    static const std::string file = [] {
        const fs::path p = fs::temp_directory_path() / "nertz-bench-league-v3c-s42.sqlite";
        if (!fs::exists(p)) {
            const fs::path tmp = p.string() + ".building";
            fs::remove(tmp);
            const long hands = bench::generateLeague(tmp.string(), {});
            fs::rename(tmp, p);
            std::fprintf(stderr, "generated %s: 10000 games, %ld hands\n", p.c_str(), hands);
        }
        return p.string();
    }();
    return file;
}

void recordHand(benchmark::State& state, const char* sync) {
    const fs::path p = fs::temp_directory_path() / ("nertz-bench-record-" + std::string(sync) + ".sqlite");
    fs::remove(p);
    fs::remove(p.string() + "-wal");
    fs::remove(p.string() + "-shm");
    db::OpenOptions opt;
    opt.synchronous = sync;
    db::Database d(p.string(), opt);
    db::LeagueRepo(d).create("Club");
    db::PlayerRepo players(d);
    const std::vector<std::string> names{"Ann", "Bo", "Cy", "Di"};
    for (const auto& n : names) players.add(n);
    db::GameRepo games(d);
    std::mt19937 rng(1);
    std::int64_t game = 0;
    int handsInGame = 0;
    for (auto _ : state) {
        state.PauseTiming();
        if (game == 0 || handsInGame >= 12) {
            db::NewGame ng;
            ng.league = "Club";
            ng.date = "2024-06-01";
            ng.rules = scoring::preset("house");
            ng.rules.target = 100000;
            for (const auto& n : names) ng.sides.push_back({n, {}, {}});
            game = games.create(ng);
            handsInGame = 0;
        }
        scoring::HandResult h;
        const std::size_t caller = rng() % names.size();
        for (std::size_t i = 0; i < names.size(); ++i) {
            h.sides.push_back({names[i], static_cast<int>(rng() % 20), i == caller ? 0 : 1 + static_cast<int>(rng() % 12),
                               i == caller, 0, std::nullopt});
        }
        state.ResumeTiming();
        games.addHand(game, h, {});  // one transaction: hand rows, totals, aggregates, commit
        ++handsInGame;
    }
}

void BM_RecordHand_WalNormal(benchmark::State& s) { recordHand(s, "NORMAL"); }
void BM_RecordHand_WalFull(benchmark::State& s) { recordHand(s, "FULL"); }

void BM_Standings_10kGames(benchmark::State& state) {
    db::Database d(benchLeague());
    const std::int64_t league = db::LeagueRepo(d).idOf("Bench");
    std::size_t rows = 0;
    for (auto _ : state) {
        auto s = db::standings(d, league);
        rows = s.size();
        benchmark::DoNotOptimize(s);
    }
    state.counters["players"] = static_cast<double>(rows);
}

void BM_FullRatingRecompute_10kGames(benchmark::State& state) {
    const fs::path copy = fs::temp_directory_path() / "nertz-bench-league-ratings.sqlite";
    fs::copy_file(benchLeague(), copy, fs::copy_options::overwrite_existing);
    fs::remove(copy.string() + "-wal");
    db::Database d(copy.string());
    const std::int64_t league = db::LeagueRepo(d).idOf("Bench");
    for (auto _ : state) db::RatingRepo(d).recomputeAll(league);
}

}  // namespace

BENCHMARK(BM_RecordHand_WalNormal)->Unit(benchmark::kMillisecond)->Iterations(300);
BENCHMARK(BM_RecordHand_WalFull)->Unit(benchmark::kMillisecond)->Iterations(100);
BENCHMARK(BM_Standings_10kGames)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FullRatingRecompute_10kGames)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
