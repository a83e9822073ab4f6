// tour: a short guided run through nertzref on built-in example data (the Quick start's program).
#include <iomanip>
#include <iostream>

#include "commands.hpp"
#include "nertz/io/json.hpp"

namespace nertz::cli {
namespace sc = nertz::scoring;

namespace {

void printScore(const sc::HandScore& score) {
    std::cout << "    " << std::left << std::setw(8) << "player" << std::right << std::setw(6) << "lake"
              << std::setw(9) << "penalty" << std::setw(7) << "bonus" << std::setw(12) << "false call"
              << std::setw(7) << "score" << "\n";
    for (const auto& s : score.sides) {
        std::cout << "    " << std::left << std::setw(8) << s.name << std::right << std::setw(6) << s.lakePoints
                  << std::setw(9) << s.penalty << std::setw(7) << s.bonus << std::setw(12) << s.falseCall
                  << std::setw(7) << s.score << "\n";
    }
}

}  // namespace

void addTourCommand(CLI::App& app, Context&) {
    auto* tour = app.add_subcommand("tour", "a guided tour on built-in example data");
    tour->callback([] {
        std::cout << "nertzref — the Nertz referee and score keeper\n\n"
                  << "1. The rule sets it knows (nertzref-cli rules list):\n";
        for (const auto& id : sc::presetIds()) {
            const auto r = sc::preset(id);
            std::cout << "    " << std::left << std::setw(9) << r.id << std::setw(28) << r.name << "game to "
                      << r.target << "\n";
        }

        const sc::HandResult hand{{{"Ann", 14, 0, true, 0, {}}, {"Bo", 9, 3, false, 0, {}}, {"Cy", 11, 5, false, 1, {}}},
                                  sc::HandEnd::Nertz};
        std::cout << "\n2. One hand: Ann calls Nertz with 14 lake cards; Bo has 9 in the lake and 3 left;\n"
                  << "   Cy has 11 and 5 left and called Nertz once too early. Under 'nna'\n"
                  << "   (echo '<hand JSON>' | nertzref-cli score --rules nna):\n";
        printScore(sc::scoreHand(hand, sc::preset("nna")));
        sc::HandResult house = hand;
        house.sides[2].falseCalls = 0;
        std::cout << "   The same hand under 'house' (no caller bonus, no false calls):\n";
        printScore(sc::scoreHand(house, sc::preset("house")));

        std::cout << "\n3. The referee's lake checksum: piles topped by 7H, KS, 4D and 9C plus one closed\n"
                  << "   king pile hold 7 + 13 + 4 + 9 + 13 cards:\n";
        const std::vector<sc::Card> tops{*sc::parseCard("7H", sc::DeckKind::Standard),
                                         *sc::parseCard("KS", sc::DeckKind::Standard),
                                         *sc::parseCard("4D", sc::DeckKind::Standard),
                                         *sc::parseCard("9C", sc::DeckKind::Standard)};
        std::cout << "    " << sc::checkLakeChecksum(tops, 1, hand).message() << "\n";
        const auto pile = sc::checkLakePile({{1, sc::Suit::Hearts}, {2, sc::Suit::Hearts}, {4, sc::Suit::Hearts}});
        std::cout << "   A fanned pile AH 2H 4H: " << pile.message() << "\n";

        std::cout << "\n4. Everyone is stuck under 'nna' (press the stuck button four times):\n";
        sc::IdleProcedure idle(sc::preset("nna"));
        for (int i = 0; i < 4; ++i) std::cout << "    " << idle.stuck().instruction << "\n";

        std::cout << "\n5. A game of 'classic' to 100, where the winner collects the difference:\n";
        sc::Game game(sc::preset("classic"), {{"Ann", {}, {}}, {"Bo", {}, {}}});
        for (int h = 0; h < 4; ++h) {
            game.addHand({{{"Ann", 30, 0, true, 0, {}}, {"Bo", 20, 4, false, 0, {}}}, sc::HandEnd::Nertz});
        }
        const auto result = io::gameResultJson(game);
        std::cout << "    " << io::dumpJson(io::Json{{"totals", result["totals"]}, {"over", result["over"]},
                                        {"winner", result["winner"]}, {"settlement", result["settlement"]}})
                  << "\n\nEvery command: nertzref-cli --help\n";
    });
}

}  // namespace nertz::cli
