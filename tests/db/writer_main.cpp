// Test helper: records hands into a league file in a loop, one transaction per hand, and prints
// the number of hands it has committed after each commit (flushed), so a test can kill it at
// any instant and know what must have survived.
//   db_test_writer FILE LEAGUE TABLE SEED HANDS
// TABLE names the players TABLE-a, TABLE-b, TABLE-c (created beforehand by the test).
#include <cstdio>
#include <iostream>
#include <random>
#include <string>

#include "db_test_util.hpp"
#include "nertz/db/database.hpp"
#include "nertz/db/games.hpp"
#include "nertz/scoring/rules.hpp"

int main(int argc, char** argv) {
    using namespace nertz;
    if (argc != 6) {
        std::cerr << "usage: db_test_writer FILE LEAGUE TABLE SEED HANDS\n";
        return 2;
    }
    const std::string file = argv[1], league = argv[2], table = argv[3];
    std::mt19937 rng(static_cast<unsigned>(std::stoul(argv[4])));
    const long hands = std::stol(argv[5]);
    const std::vector<std::string> names{table + "-a", table + "-b", table + "-c"};
    try {
        db::Database database(file);
        db::GameRepo games(database);
        // Continue this table's open game if a previous (killed) run left one.
        std::int64_t game = 0;
        {
            auto st = database.prepare(
                "SELECT g.id FROM games g JOIN game_players gp ON gp.game_id = g.id JOIN players p ON p.id = gp.player_id "
                "WHERE g.over = 0 AND p.name = ? ORDER BY g.id DESC LIMIT 1");
            st.bind(1, names[0]);
            if (st.step()) game = st.getInt(0);
        }
        for (long n = 1; n <= hands; ++n) {
            if (game == 0) {
                db::NewGame ng;
                ng.league = league;
                ng.date = "2024-06-01";
                ng.rules = scoring::preset("house");
                for (const auto& name : names) ng.sides.push_back({name, {}, {}});
                game = games.create(ng);
            }
            db::HandMeta meta;
            meta.enteredBy = table;
            games.addHand(game, testing::randomHand(rng, names), meta);
            std::printf("%ld\n", n);
            std::fflush(stdout);
            if (games.load(game).game.outcome().over) game = 0;
        }
    } catch (const std::exception& e) {
        std::cerr << "writer " << table << ": " << e.what() << "\n";
        return 1;
    }
    return 0;
}
