// A deterministic, seeded league generator for the benchmarks: N games of 2..5 players drawn
// from a pool, each played to its end under the nna preset, hands of realistic counts.
#pragma once

#include <cstdint>
#include <string>

namespace nertz::bench {

struct LeagueSize {
    int games = 10000;
    int handsPerGame = 10;  // the generator stops each game at this many hands (target raised)
    int players = 60;
    std::uint32_t seed = 42;
};

// Writes the league "Bench" into `file` (which must be new); returns the number of hands.
long generateLeague(const std::string& file, const LeagueSize& size);

}  // namespace nertz::bench
