// nertzref-cli's command groups. Each add*Commands registers its subcommands on the app;
// callbacks throw scoring::InputError for bad input (main turns it into one stderr line, exit 2).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace nertz::cli {

// Options shared by every command, filled in by CLI11 before a callback runs.
struct Context {
    std::string dbPath;  // --db FILE; empty: the default league file in the XDG data directory
};

// Reads all of standard input (the hand or game JSON of score/game/record commands).
std::string readStdin();

void addRulesCommands(CLI::App& app, Context& ctx);  // rules list | rules show
void addScoreCommands(CLI::App& app, Context& ctx);  // score, game
void addTourCommand(CLI::App& app, Context& ctx);    // tour
void addLeagueCommands(CLI::App& app, Context& ctx);     // league, season, player, deck
void addGamesCommands(CLI::App& app, Context& ctx);      // game record/start/show, hand add/edit/delete
void addStandingsCommands(CLI::App& app, Context& ctx);  // standings, player stats, head-to-head, export, import
void addVisionCommands(CLI::App& app, Context& ctx);  // detect, eval
void addSynthCommand(CLI::App& app, Context& ctx);   // synth (synthetic training scenes)
void addCountCommands(CLI::App& app, Context& ctx);   // deck enroll, backs enroll, count, eval-count
void addLakeCommands(CLI::App& app, Context& ctx);    // lake, eval-lake, pile

}  // namespace nertz::cli
