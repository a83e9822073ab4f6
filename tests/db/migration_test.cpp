// Migrations: a file made at every older schema version (with data in it) upgrades to the
// latest, keeps its data, and gains what the later versions add (aggregates, ratings).
#include <gtest/gtest.h>

#include "db_test_util.hpp"
#include "nertz/db/database.hpp"
#include "nertz/db/games.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/schema.hpp"
#include "nertz/db/stats.hpp"

using namespace nertz;
using nertz::testing::rawValue;
using nertz::testing::TempDir;

namespace {

// Writes a league with one finished 2-player game (Ann beats Bo 40-10 under a target of 30)
// using only version-1 tables, as a version-1 program would have.
void fillVersion1(db::Database& d) {
    d.exec(R"sql(
INSERT INTO players(name, created_at) VALUES('Ann', '2024-01-01T00:00:00Z'), ('Bo', '2024-01-01T00:00:00Z');
INSERT INTO leagues(name, created_at) VALUES('Old Club', '2024-01-01T00:00:00Z');
INSERT INTO events(league_id, date) VALUES(1, '2024-01-05');
INSERT INTO games(league_id, event_id, played_on, created_at, over, rules_id, rules_name, rules_source,
    lake_card_points, nertz_card_points, penalty_payers, caller_bonus, false_call_points, target, at_target,
    settlement, pile_size, min_team_size, max_team_size, deck, idle_stock_action, idle_before_nertz_burn,
    idle_before_hand_ends, idle_scope)
  VALUES(1, 1, '2024-01-05', '2024-01-05T20:00:00Z', 1, 'short', 'Short', '', 1, -2, 'everyone', 0, 0, 30,
    'highest_wins', 'none', 13, 1, 1, 'standard', 'none', NULL, 0, 'since_last_play');
INSERT INTO game_sides(game_id, seat, total, result) VALUES(1, 0, 40, 'win'), (1, 1, 10, 'loss');
INSERT INTO game_players(game_id, seat, player_id) VALUES(1, 0, 1), (1, 1, 2);
INSERT INTO hands(game_id, number, end_reason, caller_seat, entered_by, entered_at)
  VALUES(1, 1, 'nertz', 0, 'x', '2024-01-05T20:10:00Z'), (1, 2, 'nertz', 0, 'x', '2024-01-05T20:20:00Z');
INSERT INTO hand_results VALUES(1, 0, 20, 0, 1, 0, 13, 20, 0, 0, 0, 20), (1, 1, 9, 2, 0, 0, 13, 9, -4, 0, 0, 5),
                               (2, 0, 20, 0, 1, 0, 13, 20, 0, 0, 0, 20), (2, 1, 9, 2, 0, 0, 13, 9, -4, 0, 0, 5);
)sql");
}

void expectUpgraded(const std::string& file) {
    db::Database d(file);
    EXPECT_EQ(d.schemaVersion(), db::kSchemaVersion);
    const auto rows = db::standings(d, db::LeagueRepo(d).idOf("Old Club"));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].player, "Ann");
    EXPECT_EQ(rows[0].points, 40);
    EXPECT_EQ(rows[0].hands, 2);
    EXPECT_EQ(rows[0].nertzCalls, 2);
    EXPECT_EQ(rows[0].largestMargin, 30);
    EXPECT_NEAR(rows[0].mu, 27.63523138347365, 1e-9);  // rated during the upgrade
    // The old game still loads and plays on the new code.
    const db::StoredGame g = db::GameRepo(d).load(1);
    EXPECT_EQ(g.game.totals(), (std::vector<int>{40, 10}));
    EXPECT_EQ(g.game.rules().target, 30);
    EXPECT_EQ(rawValue(file, "PRAGMA integrity_check"), "ok");
    // Version 4: every seat of an old game has a deck column, not chosen.
    EXPECT_EQ(db::GameRepo(d).seatDecks(1), (std::vector<std::optional<std::int64_t>>{std::nullopt, std::nullopt}));
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM pragma_table_info('game_sides') WHERE name = 'deck_id'"), "1");
}

}  // namespace

TEST(Migration, EmptyFileToLatest) {
    TempDir dir;
    db::OpenOptions at0;
    at0.targetVersion = 0;
    { db::Database d(dir.file(), at0); EXPECT_EQ(d.schemaVersion(), 0); }
    db::Database d(dir.file());
    EXPECT_EQ(d.schemaVersion(), db::kSchemaVersion);
}

TEST(Migration, EveryOlderVersionWithDataUpgrades) {
    for (int v = 1; v < db::kSchemaVersion; ++v) {
        SCOPED_TRACE("from version " + std::to_string(v));
        TempDir dir;
        db::OpenOptions opt;
        opt.targetVersion = 1;
        {
            db::Database d(dir.file(), opt);
            fillVersion1(d);
            if (v > 1) db::migrate(d, v);  // carry the data forward to version v first
            EXPECT_EQ(d.schemaVersion(), v);
        }
        expectUpgraded(dir.file());
    }
}

TEST(Migration, Version3FileGainsSeatDecksAndCanChooseThem) {
    TempDir dir;
    db::OpenOptions opt;
    opt.targetVersion = 3;
    {
        db::Database d(dir.file(), opt);
        fillVersion1(d);
        d.exec("INSERT INTO decks(owner_id, name, colour) VALUES(1, 'Red', '#c62828')");
        EXPECT_EQ(d.schemaVersion(), 3);
        EXPECT_EQ(rawValue(dir.file(), "SELECT COUNT(*) FROM pragma_table_info('game_sides') WHERE name = 'deck_id'"), "0");
    }
    db::Database d(dir.file());
    EXPECT_EQ(d.schemaVersion(), 4);
    db::GameRepo(d).setSeatDeck(1, 0, 1);
    EXPECT_EQ(db::GameRepo(d).seatDecks(1), (std::vector<std::optional<std::int64_t>>{1, std::nullopt}));
}

TEST(Migration, UpgradeIsIdempotent) {
    TempDir dir;
    { db::Database d(dir.file()); }
    { db::Database d(dir.file()); EXPECT_EQ(d.schemaVersion(), db::kSchemaVersion); }
}
