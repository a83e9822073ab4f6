// The scoring CLI contract of issue 2: rules list/show, score, game; exit 2 on bad input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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
