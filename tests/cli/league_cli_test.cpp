// The league CLI contract of issue 3: leagues, players, games, hands, corrections, standings,
// export/import; every bad input exits 2 with one stderr line and leaves the database unchanged.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using nertz::testing::CliResult;
using nertz::testing::runCli;
using nertz::testing::slurp;
using Json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

const char* kHandAnnCalls = R"({"players":[{"name":"Ann","lake":14,"nertz_left":0,"called":true},
    {"name":"Bo","lake":9,"nertz_left":3},{"name":"Cy","lake":5,"nertz_left":8}]})";

// Every row of every table, sorted: "row-for-row unchanged" is equality of this.
std::vector<std::string> dumpRows(const std::string& file) {
    sqlite3* db = nullptr;
    std::vector<std::string> out;
    if (sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return {"cannot open"};
    std::vector<std::string> tables;
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    sqlite3_finalize(st);
    for (const auto& t : tables) {
        sqlite3_prepare_v2(db, ("SELECT * FROM \"" + t + "\"").c_str(), -1, &st, nullptr);
        std::vector<std::string> rows;
        while (sqlite3_step(st) == SQLITE_ROW) {
            std::string row = t + ":";
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                const auto* v = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
                row += "|" + std::string(v ? v : "NULL");
            }
            rows.push_back(row);
        }
        sqlite3_finalize(st);
        std::sort(rows.begin(), rows.end());
        out.insert(out.end(), rows.begin(), rows.end());
    }
    sqlite3_close(db);
    return out;
}

class LeagueCli : public ::testing::Test {
protected:
    fs::path dir;
    std::string db;
    void SetUp() override {
        dir = fs::temp_directory_path() / ("nertz-league-cli-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
        db = (dir / "club.sqlite").string();
    }
    void TearDown() override { fs::remove_all(dir); }

    CliResult cli(std::vector<std::string> args, const std::string& in = "") {
        args.insert(args.begin(), {"--db", db});
        return runCli(args, in);
    }
    void ok(std::vector<std::string> args, const std::string& in = "") {
        const auto r = cli(args, in);
        ASSERT_EQ(r.code, 0) << args[0] << ": " << r.err;
    }
    void club() {
        ok({"league", "create", "Club"});
        ok({"season", "create", "Club", "Spring"});
        for (const char* p : {"Ann", "Bo", "Cy"}) ok({"player", "add", p});
    }
    std::string startGame(const std::string& players = "Ann,Bo,Cy", const std::string& rules = "nna") {
        const auto r = cli({"game", "start", "--league", "Club", "--rules", rules, "--players", players});
        EXPECT_EQ(r.code, 0) << r.err;
        return r.out.substr(0, r.out.find('\n'));
    }
    // Runs a command that must fail with exit 2, one stderr line naming `needle`, nothing on
    // stdout, and no change to the database rows.
    void expectRejected(std::vector<std::string> args, const std::string& in, const std::string& needle) {
        const auto before = dumpRows(db);
        const auto r = cli(args, in);
        EXPECT_EQ(r.code, 2) << r.err << r.out;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
        EXPECT_EQ(dumpRows(db), before);
    }
};

}  // namespace

TEST_F(LeagueCli, DefaultFileInXdgDataHomeIsCreatedOnFirstUse) {
    const fs::path xdg = dir / "xdg";
    const std::string cmd = "XDG_DATA_HOME=" + xdg.string() + " " + NERTZ_CLI + " league create Home >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    EXPECT_TRUE(fs::exists(xdg / "nertzref" / "club.sqlite"));
}

TEST_F(LeagueCli, LeaguesSeasonsPlayersDecks) {
    club();
    ok({"deck", "add", "--owner", "Ann", "--name", "Red", "--colour", "red"});
    const auto leagues = cli({"league", "list", "--json"});
    EXPECT_EQ(Json::parse(leagues.out)["leagues"][0]["name"], "Club");
    ok({"player", "rename", "Bo", "Bob"});
    const auto players = cli({"player", "list"});
    EXPECT_EQ(players.out, "Ann\nBob\nCy\n");
    const auto decks = cli({"deck", "list", "--owner", "Ann"});
    EXPECT_NE(decks.out.find("Red"), std::string::npos);
    // --db may come after the subcommand too.
    const auto after = runCli({"player", "list", "--db", db});
    EXPECT_EQ(after.out, "Ann\nBob\nCy\n");
}

TEST_F(LeagueCli, PlayByPlayWithCorrectionsAndShow) {
    club();
    const std::string g = startGame();
    ok({"hand", "add", g, "--entered-by", "Di", "--confirmed-by", "Ann"}, kHandAnnCalls);
    ok({"hand", "add", g}, kHandAnnCalls);
    ok({"hand", "add", g}, kHandAnnCalls);
    ok({"hand", "edit", g, "2", "--reason", "Bo had 4 left", "--entered-by", "ref"},
       R"({"players":[{"name":"Ann","lake":14,"nertz_left":0,"called":true},{"name":"Bo","lake":9,"nertz_left":4},
           {"name":"Cy","lake":5,"nertz_left":8}]})");
    ok({"hand", "delete", g, "3", "--reason", "entered twice"});
    const auto r = cli({"game", "show", g, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["hands"].size(), 2u);
    EXPECT_EQ(j["result"]["totals"][0]["total"], 48);
    EXPECT_EQ(j["result"]["totals"][1]["total"], 3 + 1);
    EXPECT_EQ(j["hands"][0]["entered_by"], "Di");
    EXPECT_EQ(j["hands"][0]["confirmed_by"], "Ann");
    ASSERT_EQ(j["audit"].size(), 2u);
    EXPECT_EQ(j["audit"][0]["who"], "ref");
    EXPECT_EQ(j["audit"][0]["reason"], "Bo had 4 left");
    EXPECT_NE(j["audit"][0]["old"].get<std::string>().find("Bo 9/3"), std::string::npos);
    EXPECT_EQ(j["audit"][1]["action"], "delete_hand");
    const auto text = cli({"game", "show", g});
    EXPECT_NE(text.out.find("totals: Ann 48, Bo 4, Cy -22"), std::string::npos) << text.out;
}

TEST_F(LeagueCli, RecordStandingsStatsHeadToHead) {
    club();
    const std::string game = R"({"players":["Ann","Bo"],"hands":[
        {"players":[{"name":"Ann","lake":30,"nertz_left":0,"called":true},{"name":"Bo","lake":20,"nertz_left":3}]},
        {"players":[{"name":"Ann","lake":30,"nertz_left":0,"called":true},{"name":"Bo","lake":20,"nertz_left":3}]},
        {"players":[{"name":"Ann","lake":30,"nertz_left":0,"called":true},{"name":"Bo","lake":20,"nertz_left":3}]},
        {"players":[{"name":"Ann","lake":30,"nertz_left":0,"called":true},{"name":"Bo","lake":20,"nertz_left":3}]}]})";
    const auto rec = cli({"game", "record", "--league", "Club", "--season", "Spring", "--date", "2024-03-01", "--rules", "classic"}, game);
    ASSERT_EQ(rec.code, 0) << rec.err;
    EXPECT_EQ(rec.out, "1\n");
    const auto s = cli({"standings", "--league", "Club", "--json"});
    ASSERT_EQ(s.code, 0) << s.err;
    const Json rows = Json::parse(s.out)["standings"];
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0]["player"], "Ann");
    EXPECT_EQ(rows[0]["games"], 1);
    EXPECT_EQ(rows[0]["wins"], 1);
    EXPECT_EQ(rows[0]["points"], 120);
    EXPECT_EQ(rows[0]["points_per_game"], 120.0);
    EXPECT_EQ(rows[0]["points_per_hand"], 30.0);
    EXPECT_EQ(rows[0]["hands"], 4);
    EXPECT_EQ(rows[0]["nertz_calls"], 4);
    EXPECT_EQ(rows[0]["rating"], 3.4);  // 27.635 - 3 * 8.0655
    EXPECT_EQ(rows[1]["losses"], 1);
    const auto season = cli({"standings", "--league", "Club", "--season", "Spring"});
    EXPECT_NE(season.out.find("Ann"), std::string::npos);
    const auto stats = cli({"player", "stats", "Ann", "--json"});
    EXPECT_EQ(Json::parse(stats.out)["history"][0]["result"], "win");
    const auto h2h = cli({"head-to-head", "Ann", "Bo", "--json"});
    const Json h = Json::parse(h2h.out);
    EXPECT_EQ(h["games"], 1);
    EXPECT_EQ(h["a_wins"], 1);
    EXPECT_EQ(h["b_points"], 56);
    const auto table = cli({"standings", "--league", "Club"});
    EXPECT_NE(table.out.find("rating"), std::string::npos);
}

TEST_F(LeagueCli, ExportImportExportIsByteIdentical) {
    club();
    ok({"game", "record", "--league", "Club", "--season", "Spring", "--date", "2024-03-01", "--rules", "nna"},
       std::string(R"({"players":["Ann","Bo","Cy"],"hands":[)") + kHandAnnCalls + "," + kHandAnnCalls + "]}");
    const std::string g = startGame("Cy,Bo");
    ok({"hand", "add", g}, R"({"players":[{"name":"Cy","lake":3,"nertz_left":0,"called":true},{"name":"Bo","lake":2,"nertz_left":5}]})");
    ok({"hand", "add", g}, R"({"players":[{"name":"Cy","lake":3,"nertz_left":0,"called":true},{"name":"Bo","lake":2,"nertz_left":5}]})");
    ok({"hand", "edit", g, "1", "--reason", "typo"}, R"({"players":[{"name":"Cy","lake":4,"nertz_left":0,"called":true},{"name":"Bo","lake":2,"nertz_left":5}]})");
    const std::string first = (dir / "first.json").string();
    ok({"export", "--league", "Club", "--format", "json", "--out", first});
    const std::string other = (dir / "other.sqlite").string();
    const auto imp = runCli({"--db", other, "import", first});
    ASSERT_EQ(imp.code, 0) << imp.err;
    const auto again = runCli({"--db", other, "export", "--league", "Club", "--format", "json"});
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_EQ(again.out, slurp(first));
    EXPECT_EQ(Json::parse(again.out)["games"].size(), 2u);
    // Importing the same league twice is refused and changes nothing.
    const auto before = dumpRows(other);
    const auto dup = runCli({"--db", other, "import", first});
    EXPECT_EQ(dup.code, 2);
    EXPECT_EQ(dumpRows(other), before);
    // CSV export to a folder.
    ok({"export", "--league", "Club", "--format", "csv", "--out", (dir / "csv").string()});
    const std::string hands = slurp(dir / "csv" / "hands.csv");
    EXPECT_EQ(hands.substr(0, hands.find('\n')), "game,date,season,hand,side,members,lake,nertz_left,called,false_calls,pile_size,lake_points,penalty,bonus,false_call,score,entered_by,confirmed_by");
    EXPECT_EQ(std::count(hands.begin(), hands.end(), '\n'), 1 + 2 * 3 + 2 * 2);
    EXPECT_TRUE(fs::exists(dir / "csv" / "standings.csv"));
}

// Names a spreadsheet would run as formulas ("=1+2", "@SUM(A1)", "-Bo") go into the CSV export
// after an apostrophe (read as text, not shown); numbers such as a penalty of -6 stay numbers, and
// the JSON export keeps the names as they are.
TEST_F(LeagueCli, CsvExportWritesFormulaLikeNamesAsText) {
    ok({"league", "create", "Club"});
    for (const char* p : {"=1+2", "@SUM(A1)", "-Bo"}) ok({"player", "add", "--", p});  // "--": -Bo is no option
    const std::string g = startGame("=1+2,@SUM(A1),-Bo");
    ok({"hand", "add", g, "--entered-by", "+ref"},
       R"j({"players":[{"name":"=1+2","lake":14,"nertz_left":0,"called":true},
           {"name":"@SUM(A1)","lake":9,"nertz_left":3},{"name":"-Bo","lake":5,"nertz_left":8}]})j");
    const auto csv = cli({"export", "--league", "Club", "--format", "csv"});
    ASSERT_EQ(csv.code, 0) << csv.err;
    std::vector<std::string> rows;
    std::istringstream in(csv.out);
    for (std::string line; std::getline(in, line);) rows.push_back(line);
    ASSERT_GE(rows.size(), 4u) << csv.out;
    // game,date,season,hand,side,members,lake,nertz_left,called,false_calls,pile_size,lake_points,penalty,...,entered_by,confirmed_by
    EXPECT_EQ(rows[1].find("1,"), 0u) << rows[1];
    EXPECT_NE(rows[1].find(",'=1+2,'=1+2,14,0,1,"), std::string::npos) << rows[1];
    EXPECT_NE(rows[1].find(",'+ref,"), std::string::npos) << rows[1];
    EXPECT_NE(rows[2].find(",'@SUM(A1),'@SUM(A1),9,3,0,"), std::string::npos) << rows[2];
    EXPECT_NE(rows[3].find(",'-Bo,'-Bo,5,8,0,"), std::string::npos) << rows[3];
    EXPECT_NE(rows[3].find(",-16,"), std::string::npos) << rows[3];  // nna: 8 left at -2 each
    const auto json = cli({"export", "--league", "Club", "--format", "json"});
    ASSERT_EQ(json.code, 0) << json.err;
    EXPECT_EQ(Json::parse(json.out)["players"][0]["name"], "-Bo");
    EXPECT_EQ(json.out.find("'="), std::string::npos);
}

TEST_F(LeagueCli, ExportCarriesDecksTheirBacksAndTheDeckOfEachSeat) {
    club();
    // A back signature is opaque bytes to the league: every byte value must survive the trip.
    const fs::path sig = dir / "ann-red.nbs";
    {
        std::ofstream out(sig, std::ios::binary);
        for (int i = 0; i < 256; ++i) out.put(static_cast<char>(i));
    }
    ok({"deck", "add", "--owner", "Ann", "--name", "Red", "--colour", "#c0392b", "--signature-file", sig.string()});
    ok({"deck", "add", "--owner", "Bo", "--name", "Blue"});
    const auto started = cli({"game", "start", "--league", "Club", "--rules", "nna", "--players", "Ann,Bo,Cy", "--decks", "Ann:Red,Bo:Blue,-"});
    ASSERT_EQ(started.code, 0) << started.err;
    const std::string g = started.out.substr(0, started.out.find('\n'));
    ok({"hand", "add", g}, kHandAnnCalls);
    const auto exported = cli({"export", "--league", "Club", "--format", "json"});
    ASSERT_EQ(exported.code, 0) << exported.err;
    const Json j = Json::parse(exported.out);
    ASSERT_EQ(j["decks"].size(), 2u);
    EXPECT_EQ(j["decks"][0]["owner"], "Ann");
    EXPECT_EQ(j["decks"][0]["colour"], "#c0392b");
    EXPECT_EQ(j["decks"][0]["back"].get<std::string>().size(), 512u);
    EXPECT_EQ(j["decks"][0]["back"].get<std::string>().substr(0, 8), "00010203");
    EXPECT_TRUE(j["decks"][1]["back"].is_null());
    EXPECT_EQ(j["games"][0]["seat_decks"], Json::parse(R"([{"owner":"Ann","name":"Red"},{"owner":"Bo","name":"Blue"},null])"));

    // Into a new file: the same decks (bytes included) and seats; exporting again gives the same text.
    const std::string file = (dir / "club.json").string();
    { std::ofstream(file) << exported.out; }
    const std::string other = (dir / "other.sqlite").string();
    const auto imp = runCli({"--db", other, "import", file});
    ASSERT_EQ(imp.code, 0) << imp.err;
    const auto again = runCli({"--db", other, "export", "--league", "Club", "--format", "json"});
    EXPECT_EQ(again.out, exported.out);
    const auto list = runCli({"--db", other, "deck", "list", "--owner", "Ann"});
    EXPECT_NE(list.out.find("256"), std::string::npos) << list.out;  // signature size column

    // A seat naming a deck the export does not have is refused, and nothing is imported.
    Json bad = j;
    bad["league"]["name"] = "Club2";
    bad["games"][0]["seat_decks"][2] = {{"owner", "Cy"}, {"name", "Green"}};
    const std::string badFile = (dir / "bad.json").string();
    { std::ofstream(badFile) << bad.dump(); }
    const auto before = dumpRows(other);
    const auto refused = runCli({"--db", other, "import", badFile});
    EXPECT_EQ(refused.code, 2);
    EXPECT_NE(refused.err.find("seat_decks[2]"), std::string::npos) << refused.err;
    EXPECT_EQ(dumpRows(other), before);
    // Bad deck choices at game start name the seat.
    const auto badStart = cli({"game", "start", "--league", "Club", "--rules", "nna", "--players", "Ann,Bo", "--decks", "Ann:Nope,-"});
    EXPECT_EQ(badStart.code, 2);
    EXPECT_NE(badStart.err.find("decks[0]"), std::string::npos) << badStart.err;
    const auto wrongCount = cli({"game", "start", "--league", "Club", "--rules", "nna", "--players", "Ann,Bo", "--decks", "Ann:Red"});
    EXPECT_EQ(wrongCount.code, 2);
}

TEST_F(LeagueCli, BadInputExitsTwoAndLeavesTheDatabaseUnchanged) {
    club();
    const std::string g = startGame();
    ok({"hand", "add", g}, kHandAnnCalls);
    expectRejected({"hand", "add", g}, "{\"players\": [", "not valid JSON");
    expectRejected({"game", "record", "--league", "Club", "--rules", "nna"}, "{oops", "not valid JSON");
    expectRejected({"hand", "add", g}, R"({"players":[{"name":"Ann","lake":1e400,"nertz_left":0}]})",
                   "number overflow parsing '1e400'");
    expectRejected({"game", "start", "--league", "Club", "--rules", "nna", "--players", "Ann,Zed"}, "", "unknown player 'Zed'");
    expectRejected({"game", "record", "--league", "Nope", "--rules", "nna"}, R"({"players":["Ann","Bo"]})", "unknown league 'Nope'");
    expectRejected({"standings", "--league", "Nope"}, "", "unknown league 'Nope'");
    expectRejected({"player", "add", "Ann"}, "", "already exists");
    expectRejected({"player", "add", "Ren\xe9" "e"}, "", "name: is not UTF-8 text (byte 0xE9 at position 4)");
    expectRejected({"league", "create", "Club"}, "", "already exists");
    expectRejected({"season", "create", "Club", "Spring"}, "", "already has a season");
    expectRejected({"player", "rename", "Nobody", "X"}, "", "unknown player 'Nobody'");
    expectRejected({"deck", "add", "--owner", "Zed", "--name", "Blue"}, "", "unknown player 'Zed'");
    expectRejected({"hand", "add", g}, R"({"players":[{"name":"Ann","lake":-1,"nertz_left":0,"called":true},
        {"name":"Bo","lake":9,"nertz_left":3},{"name":"Cy","lake":5,"nertz_left":8}]})", "players[0].lake");
    expectRejected({"hand", "edit", g, "7", "--reason", "x"}, kHandAnnCalls, "no hand 7");
    expectRejected({"hand", "delete", "999", "1", "--reason", "x"}, "", "no game with id 999");
    expectRejected({"game", "start", "--league", "Club", "--date", "2024-13-01", "--rules", "nna", "--players", "Ann,Bo"}, "", "not a date");
    expectRejected({"player", "stats", "Zed"}, "", "unknown player");
    expectRejected({"import", (dir / "missing.json").string()}, "", "cannot read");
}

TEST_F(LeagueCli, AnEditThatEndsTheGameEarlyExitsTwo) {
    club();
    const std::string g = startGame("Ann,Bo", "classic");
    const std::string h = R"({"players":[{"name":"Ann","lake":30,"nertz_left":0,"called":true},{"name":"Bo","lake":20,"nertz_left":3}]})";
    for (int i = 0; i < 3; ++i) ok({"hand", "add", g}, h);
    // 52 + 30 + 30 = 112 >= 100 after hand 3 of 3 is fine; make hand 2 reach it early instead.
    ok({"hand", "add", g}, R"({"players":[{"name":"Ann","lake":0,"nertz_left":13},{"name":"Bo","lake":1,"nertz_left":0,"called":true}]})");
    expectRejected({"hand", "edit", g, "2", "--reason", "x"},
                   R"({"players":[{"name":"Ann","lake":52,"nertz_left":0,"called":true},{"name":"Bo","lake":0,"nertz_left":13}]})",
                   "delete those first");
}

TEST_F(LeagueCli, NotSqliteAndNewerVersionFilesAreRefusedByteForByte) {
    const std::string notes = (dir / "notes.txt").string();
    std::ofstream(notes) << "these are not the droids you are looking for, nor a database; long enough text here\n";
    const std::string before = slurp(notes);
    const auto r = runCli({"--db", notes, "league", "list"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("not a SQLite database"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(slurp(notes), before);

    club();
    sqlite3* h = nullptr;
    sqlite3_open(db.c_str(), &h);
    sqlite3_exec(h, "PRAGMA user_version=99", nullptr, nullptr, nullptr);
    sqlite3_close(h);
    const std::string bytes = slurp(db);
    const auto n = cli({"player", "add", "Di"});
    EXPECT_EQ(n.code, 2);
    EXPECT_NE(n.err.find("newer"), std::string::npos) << n.err;
    EXPECT_EQ(std::count(n.err.begin(), n.err.end(), '\n'), 1) << n.err;
    EXPECT_EQ(slurp(db), bytes);
}
