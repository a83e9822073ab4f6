// The face-recognition CLI contract of issue 4 (`detect IMAGE... --json`, `eval DIR`, `lake INPUT
// --json`) through the real binary on real photos (../shared/data, skipped where a checkout has none).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "cli_runner.hpp"

namespace fs = std::filesystem;
using Json = nlohmann::json;
using nertz::testing::lines;
using nertz::testing::runCli;

namespace {

const fs::path kTable = fs::path(NERTZ_SHARED_DIR) / "data/real-cards/webcam_table";

#define NERTZ_REQUIRE_REAL_PHOTOS() \
    if (!fs::is_directory(kTable)) GTEST_SKIP() << "no real photos at " << kTable

}  // namespace

TEST(VisionCli, DetectPrintsOneJsonObjectPerPictureInTheDocumentedShape) {
    NERTZ_REQUIRE_REAL_PHOTOS();
    const std::string a = (kTable / "images/WIN_20240627_11_36_36_Pro.jpg").string();
    const std::string b = (kTable / "images/WIN_20240627_11_37_46_Pro.jpg").string();
    const auto r = runCli({"detect", a, b, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto ls = lines(r.out);
    ASSERT_EQ(ls.size(), 2u) << r.out;
    // numbers as the contract shows them: confidences to a thousandth and outline corners to a
    // tenth of a pixel, with no float noise after them (0.998, not 0.9980000257492065)
    auto roundTo = [](double v, double unit) { return std::abs(v / unit - std::round(v / unit)) < 1e-6; };
    for (std::size_t k = 0; k < 2; ++k) {
        const Json j = Json::parse(ls[k]);
        for (const auto& c : j["cards"]) {
            EXPECT_TRUE(roundTo(c["confidence"].get<double>(), 0.001)) << c.dump();
            for (const auto& i : c["indices"]) EXPECT_TRUE(roundTo(i["confidence"].get<double>(), 0.001)) << i.dump();
            if (c["quad"].is_array()) {
                for (const auto& p : c["quad"]) EXPECT_TRUE(roundTo(p[0].get<double>(), 0.1) && roundTo(p[1].get<double>(), 0.1)) << c.dump();
            }
        }
        EXPECT_EQ(ls[k].find("00000"), std::string::npos) << ls[k];
    }
    for (std::size_t k = 0; k < 2; ++k) {
        const Json j = Json::parse(ls[k]);
        EXPECT_EQ(j["image"], k == 0 ? a : b);
        EXPECT_EQ(j["width"], 640);
        EXPECT_EQ(j["height"], 640);
        EXPECT_GT(j["ms"].get<double>(), 0.0);
        ASSERT_GE(j["cards"].size(), 5u);  // both photos hold more than a dozen labelled cards
        int read = 0;
        for (const auto& c : j["cards"]) read += c["face"].is_string() ? 1 : 0;
        EXPECT_GE(read, 5);
        for (const auto& c : j["cards"]) {
            ASSERT_TRUE(c["quad"].is_null() || c["quad"].size() == 4u) << c.dump();
            EXPECT_TRUE(c["side"] == "face" || c["side"] == "back") << c.dump();
            EXPECT_GE(c["confidence"].get<double>(), 0.0);
            EXPECT_LE(c["confidence"].get<double>(), 1.0);
            if (c["face"].is_null()) {  // an outline with no index read: a quad and no face
                EXPECT_TRUE(c["quad"].is_array()) << c.dump();
                EXPECT_TRUE(c["indices"].empty()) << c.dump();
                continue;
            }
            ASSERT_TRUE(c["face"].is_string()) << c.dump();
            EXPECT_GE(c["confidence"].get<double>(), 0.8);  // the default --min-confidence
            ASSERT_GE(c["indices"].size(), 1u);
            for (const auto& i : c["indices"]) {
                ASSERT_EQ(i["box"].size(), 4u);
                EXPECT_EQ(i["face"], c["face"]);  // corners grouped to a card read alike
                EXPECT_LE(i["box"][0].get<double>() + i["box"][2].get<double>(), 640.0);
            }
        }
    }
}

// A square picture is also read restored to the camera aspects (the default); `--as-given` reads it
// once, as given: on this squashed 16:9 webcam export that reads fewer faces.
TEST(VisionCli, AsGivenReadsASquarePictureOnlyAsItIs) {
    NERTZ_REQUIRE_REAL_PHOTOS();
    const std::string a = (kTable / "images/WIN_20240627_17_00_45_Pro.jpg").string();
    auto faces = [](const std::string& out) {
        const Json j = Json::parse(out);
        int n = 0;
        for (const auto& c : j["cards"]) n += c["face"].is_string() ? 1 : 0;
        return n;
    };
    const auto restored = runCli({"detect", a, "--json"});
    const auto given = runCli({"detect", a, "--json", "--as-given"});
    ASSERT_EQ(restored.code, 0) << restored.err;
    ASSERT_EQ(given.code, 0) << given.err;
    EXPECT_EQ(Json::parse(given.out)["width"], 640);
    EXPECT_GT(faces(restored.out), faces(given.out) + 3) << restored.out << "\n" << given.out;
}

TEST(VisionCli, DetectGivesExitTwoForAPictureItCannotReadAndStillAnswersTheOthers) {
    NERTZ_REQUIRE_REAL_PHOTOS();
    const fs::path empty = fs::temp_directory_path() / ("nertz-vision-cli-empty-" + std::to_string(::getpid()) + ".jpg");
    std::ofstream(empty).close();
    const std::string good = (kTable / "images/WIN_20240627_11_36_36_Pro.jpg").string();
    const auto r = runCli({"detect", empty.string(), good, "--json"});
    fs::remove(empty);
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find(empty.filename().string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("empty file"), std::string::npos) << r.err;
    ASSERT_EQ(lines(r.out).size(), 1u) << r.out;  // the readable picture is still answered
    EXPECT_EQ(Json::parse(lines(r.out)[0])["image"], good);

    const auto missing = runCli({"detect", "/nonexistent/x.jpg"});
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("/nonexistent/x.jpg"), std::string::npos) << missing.err;
}

// A picture far thinner than it is long keeps no pixel one way at the working size: no cards and
// an expected lake of 0 (exit 0), not an OpenCV assertion reported as an internal error (exit 1,
// before 2026-11-29). Written as binary PPM (P6), which the CLI reads like any other picture.
TEST(VisionCli, DetectAndLakeGiveNoCardsForAPictureTooThinToShowOne) {
    for (const auto& [w, h] : {std::pair{4000, 1}, std::pair{2, 5000}}) {
        const fs::path thin = fs::temp_directory_path() /
                              ("nertz-vision-cli-thin-" + std::to_string(::getpid()) + "-" + std::to_string(w) + ".ppm");
        {
            std::ofstream f(thin, std::ios::binary);
            f << "P6\n" << w << " " << h << "\n255\n" << std::string(std::size_t(w) * std::size_t(h) * 3, char(200));
        }
        const auto d = runCli({"detect", thin.string(), "--json"});
        const auto l = runCli({"lake", thin.string(), "--json"});
        fs::remove(thin);
        ASSERT_EQ(d.code, 0) << d.err;
        const Json dj = Json::parse(d.out);
        EXPECT_EQ(dj["width"], w);
        EXPECT_EQ(dj["height"], h);
        EXPECT_TRUE(dj["cards"].empty());
        ASSERT_EQ(l.code, 0) << l.err;
        const Json lj = Json::parse(l.out);
        EXPECT_EQ(lj["expected"], 0);
        EXPECT_TRUE(lj["tops"].empty());
    }
}

// A picture whose file name is not UTF-8 (Latin-1 "café.ppm"): the JSON still prints, the name's
// stray byte as U+FFFD (the JSON library threw on it before 2026-11-29, so nothing was printed and
// the CLI answered exit 1).
TEST(VisionCli, DetectPrintsJsonForAFileNameThatIsNotUtf8) {
    const fs::path dir = fs::temp_directory_path() / ("nertz-vision-cli-latin1-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path file = dir / "caf\xe9.ppm";
    {
        std::ofstream f(file, std::ios::binary);
        f << "P6\n64 48\n255\n" << std::string(64 * 48 * 3, char(120));
    }
    const auto d = runCli({"detect", file.string(), "--json"});
    const auto l = runCli({"lake", file.string(), "--json"});
    fs::remove_all(dir);
    ASSERT_EQ(d.code, 0) << d.err;
    const Json j = Json::parse(d.out);
    EXPECT_EQ(j["image"], (dir / "caf\xef\xbf\xbd.ppm").string());
    EXPECT_EQ(j["width"], 64);
    ASSERT_EQ(l.code, 0) << l.err;
    EXPECT_EQ(Json::parse(l.out)["expected"], 0);
}

// The readings added from other aspects and scales (ninth session) take their options' ranges:
// out of range, or not a number, is exit 2 with one line naming the option, nothing on stdout.
TEST(VisionCli, TheOtherReadingsOptionsNameABadValue) {
    NERTZ_REQUIRE_REAL_PHOTOS();
    const std::string good = (kTable / "images/WIN_20240627_11_36_36_Pro.jpg").string();
    for (const auto& [option, value] :
         std::vector<std::pair<std::string, std::string>>{{"--extra-scales", "5"},
                                                          {"--extra-scales", "1.25,abc"},
                                                          {"--extra-scales", "0"},
                                                          {"--aspect-extras", "2"},
                                                          {"--aspect-extras", "-0.5"},
                                                          {"--outline-corners", "2"},
                                                          {"--outline-corners", "x"}}) {
        const auto r = runCli({"detect", good, "--json", option, value});
        EXPECT_EQ(r.code, 2) << option << " " << value;
        EXPECT_NE(r.err.find(option), std::string::npos) << r.err;
        EXPECT_EQ(lines(r.err).size(), 1u) << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
    // in range: read, one object
    const auto ok =
        runCli({"detect", good, "--json", "--extra-scales", "1.5", "--aspect-extras", "0.9",
                "--outline-corners", "1"});
    EXPECT_EQ(ok.code, 0) << ok.err;
    EXPECT_EQ(lines(ok.out).size(), 1u);
}

TEST(VisionCli, EvalScoresALabelledFolderAndLakeGivesTheExpectedCount) {
    NERTZ_REQUIRE_REAL_PHOTOS();
    const auto r = runCli({"eval", kTable.string(), "--limit", "3", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_NE(j.dump().find("precision"), std::string::npos) << r.out;
    EXPECT_NE(j.dump().find("recall"), std::string::npos) << r.out;
    // the suits split the same cards: their hits and misses add up to all of them
    long tp = 0, fn = 0, fp = 0;
    for (const auto& [suit, s] : j.at("suits").items()) {
        EXPECT_NE(std::string("CDHS").find(suit), std::string::npos) << suit;
        tp += s.at("tp").get<long>();
        fn += s.at("fn").get<long>();
        fp += s.at("fp").get<long>();
    }
    EXPECT_EQ(tp, j["all"]["tp"].get<long>());
    EXPECT_EQ(fn, j["all"]["fn"].get<long>());
    EXPECT_EQ(fp, j["all"]["fp"].get<long>());
    EXPECT_GT(tp + fn, 0);
    // cards read only by two unsure corners: counted, with how many of them are labelled; none
    // with the pairs turned off
    const long paired = j.at("paired_cards").at("cards").get<long>();
    EXPECT_LE(j.at("paired_cards").at("right").get<long>(), paired);
    const auto off =
        runCli({"eval", kTable.string(), "--limit", "3", "--json", "--pair-confidence", "1"});
    ASSERT_EQ(off.code, 0) << off.err;
    EXPECT_EQ(Json::parse(off.out).at("paired_cards").at("cards").get<long>(), 0);

    const auto lake = runCli({"lake", (kTable / "images/WIN_20240627_11_36_36_Pro.jpg").string(), "--json"});
    ASSERT_EQ(lake.code, 0) << lake.err;
    const Json l = Json::parse(lake.out);
    ASSERT_TRUE(l["tops"].is_array());
    EXPECT_GE(l["tops"].size(), 1u);
    EXPECT_GE(l["expected"].get<int>(), int(l["tops"].size()));  // a pile holds at least its top card
    for (const auto& t : l["tops"]) {
        EXPECT_TRUE(t["face"].is_string()) << t.dump();
        // where each top was read, also one with no outline (its index): inside the picture, and
        // inside its outline where it has one
        ASSERT_EQ(t["at"].size(), 2u) << t.dump();
        const double x = t["at"][0].get<double>(), y = t["at"][1].get<double>();
        EXPECT_TRUE(x >= 0 && y >= 0 && x < 640 && y < 640) << t.dump();  // a 640 x 640 picture
        if (!t["quad"].is_null()) {
            // inside the convex outline: on one side of each of its edges
            int left = 0, right = 0;
            for (std::size_t k = 0; k < 4; ++k) {
                const auto& a = t["quad"][k];
                const auto& b = t["quad"][(k + 1) % 4];
                const double cross = (b[0].get<double>() - a[0].get<double>()) * (y - a[1].get<double>()) -
                                     (b[1].get<double>() - a[1].get<double>()) * (x - a[0].get<double>());
                (cross >= 0 ? left : right) += 1;
            }
            EXPECT_TRUE(left == 4 || right == 4) << t.dump();
        }
    }
    // face-up outlines no face was read on, card-like things where no card was found and tops of
    // two suits read on one another are listed, and the total is complete only without them
    ASSERT_TRUE(l["unread"].is_array());
    ASSERT_TRUE(l["unexplained"].is_array());
    ASSERT_TRUE(l["clashes"].is_array());
    ASSERT_TRUE(l["beyond_decks"].is_array());
    EXPECT_TRUE(l["beyond_decks"].empty());  // the number of decks not given: nothing checked
    ASSERT_TRUE(l["backs"].is_array());  // face-down outlines: none is a closed pile here (--closed 0)
    EXPECT_EQ(l["complete"].get<bool>(),
              l["unread"].empty() && l["unexplained"].empty() && l["clashes"].empty() && l["backs"].empty());
    // with the game's decks given (one: each face once in the lake), a face read on two tops is
    // listed once, and the reading is not complete
    const auto oneDeck = runCli({"lake", (kTable / "images/WIN_20240627_11_36_36_Pro.jpg").string(),
                                 "--json", "--decks", "1"});
    ASSERT_EQ(oneDeck.code, 0) << oneDeck.err;
    const Json l1 = Json::parse(oneDeck.out);
    std::map<std::string, int> reads;
    for (const auto& t : l1["tops"]) ++reads[t["face"].get<std::string>()];
    std::set<std::string> twice, listed;
    for (const auto& [face, n] : reads)
        if (n > 1) twice.insert(face);
    for (const auto& f : l1["beyond_decks"]) EXPECT_TRUE(listed.insert(f.get<std::string>()).second);
    EXPECT_EQ(listed, twice);
    // likewise a suit read on more tops than the decks have aces of it (one deck: one pile a suit)
    std::map<char, int> suits;
    for (const auto& t : l1["tops"]) ++suits[t["face"].get<std::string>().back()];
    std::set<std::string> suitsTwice, suitsListed;
    for (const auto& [s, n] : suits)
        if (n > 1) suitsTwice.insert(std::string(1, s));
    for (const auto& s : l1["suits_beyond_decks"]) EXPECT_TRUE(suitsListed.insert(s.get<std::string>()).second);
    EXPECT_EQ(suitsListed, suitsTwice);
    EXPECT_TRUE(l["suits_beyond_decks"].empty());  // the number of decks not given
    if (!twice.empty() || !suitsTwice.empty()) {
        EXPECT_FALSE(l1["complete"].get<bool>());
    }
    const auto badDecks = runCli({"lake", (kTable / "images/WIN_20240627_11_36_36_Pro.jpg").string(),
                                  "--decks", "-1"});
    EXPECT_EQ(badDecks.code, 2);
    EXPECT_NE(badDecks.err.find("decks"), std::string::npos) << badDecks.err;
    EXPECT_TRUE(badDecks.out.empty()) << badDecks.out;
    for (const auto& c : l["clashes"]) {  // (this photo: a JH lying on an 8D, a 5C on a KD)
        const auto a = c.at("faces").at(0).get<std::string>(), b = c.at("faces").at(1).get<std::string>();
        EXPECT_NE(a.back(), b.back()) << c.dump();
        EXPECT_EQ(l["tops"][c.at("tops").at(0).get<std::size_t>()]["face"], a) << c.dump();
    }

    const auto notAFolder = runCli({"eval", "/nonexistent/folder"});
    EXPECT_EQ(notAFolder.code, 2);
    EXPECT_NE(notAFolder.err.find("/nonexistent/folder"), std::string::npos) << notAFolder.err;
}

// A folder laid out like a synthetic set (cards/NAME.json beside images/) gets its outlines scored;
// a broken cards file is named, with exit code 2 and nothing on stdout.
TEST(VisionCli, EvalScoresOutlinesWhereTheFolderLabelsThemAndNamesABrokenLabelFile) {
    NERTZ_REQUIRE_REAL_PHOTOS();
    const fs::path d = fs::temp_directory_path() / "nertz_eval_outlines";
    fs::remove_all(d);
    fs::create_directories(d / "images");
    fs::create_directories(d / "labels");
    fs::create_directories(d / "cards");
    const std::string stem = "WIN_20240627_11_36_36_Pro";
    fs::copy_file(kTable / "images" / (stem + ".jpg"), d / "images" / (stem + ".jpg"));
    fs::copy_file(kTable / "labels" / (stem + ".txt"), d / "labels" / (stem + ".txt"));
    fs::copy_file(kTable.parent_path() / "classes.txt", d / "classes.txt");
    // the four of clubs on the left of that photo, as drawn by hand (its outline, reading order)
    {
        std::ofstream f(d / "cards" / (stem + ".json"));
        f << R"({"cards":[{"face":"4C","side":"face","visible_fraction":1.0,)"
          << R"("quad":[[138,183],[240,170],[252,398],[146,423]],)"
          << R"("indices":[{"visible":true}]}]})";
    }
    const auto r = runCli({"eval", d.string(), "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    ASSERT_TRUE(j.contains("outlines")) << r.out;
    EXPECT_EQ(j["outlines"]["cards"].get<int>(), 1);
    // outlined from its corner indices (IoU 0.80 with the hand-drawn outline)
    EXPECT_EQ(j["outlines"]["outlined"].get<int>(), 1) << r.out;
    EXPECT_GE(j["outlines"]["reported"].get<int>(), 1);
    const auto before = runCli({"eval", d.string(), "--json", "--no-index-outlines"});
    ASSERT_EQ(before.code, 0) << before.err;
    EXPECT_EQ(Json::parse(before.out)["outlines"]["outlined"].get<int>(), 0) << before.out;

    {
        std::ofstream f(d / "cards" / (stem + ".json"));
        // three corners missing
        f << R"({"cards":[{"face":"4C","side":"face","quad":[[138,183]]}]})";
    }
    const auto broken = runCli({"eval", d.string(), "--json"});
    EXPECT_EQ(broken.code, 2);
    EXPECT_NE(broken.err.find(stem + ".json: not a scene file of 'nertzref-cli synth' ("), std::string::npos) << broken.err;
    EXPECT_EQ(broken.err.find("json.exception"), std::string::npos) << broken.err;  // the library's tag left out
    EXPECT_TRUE(broken.out.empty()) << broken.out;
    fs::remove_all(d);
}

