#include "nertz/db/schema.hpp"

#include <string>
#include <vector>

#include "nertz/db/database.hpp"
#include "nertz/db/ratings.hpp"

namespace nertz::db {
namespace {

// The SQL that refreshes the aggregate rows of the games chosen by `where` (shared by the
// version 3 back-fill and by every write to a game).
const char* kMigrations[] = {
    // ---- 1: the core records ----
    R"sql(
CREATE TABLE players(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL);
CREATE TABLE teams(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE);
CREATE TABLE team_members(
    team_id INTEGER NOT NULL REFERENCES teams(id),
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY(team_id, player_id));
CREATE TABLE decks(
    id INTEGER PRIMARY KEY,
    owner_id INTEGER NOT NULL REFERENCES players(id),
    name TEXT NOT NULL,
    colour TEXT,
    back_signature BLOB,
    UNIQUE(owner_id, name));
CREATE TABLE leagues(
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE,
    created_at TEXT NOT NULL);
CREATE TABLE seasons(
    id INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    name TEXT NOT NULL,
    UNIQUE(league_id, name));
CREATE TABLE events(
    id INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    date TEXT NOT NULL,
    name TEXT,
    UNIQUE(league_id, date));
CREATE TABLE games(
    id INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    season_id INTEGER REFERENCES seasons(id),
    event_id INTEGER REFERENCES events(id),
    played_on TEXT NOT NULL,
    created_at TEXT NOT NULL,
    over INTEGER NOT NULL DEFAULT 0,
    rules_id TEXT NOT NULL,
    rules_name TEXT NOT NULL,
    rules_source TEXT NOT NULL,
    lake_card_points INTEGER NOT NULL,
    nertz_card_points INTEGER NOT NULL,
    penalty_payers TEXT NOT NULL,
    caller_bonus INTEGER NOT NULL,
    false_call_points INTEGER NOT NULL,
    target INTEGER NOT NULL,
    at_target TEXT NOT NULL,
    settlement TEXT NOT NULL,
    pile_size INTEGER NOT NULL,
    min_team_size INTEGER NOT NULL,
    max_team_size INTEGER NOT NULL,
    deck TEXT NOT NULL,
    idle_stock_action TEXT NOT NULL,
    idle_before_nertz_burn INTEGER,
    idle_before_hand_ends INTEGER,
    idle_scope TEXT NOT NULL);
CREATE TABLE game_sides(
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    team_id INTEGER REFERENCES teams(id),
    pile_size INTEGER,
    total INTEGER NOT NULL DEFAULT 0,
    result TEXT,
    PRIMARY KEY(game_id, seat));
CREATE TABLE game_players(
    game_id INTEGER NOT NULL REFERENCES games(id),
    seat INTEGER NOT NULL,
    player_id INTEGER NOT NULL REFERENCES players(id),
    PRIMARY KEY(game_id, player_id));
CREATE TABLE hands(
    id INTEGER PRIMARY KEY,
    game_id INTEGER NOT NULL REFERENCES games(id),
    number INTEGER NOT NULL,
    end_reason TEXT NOT NULL,
    caller_seat INTEGER,
    lake_checksum INTEGER,
    entered_by TEXT NOT NULL,
    confirmed_by TEXT,
    entered_at TEXT NOT NULL,
    UNIQUE(game_id, number));
CREATE TABLE hand_results(
    hand_id INTEGER NOT NULL REFERENCES hands(id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    lake INTEGER NOT NULL,
    nertz_left INTEGER NOT NULL,
    called INTEGER NOT NULL,
    false_calls INTEGER NOT NULL,
    pile_size INTEGER NOT NULL,
    lake_points INTEGER NOT NULL,
    penalty INTEGER NOT NULL,
    bonus INTEGER NOT NULL,
    false_call INTEGER NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY(hand_id, seat)) WITHOUT ROWID;
)sql",
    // ---- 2: corrections are audited; ratings and their history ----
    R"sql(
CREATE TABLE audit_log(
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    who TEXT NOT NULL,
    action TEXT NOT NULL,
    game_id INTEGER REFERENCES games(id),
    hand_number INTEGER,
    reason TEXT,
    old_value TEXT,
    new_value TEXT);
CREATE TABLE ratings(
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    player_id INTEGER NOT NULL REFERENCES players(id),
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    games INTEGER NOT NULL,
    PRIMARY KEY(league_id, player_id));
CREATE TABLE rating_history(
    id INTEGER PRIMARY KEY,
    league_id INTEGER NOT NULL REFERENCES leagues(id),
    game_id INTEGER NOT NULL REFERENCES games(id),
    player_id INTEGER NOT NULL REFERENCES players(id),
    mu_before REAL NOT NULL,
    sigma_before REAL NOT NULL,
    mu_after REAL NOT NULL,
    sigma_after REAL NOT NULL);
CREATE INDEX audit_game ON audit_log(game_id, id);
CREATE INDEX rating_history_game ON rating_history(game_id);
CREATE INDEX rating_history_player ON rating_history(player_id, id);
)sql",
    // ---- 3: aggregate rows per player and game, kept in the same transaction as the hands ----
    R"sql(
CREATE TABLE player_game_stats(
    game_id INTEGER NOT NULL REFERENCES games(id),
    player_id INTEGER NOT NULL REFERENCES players(id),
    league_id INTEGER NOT NULL,
    season_id INTEGER,
    over INTEGER NOT NULL,
    result TEXT,
    hands INTEGER NOT NULL,
    points INTEGER NOT NULL,
    nertz_calls INTEGER NOT NULL,
    lake_cards INTEGER NOT NULL,
    best_hand INTEGER,
    margin INTEGER,
    PRIMARY KEY(game_id, player_id)) WITHOUT ROWID;
-- Covering indexes: standings read only the index, in player order.
CREATE INDEX pgs_league ON player_game_stats(league_id, over, player_id, result, points, hands, nertz_calls,
                                            lake_cards, best_hand, margin);
CREATE INDEX pgs_season ON player_game_stats(season_id, over, player_id, result, points, hands, nertz_calls,
                                            lake_cards, best_hand, margin);
CREATE INDEX pgs_player ON player_game_stats(player_id);
CREATE INDEX games_order ON games(league_id, played_on, id);
CREATE INDEX game_players_player ON game_players(player_id, game_id);
CREATE INDEX decks_owner ON decks(owner_id);
)sql",
    // ---- 4: the deck each seat plays with (attribution of lake cards by back); NULL: not chosen ----
    R"sql(
ALTER TABLE game_sides ADD COLUMN deck_id INTEGER REFERENCES decks(id);
)sql",
};

}  // namespace

// Shared with games.cpp: rebuilds player_game_stats for the games matched by `?1` (a game id),
// or for every game when used with `gameFilter` = "1".
std::string playerGameStatsSql(const std::string& gameFilter) {
    return R"sql(
INSERT INTO player_game_stats(game_id, player_id, league_id, season_id, over, result, hands, points,
                              nertz_calls, lake_cards, best_hand, margin)
SELECT gp.game_id, gp.player_id, g.league_id, g.season_id, g.over, gs.result,
       (SELECT COUNT(*) FROM hands h WHERE h.game_id = g.id),
       gs.total,
       (SELECT COUNT(*) FROM hands h JOIN hand_results r ON r.hand_id = h.id
         WHERE h.game_id = g.id AND r.seat = gp.seat AND r.called = 1),
       (SELECT COALESCE(SUM(r.lake), 0) FROM hands h JOIN hand_results r ON r.hand_id = h.id
         WHERE h.game_id = g.id AND r.seat = gp.seat),
       (SELECT MAX(r.score) FROM hands h JOIN hand_results r ON r.hand_id = h.id
         WHERE h.game_id = g.id AND r.seat = gp.seat),
       CASE WHEN gs.result = 'win' THEN gs.total - (SELECT MAX(o.total) FROM game_sides o
                                                     WHERE o.game_id = g.id AND o.seat <> gs.seat) END
FROM game_players gp
JOIN games g ON g.id = gp.game_id
JOIN game_sides gs ON gs.game_id = gp.game_id AND gs.seat = gp.seat
WHERE )sql" + gameFilter;
}

void migrate(Database& db, int target) {
    if (db.schemaVersion() >= target) return;  // the usual case: no write lock needed
    for (;;) {
        Transaction tx(db);
        const int version = db.schemaVersion();  // re-read under the write lock
        if (version >= target) return;           // tx rolls back: nothing to do
        db.exec(kMigrations[version]);
        if (version + 1 == 3) db.exec(playerGameStatsSql("1"));  // back-fill the aggregates
        // Version 2 brings ratings: rate the games a version 1 file already holds (same transaction).
        if (version + 1 == 2) {
            Statement leagues = db.prepare("SELECT id FROM leagues ORDER BY id");
            std::vector<std::int64_t> ids;
            while (leagues.step()) ids.push_back(leagues.getInt(0));
            for (std::int64_t id : ids) RatingRepo(db).recomputeAll(id);
        }
        db.exec("PRAGMA user_version=" + std::to_string(version + 1));
        tx.commit();
    }
}

}  // namespace nertz::db
