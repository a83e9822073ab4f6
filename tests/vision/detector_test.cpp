// Detector: accuracy on real labelled photos and on synthetic held-out designs; bad frames; grouping.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "nertz/vision.hpp"

using namespace nertz;
using namespace nertz::vision;
namespace fs = std::filesystem;

namespace {

const std::string kReal = std::string(NERTZ_SHARED_DIR) + "/data/real-cards";

bool modelPresent() {
    return fs::exists(fs::path(resolveModelDir()) / kIndexModelFile) && fs::exists(fs::path(resolveModelDir()) / kGateModelFile);
}

Detector& detector() {
    static Detector d;  // loads the model of the source tree (or $NERTZ_MODEL_DIR) once per test run
    return d;
}

// The trained models are committed (models/), so a missing one is a failure, not a skip.
#define NERTZ_REQUIRE_MODEL() \
    if (!modelPresent()) GTEST_FAIL() << "models/" << kIndexModelFile << " or " << kGateModelFile << " missing in " \
                                      << resolveModelDir() << " (models/MODEL.md says how to retrain)"

// The real photos live outside the repository (../shared/data, CC BY 4.0); where a checkout has
// none beside it, the tests that read them say so and skip.
#define NERTZ_REQUIRE_REAL_PHOTOS() \
    if (!fs::is_directory(kReal)) GTEST_SKIP() << "no real photos at " << kReal << " (../shared/data is not part of the repository)"

CardScore scoreGroup(const std::string& group, int every) {
    CardScore s;
    std::map<std::string, long> conf;
    auto items = loadLabelledFolder(kReal + "/" + group);
    for (std::size_t i = 0; i < items.size(); i += every) {
        std::set<scoring::Card> pred;
        for (const auto& c : detector().detect(loadImage(items[i].imagePath)).cards)
            if (c.face) pred.insert(*c.face);
        scoreImage(items[i].truth, pred, s, conf);
    }
    std::cout << group << " (every " << every << "-th picture): precision " << s.precision() << " recall " << s.recall()
              << " (tp " << s.truePositives << " fp " << s.falsePositives << " fn " << s.falseNegatives << ")\n";
    return s;
}

}  // namespace

TEST(Detector, MissingModelIsAClearError) {
    DetectorOptions o;
    o.modelDir = "/nonexistent/models";
    try {
        Detector d(o);
        FAIL() << "expected ModelError";
    } catch (const ModelError& e) {
        EXPECT_NE(std::string(e.what()).find("index_cnn.onnx"), std::string::npos);
    }
}

TEST(Detector, BadFramesGiveAnErrorOrNothing) {
    NERTZ_REQUIRE_MODEL();
    EXPECT_THROW(detector().detect(cv::Mat()), ImageError);
    EXPECT_THROW(detector().detect(cv::Mat(7000, 7000, CV_8UC1, cv::Scalar(0))), ImageError);  // 49 MP > limit
    for (const cv::Mat& m : {cv::Mat(480, 640, CV_8UC3, cv::Scalar(0, 0, 0)), cv::Mat(480, 640, CV_8UC1, cv::Scalar(255)),
                             cv::Mat(1, 1, CV_8UC3, cv::Scalar(9, 9, 9)), cv::Mat(3, 2000, CV_16UC4, cv::Scalar(1, 2, 3, 4))}) {
        Detection d = detector().detect(m);
        EXPECT_EQ(d.width, m.cols);
        for (const auto& c : d.cards) EXPECT_FALSE(c.face.has_value());
    }
}

TEST(Detector, GrayscaleAndAlphaVersionsOfARealPhotoStillRead) {
    NERTZ_REQUIRE_MODEL();
    NERTZ_REQUIRE_REAL_PHOTOS();
    auto items = loadLabelledFolder(kReal + "/webcam_table");
    ASSERT_FALSE(items.empty());
    cv::Mat bgr = loadImage(items[0].imagePath), gray, bgra;
    cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
    cv::cvtColor(bgr, bgra, cv::COLOR_BGR2BGRA);
    for (const cv::Mat& m : {gray, bgra}) {
        std::set<scoring::Card> pred;
        for (const auto& c : detector().detect(m).cards)
            if (c.face) pred.insert(*c.face);
        int hits = 0;
        for (const auto& t : items[0].truth) hits += int(pred.count(t));
        EXPECT_GE(hits, int(items[0].truth.size()) / 2);
    }
}

TEST(Detector, TwoCornersOfOneCardAreOneCard) {
    IndexReading a, b;
    a.face = b.face = scoring::Card{10, scoring::Suit::Hearts};
    a.centre = {100, 100};
    b.centre = {160, 190};
    a.scale = b.scale = 15;
    a.confidence = b.confidence = 0.99f;
    IndexReading far = a;
    far.centre = {600, 600};  // another deck's 10H, far away
    auto cards = groupIndices({a, b, far}, {});
    ASSERT_EQ(cards.size(), 2u);
    EXPECT_EQ(cards[0].indices.size() + cards[1].indices.size(), 3u);
}

// The real photos' pairs: a card's two corner indices are 8-13 rank-to-pip distances apart, past the
// plain 9x reach, and were reported as two cards (49 extra cards on webcam_table). Printed half a
// turn from each other, each below the other as it reads, they are one card; the same face in the
// same place but turned the same way (another deck's card lying beside it) is not.
TEST(Detector, OppositeCornersOfOneCardAreOneCardAtACardsDiagonal) {
    IndexReading top, bottom;
    top.face = bottom.face = scoring::Card{8, scoring::Suit::Diamonds};
    top.scale = bottom.scale = 14;
    top.confidence = bottom.confidence = 0.98f;
    // a card turned 30 degrees: its up is (sin 30, -cos 30) in image coordinates (y down)
    const float a = float(CV_PI / 6);
    top.up = {std::sin(a), -std::cos(a)};
    bottom.up = -top.up;
    const cv::Point2f down = -top.up, right(-down.y, down.x);
    top.centre = {300, 200};
    bottom.centre = top.centre + down * (9.5f * 14) + right * (6.f * 14);  // 11.2 scales apart
    ASSERT_GT(cv::norm(bottom.centre - top.centre), 9.0 * 14);
    auto cards = groupIndices({top, bottom}, {});
    ASSERT_EQ(cards.size(), 1u);
    EXPECT_EQ(cards[0].indices.size(), 2u);

    IndexReading other = bottom;  // the same face, turned like `top`: another deck's card
    other.up = top.up;
    cards = groupIndices({top, other}, {});
    EXPECT_EQ(cards.size(), 2u);
    IndexReading above = bottom;  // turned half a turn, but above `top` as it reads: not its card
    above.centre = top.centre - down * (9.5f * 14) + right * (6.f * 14);
    cards = groupIndices({top, above}, {});
    EXPECT_EQ(cards.size(), 2u);
    IndexReading farAway = bottom;  // opposite and below, but two cards' lengths away
    farAway.centre = top.centre + down * (20.f * 14);
    cards = groupIndices({top, farAway}, {});
    EXPECT_EQ(cards.size(), 2u);
}

TEST(Detector, AnOutlineAroundSeveralFacesIsNoCardsOutline) {
    IndexReading kd, jh, lone;
    kd.face = scoring::Card{13, scoring::Suit::Diamonds};
    jh.face = scoring::Card{11, scoring::Suit::Hearts};
    lone.face = scoring::Card{2, scoring::Suit::Clubs};
    kd.centre = {100, 100};
    jh.centre = {200, 120};
    lone.centre = {500, 300};
    kd.scale = jh.scale = lone.scale = 15;
    kd.confidence = jh.confidence = lone.confidence = 0.99f;
    CardOutline spread, card;  // a bright region around two cards' indices; one card's own outline
    spread.quad = {cv::Point2f(50, 50), cv::Point2f(300, 50), cv::Point2f(300, 250), cv::Point2f(50, 250)};
    card.quad = {cv::Point2f(460, 240), cv::Point2f(560, 240), cv::Point2f(560, 380), cv::Point2f(460, 380)};
    spread.side = card.side = Side::Face;
    const auto cards = groupIndices({kd, jh, lone}, {spread, card});
    ASSERT_EQ(cards.size(), 3u);  // no fourth "card" made of the spread's outline
    for (const auto& c : cards) {
        ASSERT_TRUE(c.face);
        if (*c.face == lone.face) {
            ASSERT_TRUE(c.quad);
            EXPECT_EQ((*c.quad)[0], card.quad[0]);
        } else {
            EXPECT_FALSE(c.quad) << c.face->name();
        }
    }
}

TEST(RealCards, WebcamTableAccuracy) {
    NERTZ_REQUIRE_MODEL();
    NERTZ_REQUIRE_REAL_PHOTOS();
    // reader v3 at the 960-1280 px working size on this subset: precision 0.907, recall 0.767
    // (v2 at 1024 px: 0.855 / 0.577)
    CardScore s = scoreGroup("webcam_table", 2);
    EXPECT_GE(s.precision(), 0.88) << "tp " << s.truePositives << " fp " << s.falsePositives;
    EXPECT_GE(s.recall(), 0.74) << "tp " << s.truePositives << " fn " << s.falseNegatives;
}

TEST(RealCards, PhoneAccuracy) {
    NERTZ_REQUIRE_MODEL();
    NERTZ_REQUIRE_REAL_PHOTOS();
    // reader v3 at the 960-1280 px working size on this subset: precision 0.924, recall 0.836
    // (v2 at 1024 px: 0.862 / 0.767)
    CardScore s = scoreGroup("phone", 6);
    EXPECT_GE(s.precision(), 0.89) << "tp " << s.truePositives << " fp " << s.falsePositives;
    EXPECT_GE(s.recall(), 0.79) << "tp " << s.truePositives << " fn " << s.falseNegatives;
}

TEST(Evaluation, CardLevelScoringFollowsTheReadme) {
    CardScore s;
    std::map<std::string, long> conf;
    using scoring::Card;
    using scoring::Suit;
    scoreImage({Card{10, Suit::Hearts}, Card{1, Suit::Spades}}, {Card{10, Suit::Hearts}, Card{1, Suit::Clubs}}, s, conf);
    EXPECT_EQ(s.truePositives, 1);
    EXPECT_EQ(s.falsePositives, 1);
    EXPECT_EQ(s.falseNegatives, 1);
    EXPECT_EQ(conf["AS->AC"], 1);
}
