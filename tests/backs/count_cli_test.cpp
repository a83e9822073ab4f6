// The back-counting CLI contract of issue 5, run through the real nertzref-cli binary against a real
// league file: `deck enroll` stores a signature with the deck, `count INPUT --json` answers
// {"counts":{...},"unknown":N,"cards":[{"quad":[[x,y]...],"deck":...,"confidence":...}],"ms":...};
// bad input exits 2 with one message naming what is wrong and changes nothing.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "../cli/cli_runner.hpp"
#include "nertz/synth/card_art.hpp"
#include "nertz/vision/back_render.hpp"
#include "nertz/vision/evaluation.hpp"

#include "card_quad.hpp"

namespace fs = std::filesystem;
namespace vi = nertz::vision;
using Json = nlohmann::json;
using nertz::testing::cardQuad;
using nertz::testing::runCli;

namespace {

cv::Mat bellot() {
    const std::string path = std::string(NERTZ_TEST_BACKS_DIR) + "/bellot.png";
    cv::Mat m = cv::imread(path, cv::IMREAD_UNCHANGED);
    if (m.empty() || m.type() != CV_8UC4) throw std::runtime_error("test artwork missing: " + path);
    return m;
}

class CountCli : public ::testing::Test {
protected:
    fs::path dir, db;
    cv::Mat blue, red;  // one design in two colours: the pair real tables have most

    void SetUp() override {
        dir = fs::temp_directory_path() / ("nertz-count-cli-" + std::to_string(::getpid()) + "-" +
                                           ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
        db = dir / "league.db";
        blue = bellot();
        red = nertz::synth::recolourBack(blue, 140.0);
        for (const auto& [player, deck] : {std::pair{"Ann", "Ann-blue"}, std::pair{"Bo", "Bo-red"}}) {
            ASSERT_EQ(run({"player", "add", player}).code, 0);
            ASSERT_EQ(run({"deck", "add", "--owner", player, "--name", deck}).code, 0);
        }
    }
    void TearDown() override { fs::remove_all(dir); }

    nertz::testing::CliResult run(std::vector<std::string> args) {
        args.push_back("--db");
        args.push_back(db.string());
        return runCli(args);
    }

    // The player Cy and the deck Cy-black, enrolled from the real photo `picture`.
    void enrolCyBlack(const fs::path& picture) {
        ASSERT_EQ(run({"player", "add", "Cy"}).code, 0);
        ASSERT_EQ(run({"deck", "add", "--owner", "Cy", "--name", "Cy-black"}).code, 0);
        ASSERT_EQ(run({"deck", "enroll", "--deck", "Cy-black", picture.string()}).code, 0);
    }

    std::string enrolmentPicture(const cv::Mat& art, std::uint64_t seed, const std::string& name) {
        const auto v = vi::renderEnrolmentView(art, seed);
        const std::string p = (dir / name).string();
        cv::imwrite(p, v.image);
        return p;
    }

    // nBlue + nRed loose cards at random turns on green cloth, JPEG
    std::string table(int nBlue, int nRed, const std::string& name) {
        cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
        cv::RNG rng(7);
        const int n = nBlue + nRed;
        for (int i = 0; i < n; ++i) {
            const cv::Mat& art = i < nBlue ? blue : red;
            const float h = 170.f, w = h * float(art.cols) / float(art.rows);
            const cv::Point2f c(1280.f * (i + 0.5f) / float(n), 360.f + float(rng.uniform(-80, 80)));
            const float a = float(rng.uniform(0.0, 6.283));
            vi::drawCard(img, art, cardQuad(c, a, std::min(w, 1280.f / float(n) - 30.f), h));
        }
        const std::string p = (dir / name).string();
        cv::imwrite(p, img, {cv::IMWRITE_JPEG_QUALITY, 85});
        return p;
    }
};

}  // namespace

TEST_F(CountCli, EnrolTwoColoursOfOneDesignThenCountATableByDeck) {
    const auto a = run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")});
    ASSERT_EQ(a.code, 0) << a.err;
    const Json ja = Json::parse(a.out);
    EXPECT_EQ(ja["deck"], "Ann-blue");
    EXPECT_EQ(ja["views"], 1);
    EXPECT_GT(ja["bytes"].get<int>(), 1000);
    EXPECT_TRUE(ja["warnings"].empty()) << a.out;  // a clean view of the back
    // the card each picture was read from, for the person enrolling to check
    ASSERT_EQ(ja["cards"].size(), 1u) << a.out;
    EXPECT_NE(ja["cards"][0]["image"].get<std::string>().find("blue.png"), std::string::npos);
    vi::Quad read{};
    for (std::size_t k = 0; k < 4; ++k)
        read[k] = {ja["cards"][0]["quad"][k][0].get<float>(), ja["cards"][0]["quad"][k][1].get<float>()};
    EXPECT_GT(vi::quadIoU(read, vi::renderEnrolmentView(blue, 1).quad), 0.9) << a.out;
    EXPECT_LT(ja["cards"][0]["covered"].get<double>(), vi::kEnrolHidden);
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Bo-red", enrolmentPicture(red, 2, "red.png")}).code, 0);

    const std::string picture = table(3, 2, "table.jpg");
    for (const bool tableMask : {false, true}) {
        std::vector<std::string> args{"count", picture, "--json"};
        if (tableMask) args.push_back("--table-mask");
        const auto r = run(args);
        ASSERT_EQ(r.code, 0) << r.err;
        const Json j = Json::parse(r.out);
        EXPECT_EQ(j["counts"], Json::parse(R"({"Ann-blue":3,"Bo-red":2})")) << r.out;
        EXPECT_EQ(j["unknown"], 0);
        ASSERT_EQ(j["cards"].size(), 5u);
        for (const auto& c : j["cards"]) {
            ASSERT_EQ(c["quad"].size(), 4u);
            EXPECT_GE(c["quad"][0][0].get<double>(), 0.0);
            EXPECT_TRUE(c["deck"] == "Ann-blue" || c["deck"] == "Bo-red") << c.dump();
            EXPECT_GT(c["confidence"].get<double>(), 0.0);
            EXPECT_LE(c["confidence"].get<double>(), 1.0);
        }
        EXPECT_GE(j["ms"].get<double>(), 0.0);
        // a table of cards seen from above: the finder's segmenter explains its cards, no warning
        EXPECT_GE(j["explained"].get<double>(), 0.5) << r.out;
        EXPECT_FALSE(j.contains("message")) << r.out;
        // nothing lies on the cards: none of them is read without a part of it
        for (const auto& c : j["cards"]) EXPECT_FALSE(c.contains("hidden")) << c.dump();
    }
    // only Ann's deck asked for: Bo's cards are unknown, never given to Ann
    const auto only = run({"count", picture, "--json", "--decks", "Ann-blue"});
    ASSERT_EQ(only.code, 0) << only.err;
    const Json jo = Json::parse(only.out);
    EXPECT_EQ(jo["counts"], Json::parse(R"({"Ann-blue":3})")) << only.out;
    EXPECT_EQ(jo["unknown"], 2);
}

// An enrolment picture with a thumb and palm on the card: the signature is stored (the picture
// may be all the player has), with a warning naming the picture and how much of the card is covered.
TEST_F(CountCli, EnrollingACoveredCardWarnsToEnrolItUncovered) {
    const auto v = vi::renderEnrolmentView(blue, 3);
    cv::Mat img = v.image.clone();
    // a palm over a corner of the card, reaching in from outside it
    const cv::Point2f mid = (v.quad[0] + v.quad[1] + v.quad[2] + v.quad[3]) * 0.25f;
    const cv::Point2f corner = v.quad[2];
    const float side = float(cv::norm(v.quad[1] - v.quad[0]));
    const cv::Point palm(cvRound(corner.x + (mid.x - corner.x) * 0.45f), cvRound(corner.y + (mid.y - corner.y) * 0.45f));
    const cv::Point away(cvRound(corner.x + (corner.x - mid.x)), cvRound(corner.y + (corner.y - mid.y)));
    cv::line(img, palm, away, cv::Scalar(120, 150, 205), int(side * 0.5f));
    cv::circle(img, palm, int(side * 0.3f), cv::Scalar(120, 150, 205), cv::FILLED);
    const std::string p = (dir / "covered.png").string();
    cv::imwrite(p, img);
    const auto r = run({"deck", "enroll", "--deck", "Ann-blue", p});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    ASSERT_EQ(j["warnings"].size(), 1u) << r.out;
    const std::string w = j["warnings"][0].get<std::string>();
    EXPECT_NE(w.find("covered.png"), std::string::npos) << w;
    EXPECT_NE(w.find("enrol again"), std::string::npos) << w;
    EXPECT_NE(r.err.find("warning"), std::string::npos) << r.err;
}

// A hand lying across a card: the card is counted to its deck, read without the hand, and its
// "hidden" says how much of it the segmenter saw as no card (models/training/BACKS.md, "A hand on a
// card"); the card beside it, which nothing covers, gives no "hidden".
TEST_F(CountCli, ACardUnderAHandIsCountedAndSaysHowMuchOfItIsHidden) {
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code, 0);
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Bo-red", enrolmentPicture(red, 2, "red.png")}).code, 0);
    cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
    const float h = 200.f, w = h * float(blue.cols) / float(blue.rows);
    vi::drawCard(img, red, cardQuad({400.f, 360.f}, 0.3f, w, h));
    vi::drawCard(img, blue, cardQuad({760.f, 360.f}, -0.2f, w, h));
    // a hand from the right edge, its palm on the blue card's right side, fingers across it
    cv::Mat hand(img.size(), CV_8U, cv::Scalar(0));
    cv::line(hand, {1280, 380}, {830, 380}, cv::Scalar(255), 110);
    cv::circle(hand, {830, 380}, 60, cv::Scalar(255), cv::FILLED);
    for (int f = 0; f < 4; ++f)
        cv::line(hand, {800, 335 + 30 * f}, {730, 332 + 30 * f}, cv::Scalar(255), 22);
    cv::GaussianBlur(hand, hand, cv::Size(0, 0), 1.5);
    cv::Mat skin(img.size(), CV_8UC3, cv::Scalar(120, 150, 205)), a3;
    cv::Mat a;
    hand.convertTo(a, CV_32F, 1.0 / 255);
    cv::merge(std::vector<cv::Mat>{a, a, a}, a3);
    cv::Mat f, s;
    img.convertTo(f, CV_32FC3);
    skin.convertTo(s, CV_32FC3);
    f = f.mul(cv::Scalar::all(1.0) - a3) + s.mul(a3);
    f.convertTo(img, CV_8UC3);
    const std::string p = (dir / "hand.jpg").string();
    cv::imwrite(p, img, {cv::IMWRITE_JPEG_QUALITY, 85});

    const auto r = run({"count", p, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["counts"], Json::parse(R"({"Ann-blue":1,"Bo-red":1})")) << r.out;
    EXPECT_EQ(j["unknown"], 0) << r.out;
    ASSERT_EQ(j["cards"].size(), 2u) << r.out;
    for (const auto& c : j["cards"]) {
        if (c["deck"] == "Ann-blue") {
            ASSERT_TRUE(c.contains("hidden")) << c.dump();
            // at least what is left out of a reading (5%); the segmenter is sure of the palm,
            // less of the fingers' edges
            EXPECT_GE(c["hidden"].get<double>(), 0.05) << c.dump();
            EXPECT_LT(c["hidden"].get<double>(), 0.7) << c.dump();
        } else {
            EXPECT_FALSE(c.contains("hidden")) << c.dump();
        }
    }
}

// A clip of cards passing through the view (issue 5, "stream ... through the view"), written as a
// camera's MJPG file: `count CLIP --json` counts each card once, by deck, with the frame it was
// counted in; `--spot-only` (the counter before) counts none of them, and says nothing is amiss.
TEST_F(CountCli, CountsAClipOfCardsPassingThroughTheView) {
    ASSERT_EQ(
        run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code,
        0);
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Bo-red", enrolmentPicture(red, 2, "red.png")}).code,
              0);
    vi::DealClipOptions o;
    o.size = {640, 360};
    o.cards = 12;
    o.through = true;
    const vi::DealClip clip = vi::renderDealClip({blue, red}, 31, o);
    const std::string file = (dir / "through.avi").string();
    {
        cv::VideoWriter out(file, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 15.0, o.size);
        ASSERT_TRUE(out.isOpened());
        for (const auto& f : clip.frames) out.write(f);
    }
    int blues = 0;
    for (int d : clip.decks) blues += d == 0;
    const auto r = run({"count", file, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["counts"]["Ann-blue"], blues) << r.out;
    EXPECT_EQ(j["counts"]["Bo-red"], 12 - blues) << r.out;
    EXPECT_EQ(j["unknown"], 0);
    EXPECT_EQ(j["complete"], true);
    ASSERT_EQ(j["cards"].size(), 12u);
    for (const auto& c : j["cards"]) EXPECT_GT(c["frame"].get<int>(), 0);
    const auto before = run({"count", file, "--json", "--spot-only"});
    ASSERT_EQ(before.code, 0) << before.err;
    const Json jb = Json::parse(before.out);
    EXPECT_EQ(jb["unknown"].get<int>() + jb["counts"]["Ann-blue"].get<int>() +
                  jb["counts"]["Bo-red"].get<int>(),
              0);
    // it means nothing for a picture: said, not ignored
    const auto picture = run({"count", enrolmentPicture(blue, 3, "one.png"), "--spot-only"});
    EXPECT_EQ(picture.code, 2);
    EXPECT_NE(picture.err.find("spot-only"), std::string::npos) << picture.err;
    // and --no-faces means nothing for a video (its cards are not read for faces)
    const auto noFaces = run({"count", file, "--no-faces"});
    EXPECT_EQ(noFaces.code, 2);
    EXPECT_NE(noFaces.err.find("no-faces"), std::string::npos) << noFaces.err;
    EXPECT_TRUE(noFaces.out.empty());
    // nor --close-ups (a picture read again at half size)
    const auto closeUps = run({"count", file, "--close-ups"});
    EXPECT_EQ(closeUps.code, 2);
    EXPECT_NE(closeUps.err.find("close-ups"), std::string::npos) << closeUps.err;
    EXPECT_TRUE(closeUps.out.empty());
}

// Without a league file: `backs enroll` writes a signature file, `count --back NAME=FILE` (repeated,
// before or after the picture) counts with those decks.
TEST_F(CountCli, SignatureFilesGivenBeforeOrAfterThePictureCountTheSame) {
    const std::string blueSig = (dir / "blue.sig").string(), redSig = (dir / "red.sig").string();
    ASSERT_EQ(runCli({"backs", "enroll", "--deck", "Ann-blue", "--out", blueSig, enrolmentPicture(blue, 1, "blue.png")}).code, 0);
    const auto r = runCli({"backs", "enroll", "--deck", "Bo-red", "--out", redSig, "--against", "Ann-blue=" + blueSig,
                           enrolmentPicture(red, 2, "red.png")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(Json::parse(r.out)["warnings"].empty()) << r.out;
    const std::string picture = table(3, 2, "table.jpg");
    const auto before = runCli({"count", "--back", "Ann-blue=" + blueSig, "--back", "Bo-red=" + redSig, picture, "--json"});
    const auto after = runCli({"count", picture, "--json", "--back", "Ann-blue=" + blueSig, "--back", "Bo-red=" + redSig});
    ASSERT_EQ(before.code, 0) << before.err;
    ASSERT_EQ(after.code, 0) << after.err;
    EXPECT_EQ(Json::parse(before.out)["counts"], Json::parse(R"({"Ann-blue":3,"Bo-red":2})")) << before.out;
    EXPECT_EQ(Json::parse(after.out)["counts"], Json::parse(before.out)["counts"]);
}

TEST_F(CountCli, BadInputExitsTwoNamingItAndChangesNothing) {
    // a picture with no card in it: nothing is stored, so counting still has no deck to compare with
    const std::string empty = (dir / "cloth.png").string();
    cv::imwrite(empty, cv::Mat(480, 640, CV_8UC3, cv::Scalar(40, 100, 40)));
    const auto noCard = run({"deck", "enroll", "--deck", "Ann-blue", empty});
    EXPECT_EQ(noCard.code, 2);
    EXPECT_TRUE(noCard.out.empty());
    EXPECT_NE(noCard.err.find("no card back found"), std::string::npos) << noCard.err;

    const auto missing = run({"deck", "enroll", "--deck", "Ann-blue", (dir / "nope.png").string()});
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("nope.png"), std::string::npos) << missing.err;

    // more pictures than the 1-5 the help promises; a signature file that is a folder (it was an
    // internal error, exit 1, leaving FOLDER.part behind)
    const std::string view = enrolmentPicture(blue, 4, "v.png");
    const auto six = run({"deck", "enroll", "--deck", "Ann-blue", view, view, view, view, view, view});
    EXPECT_EQ(six.code, 2);
    EXPECT_NE(six.err.find("give 1-5 pictures"), std::string::npos) << six.err;
    const fs::path folder = dir / "sigs";
    fs::create_directories(folder);
    const auto toFolder = runCli({"backs", "enroll", "--deck", "X", "--out", folder.string(), view});
    EXPECT_EQ(toFolder.code, 2);
    EXPECT_NE(toFolder.err.find("is a folder"), std::string::npos) << toFolder.err;
    EXPECT_FALSE(fs::exists(folder.string() + ".part"));
    EXPECT_TRUE(fs::is_empty(folder));

    const auto noDeck = run({"deck", "enroll", "--deck", "Cy-green", enrolmentPicture(blue, 3, "b.png")});
    EXPECT_EQ(noDeck.code, 2);
    EXPECT_NE(noDeck.err.find("Cy-green"), std::string::npos) << noDeck.err;

    const std::string picture = table(1, 1, "t.jpg");
    const auto nothingEnrolled = run({"count", picture, "--json"});
    EXPECT_EQ(nothingEnrolled.code, 2) << nothingEnrolled.out;
    EXPECT_TRUE(nothingEnrolled.out.empty());

    ASSERT_EQ(run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code, 0);
    const auto unknownDeck = run({"count", picture, "--json", "--decks", "Zed"});
    EXPECT_EQ(unknownDeck.code, 2);
    EXPECT_NE(unknownDeck.err.find("Zed"), std::string::npos) << unknownDeck.err;

    const std::string truncated = (dir / "half.jpg").string();
    {
        const std::string whole = nertz::testing::slurp(picture);
        std::ofstream(truncated, std::ios::binary) << whole.substr(0, whole.size() / 3);
    }
    const auto aFolder = run({"count", dir.string(), "--json"});
    EXPECT_EQ(aFolder.code, 2);
    EXPECT_NE(aFolder.err.find("a folder, not a picture"), std::string::npos) << aFolder.err;
    const auto half = run({"count", truncated, "--json"});
    EXPECT_EQ(half.code, 2) << half.out;
    EXPECT_NE(half.err.find("half.jpg"), std::string::npos) << half.err;

    // a clip cut in half (its frame list with it), and a file named .avi that holds no video: one
    // line naming it (no video backend's own complaints before it, as OpenCV's MJPEG reader and
    // log printed them before 2026-11-29)
    const std::string clip = (dir / "clip.avi").string();
    {
        cv::VideoWriter out(clip, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 15.0, cv::Size(320, 240));
        ASSERT_TRUE(out.isOpened());
        for (int f = 0; f < 5; ++f) out.write(cv::Mat(240, 320, CV_8UC3, cv::Scalar::all(40 * f)));
    }
    const std::string cut = (dir / "cut.avi").string(), junk = (dir / "junk.avi").string();
    {
        const std::string whole = nertz::testing::slurp(clip);
        std::ofstream(cut, std::ios::binary) << whole.substr(0, whole.size() / 2);
    }
    std::ofstream(junk, std::ios::binary) << "RIFF" << std::string(100, '\0');
    for (const std::string& bad : {cut, junk}) {
        const auto r = run({"count", bad, "--json"});
        EXPECT_EQ(r.code, 2) << r.out;
        EXPECT_TRUE(r.out.empty()) << r.out;
        EXPECT_NE(r.err.find(fs::path(bad).filename().string()), std::string::npos) << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
}

// A picture far thinner than it is long (1 x 4000, 5000 x 2) keeps no pixel one way at the finder's
// working size: it shows no card, so the count is 0 (exit 0, with or without the face reader), not
// an OpenCV assertion reported as an internal error (exit 1, before 2026-11-29); enrolling from it
// finds no card (exit 2).
TEST_F(CountCli, APictureTooThinToShowACardCountsNoCards) {
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code, 0);
    for (const cv::Size size : {cv::Size(4000, 1), cv::Size(2, 5000)}) {
        const std::string thin = (dir / ("thin" + std::to_string(size.width) + ".png")).string();
        ASSERT_TRUE(cv::imwrite(thin, cv::Mat(size, CV_8UC3, cv::Scalar(40, 90, 160))));
        for (const bool faces : {true, false}) {
            std::vector<std::string> args{"count", thin, "--json"};
            if (!faces) args.push_back("--no-faces");
            const auto r = run(args);
            ASSERT_EQ(r.code, 0) << r.err;
            const Json j = Json::parse(r.out);
            EXPECT_EQ(j["counts"]["Ann-blue"], 0);
            EXPECT_EQ(j["unknown"], 0);
            EXPECT_TRUE(j["cards"].empty());
        }
        const auto enrol = run({"deck", "enroll", "--deck", "Bo-red", thin});
        EXPECT_EQ(enrol.code, 2);
        EXPECT_NE(enrol.err.find("no card back found"), std::string::npos) << enrol.err;
    }
}

// A real phone photo of one face-up card (the ten of diamonds, ../shared/data/real-cards, no back
// in it): without its faces read (`--no-faces`, the counter before) the back finder cuts the card's
// pips and the stone table around it into "cards", all unknown (~26 with the segmenter before
// 2026-11-29, 9 with the one fine-tuned on real photos); with them (the default) the
// cards on the face-up card and those far smaller than it are left out, reported as `face_up`
// (how many) and `face_up_cards` (their outlines).
// Without the face reader's models the count stops with exit 2 and says how to count without it.
TEST_F(CountCli, AFaceUpCardAndPiecesOfItsPrintAreNotCountedAsBacks) {
    const fs::path photo =
        fs::path(NERTZ_SHARED_DIR) / "data/real-cards/phone/images/IMG_20220921_194458.jpg";
    if (!fs::is_regular_file(photo)) GTEST_SKIP() << "no real photo at " << photo;
    ASSERT_EQ(
        run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code,
        0);
    auto found = [](const Json& j) {
        int n = j["unknown"].get<int>();
        for (const auto& [name, c] : j["counts"].items()) n += c.get<int>();
        return n;
    };
    const auto before = run({"count", photo.string(), "--json", "--no-faces"});
    ASSERT_EQ(before.code, 0) << before.err;
    const Json jb = Json::parse(before.out);
    EXPECT_FALSE(jb.contains("face_up"));
    const auto now = run({"count", photo.string(), "--json"});
    ASSERT_EQ(now.code, 0) << now.err;
    const Json jn = Json::parse(now.out);
    RecordProperty("found_without_faces", found(jb));
    RecordProperty("found_with_faces", found(jn));
    EXPECT_GE(found(jb), 5) << before.out;  // what the faces are needed for
    EXPECT_LE(found(jn), 2) << now.out;
    EXPECT_EQ(jn["counts"]["Ann-blue"], 0);
    EXPECT_EQ(jn["face_up"].get<int>() + found(jn), found(jb));
    EXPECT_EQ(jn["cards"].size(), std::size_t(found(jn)));
    ASSERT_EQ(jn["face_up_cards"].size(), jn["face_up"].get<std::size_t>());
    for (const auto& c : jn["face_up_cards"]) EXPECT_EQ(c["quad"].size(), 4u) << c.dump();
    // rows that look like no enrolled deck: how many strips left out, and their outlines
    ASSERT_EQ(jn["rows_left_out_cards"].size(), jn["rows_left_out"].get<std::size_t>());
    for (const auto& c : jn["rows_left_out_cards"]) EXPECT_EQ(c["quad"].size(), 4u) << c.dump();
    // the face reader's models not where --models says: exit 2, naming the way round it
    const auto noModels =
        run({"count", photo.string(), "--json", "--models", (dir / "none").string()});
    EXPECT_EQ(noModels.code, 2);
    EXPECT_NE(noModels.err.find("--no-faces"), std::string::npos) << noModels.err;
    EXPECT_TRUE(noModels.out.empty());
}

// A real webcam photo of face-up cards on a wooden desk (../shared/data/real-cards, no card face
// down): the back finder's segmenter explains little of what it takes for cards there (0.25; 0-0.5
// on most such photos that it takes anything of for cards, 0.56-1 on synthetic tables), so `count`
// says to check the count by eye, in --json as "message" beside "explained", and in the text
// output. (Until 2026-11-29 the picture was one of a white table and keyboard, of which the
// segmenter fine-tuned on real photos takes nothing for cards: no card, no warning.)
TEST_F(CountCli, APictureUnlikeATableOfBacksIsCountedWithAWarning) {
    const fs::path photo = fs::path(NERTZ_SHARED_DIR) /
                           "data/real-cards/webcam_table/images/WIN_20240627_11_36_36_Pro.jpg";
    if (!fs::is_regular_file(photo)) GTEST_SKIP() << "no real photo at " << photo;
    ASSERT_EQ(
        run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code,
        0);
    const auto r = run({"count", photo.string(), "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    RecordProperty("explained", std::to_string(j["explained"].get<double>()));
    EXPECT_LT(j["explained"].get<double>(), 0.5) << r.out;
    ASSERT_TRUE(j.contains("message")) << r.out;
    EXPECT_NE(j["message"].get<std::string>().find("check this count by eye"), std::string::npos);
    const auto text = run({"count", photo.string()});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("check this count by eye"), std::string::npos) << text.out;
}

// The real black deck of ../shared/data/real-cards enrolled from one of its photos (IMG_7736), then
// a photo of two of its cards beside a white mouse (IMG_7824) counted: the mouse's pieces look like
// the black back on every balanced term but lie far lighter against the picture; `count --json`
// lists them unknown with "likely" the deck and "lighter_than_deck", the text output says how many.
TEST_F(CountCli, CardsFarLighterThanTheirDeckAreListedAsSuch) {
    const fs::path photos = fs::path(NERTZ_SHARED_DIR) / "data/real-cards/phone/images";
    if (!fs::is_regular_file(photos / "IMG_7824.jpg")) GTEST_SKIP() << "no real photos at " << photos;
    enrolCyBlack(photos / "IMG_7736.jpg");
    if (HasFatalFailure()) return;
    const auto r = run({"count", (photos / "IMG_7824.jpg").string(), "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    int lighter = 0, unknown = 0;
    for (const auto& c : j["cards"]) {
        unknown += c["deck"] == "unknown" ? 1 : 0;
        if (!c.value("lighter_than_deck", false)) continue;
        ++lighter;
        EXPECT_EQ(c["deck"], "unknown") << c;
        EXPECT_EQ(c["likely"], "Cy-black") << c;
    }
    EXPECT_GE(lighter, 2) << r.out;
    EXPECT_EQ(j["unknown"].get<int>(), unknown);
    EXPECT_GE(j["counts"]["Cy-black"].get<int>(), 1) << r.out;  // the real backs stay the deck's
    const auto text = run({"count", (photos / "IMG_7824.jpg").string()});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("of the unknown: " + std::to_string(lighter) + " far lighter"), std::string::npos)
        << text.out;
}

// The same in a video: a real back and the white mouse of IMG_7824 (cut out where the still count
// outlined them) dealt through the view as a camera's MJPG clip, counted with `count CLIP`: each
// pass of the mouse is listed unknown, lighter than Cy-black, and the text says how many; each back
// is Cy-black's.
TEST_F(CountCli, CardsFarLighterThanTheirDeckInAVideoAreListedAsSuch) {
    const fs::path photos = fs::path(NERTZ_SHARED_DIR) / "data/real-cards/phone/images";
    if (!fs::is_regular_file(photos / "IMG_7824.jpg")) GTEST_SKIP() << "no real photos at " << photos;
    enrolCyBlack(photos / "IMG_7736.jpg");
    if (HasFatalFailure()) return;
    const auto still = run({"count", (photos / "IMG_7824.jpg").string(), "--json", "--decks", "Cy-black"});
    ASSERT_EQ(still.code, 0) << still.err;
    // the surest card given to the deck, and a card far lighter than it
    const Json stillJson = Json::parse(still.out);
    const Json* back = nullptr;
    const Json* mouse = nullptr;
    for (const auto& c : stillJson["cards"]) {
        if (c["deck"] == "Cy-black" && (!back || c["confidence"] > (*back)["confidence"])) back = &c;
        if (c.value("lighter_than_deck", false) && !mouse) mouse = &c;
    }
    ASSERT_TRUE(back && mouse) << still.out;
    auto quadOf = [](const Json& c) {
        vi::Quad q;
        for (std::size_t i = 0; i < 4; ++i)
            q[i] = cv::Point2f(c["quad"][i][0].get<float>(), c["quad"][i][1].get<float>());
        return q;
    };
    const cv::Mat img = cv::imread((photos / "IMG_7824.jpg").string(), cv::IMREAD_COLOR);
    ASSERT_FALSE(img.empty());
    vi::DealClipOptions o;
    o.size = {960, 540};
    o.cards = 12;
    o.through = true;
    const vi::DealClip clip = vi::renderDealClip(
        {nertz::testing::cutOutCard(img, quadOf(*back)), nertz::testing::cutOutCard(img, quadOf(*mouse))}, 47, o);
    const int mice = int(std::count(clip.decks.begin(), clip.decks.end(), 1));
    ASSERT_GE(mice, 2);
    ASSERT_LE(mice, 10);
    const std::string file = (dir / "mouse.avi").string();
    {
        cv::VideoWriter out(file, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 15.0, o.size);
        ASSERT_TRUE(out.isOpened());
        for (const auto& f : clip.frames) out.write(f);
    }
    const auto r = run({"count", file, "--json", "--decks", "Cy-black"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["counts"]["Cy-black"], o.cards - mice) << r.out;
    EXPECT_EQ(j["unknown"], mice) << r.out;
    ASSERT_EQ(j["cards"].size(), std::size_t(o.cards)) << r.out;
    for (std::size_t i = 0; i < j["cards"].size(); ++i) {  // in the order dealt
        const Json& c = j["cards"][i];
        if (clip.decks[i] == 1) {
            EXPECT_EQ(c["deck"], "unknown") << c;
            EXPECT_EQ(c.value("lighter_than_deck", false), true) << c;
            EXPECT_EQ(c["likely"], "Cy-black") << c;
        } else {
            EXPECT_EQ(c["deck"], "Cy-black") << c;
        }
    }
    const auto text = run({"count", file, "--decks", "Cy-black"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("of the unknown: " + std::to_string(mice) + " far lighter"), std::string::npos)
        << text.out;
}

// Most cards of a table given to no deck: here twelve of Bo's red cards and two of Ann's blue ones,
// with only Ann's deck enrolled. The segmenter explains the table well, but a count with 12 unknown
// cards of 14 says to check it by eye, and why (a deck of the table not enrolled, or a picture that is
// no table of backs: blurred colour noise is cut into ~200 card-sized pieces by the segmenter of
// 2026-11-29, almost all unknown). With Bo's deck enrolled too, no message.
TEST_F(CountCli, ACountOfMostlyUnknownCardsSaysToCheckItByEye) {
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code, 0);
    cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
    cv::RNG rng(5);
    for (int i = 0; i < 14; ++i) {  // a 5 x 3 grid, the last place empty
        const cv::Mat& art = i < 2 ? blue : red;
        const cv::Point2f c(1280.f * float(i % 5 + 0.5) / 5.f, 720.f * float(i / 5 + 0.5) / 3.f);
        const float h = 170.f, w = h * float(art.cols) / float(art.rows);
        vi::drawCard(img, art, cardQuad(c, float(rng.uniform(-0.5, 0.5)), w, h));
    }
    const std::string picture = (dir / "mostly-bo.jpg").string();
    cv::imwrite(picture, img, {cv::IMWRITE_JPEG_QUALITY, 85});
    const auto r = run({"count", picture, "--json", "--decks", "Ann-blue"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["counts"]["Ann-blue"], 2) << r.out;
    EXPECT_EQ(j["unknown"], 12) << r.out;
    EXPECT_GE(j["explained"].get<double>(), 0.5) << r.out;
    ASSERT_TRUE(j.contains("message")) << r.out;
    const std::string m = j["message"].get<std::string>();
    EXPECT_NE(m.find("check this count by eye"), std::string::npos) << m;
    EXPECT_NE(m.find("12 of the 14 cards found belong to no enrolled deck"), std::string::npos) << m;
    const auto text = run({"count", picture, "--decks", "Ann-blue"});
    ASSERT_EQ(text.code, 0) << text.err;
    EXPECT_NE(text.out.find("belong to no enrolled deck"), std::string::npos) << text.out;
    // both decks enrolled: every card has its deck, no message
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Bo-red", enrolmentPicture(red, 2, "red.png")}).code, 0);
    const auto both = run({"count", picture, "--json"});
    ASSERT_EQ(both.code, 0) << both.err;
    const Json jb = Json::parse(both.out);
    EXPECT_EQ(jb["counts"], Json::parse(R"({"Ann-blue":2,"Bo-red":12})")) << both.out;
    EXPECT_FALSE(jb.contains("message")) << both.out;
}

// A ribbon spread so tight that each strip shows under an eighth of its card (vision::kNarrowStrip)
// with cards of a deck not enrolled: they are unknown, and `count` asks for a wider spread; each
// strip gives the share of its card it shows. Spread to a quarter of a card, no such message. (With
// the edge finder before 2026-11-29 a spread of 0.37 of a card was read as 17 strips for these 12
// cards; retrained with wide ribbons it reads 12 at 0.37, 0.44 and 0.51: BACKS.md, "Wide ribbon
// spreads".)
TEST_F(CountCli, ANarrowRibbonOfUnknownStripsAsksForAWiderSpread) {
    ASSERT_EQ(run({"deck", "enroll", "--deck", "Ann-blue", enrolmentPicture(blue, 1, "blue.png")}).code, 0);
    auto ribbon = [&](float shift, const std::string& name) {
        cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
        const float h = 200.f, w = h * float(blue.cols) / float(blue.rows), step = h * shift;
        const int n = 12;
        for (int i = 0; i < n; ++i)  // every third card Bo's (not enrolled)
            vi::drawCard(img, i % 3 == 1 ? red : blue,
                         cardQuad({640.f + (float(i) - float(n - 1) / 2.f) * step, 360.f}, 0.f, w, h));
        const std::string p = (dir / name).string();
        cv::imwrite(p, img, {cv::IMWRITE_JPEG_QUALITY, 90});
        const auto r = run({"count", p, "--json", "--decks", "Ann-blue"});
        EXPECT_EQ(r.code, 0) << r.err;
        return Json::parse(r.out);
    };
    const Json narrow = ribbon(0.06f, "narrow.jpg");
    int strips = 0, unknownNarrow = 0;
    for (const auto& c : narrow["cards"])
        if (c.value("strip", false)) {
            ++strips;
            EXPECT_LT(c["strip_share"].get<double>(), 0.125) << c;
            if (c["deck"] == "unknown") ++unknownNarrow;
        }
    EXPECT_GE(strips, 10) << narrow;
    ASSERT_GE(unknownNarrow, 1) << narrow;
    ASSERT_TRUE(narrow.contains("message")) << narrow;
    const std::string m = narrow["message"].get<std::string>();
    EXPECT_NE(m.find(std::to_string(unknownNarrow) + " unknown card"), std::string::npos) << m;
    EXPECT_NE(m.find("spread the ribbon wider"), std::string::npos) << m;
    const Json wide = ribbon(0.18f, "wide.jpg");
    EXPECT_GE(wide["unknown"].get<int>(), 1) << wide;
    for (const auto& c : wide["cards"]) {
        if (c.value("strip", false)) {
            EXPECT_GT(c["strip_share"].get<double>(), 0.2) << c;
        }
    }
    EXPECT_FALSE(wide.contains("message")) << wide;
}

// `eval-backs DIR`: the back finder against a folder labelled like ../shared/data/real-cards, whose
// face-down cards are class BACK polygons (shares of the picture). Three drawn backs are found,
// each on its labelled outline; an empty cloth gives none; a BACK line that is neither a box nor a
// polygon is refused with the file and line named, exit 2.
TEST_F(CountCli, EvalBacksScoresTheFinderOnALabelledFolder) {
    const fs::path set = dir / "labelled";
    fs::create_directories(set / "images");
    fs::create_directories(set / "labels");
    { std::ofstream(set / "classes.txt") << "AS\nBACK\n"; }
    cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
    std::ofstream label(set / "labels" / "three.txt");
    for (int i = 0; i < 3; ++i) {
        const cv::Point2f c(260.f + 380.f * float(i), 360.f);
        const float a = 0.4f * float(i), h = 200.f, w = h * float(blue.cols) / float(blue.rows);
        const cv::Point2f u(std::cos(a), std::sin(a)), v(-std::sin(a), std::cos(a));
        const vi::Quad q{c - u * (w / 2) - v * (h / 2), c + u * (w / 2) - v * (h / 2),
                         c + u * (w / 2) + v * (h / 2), c - u * (w / 2) + v * (h / 2)};
        vi::drawCard(img, i == 1 ? red : blue, q);
        label << 1;
        for (const auto& p : q) label << " " << p.x / 1280.f << " " << p.y / 720.f;
        label << "\n";
    }
    label.close();
    cv::imwrite((set / "images" / "three.jpg").string(), img, {cv::IMWRITE_JPEG_QUALITY, 90});
    cv::imwrite((set / "images" / "cloth.jpg").string(),
                cv::Mat(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30)));
    { std::ofstream(set / "labels" / "cloth.txt"); }

    const auto r = runCli({"eval-backs", set.string(), "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const Json j = Json::parse(r.out);
    EXPECT_EQ(j["all"]["pictures"], 2);
    EXPECT_EQ(j["all"]["labelled"], 3);
    EXPECT_EQ(j["all"]["matched"], 3);
    EXPECT_EQ(j["all"]["found"], 3);
    EXPECT_EQ(j["all"]["exact_pictures"], 1);
    EXPECT_EQ(j["all"]["found_on_pictures_without_backs"], 0);

    { std::ofstream(set / "labels" / "three.txt") << "1 0.5 0.5 0.1\n"; }
    const auto bad = runCli({"eval-backs", set.string()});
    EXPECT_EQ(bad.code, 2);
    EXPECT_NE(bad.err.find("three.txt:1"), std::string::npos) << bad.err;
    EXPECT_TRUE(bad.out.empty());
}
