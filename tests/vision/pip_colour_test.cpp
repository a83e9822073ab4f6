// The pip's ink as suit evidence: drawn pips of each colour, the reading conditioned on the ink,
// and grayscale pictures, where colour says nothing.
#include <gtest/gtest.h>

#include <numeric>

#include <opencv2/imgproc.hpp>

#include "nertz/vision/pip_colour.hpp"

using namespace nertz;
using namespace nertz::vision;

namespace {

// A card-white picture with one filled pip of radius 5 at (60, 60) in the given BGR ink, and a
// rank glyph 18 px above it (rank-to-pip distance d = 18).
cv::Mat pipPicture(cv::Scalar ink, cv::Scalar paper = {235, 240, 242}) {
    cv::Mat m(120, 120, CV_8UC3, paper);
    cv::circle(m, {60, 60}, 5, ink, cv::FILLED, cv::LINE_AA);
    cv::putText(m, "7", {54, 48}, cv::FONT_HERSHEY_SIMPLEX, 0.5, ink, 2, cv::LINE_AA);
    return m;
}

// The probability the reading gives the face called `name`.
float prob(const PatchReading& r, const std::string& name) {
    for (int c = 0; c < 52; ++c)
        if (cardOfClass(c).name() == name) return r.faces[std::size_t(c)];
    return -1.f;
}

PatchReading reading(std::initializer_list<std::pair<const char*, float>> faces) {
    PatchReading r;
    r.passedGate = true;
    for (const auto& [name, p] : faces)
        for (int c = 0; c < 52; ++c)
            if (cardOfClass(c).name() == name) r.faces[std::size_t(c)] = p;
    const auto best = std::max_element(r.faces.begin(), r.faces.end());
    const float index = std::accumulate(r.faces.begin(), r.faces.end(), 0.f);
    r.confidence = std::max(*best, 1.f - index);
    if (*best > 1.f - index) r.face = cardOfClass(int(best - r.faces.begin()));
    return r;
}

}  // namespace

TEST(PipColour, RedInkIsRedBlackInkNeutralOtherInksSayNothing) {
    const cv::Point2f pip(60.f, 60.f);
    EXPECT_EQ(pipInk(pipPicture({30, 30, 200}), pip, 18.f), PipInk::Red);     // a printed red
    EXPECT_EQ(pipInk(pipPicture({60, 80, 190}), pip, 18.f), PipInk::Red);     // a dull, orange red
    EXPECT_EQ(pipInk(pipPicture({25, 25, 25}), pip, 18.f), PipInk::Neutral);  // black
    EXPECT_EQ(pipInk(pipPicture({90, 90, 90}), pip, 18.f), PipInk::Neutral);  // grey
    EXPECT_EQ(pipInk(pipPicture({40, 150, 40}), pip, 18.f),
              PipInk::Unknown);  // a 4-colour deck's green
    EXPECT_EQ(pipInk(pipPicture({200, 90, 30}), pip, 18.f), PipInk::Unknown);   // blue
    EXPECT_EQ(pipInk(pipPicture({200, 40, 200}), pip, 18.f), PipInk::Unknown);  // magenta
    // black ink under a strong warm light: the paper's cast is taken off, but a cast scales with
    // the light, so the dark ink is left bluish against it; never red
    EXPECT_NE(pipInk(pipPicture({20, 35, 60}, {150, 200, 245}), pip, 18.f), PipInk::Red);
    // light ink on a dark face (an inverted deck): still ink, still its colour
    EXPECT_EQ(pipInk(pipPicture({235, 235, 235}, {40, 40, 40}), pip, 18.f), PipInk::Neutral);
    // no ink at the centre (bare paper), the ring off the picture, no distance
    EXPECT_EQ(pipInk(pipPicture({30, 30, 200}), {20.f, 100.f}, 18.f), PipInk::Unknown);
    EXPECT_EQ(pipInk(pipPicture({30, 30, 200}), {3.f, 60.f}, 18.f), PipInk::Unknown);
    EXPECT_EQ(pipInk(pipPicture({30, 30, 200}), pip, 0.f), PipInk::Unknown);
}

TEST(PipColour, TheInkConditionsTheReadingOnItsSuits) {
    // the reader's 2S 0.60 / 2D 0.25 / 2C 0.05 (p(index) 0.90): red ink makes it the two of
    // diamonds
    PatchReading r = reading({{"2S", 0.60f}, {"2D", 0.25f}, {"2C", 0.05f}});
    ASSERT_TRUE(r.face);
    EXPECT_EQ(r.face->name(), "2S");
    conditionOnInk(r, PipInk::Red);
    ASSERT_TRUE(r.face);
    EXPECT_EQ(r.face->name(), "2D");
    EXPECT_NEAR(r.confidence, 0.90f, 1e-5f);  // all of p(index) on the one red face it had
    EXPECT_NEAR(std::accumulate(r.faces.begin(), r.faces.end(), 0.f), 0.90f, 1e-5f);

    // neutral ink keeps the spade and gives it the clubs-or-spades share of p(index)
    PatchReading n = reading({{"2S", 0.60f}, {"2D", 0.25f}, {"2C", 0.05f}});
    conditionOnInk(n, PipInk::Neutral);
    ASSERT_TRUE(n.face);
    EXPECT_EQ(n.face->name(), "2S");
    EXPECT_NEAR(n.confidence, 0.90f * 0.60f / 0.65f, 1e-5f);

    // unknown ink, a patch the gate dropped, or ink that rules out every face read: no change
    for (PatchReading u : {reading({{"2S", 0.6f}}), reading({{"9H", 0.3f}})}) {
        const PatchReading before = u;
        conditionOnInk(u, PipInk::Unknown);
        EXPECT_EQ(u.faces, before.faces);
        u.passedGate = false;
        conditionOnInk(u, PipInk::Red);
        EXPECT_EQ(u.faces, before.faces);
    }
    PatchReading black = reading({{"KS", 0.7f}, {"KC", 0.2f}});
    conditionOnInk(black, PipInk::Red);
    ASSERT_TRUE(black.face);
    EXPECT_EQ(black.face->name(), "KS");
    EXPECT_FLOAT_EQ(black.confidence, 0.7f);

    // "not an index" still wins where the reader said so: 0.55 against 0.45 on two faces
    PatchReading weak = reading({{"5H", 0.25f}, {"5S", 0.20f}});
    ASSERT_FALSE(weak.face);
    conditionOnInk(weak, PipInk::Red);
    EXPECT_FALSE(weak.face);
    EXPECT_NEAR(prob(weak, "5H"), 0.45f, 1e-5f);
    EXPECT_EQ(prob(weak, "5S"), 0.f);
}

TEST(PipColour, AGrayscalePictureIsColourless) {
    cv::Mat colour = pipPicture({30, 30, 200});
    cv::rectangle(colour, {0, 0, 120, 30}, cv::Scalar(40, 120, 30), cv::FILLED);  // a green cloth
    EXPECT_FALSE(colourless(colour));
    cv::Mat gray, gray3;
    cv::cvtColor(colour, gray, cv::COLOR_BGR2GRAY);
    cv::cvtColor(gray, gray3, cv::COLOR_GRAY2BGR);
    EXPECT_TRUE(colourless(gray3));
    EXPECT_TRUE(colourless(cv::Mat(3, 3, CV_8UC3, cv::Scalar(128, 128, 128))));
}

TEST(PipColour, ALitKeysGlowIsNotACard) {
    // a backlit keyboard's green or violet key glyph: lighter than its ground, strongly coloured
    const cv::Point2f pip(60.f, 60.f);
    EXPECT_EQ(pipInk(pipPicture({80, 255, 60}, {30, 30, 30}), pip, 18.f), PipInk::Glow);
    EXPECT_EQ(pipInk(pipPicture({255, 60, 200}, {25, 20, 30}), pip, 18.f), PipInk::Glow);
    EXPECT_EQ(pipInk(pipPicture({255, 170, 40}, {40, 30, 20}), pip, 18.f), PipInk::Glow);  // blue
    // the light inks a dark-faced deck prints are no glow: white, gold, red
    EXPECT_EQ(pipInk(pipPicture({235, 235, 235}, {40, 40, 40}), pip, 18.f), PipInk::Neutral);
    EXPECT_NE(pipInk(pipPicture({60, 180, 220}, {20, 20, 20}), pip, 18.f), PipInk::Glow);  // gold
    EXPECT_NE(pipInk(pipPicture({60, 60, 230}, {20, 20, 20}), pip, 18.f), PipInk::Glow);   // red
    // a 4-colour deck's green or blue is printed darker than its paper: no glow either
    EXPECT_NE(pipInk(pipPicture({40, 150, 40}), pip, 18.f), PipInk::Glow);
    EXPECT_NE(pipInk(pipPicture({200, 90, 30}), pip, 18.f), PipInk::Glow);

    // a glow reading is "not an index", however sure the reader was of its face
    PatchReading r = reading({{"AH", 0.93f}, {"AD", 0.02f}});
    ASSERT_TRUE(r.face);
    conditionOnInk(r, PipInk::Glow);
    EXPECT_FALSE(r.face);
    EXPECT_FLOAT_EQ(std::accumulate(r.faces.begin(), r.faces.end(), 0.f), 0.f);
}
