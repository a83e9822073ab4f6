// league create/list, season create, player add/list/rename, deck add/list.
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "commands.hpp"
#include "league_db.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"
#include "nertz/io/json.hpp"

namespace nertz::cli {

void addLeagueCommands(CLI::App& app, Context& ctx) {
    // --- league ---
    auto* league = app.add_subcommand("league", "create and list leagues");
    league->require_subcommand(1);
    {
        auto* create = league->add_subcommand("create", "create a league");
        auto name = std::make_shared<std::string>();
        create->add_option("NAME", *name, "league name")->required();
        create->callback([&ctx, name] {
            auto db = openDb(ctx);
            db::LeagueRepo(*db).create(*name);
            std::cout << "created league " << *name << "\n";
        });
        auto* list = league->add_subcommand("list", "list the leagues");
        auto json = std::make_shared<bool>(false);
        list->add_flag("--json", *json, "JSON output");
        list->callback([&ctx, json] {
            auto db = openDb(ctx);
            const auto leagues = db::LeagueRepo(*db).list();
            if (*json) {
                io::Json arr = io::Json::array();
                for (const auto& l : leagues) arr.push_back({{"name", l.name}, {"games", l.games}, {"created_at", l.createdAt}});
                std::cout << io::dumpJson(io::Json{{"leagues", arr}}) << "\n";
                return;
            }
            std::vector<std::vector<std::string>> rows;
            for (const auto& l : leagues) rows.push_back({l.name, std::to_string(l.games), l.createdAt});
            std::cout << textTable({"league", "games", "created"}, rows);
        });
    }
    // --- season ---
    auto* season = app.add_subcommand("season", "seasons of a league");
    season->require_subcommand(1);
    {
        auto* create = season->add_subcommand("create", "create a season in a league");
        auto leagueName = std::make_shared<std::string>();
        auto name = std::make_shared<std::string>();
        create->add_option("LEAGUE", *leagueName, "league name")->required();
        create->add_option("NAME", *name, "season name")->required();
        create->callback([&ctx, leagueName, name] {
            auto db = openDb(ctx);
            db::LeagueRepo(*db).createSeason(*leagueName, *name);
            std::cout << "created season " << *name << " in league " << *leagueName << "\n";
        });
    }
    // --- player ---
    auto* player = app.add_subcommand("player", "players: add, list, rename, stats");
    player->require_subcommand(1);
    {
        auto* add = player->add_subcommand("add", "add a player");
        auto name = std::make_shared<std::string>();
        add->add_option("NAME", *name, "player name")->required();
        add->callback([&ctx, name] {
            auto db = openDb(ctx);
            db::PlayerRepo(*db).add(*name);
            std::cout << "added player " << *name << "\n";
        });
        auto* list = player->add_subcommand("list", "list the players");
        auto json = std::make_shared<bool>(false);
        list->add_flag("--json", *json, "JSON output");
        list->callback([&ctx, json] {
            auto db = openDb(ctx);
            const auto players = db::PlayerRepo(*db).list();
            if (*json) {
                io::Json arr = io::Json::array();
                for (const auto& p : players) arr.push_back({{"name", p.name}, {"created_at", p.createdAt}});
                std::cout << io::dumpJson(io::Json{{"players", arr}}) << "\n";
                return;
            }
            for (const auto& p : players) std::cout << p.name << "\n";
        });
        auto* rename = player->add_subcommand("rename", "rename a player (history follows the player)");
        auto oldName = std::make_shared<std::string>();
        auto newName = std::make_shared<std::string>();
        rename->add_option("OLD", *oldName, "current name")->required();
        rename->add_option("NEW", *newName, "new name")->required();
        rename->callback([&ctx, oldName, newName] {
            auto db = openDb(ctx);
            db::PlayerRepo(*db).rename(*oldName, *newName);
            std::cout << "renamed " << *oldName << " to " << *newName << "\n";
        });
    }
    // --- deck ---
    auto* deck = app.add_subcommand("deck", "players' decks");
    deck->require_subcommand(1);
    {
        auto* add = deck->add_subcommand("add", "add a deck for a player");
        auto d = std::make_shared<db::Deck>();
        auto colour = std::make_shared<std::string>();
        auto signature = std::make_shared<std::string>();
        add->add_option("--owner", d->owner, "the player who owns it")->required();
        add->add_option("--name", d->name, "deck name")->required();
        add->add_option("--colour", *colour, "colour for the UI (e.g. #c0392b or red)");
        add->add_option("--signature-file", *signature, "back signature bytes from the vision module");
        add->callback([&ctx, d, colour, signature] {
            db::Deck deckValue = *d;
            if (!colour->empty()) deckValue.colour = *colour;
            if (!signature->empty()) {
                std::ifstream in(*signature, std::ios::binary);
                if (!in) throw scoring::InputError("signature-file", "cannot read '" + *signature + "'");
                deckValue.backSignature.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
            }
            auto db = openDb(ctx);
            db::PlayerRepo(*db).addDeck(deckValue);
            std::cout << "added deck " << deckValue.name << " for " << deckValue.owner << "\n";
        });
        auto* list = deck->add_subcommand("list", "list decks");
        auto owner = std::make_shared<std::string>();
        list->add_option("--owner", *owner, "only this player's decks");
        list->callback([&ctx, owner] {
            auto db = openDb(ctx);
            std::optional<std::string> o;
            if (!owner->empty()) o = *owner;
            std::vector<std::vector<std::string>> rows;
            for (const auto& dk : db::PlayerRepo(*db).decks(o)) {
                rows.push_back({dk.owner, dk.name, dk.colour.value_or(""), std::to_string(dk.backSignature.size())});
            }
            std::cout << textTable({"owner", "deck", "colour", "signature_bytes"}, rows);
        });
    }
}

}  // namespace nertz::cli
