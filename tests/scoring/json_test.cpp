// JSON forms of rule sets, hands and games (nertz::io): round trips and field-by-field validation.
#include <gtest/gtest.h>

#include "input_error.hpp"

#include <filesystem>
#include <fstream>

#include "nertz/io/json.hpp"

namespace sc = nertz::scoring;
using nertz::testing::failingField;
namespace io = nertz::io;
using io::Json;

TEST(RuleSetJson, EveryPresetRoundTrips) {
    for (const auto& id : sc::presetIds()) {
        const sc::RuleSet r = sc::preset(id);
        const Json j = io::toJson(r);
        EXPECT_EQ(io::ruleSetFromJson(j), r) << id;
        EXPECT_EQ(io::ruleSetFromJson(io::parseJson(j.dump())), r) << id;
    }
}

TEST(RuleSetJson, CustomFromABaseOverridesFields) {
    const auto r = io::ruleSetFromJson(Json::parse(
        R"({"base":"nna","id":"club-200","target":200,"caller_bonus":5,"idle":{"stock_actions_before_nertz_burn":2}})"));
    EXPECT_EQ(r.id, "club-200");
    EXPECT_EQ(r.target, 200);
    EXPECT_EQ(r.callerBonus, 5);
    EXPECT_EQ(r.falseCallPoints, -5);  // from the base
    EXPECT_EQ(r.idle.stockActionsBeforeNertzBurn, 2);
    EXPECT_EQ(r.idle.stockAction, sc::StockAction::BurnStreamCard);
}

TEST(RuleSetJson, ValidatesFieldByField) {
    auto field = [](const char* text) {
        return failingField([&] { io::ruleSetFromJson(Json::parse(text)); });
    };
    EXPECT_EQ(field(R"({"base":"nna","target":"lots"})"), "target");
    EXPECT_EQ(field(R"({"base":"nna","target":1.5})"), "target");
    EXPECT_EQ(field(R"({"base":"nna","target":-10})"), "target");
    EXPECT_EQ(field(R"({"base":"nna","targett":100})"), "targett");
    EXPECT_EQ(field(R"({"base":"chess"})"), "rules");
    EXPECT_EQ(field(R"({"base":"nna","penalty_payers":"nobody"})"), "penalty_payers");
    EXPECT_EQ(field(R"({"base":"nna","at_target":3})"), "at_target");
    EXPECT_EQ(field(R"({"base":"nna","deck":"tarot"})"), "deck");
    EXPECT_EQ(field(R"({"base":"nna","idle":{"scope":"forever"}})"), "idle.scope");
    EXPECT_EQ(field(R"({"base":"nna","idle":{"burns":1}})"), "idle.burns");
    EXPECT_EQ(field(R"({"base":"nna","idle":[]})"), "idle");
    EXPECT_EQ(field(R"({"base":"nna","pile_size":99})"), "pile_size");
    EXPECT_EQ(field(R"([1,2])"), "input");
    // Without a base every field is required: nothing is silently defaulted.
    Json full = io::toJson(sc::preset("house"));
    full.erase("settlement");
    EXPECT_EQ(failingField([&] { io::ruleSetFromJson(full); }), "settlement");
    full = io::toJson(sc::preset("house"));
    full["idle"].erase("scope");
    EXPECT_EQ(failingField([&] { io::ruleSetFromJson(full); }), "idle.scope");
}

TEST(RuleSetJson, FromFileNamesTheFile) {
    const auto dir = std::filesystem::temp_directory_path() / "nertz-json-test";
    std::filesystem::create_directories(dir);
    const auto good = dir / "good.json";
    std::ofstream(good) << R"({"base":"classic","id":"ours","target":150})";
    EXPECT_EQ(io::ruleSetFromFile(good.string()).target, 150);
    const auto bad = dir / "bad.json";
    std::ofstream(bad) << R"({"base":"classic","target":0})";
    try {
        io::ruleSetFromFile(bad.string());
        FAIL();
    } catch (const sc::InputError& e) {
        EXPECT_EQ(e.field(), "target");
        EXPECT_NE(std::string(e.what()).find("bad.json"), std::string::npos);
    }
    const auto broken = dir / "broken.json";
    std::ofstream(broken) << R"({"base":)";
    EXPECT_EQ(failingField([&] { io::ruleSetFromFile(broken.string()); }), "json");
    EXPECT_EQ(failingField([&] { io::ruleSetFromFile((dir / "missing.json").string()); }), "file");
    std::filesystem::remove_all(dir);
}

TEST(HandJson, ReadsTheIssueFormat) {
    const auto hand = io::handFromJson(Json::parse(
        R"({"players":[{"name":"Ann","lake":14,"nertz_left":0,"called":true},
            {"name":"Bo","lake":9,"nertz_left":3,"false_calls":1,"pile_size":10}],"end":"nertz"})"));
    ASSERT_EQ(hand.sides.size(), 2u);
    EXPECT_TRUE(hand.sides[0].called);
    EXPECT_EQ(hand.sides[1].falseCalls, 1);
    EXPECT_EQ(hand.sides[1].pileSize, 10);
    EXPECT_EQ(hand.end, sc::HandEnd::Nertz);
    EXPECT_EQ(io::handFromJson(io::toJson(hand)), hand);
    // "end" defaults from the call
    EXPECT_EQ(
        io::handFromJson(Json::parse(R"({"players":[{"name":"A","lake":1,"nertz_left":2}]})")).end,
        sc::HandEnd::Stuck);
}

TEST(HandJson, NamesTheBadField) {
    auto field = [](const char* text) {
        return failingField([&] { io::handFromJson(Json::parse(text)); });
    };
    EXPECT_EQ(field(R"({})"), "players");
    EXPECT_EQ(field(R"({"players":{}})"), "players");
    EXPECT_EQ(field(R"({"players":[3]})"), "players[0]");
    EXPECT_EQ(field(R"({"players":[{"lake":1,"nertz_left":0}]})"), "players[0].name");
    EXPECT_EQ(field(R"({"players":[{"name":"A","nertz_left":0}]})"), "players[0].lake");
    EXPECT_EQ(field(R"({"players":[{"name":"A","lake":1}]})"), "players[0].nertz_left");
    EXPECT_EQ(field(R"({"players":[{"name":"A","lake":"9","nertz_left":0}]})"), "players[0].lake");
    EXPECT_EQ(field(R"({"players":[{"name":"A","lake":9,"nertz_left":0,"called":"yes"}]})"),
              "players[0].called");
    EXPECT_EQ(field(R"({"players":[{"name":"A","lake":9,"nertz_left":0,"colour":"red"}]})"),
              "players[0].colour");
    EXPECT_EQ(field(R"({"players":[{"name":7,"lake":9,"nertz_left":0}]})"), "players[0].name");
    EXPECT_EQ(field(R"({"players":[{"name":"A","lake":99999999999,"nertz_left":0}]})"),
              "players[0].lake");
    EXPECT_EQ(field(R"({"players":[],"end":"timeout"})"), "end");
    EXPECT_EQ(failingField([] { io::handFromJson(Json::parse(R"({"players":[]})"), "hands[3]"); }),
              "");
    EXPECT_EQ(
        failingField([] { io::handFromJson(Json::parse(R"({"players":[{}]})"), "hands[3]"); }),
        "hands[3].players[0].name");
}

TEST(GameJson, PlayersTeamsAndHandicaps) {
    const Json in = Json::parse(
        R"({"teams":[{"name":"T1","members":["Ann","Cy"]},{"name":"T2","members":["Bo","Di"]}],
        "pile_sizes":{"T2":10},
        "hands":[{"players":[{"name":"T1","lake":20,"nertz_left":0,"called":true},{"name":"T2","lake":15,"nertz_left":10}]}]})");
    const sc::Game g = io::gameFromJson(in, sc::preset("flip"));
    EXPECT_EQ(g.totals(), (std::vector<int>{20, -5}));
    EXPECT_EQ(g.sides()[1].pileSize, 10);
    const Json out = io::gameResultJson(g);
    EXPECT_EQ(out["totals"], Json::parse(R"([{"name":"T1","total":20},{"name":"T2","total":-5}])"));
    EXPECT_EQ(out["over"], false);
    EXPECT_TRUE(out["winner"].is_null());
    EXPECT_EQ(out["settlement"], Json::array());
    EXPECT_EQ(io::sidesFromJson(io::sidesToJson(g.sides())), g.sides());
    const auto singles =
        io::sidesFromJson(Json::parse(R"({"players":["Ann","Bo"],"pile_sizes":{"Bo":9}})"));
    EXPECT_EQ(io::sidesFromJson(io::sidesToJson(singles)), singles);
}

TEST(GameJson, NamesTheBadField) {
    auto field = [](const char* text, const char* rules = "nna") {
        return failingField([&] { io::gameFromJson(Json::parse(text), sc::preset(rules)); });
    };
    EXPECT_EQ(field(R"({"hands":[]})"), "players");
    EXPECT_EQ(field(R"({"players":"Ann"})"), "players");
    EXPECT_EQ(field(R"({"players":["Ann",2]})"), "players[1]");
    EXPECT_EQ(field(R"({"players":["Ann","Bo"],"teams":[]})"), "teams");
    EXPECT_EQ(field(R"({"teams":[{"name":"T","members":[]}]})", "flip"), "teams[0].members");
    EXPECT_EQ(field(R"({"teams":[{"members":["A"]}]})", "flip"), "teams[0].name");
    EXPECT_EQ(field(R"({"players":["Ann","Bo"],"pile_sizes":{"Zed":9}})"), "pile_sizes.Zed");
    EXPECT_EQ(field(R"({"players":["Ann","Bo"],"hands":{}})"), "hands");
    EXPECT_EQ(
        field(
            R"({"players":["Ann","Bo"],"hands":[{"players":[{"name":"Ann","lake":1,"nertz_left":0,"called":true},
        {"name":"Bo","lake":-1,"nertz_left":0}]}]})"),
        "hands[0].players[1].lake");
    EXPECT_EQ(field(R"({"players":["Ann","Bo"],"rules":"nna"})"), "rules");
}

// A number no double holds is thrown by the JSON library as out_of_range (406) while it parses: the
// same InputError as any other bad JSON (it escaped as an internal error, exit 1, before
// 2026-11-29).
TEST(ParseJson, ANumberTooLargeForADoubleIsBadJson) {
    for (const char* text : {R"({"players":[{"name":"Ann","lake":1e400,"nertz_left":0}]})", "[-1e999]"}) {
        try {
            io::parseJson(text, "the hand");
            FAIL() << text;
        } catch (const sc::InputError& e) {
            EXPECT_EQ(e.field(), "json");
            const std::string what = e.what();
            EXPECT_NE(what.find("the hand is not valid JSON (number overflow parsing"), std::string::npos) << what;
            EXPECT_EQ(what.find("json.exception"), std::string::npos) << what;
        }
    }
}

TEST(ParseJson, ReportsWhereItBroke) {
    try {
        io::parseJson("{\"a\":", "the hand");
        FAIL();
    } catch (const sc::InputError& e) {
        EXPECT_EQ(e.field(), "json");
        EXPECT_NE(std::string(e.what()).find("the hand is not valid JSON"), std::string::npos);
    }
}
