// Repositories on real temporary SQLite files: names, games and hands, corrections with
// recompute and audit, ratings (full recompute == incremental), standings, bad files.
#include <gtest/gtest.h>

#include <fstream>

#include "db_test_util.hpp"
#include "nertz/db/database.hpp"
#include "nertz/db/games.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"
#include "nertz/db/ratings.hpp"
#include "nertz/db/schema.hpp"
#include "nertz/db/stats.hpp"

using namespace nertz;
using nertz::testing::rawValue;
using nertz::testing::TempDir;
namespace sc = nertz::scoring;

namespace {

sc::SideHand side(const std::string& name, int lake, int left, bool called = false) {
    sc::SideHand s;
    s.name = name;
    s.lake = lake;
    s.nertzLeft = left;
    s.called = called;
    return s;
}

sc::HandResult hand(std::vector<sc::SideHand> sides) {
    sc::HandResult h;
    h.sides = std::move(sides);
    h.end = sc::HandEnd::Nertz;
    return h;
}

class Repo : public ::testing::Test {
protected:
    TempDir dir;
    std::string file = dir.file();
    db::Database d{file};
    db::PlayerRepo players{d};
    db::LeagueRepo leagues{d};
    db::GameRepo games{d};

    void SetUp() override {
        leagues.create("Club");
        for (const char* p : {"Ann", "Bo", "Cy", "Di"}) players.add(p);
    }
    db::NewGame newGame(std::vector<std::string> names, const std::string& rules = "nna", const std::string& date = "2024-05-01") {
        db::NewGame g;
        g.league = "Club";
        g.date = date;
        g.rules = sc::preset(rules);
        for (auto& n : names) g.sides.push_back({n, {}, {}});
        return g;
    }
};

}  // namespace

TEST_F(Repo, FreshFileIsAtTheLatestVersionInWalWithForeignKeys) {
    EXPECT_EQ(d.schemaVersion(), db::kSchemaVersion);
    EXPECT_EQ(rawValue(file, "PRAGMA journal_mode"), "wal");
    auto st = d.prepare("PRAGMA foreign_keys");
    ASSERT_TRUE(st.step());
    EXPECT_EQ(st.getInt(0), 1);
}

TEST_F(Repo, PlayersAddListRenameAndErrors) {
    EXPECT_THROW(players.add("Ann"), db::DbInputError);
    EXPECT_THROW(players.add(""), db::DbInputError);
    EXPECT_THROW(players.add("a,b"), db::DbInputError);
    players.rename("Bo", "Bob");
    EXPECT_FALSE(players.find("Bo"));
    EXPECT_TRUE(players.find("Bob"));
    EXPECT_THROW(players.rename("Nobody", "X"), db::DbInputError);
    EXPECT_THROW(players.rename("Ann", "Cy"), db::DbInputError);
    ASSERT_EQ(players.list().size(), 4u);
    EXPECT_EQ(players.list().front().name, "Ann");
}

// Text stored for people to read is UTF-8: a name, colour, reason or who typed in a terminal set to
// Latin-1 is refused naming the byte, and nothing is stored (before 2026-11-29 it was stored, and
// every JSON listing of it then failed). A name's 64-character limit counts characters, not bytes.
TEST_F(Repo, TextThatIsNotUtf8IsRefusedAndNamesCountCharacters) {
    const std::string latin1 = "Ren\xe9" "e", stray = "B\xffo", cut = "\xc3\xa9\xe2\x82", overlong = "\xc0\xaf",
                      surrogate = "\xed\xa0\x80";
    for (const std::string& bad : {latin1, stray, cut, overlong, surrogate}) {
        try {
            players.add(bad);
            ADD_FAILURE() << "accepted " << bad;
        } catch (const db::DbInputError& e) {
            EXPECT_NE(std::string(e.what()).find("is not UTF-8 text (byte 0x"), std::string::npos) << e.what();
        }
        EXPECT_THROW(leagues.create(bad), db::DbInputError);
        EXPECT_THROW(players.addDeck({0, "Ann", bad, {}, {}}), db::DbInputError);
        EXPECT_THROW(players.addDeck({0, "Ann", "Red", bad, {}}), db::DbInputError);
    }
    try {
        players.add(latin1);
    } catch (const db::DbInputError& e) {
        EXPECT_NE(std::string(e.what()).find("byte 0xE9 at position 4"), std::string::npos) << e.what();
    }
    EXPECT_EQ(players.list().size(), 4u);
    EXPECT_TRUE(players.decks(std::string("Ann")).empty());

    std::string e64, e65;  // 'é' is two bytes
    for (int i = 0; i < 64; ++i) e64 += "\xc3\xa9";
    e65 = e64 + "\xc3\xa9";
    EXPECT_NO_THROW(players.add(e64));
    EXPECT_NO_THROW(players.add("Zoë 🂡"));
    EXPECT_THROW(players.add(e65), db::DbInputError);
    EXPECT_THROW(players.add(std::string(65, 'a')), db::DbInputError);

    const auto deck = players.addDeck({0, "Ann", "Blue", std::string("bleu clair"), {}});
    EXPECT_THROW(players.setDeckBack(deck, {1}, stray), db::DbInputError);
    EXPECT_EQ(players.deck(deck).colour, std::optional<std::string>("bleu clair"));

    const auto id = games.create(newGame({"Ann", "Bo"}));
    db::HandMeta byLatin1;
    byLatin1.enteredBy = latin1;
    EXPECT_THROW(games.addHand(id, hand({side("Ann", 14, 0, true), side("Bo", 9, 3)}), byLatin1), db::DbInputError);
    db::HandMeta confirmed;
    confirmed.enteredBy = "ref";
    confirmed.confirmedBy = stray;
    EXPECT_THROW(games.addHand(id, hand({side("Ann", 14, 0, true), side("Bo", 9, 3)}), confirmed), db::DbInputError);
    EXPECT_TRUE(games.load(id).game.hands().empty());
    games.addHand(id, hand({side("Ann", 14, 0, true), side("Bo", 9, 3)}), {});
    db::HandMeta ref;
    ref.enteredBy = "ref";
    EXPECT_THROW(games.editHand(id, 1, hand({side("Ann", 10, 0, true), side("Bo", 9, 3)}), ref, "lake " + stray),
                 db::DbInputError);
    EXPECT_THROW(games.deleteHand(id, 1, latin1, "entered twice"), db::DbInputError);
    EXPECT_THROW(games.deleteHand(id, 1, "ref", latin1), db::DbInputError);
    EXPECT_EQ(games.load(id).game.hands().size(), 1u);
    EXPECT_TRUE(games.audit(id).empty());
}

TEST_F(Repo, DecksKeepOwnerColourAndSignatureBytes) {
    db::Deck deck;
    deck.owner = "Ann";
    deck.name = "Red Bicycle";
    deck.colour = "#c0392b";
    deck.backSignature = {0, 1, 2, 255, 0, 7};
    players.addDeck(deck);
    EXPECT_THROW(players.addDeck(deck), db::DbInputError);
    deck.owner = "Nobody";
    EXPECT_THROW(players.addDeck(deck), db::DbInputError);
    const auto decks = players.decks(std::string("Ann"));
    ASSERT_EQ(decks.size(), 1u);
    EXPECT_EQ(decks[0].backSignature, (std::vector<std::uint8_t>{0, 1, 2, 255, 0, 7}));
    EXPECT_EQ(decks[0].colour, "#c0392b");
}

TEST_F(Repo, DeckBackAndColourUpdateInPlace) {
    const auto id = players.addDeck({0, "Ann", "Red", std::string("#c62828"), {}});
    players.setDeckBack(id, {1, 2, 3}, std::string("#1565c0"));
    db::Deck d = players.deck(id);
    EXPECT_EQ(d.backSignature, (std::vector<std::uint8_t>{1, 2, 3}));
    EXPECT_EQ(d.colour, std::optional<std::string>("#1565c0"));
    players.setDeckBack(id, {9});  // colour kept when not given
    d = players.deck(id);
    EXPECT_EQ(d.backSignature, (std::vector<std::uint8_t>{9}));
    EXPECT_EQ(d.colour, std::optional<std::string>("#1565c0"));
    EXPECT_THROW(players.setDeckBack(id + 100, {1}), db::DbInputError);
    EXPECT_THROW(players.deck(id + 100), db::DbInputError);
    EXPECT_THROW(players.setDeckBack(id, {1}, std::string("")), db::DbInputError);
    EXPECT_EQ(rawValue(file, "SELECT hex(back_signature) FROM decks WHERE id = " + std::to_string(id)), "09");
}

TEST_F(Repo, DeckPerSeatIsStoredWithTheGameAndCanBeChanged) {
    const auto red = players.addDeck({0, "Ann", "Red", std::string("#c62828"), {}});
    const auto blue = players.addDeck({0, "Bo", "Blue", std::string("#1565c0"), {}});
    db::NewGame g = newGame({"Ann", "Bo", "Cy"});
    g.seatDecks = {red, blue};  // the third seat has none
    const auto id = games.create(g);
    EXPECT_EQ(games.seatDecks(id), (std::vector<std::optional<std::int64_t>>{red, blue, std::nullopt}));
    games.setSeatDeck(id, 2, red);
    games.setSeatDeck(id, 0, std::nullopt);
    EXPECT_EQ(games.seatDecks(id), (std::vector<std::optional<std::int64_t>>{std::nullopt, blue, red}));
    EXPECT_THROW(games.setSeatDeck(id, 3, red), db::DbInputError);
    EXPECT_THROW(games.setSeatDeck(id, 0, blue + 100), db::DbInputError);
    EXPECT_THROW(games.seatDecks(id + 100), db::DbInputError);
    g.seatDecks = {blue + 100};
    EXPECT_THROW(games.create(g), db::DbInputError);  // unknown deck: nothing stored
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM games"), "1");
    EXPECT_EQ(rawValue(file, "SELECT deck_id FROM game_sides WHERE game_id = " + std::to_string(id) + " AND seat = 1"),
              std::to_string(blue));
}

TEST_F(Repo, LeaguesAndSeasons) {
    EXPECT_THROW(leagues.create("Club"), db::DbInputError);
    leagues.createSeason("Club", "Spring");
    EXPECT_THROW(leagues.createSeason("Club", "Spring"), db::DbInputError);
    EXPECT_THROW(leagues.createSeason("Nope", "Spring"), db::DbInputError);
    EXPECT_EQ(leagues.seasons(leagues.idOf("Club")).size(), 1u);
    EXPECT_THROW(leagues.seasonId(leagues.idOf("Club"), "Autumn"), db::DbInputError);
}

TEST_F(Repo, GameStoresTheRuleSnapshotAndHands) {
    sc::RuleSet custom = sc::preset("house");
    custom.id = "house-200";
    custom.target = 200;
    db::NewGame g = newGame({"Ann", "Bo"});
    g.rules = custom;
    const auto id = games.create(g);
    games.addHand(id, hand({side("Ann", 14, 0, true), side("Bo", 9, 3)}), {});
    const db::StoredGame s = games.load(id);
    EXPECT_EQ(s.game.rules(), custom);  // every field survives the typed columns
    ASSERT_EQ(s.game.hands().size(), 1u);
    EXPECT_EQ(s.game.totals(), (std::vector<int>{14, 3}));  // house: everyone pays
}

TEST_F(Repo, UnknownPlayerOrLeagueIsAnInputErrorAndStoresNothing) {
    EXPECT_THROW(games.create(newGame({"Ann", "Zed"})), db::DbInputError);
    db::NewGame g = newGame({"Ann", "Bo"});
    g.league = "Nope";
    EXPECT_THROW(games.create(g), db::DbInputError);
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM games"), "0");
    EXPECT_EQ(rawValue(file, "SELECT COUNT(*) FROM events"), "0");
}

TEST_F(Repo, EditAndDeleteRecomputeTotalsAndAreAudited) {
    const auto id = games.create(newGame({"Ann", "Bo"}));
    games.addHand(id, hand({side("Ann", 14, 0, true), side("Bo", 9, 3)}), {});
    games.addHand(id, hand({side("Ann", 5, 4), side("Bo", 10, 0, true)}), {});
    games.addHand(id, hand({side("Ann", 20, 0, true), side("Bo", 2, 10)}), {});
    EXPECT_EQ(games.load(id).game.totals(), (std::vector<int>{24 - 3 + 30, 3 + 20 - 18}));
    db::HandMeta who;
    who.enteredBy = "ref";
    games.editHand(id, 1, hand({side("Ann", 10, 0, true), side("Bo", 9, 3)}), who, "miscounted lake");
    EXPECT_EQ(games.load(id).game.totals(), (std::vector<int>{20 - 3 + 30, 3 + 20 - 18}));
    games.deleteHand(id, 2, "ref", "entered twice");
    const auto s = games.load(id);
    EXPECT_EQ(s.game.totals(), (std::vector<int>{50, -15}));
    EXPECT_EQ(s.game.hands().size(), 2u);
    EXPECT_EQ(rawValue(file, "SELECT total FROM game_sides WHERE game_id = 1 AND seat = 0"), "50");
    const auto audit = games.audit(id);
    ASSERT_EQ(audit.size(), 2u);
    EXPECT_EQ(audit[0].action, "edit_hand");
    EXPECT_EQ(audit[0].who, "ref");
    EXPECT_EQ(audit[0].reason, "miscounted lake");
    EXPECT_NE(audit[0].oldValue->find("Ann 14/0"), std::string::npos);
    EXPECT_EQ(audit[1].action, "delete_hand");
    EXPECT_NE(audit[1].oldValue->find("Bo 10/0 called"), std::string::npos);
    EXPECT_THROW(games.deleteHand(id, 9, "ref", "x"), db::DbInputError);
    EXPECT_THROW(games.deleteHand(id, 1, "ref", " "), db::DbInputError);
}

TEST_F(Repo, AnEditThatWouldEndTheGameEarlyIsRejectedAndChangesNothing) {
    db::NewGame g = newGame({"Ann", "Bo"}, "classic");
    g.rules.target = 60;  // 25, 50, 75: over after the third hand
    const auto id = games.create(g);
    for (int i = 0; i < 3; ++i) games.addHand(id, hand({side("Ann", 25, 0, true), side("Bo", 20, 3)}), {});
    EXPECT_TRUE(games.load(id).game.outcome().over);
    const std::string before = rawValue(file, "SELECT group_concat(total) FROM game_sides");
    // 52 + 25 = 77 after hand 2 would end the game before hand 3.
    EXPECT_THROW(games.editHand(id, 1, hand({side("Ann", 52, 0, true), side("Bo", 0, 13)}), {}, "x"), sc::InputError);
    EXPECT_THROW(games.deleteHand(id, 4, "ref", "x"), db::DbInputError);
    EXPECT_EQ(rawValue(file, "SELECT group_concat(total) FROM game_sides"), before);
    EXPECT_EQ(games.audit(id).size(), 0u);
}

TEST_F(Repo, RecordStoresAWholeGameAndStandingsCountIt) {
    std::vector<sc::HandResult> hands(4, hand({side("Ann", 30, 0, true), side("Bo", 20, 3)}));
    db::HandMeta meta;
    meta.enteredBy = "Ann";
    meta.confirmedBy = "Bo";
    const auto id = games.record(newGame({"Ann", "Bo"}, "classic"), hands, {meta});
    EXPECT_TRUE(games.load(id).game.outcome().over);
    EXPECT_EQ(games.load(id).meta[2].confirmedBy, "Bo");
    const auto rows = db::standings(d, leagues.idOf("Club"));
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].player, "Ann");
    EXPECT_EQ(rows[0].games, 1);
    EXPECT_EQ(rows[0].wins, 1);
    EXPECT_EQ(rows[0].points, 120);
    EXPECT_EQ(rows[0].hands, 4);
    EXPECT_EQ(rows[0].nertzCalls, 4);
    EXPECT_EQ(rows[0].bestHand, 30);
    EXPECT_EQ(rows[0].largestMargin, 120 - 56);
    EXPECT_DOUBLE_EQ(rows[0].lakePerHand, 30.0);
    EXPECT_NEAR(rows[0].mu, 27.63523138347365, 1e-9);
    EXPECT_NEAR(rows[1].mu, 22.36476861652635, 1e-9);
    EXPECT_EQ(rows[1].losses, 1);
    EXPECT_FALSE(rows[1].largestMargin);
}

TEST_F(Repo, TeamsShareTheirSideAndAreRatedAsTeams) {
    db::NewGame g = newGame({}, "classic");
    g.sides = {{"Reds", {"Ann", "Cy"}, {}}, {"Blues", {"Bo", "Di"}, {}}};
    std::vector<sc::HandResult> hands(4, hand({side("Reds", 30, 0, true), side("Blues", 20, 3)}));
    games.record(g, hands, {});
    const auto rows = db::standings(d, leagues.idOf("Club"));
    ASSERT_EQ(rows.size(), 4u);
    EXPECT_EQ(rows[0].wins, 1);
    EXPECT_NEAR(rows[0].mu, 26.964185503295965, 1e-9);
    EXPECT_NEAR(rows[3].mu, 23.035814496704035, 1e-9);
    const auto s = games.load(1);
    EXPECT_EQ(s.game.sides()[0].members, (std::vector<std::string>{"Ann", "Cy"}));
}

TEST_F(Repo, FullRatingRecomputeEqualsIncrementalAfterOutOfOrderGamesAndEdits) {
    std::mt19937 rng(7);
    const std::vector<std::vector<std::string>> tables{{"Ann", "Bo", "Cy"}, {"Bo", "Di"}, {"Ann", "Cy", "Di", "Bo"}};
    std::vector<std::int64_t> ids;
    for (int i = 0; i < 12; ++i) {
        const auto& names = tables[static_cast<std::size_t>(i) % tables.size()];
        // Dates out of order, so some games are rated before games recorded earlier.
        const std::string date = "2024-05-" + std::string(i % 5 < 1 ? "0" : "1") + std::to_string(i % 9 + 1);
        const auto id = games.create(newGame(names, "classic", date));
        sc::Game check(sc::preset("classic"), games.load(id).game.sides());
        while (!check.outcome().over) {
            const auto h = nertz::testing::randomHand(rng, names);
            check.addHand(h);
            games.addHand(id, h, {});
        }
        ids.push_back(id);
    }
    // Corrections in the middle of history.
    // (the last hand: an earlier one could end the game early, which is rejected).
    games.editHand(ids[3], static_cast<int>(games.load(ids[3]).game.hands().size()),
                   nertz::testing::randomHand(rng, tables[0]), {}, "fix");
    games.deleteHand(ids[7], static_cast<int>(games.load(ids[7]).game.hands().size()), "ref", "dup");
    const std::int64_t league = leagues.idOf("Club");
    db::RatingRepo ratings(d);
    const auto incremental = ratings.current(league);
    const std::string history = rawValue(file, "SELECT group_concat(game_id || ':' || player_id || ':' || printf('%.12f', mu_after), ';') FROM (SELECT * FROM rating_history ORDER BY id)");
    ratings.recomputeAll(league);
    const auto full = ratings.current(league);
    ASSERT_EQ(incremental.size(), 4u);
    for (const auto& [p, r] : full) {
        EXPECT_NEAR(incremental.at(p).rating.mu, r.rating.mu, 1e-9);
        EXPECT_NEAR(incremental.at(p).rating.sigma, r.rating.sigma, 1e-9);
        EXPECT_EQ(incremental.at(p).games, r.games);
    }
    EXPECT_EQ(rawValue(file, "SELECT group_concat(game_id || ':' || player_id || ':' || printf('%.12f', mu_after), ';') FROM (SELECT * FROM rating_history ORDER BY id)"), history);
}

TEST(DbFile, NotSqliteIsAnInputErrorAndTheFileIsUntouched) {
    TempDir dir;
    const std::string file = dir.file("notes.txt");
    const std::string text = "these are my Nertz notes, not a database, long enough to fill a header line......\n";
    std::ofstream(file) << text;
    EXPECT_THROW(db::Database{file}, db::DbInputError);
    std::ifstream in(file);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
}

TEST(DbFile, NewerSchemaVersionIsRefused) {
    TempDir dir;
    const std::string file = dir.file();
    { db::Database d(file); d.exec("PRAGMA user_version=99"); }
    try {
        db::Database again(file);
        FAIL() << "opened a newer file";
    } catch (const db::DbInputError& e) {
        EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
    }
    EXPECT_EQ(rawValue(file, "PRAGMA user_version"), "99");
}

TEST(DbFile, DateValidation) {
    EXPECT_NO_THROW(db::checkDate("2024-02-29"));
    EXPECT_THROW(db::checkDate("2023-02-29"), db::DbInputError);
    EXPECT_THROW(db::checkDate("2024-2-01"), db::DbInputError);
    EXPECT_THROW(db::checkDate("yesterday"), db::DbInputError);
}

// The one default league file that nertzref-cli and the app both open.
TEST(DbFile, DefaultPathFollowsXdgThenHome) {
    const char* oldXdg = std::getenv("XDG_DATA_HOME");
    const char* oldHome = std::getenv("HOME");
    const std::string savedXdg = oldXdg ? oldXdg : "", savedHome = oldHome ? oldHome : "";
    ::setenv("XDG_DATA_HOME", "/srv/data", 1);
    ::setenv("HOME", "/home/ann", 1);
    EXPECT_EQ(db::defaultDatabasePath(), "/srv/data/nertzref/club.sqlite");
    ::unsetenv("XDG_DATA_HOME");
    EXPECT_EQ(db::defaultDatabasePath(), "/home/ann/.local/share/nertzref/club.sqlite");
    oldXdg ? ::setenv("XDG_DATA_HOME", savedXdg.c_str(), 1) : ::unsetenv("XDG_DATA_HOME");
    oldHome ? ::setenv("HOME", savedHome.c_str(), 1) : ::unsetenv("HOME");
}
