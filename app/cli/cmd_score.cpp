// score / game: score one hand, or a whole game, read as JSON on stdin.
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "nertz/io/json.hpp"
#include "rule_options.hpp"

namespace nertz::cli {
namespace sc = nertz::scoring;

void RuleChoice::addTo(CLI::App* cmd) {
    cmd->add_option("--rules", id, "preset id: nna, classic, house, flip, boxed");
    cmd->add_option("--rules-file", file, "a custom rule set JSON file");
}

sc::RuleSet RuleChoice::resolve() const {
    if (id.empty() && file.empty()) throw sc::InputError("rules", "give --rules ID or --rules-file FILE");
    if (!id.empty() && !file.empty()) throw sc::InputError("rules", "give --rules or --rules-file, not both");
    return file.empty() ? sc::preset(id) : io::ruleSetFromFile(file);
}

namespace {

// The optional referee check of a hand: "lake_tops": ["7H","KS",...], "closed_piles": 2.
std::optional<io::Json> checksumOf(const io::Json& in, const sc::HandResult& hand, sc::DeckKind kind) {
    if (!in.contains("lake_tops")) return std::nullopt;
    const io::Json& tops = in["lake_tops"];
    if (!tops.is_array()) throw sc::InputError("lake_tops", "must be an array of card names");
    std::vector<sc::Card> cards;
    for (std::size_t i = 0; i < tops.size(); ++i) {
        const std::string f = "lake_tops[" + std::to_string(i) + "]";
        if (!tops[i].is_string()) throw sc::InputError(f, "must be a card name such as \"7H\"");
        auto c = sc::parseCard(tops[i].get<std::string>(), kind);
        if (!c) throw sc::InputError(f, "'" + tops[i].get<std::string>() + "' is not a card of a " +
                                            std::string(sc::deckKindName(kind)) + " deck");
        cards.push_back(*c);
    }
    int closed = 0;
    if (in.contains("closed_piles")) {
        if (!in["closed_piles"].is_number_integer()) throw sc::InputError("closed_piles", "must be a whole number");
        closed = in["closed_piles"].get<int>();
    }
    const sc::ChecksumResult r = sc::checkLakeChecksum(cards, closed, hand);
    return io::Json{{"expected", r.expected}, {"counted", r.counted}, {"ok", r.ok()}, {"message", r.message()}};
}

}  // namespace

void addScoreCommands(CLI::App& app, Context&) {
    auto* score = app.add_subcommand("score", "score one hand read as JSON on stdin");
    auto scoreRules = std::make_shared<RuleChoice>();
    scoreRules->addTo(score);
    score->footer(
        "Input: {\"players\":[{\"name\":\"Ann\",\"lake\":14,\"nertz_left\":0,\"called\":true},\n"
        "        {\"name\":\"Bo\",\"lake\":9,\"nertz_left\":3}],\"end\":\"nertz\"}\n"
        "Optional per player: \"false_calls\", \"pile_size\"; optional referee check: \"lake_tops\"\n"
        "(top card of each lake pile) and \"closed_piles\" (finished king piles).");
    score->callback([scoreRules] {
        const sc::RuleSet rules = scoreRules->resolve();
        const io::Json in = io::parseJson(readStdin(), "the hand on stdin");
        const sc::HandResult hand = io::handFromJson(in);
        io::Json out = io::toJson(sc::scoreHand(hand, rules));
        if (auto check = checksumOf(in, hand, rules.deck)) out["checksum"] = *check;
        std::cout << io::dumpJson(out) << "\n";
    });

    auto* game = app.add_subcommand("game", "score a whole game read as JSON on stdin");
    auto gameRules = std::make_shared<RuleChoice>();
    gameRules->addTo(game);
    game->footer(
        "Input: {\"players\":[\"Ann\",\"Bo\"],\"hands\":[hand, ...]} or\n"
        "       {\"teams\":[{\"name\":\"T1\",\"members\":[\"Ann\",\"Cy\"]}, ...],\"hands\":[...]}\n"
        "Optional \"pile_sizes\":{\"Ann\":10} for handicaps.");
    game->callback([gameRules, game] {
        if (!game->get_subcommands().empty()) return;  // game record/start/show (cmd_games.cpp)
        const sc::RuleSet rules = gameRules->resolve();
        const io::Json in = io::parseJson(readStdin(), "the game on stdin");
        const sc::Game g = io::gameFromJson(in, rules);
        std::cout << io::dumpJson(io::gameResultJson(g)) << "\n";
    });
}

}  // namespace nertz::cli
