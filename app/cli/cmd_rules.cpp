// rules list / rules show: the built-in presets and custom rule files.
#include <iomanip>
#include <iostream>
#include <memory>

#include "commands.hpp"
#include "nertz/io/json.hpp"

namespace nertz::cli {
namespace sc = nertz::scoring;

namespace {

std::string orNever(const std::optional<int>& v) { return v ? std::to_string(*v) : "never"; }

void printRules(const sc::RuleSet& r) {
    std::cout << r.id << ": " << r.name << (r.source.empty() ? "" : " (" + r.source + ")") << "\n"
              << "  lake card            " << std::showpos << r.lakeCardPoints << "\n"
              << "  Nertz card left      " << r.nertzCardPoints << std::noshowpos << ", paid by "
              << sc::toString(r.penaltyPayers) << "\n"
              << "  caller bonus         " << r.callerBonus << "\n"
              << "  false call           " << (r.hasFalseCalls() ? std::to_string(r.falseCallPoints) : "-") << "\n"
              << "  game to              " << r.target << " (" << sc::toString(r.atTarget) << ")\n"
              << "  settlement           " << sc::toString(r.settlement) << "\n"
              << "  Nertz pile           " << r.pileSize << " cards\n"
              << "  players per side     " << r.minTeamSize << ".." << r.maxTeamSize << "\n"
              << "  deck                 " << sc::deckKindName(r.deck) << "\n"
              << "  all stuck            " << sc::toString(r.idle.stockAction) << "; Nertz burn after "
              << orNever(r.idle.stockActionsBeforeNertzBurn) << "; hand ends after "
              << orNever(r.idle.stockActionsBeforeHandEnds) << " (" << sc::toString(r.idle.scope) << ")\n";
}

}  // namespace

void addRulesCommands(CLI::App& app, Context&) {
    auto* rules = app.add_subcommand("rules", "the rule sets nertzref knows");
    rules->require_subcommand(1);

    auto* list = rules->add_subcommand("list", "list the built-in presets");
    auto listJson = std::make_shared<bool>(false);
    list->add_flag("--json", *listJson, "print JSON");
    list->callback([listJson] {
        if (*listJson) {
            io::Json out = io::Json::array();
            for (const auto& id : sc::presetIds()) out.push_back(io::toJson(sc::preset(id)));
            std::cout << io::dumpJson(io::Json{{"rules", out}}) << "\n";
            return;
        }
        for (const auto& id : sc::presetIds()) {
            const auto r = sc::preset(id);
            std::cout << std::left << std::setw(9) << r.id << std::setw(28) << r.name << "game to "
                      << std::setw(4) << r.target << " " << r.source << "\n";
        }
    });

    auto* show = rules->add_subcommand("show", "show one rule set (a preset id, or --file a custom JSON)");
    struct ShowOptions {
        std::string id, file;
        bool json = false;
    };
    auto o = std::make_shared<ShowOptions>();
    show->add_option("ID", o->id, "preset id: nna, classic, house, flip, boxed");
    show->add_option("--file", o->file, "a custom rule set JSON file");
    show->add_flag("--json", o->json, "print JSON");
    show->callback([o] {
        if (o->id.empty() == o->file.empty()) {
            throw sc::InputError("rules", "give a preset ID or --file, exactly one");
        }
        const sc::RuleSet r = o->file.empty() ? sc::preset(o->id) : io::ruleSetFromFile(o->file);
        if (o->json) {
            std::cout << io::dumpJson(io::toJson(r)) << "\n";
        } else {
            printRules(r);
        }
    });
}

}  // namespace nertz::cli
