// The scoring CLI contract of issue 2: rules list/show, score, game; exit 2 on bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>

#include "cli_runner.hpp"

using nertz::testing::runCli;
using Json = nlohmann::json;

TEST(CliScore, IssueExampleUnderNna) {
    const auto r = runCli({"score", "--rules", "nna"},
                          R"({"players":[{"name":"Ann","lake":14,"nertz_left":0,"called":true},
                              {"name":"Bo","lake":9,"nertz_left":3}],"end":"nertz"})");
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["players"][0],
              Json::parse(R"({"name":"Ann","lake_points":14,"penalty":0,"bonus":10,"false_call":0,"score":24})"));
    EXPECT_EQ(j["players"][1],
              Json::parse(R"({"name":"Bo","lake_points":9,"penalty":-6,"bonus":0,"false_call":0,"score":3})"));
}

TEST(CliScore, BadInputExitsTwoWithOneLineNamingTheField) {
    const auto r = runCli({"score", "--rules", "nna"},
                          R"({"players":[{"name":"Ann","lake":-1,"nertz_left":0,"called":true},
                              {"name":"Bo","lake":9,"nertz_left":3}]})");
    EXPECT_EQ(r.code, 2);
    EXPECT_TRUE(r.out.empty());
    EXPECT_NE(r.err.find("players[0].lake"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(CliRules, ListAndShow) {
    const auto list = runCli({"rules", "list"});
    ASSERT_EQ(list.code, 0);
    for (const char* id : {"nna", "classic", "house", "flip", "boxed"}) {
        EXPECT_NE(list.out.find(id), std::string::npos) << id;
    }
    const auto listJson = runCli({"rules", "list", "--json"});
    ASSERT_EQ(listJson.code, 0);
    EXPECT_EQ(Json::parse(listJson.out)["rules"].size(), 5u);

    const auto show = runCli({"rules", "show", "nna", "--json"});
    ASSERT_EQ(show.code, 0) << show.err;
    const Json j = Json::parse(show.out);
    EXPECT_EQ(j["id"], "nna");
    EXPECT_EQ(j["target"], 150);
    EXPECT_EQ(j["caller_bonus"], 10);
    EXPECT_EQ(j["false_call_points"], -5);
    EXPECT_EQ(j["idle"]["stock_actions_before_nertz_burn"], 3);

    const auto text = runCli({"rules", "show", "boxed"});
    ASSERT_EQ(text.code, 0);
    EXPECT_NE(text.out.find("nertz_colour"), std::string::npos);

    const auto unknown = runCli({"rules", "show", "poker"});
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("unknown rule set 'poker'"), std::string::npos);
    EXPECT_EQ(runCli({"rules", "show"}).code, 2);
    EXPECT_EQ(runCli({"rules"}).code, 2);
    EXPECT_EQ(runCli({"frobnicate"}).code, 2);
}

TEST(CliScore, CustomRulesFileAndChecksum) {
    const auto dir = std::filesystem::temp_directory_path() / ("nertz-cli-rules-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = (dir / "club.json").string();
    std::ofstream(file) << R"({"base":"house","id":"club","lake_card_points":2})";
    const std::string hand = R"({"players":[{"name":"Ann","lake":14,"nertz_left":0,"called":true},
        {"name":"Bo","lake":9,"nertz_left":3}],"end":"nertz","lake_tops":["KH","10S"],"closed_piles":0})";
    const auto r = runCli({"score", "--rules-file", file}, hand);
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["players"][0]["score"], 28);
    EXPECT_EQ(j["players"][1]["score"], 18 - 6);
    EXPECT_EQ(j["checksum"]["expected"], 23);
    EXPECT_EQ(j["checksum"]["ok"], true);

    std::ofstream(file) << R"({"base":"house","id":"club","lake_card_points":"two"})";
    const auto bad = runCli({"score", "--rules-file", file}, hand);
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("lake_card_points"), std::string::npos) << bad.err;

    EXPECT_EQ(runCli({"score", "--rules", "nna", "--rules-file", file}, hand).code, 2);
    EXPECT_EQ(runCli({"score"}, hand).code, 2);
    const auto badTop = runCli({"score", "--rules", "nna"},
                               R"({"players":[{"name":"Ann","lake":1,"nertz_left":0,"called":true},
                                   {"name":"Bo","lake":0,"nertz_left":3}],"lake_tops":["7B"]})");
    EXPECT_EQ(badTop.code, 2);
    EXPECT_NE(badTop.err.find("lake_tops[0]"), std::string::npos);
    std::filesystem::remove_all(dir);
}

TEST(CliScore, EveryPresetScoresTheSameHandItsOwnWay) {
    const std::string hand = R"({"players":[{"name":"Ann","lake":14,"nertz_left":0,"called":true},
        {"name":"Bo","lake":9,"nertz_left":3}]})";
    const std::map<std::string, std::pair<int, int>> expected{
        {"nna", {24, 3}}, {"classic", {14, 3}}, {"house", {14, 3}}, {"flip", {14, 3}}};
    for (const auto& [id, scores] : expected) {
        const auto r = runCli({"score", "--rules", id}, hand);
        ASSERT_EQ(r.code, 0) << id << r.err;
        const Json j = Json::parse(r.out);
        EXPECT_EQ(j["players"][0]["score"], scores.first) << id;
        EXPECT_EQ(j["players"][1]["score"], scores.second) << id;
    }
}

TEST(CliGame, TotalsWinnerAndSettlement) {
    const std::string game = R"({"players":["Ann","Bo"],"hands":[
        {"players":[{"name":"Ann","lake":52,"nertz_left":0,"called":true},{"name":"Bo","lake":30,"nertz_left":0}]},
        {"players":[{"name":"Ann","lake":50,"nertz_left":0,"called":true},{"name":"Bo","lake":40,"nertz_left":2}]}]})";
    const auto r = runCli({"game", "--rules", "classic"}, game);
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["totals"], Json::parse(R"([{"name":"Ann","total":102},{"name":"Bo","total":66}])"));
    EXPECT_EQ(j["over"], true);
    EXPECT_EQ(j["winner"], "Ann");
    EXPECT_EQ(j["settlement"], Json::parse(R"([{"from":"Bo","to":"Ann","amount":36}])"));

    const auto notOver = runCli({"game", "--rules", "nna"}, game);
    ASSERT_EQ(notOver.code, 0);
    const Json k = Json::parse(notOver.out);
    EXPECT_EQ(k["over"], false);
    EXPECT_TRUE(k["winner"].is_null());
    EXPECT_EQ(k["settlement"], Json::array());
}

TEST(CliGame, TeamsAndErrors) {
    const auto r = runCli({"game", "--rules", "boxed"},
                          R"({"teams":[{"name":"T1","members":["Ann","Cy"]},{"name":"T2","members":["Bo","Di"]}],
                              "hands":[{"players":[{"name":"T1","lake":20,"nertz_left":0,"called":true},
                                                   {"name":"T2","lake":15,"nertz_left":4}]}]})");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(Json::parse(r.out)["totals"][1]["total"], 7);

    const auto unknown = runCli({"game", "--rules", "nna"},
                                R"({"players":["Ann","Bo"],"hands":[{"players":[{"name":"Ann","lake":1,"nertz_left":0,"called":true},
                                    {"name":"Zed","lake":1,"nertz_left":0}]}]})");
    EXPECT_EQ(unknown.code, 2);
    EXPECT_NE(unknown.err.find("hands[0].players[1].name"), std::string::npos) << unknown.err;
    EXPECT_TRUE(unknown.out.empty());
    EXPECT_EQ(runCli({"game", "--rules", "nna"}, "").code, 2);
    EXPECT_EQ(runCli({"game", "--rules", "nna"}, "[]").code, 2);
}

TEST(CliTour, RunsOnEmbeddedDefaults) {
    const auto r = runCli({"tour"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("nna"), std::string::npos);
    EXPECT_NE(r.out.find("Everyone together moves the top card"), std::string::npos);
    EXPECT_NE(r.out.find("\"winner\":\"Ann\""), std::string::npos);
}
