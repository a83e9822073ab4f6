// Back signatures, attribution, picture counting (loose and ribbon) and stream counting, on real
// back artwork from gnome-cards-data (rendered by render_test_backs.sh) composed into scenes and
// MJPG videos written and read back with OpenCV.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include <unistd.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "nertz/synth/card_art.hpp"
#include "nertz/synth/scene.hpp"
#include "nertz/vision/back_render.hpp"
#include "nertz/vision/back_segmenter.hpp"
#include "nertz/vision/evaluation.hpp"
#include "nertz/vision/index_reader.hpp"
#include "nertz/vision/lake_counter.hpp"
#include "nertz/vision/stream_counter.hpp"

#include "card_quad.hpp"
#if defined(__x86_64__)
#include "../../vision/src/backs/conv1d_avx2.hpp"  // internal: the ribbon net's convolutions
#endif

namespace vi = nertz::vision;
namespace fs = std::filesystem;

namespace {

cv::Mat loadBack(const std::string& design) {
    const std::string path = std::string(NERTZ_TEST_BACKS_DIR) + "/" + design + ".png";
    cv::Mat m = cv::imread(path, cv::IMREAD_UNCHANGED);
    if (m.empty() || m.type() != CV_8UC4) throw std::runtime_error("test artwork missing: " + path);
    return m;
}

// The four test decks: a blue and a red deck of one design (the common pair), and two others.
struct Decks {
    std::vector<std::string> names{"Ann-blue", "Bo-red", "Cy-lattice", "Di-clubs"};
    std::vector<cv::Mat> art;
    vi::BackMatcher matcher;
    Decks() {
        const cv::Mat bellot = loadBack("bellot");
        art = {bellot, nertz::synth::recolourBack(bellot, 140.0), loadBack("anglo"),
               loadBack("ornamental")};
        for (std::size_t i = 0; i < art.size(); ++i) {
            const auto v = vi::renderEnrolmentView(art[i], 100 + i);
            matcher.add(names[i], vi::makeBackSignature(v.image, v.quad));
        }
    }
};

const Decks& decks() {
    static const Decks d;
    return d;
}

// A 1280x720 green cloth with a grain drawn from `rng`.
cv::Mat greenCloth(cv::RNG& rng) {
    cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
    cv::Mat grain(img.size(), CV_8UC3);
    rng.fill(grain, cv::RNG::UNIFORM, 0, 12);
    return img + grain;
}

using nertz::testing::cardQuad;

// A design for the scene generator that shows only its back `back` (its 52 faces are the back too:
// backs and loose scenes never show a face).
nertz::synth::CardDesign backOnlyDesign(const std::string& name, const cv::Mat& back) {
    nertz::synth::CardDesign d;
    d.name = name;
    d.package = "test";
    for (int i = 0; i < 52; ++i) {
        nertz::synth::FaceArt f;
        f.name = std::to_string(i);
        f.image = back;
        d.faces.push_back(f);
    }
    d.backs.push_back({"back", back});
    return d;
}

// The four test decks' backs as generator designs (backOnlyDesign), alive for the whole run: a
// SceneGenerator keeps a reference to its designs.
const std::vector<nertz::synth::CardDesign>& testBackDesigns() {
    static const std::vector<nertz::synth::CardDesign> designs = [] {
        std::vector<nertz::synth::CardDesign> d;
        for (std::size_t k = 0; k < decks().art.size(); ++k)
            d.push_back(backOnlyDesign("test" + std::to_string(k), decks().art[k]));
        return d;
    }();
    return designs;
}

// The generator's loose sorts of those designs.
const nertz::synth::SceneGenerator& testBackLooseSorts() {
    namespace sy = nertz::synth;
    static const sy::SceneGenerator gen(testBackDesigns(), [] {
        sy::SceneOptions o;
        o.kind = sy::SceneKind::Loose;
        return o;
    }());
    return gen;
}

// The face-down cards of a generated scene that eval-count scores: showing 5% of themselves or more.
int faceDownShown(const nertz::synth::Scene& s) {
    int n = 0;
    for (const auto& c : s.cards) n += !c.faceUp && c.visibleFraction >= 0.05 ? 1 : 0;
    return n;
}

// Two finders over `seeds` scenes of `gen`: the summed |found - truth(scene)| of each and how many
// scenes they count otherwise, each scene's counts printed (`what` names the scenes, `other` the
// second finder).
struct TwoFinderErrors {
    int with = 0, without = 0, changed = 0;
};
TwoFinderErrors countWithAndWithout(const nertz::synth::SceneGenerator& gen, std::uint64_t seeds,
                                    const vi::BackFinderOptions& with, const vi::BackFinderOptions& without,
                                    int (*truthOf)(const nertz::synth::Scene&), const std::string& what,
                                    const std::string& other) {
    TwoFinderErrors e;
    for (std::uint64_t seed = 0; seed < seeds; ++seed) {
        const nertz::synth::Scene s = gen.generate(seed);
        const int truth = truthOf(s);
        const int got = int(vi::findBackCards(s.image, with).size());
        const int old = int(vi::findBackCards(s.image, without).size());
        e.with += std::abs(got - truth);
        e.without += std::abs(old - truth);
        e.changed += got != old ? 1 : 0;
        std::cerr << what << " " << seed << ": " << truth << " cards, found " << got << ", " << other << " " << old << "\n";
    }
    std::cerr << what << "s: |found - true| " << e.with << " (" << e.without << " " << other << "), " << e.changed
              << " scenes counted otherwise\n";
    return e;
}

// The mean distance of `q`'s corners to the corners of the nearest card of `truth`, in either
// corner order and from any first corner.
double nearestCardCornerError(const vi::Quad& q, const std::vector<vi::Quad>& truth) {
    double best = 1e9;
    for (const auto& t : truth)
        for (int dir = 0; dir < 2; ++dir)
            for (int k = 0; k < 4; ++k) {
                double e = 0;
                for (int i = 0; i < 4; ++i)
                    e += cv::norm(q[std::size_t(dir ? (k - i + 4) % 4 : (k + i) % 4)] - t[std::size_t(i)]) / 4;
                best = std::min(best, e);
            }
    return best;
}

// The corner error (nearestCardCornerError) of the found outline nearest to the card `t`.
double nearestFoundError(const std::vector<vi::BackCandidate>& found, const vi::Quad& t) {
    double best = 1e9;
    for (const auto& f : found) best = std::min(best, nearestCardCornerError(f.quad, {t}));
    return best;
}

// `img` coded as a JPEG of `quality` and decoded again, as a camera's picture arrives.
cv::Mat jpegCoded(const cv::Mat& img, int quality) {
    std::vector<uchar> jpg;
    cv::imencode(".jpg", img, jpg, {cv::IMWRITE_JPEG_QUALITY, quality});
    return cv::imdecode(jpg, cv::IMREAD_COLOR);
}

// `img` as a camera under a coloured light sees it: each channel scaled by `cast` (B, G, R), a
// Gaussian blur of `sigma` pixels, then JPEG of `quality`.
cv::Mat castBlurredJpeg(const cv::Mat& img, const cv::Scalar& cast, double sigma, int quality) {
    cv::Mat f, out;
    img.convertTo(f, CV_32FC3);
    f = f.mul(cast);
    cv::GaussianBlur(f, f, cv::Size(0, 0), sigma);
    f.convertTo(out, CV_8UC3);
    return jpegCoded(out, quality);
}

// A ribbon row drawn into `img`: `n` cards `h` tall (0.69 h wide) centred on `mid`, each `step`
// further along the angle `a` (the cards' long side across the row), each of a test deck drawn
// from `rng`. Returns the decks in the order dealt.
std::vector<int> drawRow(cv::Mat& img, cv::RNG& rng, cv::Point2f mid, float h, float step, int n,
                         float a) {
    const float w = h * 0.69f;
    const cv::Point2f u(std::cos(a), std::sin(a));
    const cv::Point2f start = mid - u * ((n - 1) * step / 2);
    std::vector<int> deckOf;
    for (int i = 0; i < n; ++i) {
        const int d = rng.uniform(0, 4);
        deckOf.push_back(d);
        const cv::Point2f c = start + u * (i * step);
        vi::drawCard(img, decks().art[std::size_t(d)], cardQuad(c, a, w, h));
    }
    return deckOf;
}

// A table with loose cards on a grid: random turn (any angle, so also upside down), a tilted
// camera's corner offsets, a light gradient, a glare spot and JPEG coding.
struct Scene {
    cv::Mat image;
    std::vector<int> deckOf;
    std::vector<vi::Quad> quads;
};

Scene looseScene(std::uint64_t seed, int cols, int rows) {
    cv::RNG rng(seed);
    Scene s;
    s.image = greenCloth(rng);
    const float h = 150.f;
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            const int d = rng.uniform(0, 4);
            const cv::Mat& art = decks().art[std::size_t(d)];
            const float w = h * float(art.cols) / float(art.rows);
            const cv::Point2f centre(1280.f * (c + 0.5f) / cols + float(rng.uniform(-15, 15)),
                                     720.f * (r + 0.5f) / rows + float(rng.uniform(-10, 10)));
            const float a = float(rng.uniform(0.0, 6.283));
            vi::Quad q = cardQuad(centre, a, w, h);
            for (auto& p : q)
                p += cv::Point2f(float(rng.uniform(-4, 4)), float(rng.uniform(-4, 4)));
            vi::drawCard(s.image, art, q);
            s.deckOf.push_back(d);
            s.quads.push_back(q);
        }
    // uneven light (left half darker) and a soft glare spot
    cv::Mat f;
    s.image.convertTo(f, CV_32FC3);
    for (int x = 0; x < f.cols; ++x) f.col(x) *= 0.6 + 0.5 * x / f.cols;
    cv::Mat glare(f.size(), CV_32F, cv::Scalar(0));
    cv::circle(glare, {rng.uniform(200, 1000), rng.uniform(150, 550)}, 60, cv::Scalar(90),
               cv::FILLED);
    cv::GaussianBlur(glare, glare, cv::Size(0, 0), 30);
    cv::Mat glare3;
    cv::merge(std::vector<cv::Mat>{glare, glare, glare}, glare3);
    f += glare3;
    f.convertTo(s.image, CV_8UC3);
    s.image = jpegCoded(s.image, 75);
    return s;
}

// The outlines of the face-down cards (class BACK) of a real photo's label file (../shared/data/
// real-cards: a class and a polygon in 0..1 of the picture a line), in pixels of a picture of `size`.
std::vector<std::vector<cv::Point>> labelledBacks(const std::string& labels, cv::Size size) {
    std::vector<std::vector<cv::Point>> backs;
    std::ifstream label(labels);
    for (std::string line; std::getline(label, line);) {
        std::istringstream in(line);
        int cls = -1;
        in >> cls;
        if (cls != 40) continue;  // BACK in classes.txt
        std::vector<cv::Point> poly;
        for (float x, y; in >> x >> y;) poly.emplace_back(int(x * float(size.width)), int(y * float(size.height)));
        backs.push_back(poly);
    }
    return backs;
}

std::map<std::string, int> truthCounts(const std::vector<int>& deckOf) {
    std::map<std::string, int> t;
    for (const auto& n : decks().names) t[n] = 0;
    for (int d : deckOf) ++t[decks().names[std::size_t(d)]];
    return t;
}

}  // namespace

TEST(BackSignature, BytesRoundTripAndBadBlobsAreRejected) {
    const auto v = vi::renderEnrolmentView(decks().art[0], 7);
    const vi::BackSignature s = vi::makeBackSignature(v.image, v.quad);
    const auto bytes = s.toBytes();
    EXPECT_EQ(bytes[3], vi::BackSignature::kVersion);
    const vi::BackSignature back = vi::BackSignature::fromBytes(bytes);
    ASSERT_EQ(back.descriptors.size(), s.descriptors.size());
    EXPECT_EQ(back.toBytes(), bytes);
    EXPECT_EQ(back.views(), 1);
    auto truncated = bytes;
    truncated.resize(bytes.size() / 2);
    EXPECT_THROW(vi::BackSignature::fromBytes(truncated), vi::SignatureError);
    auto magic = bytes;
    magic[0] = 'X';
    EXPECT_THROW(vi::BackSignature::fromBytes(magic), vi::SignatureError);
    auto version = bytes;
    version[3] = 99;
    EXPECT_THROW(vi::BackSignature::fromBytes(version), vi::SignatureError);
    // a signature stored by an earlier nertzref (version 1: colours not white-balanced; version 2:
    // no spectrum) is refused with a message that says to enrol again, not compared with the new
    // descriptors
    for (std::uint8_t old : {std::uint8_t(1), std::uint8_t(2)}) {
        version[3] = old;
        try {
            vi::BackSignature::fromBytes(version);
            ADD_FAILURE() << "a version-" << int(old) << " signature was accepted";
        } catch (const vi::SignatureError& e) {
            EXPECT_NE(std::string(e.what()).find("enrol the deck again"), std::string::npos)
                << e.what();
        }
    }
    // whole cards carry their spectrum through the bytes, strips none
    for (std::size_t i = 0; i < s.descriptors.size(); ++i) {
        EXPECT_EQ(back.descriptors[i].spectrum, s.descriptors[i].spectrum);
        EXPECT_EQ(back.descriptors[i].spectrum.size(),
                  back.descriptors[i].region.whole() ? std::size_t(vi::BackDescriptor::kSpectrumBands)
                                                     : 0u);
    }
    // the blurred, smeared and shrunk enrolment copies travel with the view but are not views of
    // their own
    const cv::Size2f sides = vi::quadSides(v.quad);
    std::size_t shrunk = 0;
    for (float side : vi::kEnrolmentShrunkSides)
        shrunk += side / std::max(sides.width, sides.height) <= vi::kEnrolmentShrinkAtMost ? 1 : 0;
    EXPECT_GE(shrunk, 1u);  // the view's card is 264-360 px long
    EXPECT_EQ(back.descriptors.size(),
              1 + vi::kEnrolmentBlurs.size() + 4 * vi::kEnrolmentSmears.size() + shrunk + 4);
    EXPECT_EQ(back.views(), 1);
    for (std::size_t i = 0; i < s.descriptors.size(); ++i)
        EXPECT_EQ(back.descriptors[i].blur, s.descriptors[i].blur);
    EXPECT_THROW(vi::BackSignature::fromBytes({}), vi::SignatureError);
}

// Version 4 adds how light the back lies against its enrolment picture (the deck's range over its
// views); a version 3 signature, stored before, is still read, without it (no card is then left
// unknown for its lightness), and a version 4 one cut short before it is refused.
TEST(BackSignature, LightnessTravelsWithTheBytesAndVersion3IsStillRead) {
    const auto v = vi::renderEnrolmentView(decks().art[0], 7);
    const vi::BackSignature s = vi::makeBackSignature(v.image, v.quad);
    EXPECT_GT(s.lightLo, 0.f);
    EXPECT_EQ(s.lightLo, s.lightHi);
    const auto bytes = s.toBytes();
    const vi::BackSignature back = vi::BackSignature::fromBytes(bytes);
    EXPECT_EQ(back.lightLo, s.lightLo);
    EXPECT_EQ(back.lightHi, s.lightHi);
    auto v3 = bytes;
    v3[3] = 3;
    v3.resize(bytes.size() - 8);
    const vi::BackSignature old = vi::BackSignature::fromBytes(v3);
    EXPECT_EQ(old.descriptors.size(), s.descriptors.size());
    EXPECT_EQ(old.lightLo, 0.f);
    EXPECT_EQ(old.lightHi, 0.f);
    auto cut = bytes;
    cut.resize(bytes.size() - 8);
    EXPECT_THROW(vi::BackSignature::fromBytes(cut), vi::SignatureError);
    auto backwards = bytes;  // lightLo above lightHi
    const float lo = 0.5f, hi = 0.25f;
    std::memcpy(backwards.data() + backwards.size() - 8, &lo, 4);
    std::memcpy(backwards.data() + backwards.size() - 4, &hi, 4);
    EXPECT_THROW(vi::BackSignature::fromBytes(backwards), vi::SignatureError);
    // views merged: the first gives the range, a darker second one widens it; with a view of
    // unknown lightness the range is unknown
    vi::BackSignature merged;
    merged.merge(s);
    EXPECT_EQ(merged.lightLo, s.lightLo);
    vi::BackSignature darker = s;
    darker.lightLo = darker.lightHi = s.lightLo / 2;
    merged.merge(darker);
    EXPECT_EQ(merged.lightLo, s.lightLo / 2);
    EXPECT_EQ(merged.lightHi, s.lightHi);
    merged.merge(old);
    EXPECT_EQ(merged.lightHi, 0.f);
}

// The picture's white is its 99th percentile of grey: specks of glare (under 1% of the picture)
// do not set it, more of them do; a card's lightness is its interior's mean grey, of the strip asked for.
TEST(BackSignature, SceneWhiteIgnoresSpecksAndCardLightnessReadsTheInterior) {
    cv::Mat pic(480, 640, CV_8UC3, cv::Scalar(50, 50, 50));
    pic(cv::Rect(0, 0, 320, 480)).setTo(cv::Scalar(200, 200, 200));
    EXPECT_NEAR(vi::sceneWhite(pic), 200.f, 1.f);
    cv::RNG rng(3);
    for (int k = 0; k < 90; ++k)  // 4x4 specks on the sampling grid (every 4th pixel): 0.47% of the samples
        pic(cv::Rect(4 * rng.uniform(0, 160), 4 * rng.uniform(0, 120), 4, 4)).setTo(cv::Scalar(255, 255, 255));
    EXPECT_NEAR(vi::sceneWhite(pic), 200.f, 1.f);
    for (int k = 0; k < 300; ++k)  // 2% of them
        pic(cv::Rect(4 * rng.uniform(0, 160), 4 * rng.uniform(0, 120), 4, 4)).setTo(cv::Scalar(255, 255, 255));
    EXPECT_NEAR(vi::sceneWhite(pic), 255.f, 1.f);
    // grey, 16-bit and BGRA pictures read as their 8-bit grey
    cv::Mat grey(90, 160, CV_8UC1, cv::Scalar(180)), deep, alpha;
    EXPECT_NEAR(vi::sceneWhite(grey), 180.f, 1.f);
    grey.convertTo(deep, CV_16U, 257.0);
    EXPECT_NEAR(vi::sceneWhite(deep), 180.f, 1.f);
    cv::cvtColor(grey, alpha, cv::COLOR_GRAY2BGRA);
    EXPECT_NEAR(vi::sceneWhite(alpha), 180.f, 1.f);
    cv::Mat card(vi::kBackHeight, vi::kBackWidth, CV_8UC3, cv::Scalar(240, 240, 240));
    const cv::Rect inner = vi::cardInterior();
    card(inner).setTo(cv::Scalar(30, 30, 30));
    EXPECT_NEAR(vi::cardLightness(card), 30.f, 0.5f);
    // the strip along the left edge holds the light margin as well
    const float strip = vi::cardLightness(card, {0.f, 0.25f});
    EXPECT_GT(strip, 40.f);
    EXPECT_LT(strip, 100.f);
    EXPECT_THROW(vi::cardLightness(cv::Mat()), vi::SignatureError);
}

namespace {
// A drawn back, 250 x 350 BGRA: a white margin and a lavender-on-white pattern, either a
// checkerboard of 25 px squares or a grid of dots at a 12.5 px pitch covering about the same share.
cv::Mat drawnBack(bool dots) {
    cv::Mat b(350, 250, CV_8UC4, cv::Scalar(255, 255, 255, 255));
    const cv::Rect inner(16, 16, 250 - 32, 350 - 32);
    for (int y = inner.y; y < inner.br().y; ++y)
        for (int x = inner.x; x < inner.br().x; ++x) {
            const int u = x - inner.x, v = y - inner.y;
            bool on;
            if (dots) {
                const float du = std::fmod(float(u), 12.5f) - 6.25f,
                            dv = std::fmod(float(v), 12.5f) - 6.25f;
                on = du * du + dv * dv < 0.5f * 12.5f * 12.5f / 3.14159f;
            } else {
                on = ((u / 25) + (v / 25)) % 2 == 0;
            }
            if (on) b.at<cv::Vec4b>(y, x) = cv::Vec4b(225, 150, 165, 255);
        }
    return b;
}
}  // namespace

// A card further from the camera than the one held up to enrol shows a fine pattern resampled and
// softened: the enrolment's shrunk copies are what it looks like, closer to it than the sharp view
// is. Only a card large enough to shrink gets them.
TEST(BackSignature, ShrunkEnrolmentCopiesLookLikeAFarCard) {
    const cv::Mat dots = drawnBack(true);
    const auto near = vi::renderEnrolmentView(dots, 5, {1280, 960});  // card 528-720 px long
    const vi::BackSignature sig = vi::makeBackSignature(near.image, near.quad);
    std::vector<const vi::BackDescriptor*> copies;
    for (const auto& d : sig.descriptors)
        if (d.blur == vi::kEnrolmentShrunkSpread) copies.push_back(&d);
    ASSERT_EQ(copies.size(), vi::kEnrolmentShrunkSides.size());

    // the same back 110 and 80 px long on a green cloth, JPEG-coded as a camera frame is
    for (float k : {1.f, 0.73f}) {
        cv::Mat table(480, 640, CV_8UC3, cv::Scalar(60, 110, 70));
        const vi::Quad far{cv::Point2f(300.f, 190.f), cv::Point2f(300.f + 79.f * k, 193.f),
                           cv::Point2f(297.f + 79.f * k, 190.f + 113.f * k),
                           cv::Point2f(297.f, 190.f + 110.f * k)};
        vi::drawCard(table, dots, far);
        table = jpegCoded(table, 80);
        const vi::BackDescriptor seen = vi::describeBack(vi::rectifyCard(table, far));
        const float sharp = vi::backDistance(seen, sig.descriptors.front());
        float nearest = 1e9f;
        for (const auto* d : copies) nearest = std::min(nearest, vi::backDistance(seen, *d));
        std::cout << "far card x" << k << ": to the sharp view " << sharp
                  << ", to the nearest shrunk copy " << nearest << "\n";
        EXPECT_LT(nearest, sharp - 0.015f);  // measured: 0.167 against 0.194, 0.239 against 0.266
    }

    // a card enrolled at 150 px long is not shrunk
    cv::Mat small(480, 640, CV_8UC3, cv::Scalar(60, 110, 70));
    const vi::Quad q{cv::Point2f(250.f, 160.f), cv::Point2f(357.f, 160.f),
                     cv::Point2f(357.f, 310.f), cv::Point2f(250.f, 310.f)};
    vi::drawCard(small, dots, q);
    for (const auto& d : vi::makeBackSignature(small, q).descriptors)
        EXPECT_NE(d.blur, vi::kEnrolmentShrunkSpread);
}

// Two backs of the same colours at the same coverage that differ only in the pattern's frequency
// (a dot grid and a checkerboard, as gnome-neoclassical and gnome-simplistic do): colour, tone and
// the orientation histogram barely tell them apart, the spectrum does. Measured (this build):
// spectrum L1 (0..2) dots-dots 0.004, checks-checks 0.000, dots-checks 1.948; backDistance
// dots-dots 0.024, checks-checks 0.007, dots-checks 1.122, of which the spectrum adds 0.3 x 1.948
// = 0.584 (without it 0.538).
TEST(BackSignature, SpectrumSeparatesBacksThatDifferOnlyInPatternFrequency) {
    const cv::Mat dots = drawnBack(true), checks = drawnBack(false);
    auto describe = [](const cv::Mat& art, std::uint64_t seed) {
        const auto v = vi::renderEnrolmentView(art, seed);
        return vi::describeBack(vi::rectifyCard(v.image, v.quad));
    };
    auto spectrumL1 = [](const vi::BackDescriptor& a, const vi::BackDescriptor& b) {
        float d = 0.f;
        for (std::size_t i = 0; i < a.spectrum.size(); ++i) d += std::abs(a.spectrum[i] - b.spectrum[i]);
        return d;
    };
    const auto d1 = describe(dots, 1), d2 = describe(dots, 2);
    const auto c1 = describe(checks, 3), c2 = describe(checks, 4);
    const float sameDots = spectrumL1(d1, d2), sameChecks = spectrumL1(c1, c2);
    const float apart = std::min({spectrumL1(d1, c1), spectrumL1(d1, c2), spectrumL1(d2, c1),
                                  spectrumL1(d2, c2)});
    std::printf("spectrum L1: dots-dots %.3f checks-checks %.3f dots-checks >= %.3f\n", sameDots,
                sameChecks, apart);
    std::printf("backDistance: dots-dots %.3f checks-checks %.3f dots-checks %.3f\n",
                vi::backDistance(d1, d2), vi::backDistance(c1, c2), vi::backDistance(d1, c1));
    EXPECT_GT(apart, 3.f * std::max(sameDots, sameChecks));
    EXPECT_GT(vi::backDistance(d1, c1), 2.f * std::max(vi::backDistance(d1, d2),
                                                        vi::backDistance(c1, c2)));
}

TEST(BackSignature, SameBackIsCloseTurnedHalfwayAndDifferentColourIsFar) {
    const auto a = vi::renderEnrolmentView(decks().art[0], 1);
    const auto b = vi::renderEnrolmentView(decks().art[0], 2);
    const auto red = vi::renderEnrolmentView(decks().art[1], 3);
    const vi::BackDescriptor da = vi::describeBack(vi::rectifyCard(a.image, a.quad));
    // the second view read from its opposite corner: the card upside down
    const vi::Quad turned{b.quad[2], b.quad[3], b.quad[0], b.quad[1]};
    const vi::BackDescriptor db = vi::describeBack(vi::rectifyCard(b.image, turned));
    const vi::BackDescriptor dr = vi::describeBack(vi::rectifyCard(red.image, red.quad));
    EXPECT_LT(vi::backDistance(da, db), 0.3f);
    EXPECT_GT(vi::backDistance(da, dr), 3 * vi::backDistance(da, db));
}

// backTerms: what backDistance weighs. A description against itself gives seven zeros; a card
// turned half round is read in its turned orientation (layout) and by turn-free statistics (the
// histograms, the radial spectrum), so every term stays far under the same terms between two decks;
// strips have neither layout nor spectrum, and those two terms are 0 between them.
TEST(BackSignature, TermsOfACardAgainstItselfTurnedAndAgainstAStrip) {
    const auto a = vi::renderEnrolmentView(decks().art[0], 1);
    const auto red = vi::renderEnrolmentView(decks().art[1], 3);
    const cv::Mat rect = vi::rectifyCard(a.image, a.quad);
    cv::Mat turnedRect;
    cv::rotate(rect, turnedRect, cv::ROTATE_180);
    const vi::BackDescriptor da = vi::describeBack(rect), dt = vi::describeBack(turnedRect);
    const vi::BackDescriptor dr = vi::describeBack(vi::rectifyCard(red.image, red.quad));
    for (float t : vi::backTerms(da, da)) EXPECT_EQ(t, 0.f);
    const auto turned = vi::backTerms(da, dt), apart = vi::backTerms(da, dr);
    float weighed = 0.f;
    for (int k = 0; k < vi::kBackTerms; ++k) {
        std::printf("term %d: turned %.4f, other deck %.4f\n", k, turned[std::size_t(k)], apart[std::size_t(k)]);
        weighed += vi::kBackTermWeights[std::size_t(k)] * turned[std::size_t(k)];
    }
    // histograms and the radial spectrum do not see the turn; the layout is compared either way up
    for (int k : {0, 1, 2, 3, 4, 6}) EXPECT_LT(turned[std::size_t(k)], 0.01f) << "term " << k;
    EXPECT_LT(turned[5], 0.05f * apart[5]);
    EXPECT_FLOAT_EQ(vi::backDistance(da, dt), weighed);
    EXPECT_LT(vi::backDistance(da, dt), 0.2f * vi::backDistance(da, dr));
    const vi::BackDescriptor sa = vi::describeBack(rect, {0.f, 0.25f}),
                             sr = vi::describeBack(vi::rectifyCard(red.image, red.quad), {0.f, 0.25f});
    const auto strips = vi::backTerms(sa, sr);
    EXPECT_EQ(strips[5], 0.f);
    EXPECT_EQ(strips[6], 0.f);
    EXPECT_GT(strips[0], 0.f);
    // a strip against a whole card: only the terms both have
    EXPECT_EQ(vi::backTerms(sa, da)[5], 0.f);
    EXPECT_EQ(vi::backTerms(sa, da)[6], 0.f);
}

TEST(BackMatcher, AttributesLooseCardsOfRedAndBlueDecksExactly) {
    for (std::uint64_t seed : {11u, 12u, 13u}) {
        const Scene s = looseScene(seed, 6, 3);
        // attribution on the true outlines
        for (std::size_t i = 0; i < s.quads.size(); ++i) {
            const auto c = vi::attributeCard(s.image, s.quads[i], {}, decks().matcher);
            EXPECT_EQ(c.deckName, decks().names[std::size_t(s.deckOf[i])])
                << "seed " << seed << " card " << i;
            EXPECT_GT(c.confidence, 0.5f);
        }
        // the whole pipeline: find and count
        const vi::DeckCount got = vi::countBacks(s.image, decks().matcher);
        EXPECT_EQ(got.counts, truthCounts(s.deckOf)) << "seed " << seed;
        EXPECT_EQ(got.unknown, 0);
        EXPECT_EQ(got.cards.size(), s.quads.size());
        if (const char* dir = std::getenv("NERTZ_TEST_DRAW")) {
            cv::Mat img = s.image.clone();
            for (const auto& c : got.cards)
                for (std::size_t k = 0; k < 4; ++k)
                    cv::line(img, c.quad[k], c.quad[(k + 1) % 4], c.deck < 0 ? cv::Scalar(0, 0, 255) : cv::Scalar(255, 255, 0), 2);
            cv::imwrite(std::string(dir) + "/loose" + std::to_string(seed) + ".png", img);
        }
    }
}

// A card another lies across: read as a whole card, its outline holds the other card's back too;
// read by what shows (BackCandidate::shows, as the finder gives a covered piece) it holds only its
// own. The cover is the other colour of the same design, the pair hardest to tell apart.
TEST(BackMatcher, APartlyCoveredCardIsReadByWhatShows) {
    cv::RNG rng(21);
    int byShows = 0, byOutline = 0, cases = 0;
    for (int trial = 0; trial < 8; ++trial) {
        cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));
        const float h = 170.f;
        const int d = trial % 2, cover = 1 - d;  // blue under red, red under blue
        auto quadAt = [&](cv::Point2f c, float a, const cv::Mat& art) {
            return cardQuad(c, a, h * float(art.cols) / float(art.rows), h);
        };
        const cv::Point2f at(640, 360);
        const float a = float(rng.uniform(0.0, 6.283));
        const vi::Quad under = quadAt(at, a, decks().art[std::size_t(d)]);
        vi::drawCard(img, decks().art[std::size_t(d)], under);
        // the cover lies across a half to two thirds of it, turned
        const cv::Point2f shift(float(rng.uniform(-1.0, 1.0)), float(rng.uniform(-1.0, 1.0)));
        const vi::Quad over = quadAt(at + shift * (0.45f * h / float(cv::norm(shift) + 1e-3)),
                                     a + float(rng.uniform(0.3, 1.2)), decks().art[std::size_t(cover)]);
        vi::drawCard(img, decks().art[std::size_t(cover)], over);
        // what shows of the card underneath
        cv::Mat mask = cv::Mat::zeros(img.size(), CV_8U);
        std::vector<cv::Point> pu, po;
        for (const auto& p : under) pu.emplace_back(p);
        for (const auto& p : over) po.emplace_back(p);
        cv::fillConvexPoly(mask, pu, cv::Scalar(255));
        cv::fillConvexPoly(mask, po, cv::Scalar(0));
        std::vector<std::vector<cv::Point>> cs;
        cv::findContours(mask, cs, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
        ASSERT_FALSE(cs.empty());
        const auto biggest = *std::max_element(cs.begin(), cs.end(), [](const auto& x, const auto& y) {
            return cv::contourArea(x) < cv::contourArea(y);
        });
        const double shown = cv::contourArea(biggest) / vi::quadArea(under);
        if (shown < 0.3 || shown > 0.75) continue;  // a third to three quarters shows
        ++cases;
        std::vector<cv::Point2f> shows(biggest.begin(), biggest.end());
        const auto byWhatShows = vi::attributeCard(img, under, {}, decks().matcher, shows);
        const auto whole = vi::attributeCard(img, under, {}, decks().matcher);
        byShows += byWhatShows.deck == d ? 1 : 0;
        byOutline += whole.deck == d ? 1 : 0;
        EXPECT_EQ(byWhatShows.deckName, decks().names[std::size_t(d)]) << "trial " << trial << ", " << shown << " shows";
    }
    ASSERT_GE(cases, 5);
    RecordProperty("right_by_what_shows", byShows);
    RecordProperty("right_by_whole_outline", byOutline);
    EXPECT_GE(byShows, byOutline);
}

// The segmenter sees the working picture padded to a multiple of 8, and its maps (and the centre
// finder's offsets) are cut back to the picture. 1280x738 works at 640x369 (padded to 376): the
// same cards, at the same places (within 4.5 px: one card's outline moves by 3.7 px with the
// segmenter of "Busy tables", under 3 px with the ones before), as the 1280x720 picture with more
// cloth below. (Stretching the offsets over the picture instead, as first written, moves the
// assignment by under 2 px here and also passes: this guards the padding as a whole, not that
// detail.)
TEST(LakeCounter, APictureNotAMultipleOfEightCountsTheSame) {
    const Scene s = looseScene(12, 6, 3);
    cv::Mat taller;
    cv::copyMakeBorder(s.image, taller, 0, 18, 0, 0, cv::BORDER_REFLECT);
    const vi::DeckCount a = vi::countBacks(s.image, decks().matcher);
    const vi::DeckCount b = vi::countBacks(taller, decks().matcher);
    EXPECT_EQ(a.total(), int(s.quads.size()));
    EXPECT_EQ(b.counts, a.counts);
    EXPECT_EQ(b.unknown, a.unknown);
    ASSERT_EQ(b.cards.size(), a.cards.size());
    // every card found in both, at the same place (within 3 px)
    for (const auto& ca : a.cards) {
        double nearest = 1e9;
        for (const auto& cb : b.cards) nearest = std::min(nearest, cv::norm(vi::quadCentre(ca.quad) - vi::quadCentre(cb.quad)));
        EXPECT_LT(nearest, 4.5);
    }
}

// A picture far thinner than it is long keeps no pixel one way at the finder's working size (1 x
// 4000 at 640 px is 0.16 px high): no cards, no OpenCV assertion (an internal error from `count`
// and `lake` before 2026-11-29), with and without the face reader, and frame by frame in a clip.
TEST(LakeCounter, APictureTooThinToShowACardCountsNoCards) {
    vi::Detector faces(vi::DetectorOptions::readOnce());
    for (const cv::Mat& m : {cv::Mat(1, 4000, CV_8UC3, cv::Scalar(40, 90, 160)),
                             cv::Mat(5000, 2, CV_8UC3, cv::Scalar(40, 90, 160))}) {
        EXPECT_TRUE(vi::findBackCards(m).empty());
        for (vi::Detector* reader : {static_cast<vi::Detector*>(nullptr), &faces}) {
            vi::DeckCount c;
            ASSERT_NO_THROW(c = vi::countBacks(m, decks().matcher, {}, reader));
            EXPECT_EQ(c.total(), 0);
            EXPECT_EQ(c.unknown, 0);
            EXPECT_TRUE(c.cards.empty());
        }
        vi::StreamCounter counter(decks().matcher);
        for (int f = 0; f < 5; ++f) ASSERT_NO_THROW(counter.push(m)) << "frame " << f;
        EXPECT_EQ(counter.count().total(), 0);
        EXPECT_TRUE(counter.atRest());
    }
}

TEST(BackMatcher, UnenrolledBackIsUnknownAndCloseBacksWarn) {
    vi::BackMatcher m;
    m.add("blue", decks().matcher.decks()[0].signature);
    m.add("red", decks().matcher.decks()[1].signature);
    const cv::Mat paris = loadBack("ornamental");
    const auto v = vi::renderEnrolmentView(paris, 5);
    const auto c = vi::attributeCard(v.image, v.quad, {}, m);
    EXPECT_EQ(c.deck, -1);
    EXPECT_EQ(c.deckName, "unknown");
    EXPECT_TRUE(c.likely.empty()) << "a back like no deck gets no suggestion, got " << c.likely;
    // a blue card when blue is enrolled twice (two players with one deck's twin): unknown, between
    // the two, with one of them as the likely one for a person to check
    vi::BackMatcher twins;
    twins.add("blue", decks().matcher.decks()[0].signature);
    twins.add("blue-too", decks().matcher.decks()[0].signature);
    twins.add("red", decks().matcher.decks()[1].signature);
    const auto card = vi::renderEnrolmentView(decks().art[0], 9);
    const auto tie = vi::attributeCard(card.image, card.quad, {}, twins);
    EXPECT_EQ(tie.deckName, "unknown");
    EXPECT_TRUE(tie.likely == "blue" || tie.likely == "blue-too") << tie.likely;
    // the blue deck enrolled again from another picture is too close to "blue", not to "red"
    const auto again = vi::renderEnrolmentView(decks().art[0], 77);
    const auto w = m.closeTo(vi::makeBackSignature(again.image, again.quad));
    ASSERT_EQ(w.size(), 1u);
    EXPECT_EQ(w[0].deck, "blue");
    EXPECT_TRUE(m.closeTo(decks().matcher.decks()[3].signature).empty());
    EXPECT_THROW(m.add("blue", decks().matcher.decks()[2].signature), std::invalid_argument);
}

// Cards seen small and a little out of focus under a colour cast of the light (each channel scaled
// by 0.88-1.12, the scene generator's range), as enrolled from one sharp, neutral picture: five
// decks, three of them one design in three colours (blue, a blue turned 40 degrees towards green,
// and red). Every card must go to its own deck, none to another and none left unknown. Signature
// version 1 (no white balance on the card's margin, no blurred enrolment copies) got 76 of the 80
// cards and left 4 unknown.
TEST(BackMatcher, ColourCastAndBlurDoNotMoveCardsBetweenDecksOfOneDesign) {
    const cv::Mat bellot = loadBack("bellot");
    const std::vector<cv::Mat> art{bellot, nertz::synth::recolourBack(bellot, 40.0),
                                   nertz::synth::recolourBack(bellot, 140.0), loadBack("anglo"),
                                   loadBack("ornamental")};
    vi::BackMatcher m;
    for (std::size_t i = 0; i < art.size(); ++i) {
        const auto v = vi::renderEnrolmentView(art[i], 200 + i);
        m.add("deck" + std::to_string(i), vi::makeBackSignature(v.image, v.quad));
    }
    const std::vector<cv::Scalar> casts{{1.12, 1.0, 0.88}, {0.88, 1.0, 1.12}, {1.0, 1.1, 0.9},
                                        {0.9, 0.95, 1.1}};
    cv::RNG rng(31);
    int right = 0, wrong = 0, unknown = 0, cards = 0;
    for (const auto& cast : casts) {
        cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));  // green cloth
        std::vector<std::pair<int, vi::Quad>> placed;
        const float h = 110.f;
        for (int k = 0; k < 20; ++k) {
            const int d = k % int(art.size());
            const float w = h * float(art[std::size_t(d)].cols) / float(art[std::size_t(d)].rows);
            const cv::Point2f c(1280.f * (float(k % 10) + 0.5f) / 10.f,
                                720.f * (float(k / 10) + 0.5f) / 2.f);
            const float a = float(rng.uniform(0.0, 6.283));
            const vi::Quad q = cardQuad(c, a, w, h);
            vi::drawCard(img, art[std::size_t(d)], q);
            placed.push_back({d, q});
        }
        img = castBlurredJpeg(img, cast, 1.0, 80);
        for (const auto& [d, q] : placed) {
            const auto c = vi::attributeCard(img, q, {}, m);
            ++cards;
            if (c.deck == d)
                ++right;
            else if (c.deck < 0)
                ++unknown;
            else
                ++wrong;
            EXPECT_EQ(c.deck, d) << "cast " << cast << " deck " << d << " confidence "
                                 << c.confidence;
        }
    }
    std::cerr << "cast test: right " << right << "/" << cards << " unknown " << unknown
              << " wrong " << wrong << "\n";
}

// Two decks of one design in two near colours (a player's deck and the same back a shade away):
// what a table adds to a card (blur, a colour cast, JPEG) moves it about as far from both, so the
// ratio of its two distances is near 1 and the card is left unknown. Weighted by what tells the two
// apart (BackMatcher::pairRatio) the cast drops out of both sums: settleBetweenTwoDecks gives such
// cards to the nearer deck where that is sure enough (MatcherOptions::pairConfidence), and to no
// wrong one here.
TEST(BackMatcher, CardsBetweenTwoColoursOfOneDesignGoByWhatTellsThemApart) {
    const cv::Mat bellot = loadBack("bellot");
    const std::vector<cv::Mat> art{bellot, nertz::synth::recolourBack(bellot, 12.0),
                                   loadBack("anglo"), loadBack("ornamental")};
    const vi::MatcherOptions on;
    vi::BackMatcher m(on);
    for (std::size_t i = 0; i < art.size(); ++i) {
        const auto v = vi::renderEnrolmentView(art[i], 300 + i);
        m.add("deck" + std::to_string(i), vi::makeBackSignature(v.image, v.quad));
    }
    // the two colours lie close (but not too close to enrol), the other designs far
    const auto probeView = vi::renderEnrolmentView(art[0], 400);
    const vi::BackDescriptor probe =
        vi::describeBack(vi::rectifyCard(probeView.image, probeView.quad), {});
    const auto twins = m.pairRatio(probe, 0, 1), others = m.pairRatio(probe, 0, 2);
    EXPECT_GT(twins.apart, on.tooClose);
    EXPECT_GT(others.apart, 2.f * twins.apart);
    EXPECT_LT(twins.ratio, 0.5f);
    EXPECT_NEAR(m.pairRatio(probe, 1, 0).ratio * twins.ratio, 1.f, 1e-3f);
    EXPECT_EQ(m.pairRatio(probe, 0, 0).apart, -1.f);
    EXPECT_EQ(m.pairRatio(probe, 0, 7).apart, -1.f);

    const std::vector<cv::Scalar> casts{{1.15, 1.0, 0.85}, {0.85, 1.0, 1.15}, {1.0, 1.12, 0.88},
                                        {0.88, 0.95, 1.12}, {1.1, 0.9, 1.0}, {0.9, 1.1, 1.05}};
    cv::RNG rng(41);
    int rightBefore = 0, rightAfter = 0, wrongBefore = 0, wrongAfter = 0, cards = 0;
    for (const auto& cast : casts) {
        cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(40, 90, 30));  // green cloth
        std::vector<vi::BackCandidate> found;
        std::vector<int> deckOf;
        const float h = 70.f;
        for (int k = 0; k < 20; ++k) {
            const int d = k % 2 == 0 ? k % 4 / 2 : 2 + k % 4 / 2;  // the twins every other card
            const float w = h * float(art[std::size_t(d)].cols) / float(art[std::size_t(d)].rows);
            const cv::Point2f c(1280.f * (float(k % 10) + 0.5f) / 10.f,
                                720.f * (float(k / 10) + 0.5f) / 2.f);
            vi::BackCandidate cand;
            cand.quad = cardQuad(c, float(rng.uniform(0.0, 6.283)), w, h);
            vi::drawCard(img, art[std::size_t(d)], cand.quad);
            found.push_back(cand);
            deckOf.push_back(d);
        }
        img = castBlurredJpeg(img, cast, 1.4, 70);
        const auto before = vi::attributeCards(img, found, m);
        auto after = before;
        vi::settleBetweenTwoDecks(img, found, after, m);
        for (std::size_t i = 0; i < found.size(); ++i) {
            const auto &a = before[i], &b = after[i];
            ++cards;
            rightBefore += a.deck == deckOf[i];
            rightAfter += b.deck == deckOf[i];
            wrongBefore += a.deck >= 0 && a.deck != deckOf[i];
            wrongAfter += b.deck >= 0 && b.deck != deckOf[i];
            // only cards left unknown are given, and only between the twins
            if (a.deck >= 0) {
                EXPECT_EQ(b.deck, a.deck);
            } else if (b.deck >= 0) {
                EXPECT_LT(deckOf[i], 2);
                EXPECT_EQ(b.deck, deckOf[i]) << "cast " << cast << " card " << i;
                EXPECT_GE(b.confidence, on.pairConfidence);
                EXPECT_EQ(b.deckName, "deck" + std::to_string(b.deck));
                EXPECT_TRUE(b.likely.empty());
            }
        }
    }
    std::cerr << "twin colours: the ratio alone right " << rightBefore << "/" << cards << " (wrong "
              << wrongBefore << "), then settled by the pair look " << rightAfter << " (wrong "
              << wrongAfter << ")\n";
    EXPECT_EQ(wrongAfter, wrongBefore);
    EXPECT_GT(rightAfter, rightBefore);
}

TEST(LakeCounter, CountsARibbonSpreadByStrips) {
    cv::RNG rng(5);
    for (int trial = 0; trial < 3; ++trial) {
        cv::Mat img(720, 1280, CV_8UC3, cv::Scalar(60, 100, 150));  // wood-ish
        const float h = 220.f, w = h * 0.69f, step = h * float(rng.uniform(0.14, 0.2));
        const int n = rng.uniform(8, 16);
        const float a = float(rng.uniform(-0.3, 0.3));
        const cv::Point2f u(std::cos(a), std::sin(a));
        const cv::Point2f start(200, 360);
        std::vector<int> deckOf;
        for (int i = 0; i < n; ++i) {
            const int d = rng.uniform(0, 4);
            deckOf.push_back(d);
            const cv::Point2f c = start + u * (i * step);
            vi::drawCard(img, decks().art[std::size_t(d)], cardQuad(c, a, w, h));
        }
        const vi::DeckCount got = vi::countBacks(img, decks().matcher);
        EXPECT_EQ(got.total(), n) << "trial " << trial;
        EXPECT_EQ(got.counts, truthCounts(deckOf)) << "trial " << trial;
        EXPECT_TRUE(got.rowsLeftOut.empty()) << "trial " << trial;
    }
}

namespace {
// The real black deck of ../shared/data/real-cards enrolled from its close-up back
// (`phone/IMG_7736`) as `backs enroll` takes it (findEnrolmentCard), and another phone picture of
// that set, `photo`. Skips the test when the photos are absent; the caller returns on
// IsSkipped() or HasFatalFailure().
void realBlackDeckAnd(const std::string& photo, vi::BackSignature& black, cv::Mat& img) {
    const std::string dir = std::string(NERTZ_SHARED_DIR) + "/data/real-cards/phone/images/";
    const std::string back = dir + "IMG_7736.jpg";
    if (!fs::is_regular_file(back) || !fs::is_regular_file(dir + photo))
        GTEST_SKIP() << "no real photos in " << dir;
    const cv::Mat flat = cv::imread(back, cv::IMREAD_COLOR);
    img = cv::imread(dir + photo, cv::IMREAD_COLOR);
    ASSERT_FALSE(flat.empty());
    ASSERT_FALSE(img.empty());
    const vi::EnrolmentReading enrolled = vi::findEnrolmentCard(flat);
    ASSERT_TRUE(enrolled.card.has_value());
    black = vi::makeBackSignature(flat, enrolled.card->quad);
}

// IMG_7824 (two cards of the black deck face down beside a white mouse) as `img`, that deck enrolled
// from IMG_7736 as `black`, and the photo's labelled backs.
void mousePhoto(vi::BackSignature& black, cv::Mat& img, std::vector<std::vector<cv::Point>>& backs) {
    realBlackDeckAnd("IMG_7824.jpg", black, img);
    if (img.empty()) return;
    backs = labelledBacks(std::string(NERTZ_SHARED_DIR) + "/data/real-cards/phone/labels/IMG_7824.txt", img.size());
}

// `img` counted with the deck `black` alone, faces read once: with `off` (a rule turned off), then
// with the default options.
std::pair<vi::DeckCount, vi::DeckCount> countedWithoutAndWith(const vi::BackSignature& black, const cv::Mat& img,
                                                              const vi::MatcherOptions& off) {
    vi::BackMatcher old(off), now;
    old.add("black", black);
    now.add("black", black);
    vi::Detector faces(vi::DetectorOptions::readOnce());
    return {vi::countBacks(img, old, {}, &faces), vi::countBacks(img, now, {}, &faces)};
}
}  // namespace

// A real phone photo of a face-up eight of diamonds close up on a wooden table (../shared/data/
// real-cards, no card face down), counted with the real black deck of that set enrolled from another
// of its photos (one back lying flat, IMG_7736, as `backs enroll` takes it): the finder reads the
// diamonds and the wood as rows of strips, and those strips lie far from the enrolled back. Such
// rows are no rows of this table's backs: they are left out and listed (DeckCount::rowsLeftOut),
// not counted as unknown cards. (Until 2026-11-30 `backs enroll` took a 22 x 32 px corner of that
// close-up back, the finder's largest scrap of it, and the test's picture was a nine of hearts
// whose rows lay far from that scrap; from the whole card they do not: BACKS.md, "A close-up card
// enrolled whole".) A ribbon of enrolled decks has none left out (CountsARibbonSpreadByStrips).
TEST(LakeCounter, RowsLikeNoEnrolledDeckAreLeftOutAndListed) {
    vi::BackSignature black;
    cv::Mat img;
    realBlackDeckAnd("IMG_20220921_194224.jpg", black, img);
    if (IsSkipped() || HasFatalFailure()) return;
    vi::MatcherOptions before;
    before.rowLikeNoDeck = 1.5f;
    vi::BackMatcher old(before), now;
    old.add("black", black);
    now.add("black", black);
    const vi::DeckCount was = vi::countBacks(img, old), is = vi::countBacks(img, now);
    std::cerr << "eight of diamonds close up: " << was.total() << " cards (unknown " << was.unknown
              << "), " << was.rowsLeftOut.size() << " left out at 1.5; " << is.total()
              << " (unknown " << is.unknown << "), " << is.rowsLeftOut.size() << " left out now\n";
    EXPECT_GE(was.unknown, 6);
    EXPECT_LE(2 * is.total(), was.total());
    EXPECT_EQ(is.rowsLeftOut.size() - was.rowsLeftOut.size(), std::size_t(was.total() - is.total()));
}

// A ribbon spread as tables lay one out to sort it: strips of 6-9% of the card's height, as narrow as
// the generator's ribbons. The learnt full-resolution reader (the default) counts all 4 trials (the
// 32-channel net of its first commit: 2, the others one card over); the autocorrelation reader
// before it (learntRows off) 1 of 4 (3 cards found for 13-14). The log line gives both.
TEST(LakeCounter, CountsANarrowRibbonSpreadByStrips) {
    cv::RNG rng(21);
    for (int trial = 0; trial < 4; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = float(rng.uniform(170, 230)), step = h * float(rng.uniform(0.06, 0.09));
        const int n = rng.uniform(10, 19);
        const float a = float(rng.uniform(0.0, 2 * CV_PI));
        drawRow(img, rng, {640, 360}, h, step, n, a);
        const vi::DeckCount got = vi::countBacks(img, decks().matcher);
        vi::BackFinderOptions old;
        old.learntRows = false;
        std::cerr << "narrow ribbon trial " << trial << ": " << n << " cards, found " << got.total()
                  << " (unknown " << got.unknown << "), autocorrelation reader "
                  << vi::countBacks(img, decks().matcher, old).total() << "\n";
        EXPECT_EQ(got.total(), n) << "trial " << trial;
    }
}

// Each strip says how much of its card's width it shows, and the unknown ones read from under an
// eighth of a card (vision::kNarrowStrip: on the train ribbons right about half the time; BACKS.md,
// "Where the ribbon's per-deck error comes from") are what `count` asks a wider spread for.
TEST(LakeCounter, StripsSayHowMuchOfTheirCardShows) {
    cv::RNG rng(33);
    const float h = 200.f, w = h * 0.69f;
    for (const float shift : {0.06f, 0.2f}) {  // of the card's height: 8.7% and 29% of its width
        cv::Mat img = greenCloth(rng);
        drawRow(img, rng, {640, 360}, h, h * shift, 14, 0.2f);
        const vi::DeckCount got = vi::countBacks(img, decks().matcher);
        std::vector<float> shares;
        int narrowUnknown = 0;
        for (const auto& c : got.cards) {
            if (!c.strip) {
                EXPECT_EQ(c.stripShare, 1.f);
                continue;
            }
            shares.push_back(c.stripShare);
            if (c.deck < 0 && c.stripShare < vi::kNarrowStrip) ++narrowUnknown;
        }
        ASSERT_GE(shares.size(), 10u) << "shift " << shift;
        std::nth_element(shares.begin(), shares.begin() + long(shares.size() / 2), shares.end());
        const float median = shares[shares.size() / 2];
        std::cerr << "ribbon shifted " << shift << " of a card: median strip " << median
                  << " of its width, unknown " << got.unknown << ", narrow unknown "
                  << got.narrowUnknown() << "\n";
        EXPECT_NEAR(median, h * shift / w, 0.04f) << "shift " << shift;
        EXPECT_EQ(got.narrowUnknown(), narrowUnknown);
        if (median >= 2 * vi::kNarrowStrip) {
            EXPECT_EQ(got.narrowUnknown(), 0);
        }
    }
    vi::DeckCount c;
    vi::CountedCard narrow, wide, whole, given;
    narrow.strip = wide.strip = given.strip = true;
    narrow.stripShare = given.stripShare = 0.08f;
    wide.stripShare = 0.2f;
    given.deck = 0;
    c.cards = {narrow, wide, whole, given, narrow};
    EXPECT_EQ(c.narrowUnknown(), 2);
}

// A ribbon row alone in the picture, spread so little that its blob has about a card's shape: the
// scene's card size then comes from this very blob, and the rule that a blob no larger than a card
// is one card could take the whole row for one (ri_tr_12 scene 62: 1 card found for 10). Where the
// segmenter marks card sides all through it (BackFinderOptions::outlineRows), it is read as a row.
// 60 rows of 9-11 cards: the rule must never count one worse, and must bring at least one that was
// taken for a card or two without it within a card of the truth (trial 53: 1 found for 10 without,
// 10 with; trial 7, 1 for 10, stays so: the outline map marks 0.26 of that row, under the rule's
// 0.4). With the segmenter fine-tuned on busy tables (BACKS.md, "Busy tables") trials 26 and 53
// give 11 for 10 with the rule, 1 without it.
TEST(LakeCounter, CountsARowAloneAsLargeAsACard) {
    cv::RNG rng(62);
    int mended = 0, takenForACard = 0;
    for (int trial = 0; trial < 60; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = float(rng.uniform(100, 170)), step = h * float(rng.uniform(0.05, 0.12));
        const int n = rng.uniform(9, 12);
        drawRow(img, rng, {640, 360}, h, step, n, float(rng.uniform(0.0, 2 * CV_PI)));
        img = jpegCoded(img, 85);
        const auto got = vi::findBackCards(img);
        vi::BackFinderOptions before;
        before.outlineRows = 0.f;
        const auto old = vi::findBackCards(img, before);
        const int off = std::abs(int(got.size()) - n), offBefore = std::abs(int(old.size()) - n);
        EXPECT_LE(off, offBefore) << "trial " << trial << ": " << n << " cards, " << got.size()
                                  << " found, " << old.size() << " without the rule";
        if (2 * int(old.size()) <= n) {
            ++takenForACard;
            mended += off <= 1 ? 1 : 0;
            std::cerr << "row alone, trial " << trial << ": " << n << " cards, found " << got.size()
                      << ", without the outline rule " << old.size() << "\n";
        }
    }
    std::cerr << "rows taken for a card or two without the rule: " << takenForACard
              << ", counted within a card with it: " << mended << "\n";
    EXPECT_GE(mended, 1);
}

// A card larger than the scene's other cards (nearer the camera) may be given two middles by the
// segmenter, and its two pieces are each too large to join under the scene's card size: one card
// counted twice (ba_tr_21 scenes 141, 50). Two pieces, each a good part of a card, that together
// have a card's four corners and no side marked through them by the outline map are one card
// (BackFinderOptions::centreJoinOutline). 40 tables of four cards 100-140 px long and one 1.5-2.2
// times as long, apart, any turn: the rule must never count a table worse, and must mend at least
// one table it counts over.
TEST(BackFinder, ALargeCardGivenTwoMiddlesIsOneCard) {
    const std::vector<cv::Mat> art{decks().art[0], decks().art[2], decks().art[3],
                                   loadBack("orell")};
    cv::RNG rng(141);
    int over = 0, mended = 0;
    for (int trial = 0; trial < 40; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float small = float(rng.uniform(100, 140)),
                    large = small * float(rng.uniform(1.5, 2.2));
        const int big = rng.uniform(0, 5);
        for (int k = 0; k < 5; ++k) {
            const cv::Point2f c(1280.f * (float(k) + 0.5f) / 5.f,
                                360.f + float(rng.uniform(-150, 150)));
            const float h = k == big ? large : small, w = h * 0.69f;
            const float tilt = float(rng.uniform(-0.4, 0.4));
            const float a =
                tilt + (rng.uniform(0, 2) ? float(CV_PI / 2) : 0.f);  // upright or across
            vi::drawCard(img, art[std::size_t(rng.uniform(0, int(art.size())))],
                         cardQuad(c, a, w, h));
        }
        img = jpegCoded(img, 85);
        const int got = int(vi::findBackCards(img).size());
        vi::BackFinderOptions before;
        before.wholeCardOutline = 0.f;
        // a large card alone is also read whole by the later lone-card rule (loneCardOutline,
        // 2026-12-01): off too, so that the tables it was counted over on stay the test's
        before.loneCardOutline = 0.f;
        const int old = int(vi::findBackCards(img, before).size());
        EXPECT_LE(std::abs(got - 5), std::abs(old - 5))
            << "trial " << trial << ": " << got << " found, " << old << " without the rule";
        if (old > 5) {
            ++over;
            mended += got == 5 ? 1 : 0;
            std::cerr << "large card, trial " << trial << " (" << large << " px): found " << got
                      << ", without the rule " << old << "\n";
        }
    }
    std::cerr << "tables counted over without the rule: " << over
              << ", counted exactly with it: " << mended << "\n";
    EXPECT_GE(mended, 1);
}

// Two ribbon spreads laid side by side, touching along the cards' long sides, are one blob of the
// card mask, twice as thick as a card: no row. Split along the segmenter's instances
// (BackFinderOptions::splitRows) each is read as a row of its own. Needs: the count without the
// split at least 8 cards off in every trial, and with it at most half as far off as without it and
// within two cards in every trial. (Found 25 for 20, 21 for 21 and 26 for 19 from the seventeenth
// session, 2026-11-29, until a split part was also read in its rotated box and the reading whose
// edges score better each kept: now 21, 22 and 20; the bulges of a split part's outline had framed
// one row askew and its strips were read one too many; without the split 5 each time. BACKS.md,
// "Two rows that touch".)
TEST(LakeCounter, CountsTwoRibbonSpreadsThatTouch) {
    cv::RNG rng(33);
    for (int trial = 0; trial < 3; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = float(rng.uniform(150, 175));
        const float a = float(rng.uniform(-0.4, 0.4));
        const cv::Point2f v(-std::sin(a), std::cos(a));
        int total = 0;
        for (int row = 0; row < 2; ++row) {
            const float step = h * float(rng.uniform(0.08, 0.11));
            const int n = rng.uniform(9, 14);
            total += n;
            // the rows' long sides 2 px apart
            drawRow(img, rng, cv::Point2f(640, 360) + v * ((row == 0 ? -1.f : 1.f) * (h / 2 + 1)),
                    h, step, n, a);
        }
        const vi::DeckCount got = vi::countBacks(img, decks().matcher);
        vi::BackFinderOptions whole;
        whole.splitRows = 0.f;
        const int unsplit = vi::countBacks(img, decks().matcher, whole).total();
        std::cerr << "two ribbons that touch, trial " << trial << ": " << total << " cards, found "
                  << got.total() << " (unknown " << got.unknown << "), without the split "
                  << unsplit << "\n";
        EXPECT_GE(std::abs(unsplit - total), 8) << "trial " << trial;
        EXPECT_LE(2 * std::abs(got.total() - total), std::abs(unsplit - total)) << "trial " << trial;
        EXPECT_LE(std::abs(got.total() - total), 2) << "trial " << trial;
    }
}

// Two rows whose strips together are about a card's length long lie one above the other, touching:
// their strips joined across both rows make a box a card's length wide and two tall, which the split
// took for one row running the other way (the benchmark's two 12-card rows were read as 6 cards).
// What shows of a row's card is longer across the row than along it; these strips lie along the
// box's long side, so they are not joined (splitIntoRows, kTwoRows). Rows of 10 to 14 upright or
// nearly upright cards (strips 0.09-0.16 of a card's width), 2 px apart, 8 trials. Needs no trial
// two cards short or more (without the rule: 9 found for 26, 4 for 28), the total within one card
// in 7, and the per deck error (the sum over decks of |found - true| plus the unknown) at most 3 in
// 7. Now 7 within one card (28 for 26 the other), per deck at most 2; before a split part was also
// read in its rotated box (the reading scoring better an edge kept) two read 26 for 25 and 27 for
// 22, per deck 9 and 5.
TEST(LakeCounter, TwoShortRowsThatTouchAreReadRowByRow) {
    cv::RNG rng(71);
    int near = 0, byDeck = 0;
    for (int trial = 0; trial < 8; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = float(rng.uniform(200, 230));
        const float a = float(rng.uniform(-0.05, 0.05));
        const cv::Point2f v(-std::sin(a), std::cos(a));
        int total = 0;
        std::array<int, 4> truth{};
        for (int row = 0; row < 2; ++row) {
            // the strips together about a card's length long (the whole top card beside them)
            const int n = rng.uniform(10, 15);
            const float step = h * float(rng.uniform(0.85, 1.1)) / float(n - 1);
            total += n;
            for (int d : drawRow(img, rng, cv::Point2f(640, 360) + v * ((row == 0 ? -1.f : 1.f) * (h / 2 + 1)),
                                 h, step, n, a))
                ++truth[std::size_t(d)];
        }
        const vi::DeckCount got = vi::countBacks(img, decks().matcher);
        int perDeck = got.unknown;
        for (std::size_t d = 0; d < truth.size(); ++d)
            perDeck += std::abs(got.counts.at(decks().names[d]) - truth[d]);
        std::cerr << "two short rows that touch, trial " << trial << ": " << total << " cards, found "
                  << got.total() << " (unknown " << got.unknown << "), per deck off by " << perDeck << "\n";
        near += std::abs(got.total() - total) <= 1 ? 1 : 0;
        byDeck += perDeck <= 3 ? 1 : 0;
        EXPECT_GE(got.total(), total - 2) << "trial " << trial;
    }
    EXPECT_GE(near, 7);
    EXPECT_GE(byDeck, 7);
}

// A wide ribbon (strips of a quarter to a third of the card's height) seen at a slant (the table's
// far side shrunk to 50-70%), running up at 50-75 degrees from the picture's bottom edge, which cuts
// its first card in half. (A nearly level row running off the left edge is read right either way.)
// The row has no four corners there (one end is the picture's edge) and is read in its rotated
// box, askew of the slanted cards, where the row reader may find no clear edges; such a row used
// to be taken as a row anyway on the segmenter's middles, with the two or three cards that unclear
// reading gave (BackFinderOptions::unclearRowMiddles; BACKS.md, "Every row read in both frames").
TEST(LakeCounter, AWideRibbonCutByThePicturesEdgeIsCounted) {
    cv::RNG rng(83);
    int near = 0, nearBefore = 0;
    const int trials = 12;
    for (int trial = 0; trial < trials; ++trial) {
        // the table, larger than the picture, then seen at a slant and cut to 1280x720
        cv::Mat table;
        cv::resize(greenCloth(rng), table, cv::Size(2200, 1240));
        const float h = float(rng.uniform(170, 220)), step = h * float(rng.uniform(0.25, 0.33));
        const int n = rng.uniform(10, 14);
        // running up from the picture's bottom edge at 50-75 degrees, to the right or the left
        const float a = -float(CV_PI) / 2 + float(rng.uniform(0.26, 0.7)) * (rng.uniform(0, 2) ? -1.f : 1.f);
        const cv::Point2f u(std::cos(a), std::sin(a));
        const cv::Point2f first(float(rng.uniform(900, 1300)), 900.f);
        drawRow(table, rng, first + u * ((n - 1) * step / 2), h, step, n, a);
        const float k = float(rng.uniform(0.15, 0.25));
        const cv::Point2f src[4] = {{0, 0}, {2200, 0}, {2200, 1240}, {0, 1240}};
        const cv::Point2f far[4] = {{2200 * k, 0}, {2200 * (1 - k), 0}, {2200, 1240}, {0, 1240}};
        const cv::Mat tilt = cv::getPerspectiveTransform(src, far);
        cv::Mat seen;
        cv::warpPerspective(table, seen, tilt, table.size(), cv::INTER_LINEAR, cv::BORDER_REFLECT);
        std::vector<cv::Point2f> at{first};
        cv::perspectiveTransform(at, at, tilt);
        // the picture's bottom edge through the first card's middle
        const cv::Rect window(std::clamp(int(at[0].x) - 640, 0, 2200 - 1280),
                              std::clamp(int(at[0].y) - 720, 0, 1240 - 720), 1280, 720);
        const cv::Mat img = jpegCoded(seen(window).clone(), 85);
        const vi::DeckCount got = vi::countBacks(img, decks().matcher);
        vi::BackFinderOptions before;
        before.unclearRowMiddles = 0.f;
        const int old = vi::countBacks(img, decks().matcher, before).total();
        std::cerr << "wide ribbon cut by the edge, trial " << trial << ": " << n << " cards, found "
                  << got.total() << " (unknown " << got.unknown << "), " << old
                  << " taking every row its middles make\n";
        near += std::abs(got.total() - n) <= 2 ? 1 : 0;
        nearBefore += std::abs(old - n) <= 2 ? 1 : 0;
        // never the collapse to the unclear reading's few cards (2-3 found for 10-12 before)
        EXPECT_GE(2 * got.total(), n) << "trial " << trial;
    }
    // 8 of 12 within two cards (the first card is half off the picture), 6 of 12 before
    std::cerr << "within two cards: " << near << " of " << trials << ", before " << nearBefore << "\n";
    EXPECT_GE(near, 7);
}

// A ribbon spread seen by a camera at a slant is a quadrilateral in the picture, no rectangle: the
// row reader frames it by its four corners (rowCorners). Rows of 8-16 cards with rounded corners,
// on a table seen with its far side shrunk to 40-60%, any turn. Needs: the four corners within 3 px
// of the row's true corners (its rotated box is 6 px or more off), corners 0-1 a long side; and no
// corners for the same row with a card lying across its end (no quadrilateral).
TEST(BackFinder, RowCornersOfARibbonSeenAtASlant) {
    cv::RNG rng(61);
    for (int trial = 0; trial < 6; ++trial) {
        const float h = float(rng.uniform(150, 190)), w = h / 1.4f,
                    step = h * float(rng.uniform(0.05, 0.12));
        const int n = rng.uniform(8, 17);
        const float a = float(rng.uniform(0.0, 2 * CV_PI));
        const cv::Point2f u(std::cos(a), std::sin(a)), v(-std::sin(a), std::cos(a)), mid(640, 360);
        const float k = float(rng.uniform(0.2, 0.3));
        const cv::Point2f src[4] = {{0, 0}, {1280, 0}, {1280, 720}, {0, 720}};
        const cv::Point2f far[4] = {{1280 * k, 0}, {1280 * (1 - k), 0}, {1280, 720}, {0, 720}};
        const cv::Mat tilt = cv::getPerspectiveTransform(src, far);
        auto seen = [&](std::vector<cv::Point2f> pts) {
            cv::perspectiveTransform(pts, pts, tilt);
            return pts;
        };
        // a card with rounded corners (radius 6% of its width) on the table, then seen
        auto card = [&](cv::Point2f c, cv::Point2f cu, cv::Point2f cv_) {
            std::vector<cv::Point2f> outline;
            const float r = 0.06f * w;
            const cv::Point2f corner[4] = {{-1, -1}, {1, -1}, {1, 1}, {-1, 1}};
            for (int q = 0; q < 4; ++q) {
                const cv::Point2f o =
                    c + cu * (corner[q].x * (w / 2 - r)) + cv_ * (corner[q].y * (h / 2 - r));
                for (int t = 0; t <= 6; ++t) {
                    const float ang =
                        float(CV_PI) * (1.f + 0.5f * float(q) + 0.5f * float(t) / 6.f);
                    outline.push_back(o + (cu * std::cos(ang) + cv_ * std::sin(ang)) * r);
                }
            }
            std::vector<cv::Point> px;
            for (const auto& p : seen(outline))
                px.emplace_back(cv::Point(cvRound(p.x), cvRound(p.y)));
            return px;
        };
        const cv::Point2f start = mid - u * ((float(n) - 1) * step / 2);
        cv::Mat mask(720, 1280, CV_8U, cv::Scalar(0));
        for (int i = 0; i < n; ++i)
            cv::fillConvexPoly(mask, card(start + u * (float(i) * step), u, v), 255);
        const float len = w + float(n - 1) * step;
        const auto truth =
            seen({mid - u * (len / 2) - v * (h / 2), mid + u * (len / 2) - v * (h / 2),
                  mid + u * (len / 2) + v * (h / 2), mid - u * (len / 2) + v * (h / 2)});
        auto outline = [](const cv::Mat& m) {
            std::vector<std::vector<cv::Point>> cs;
            cv::findContours(m.clone(), cs, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
            return *std::max_element(cs.begin(), cs.end(), [](const auto& x, const auto& y) {
                return cv::contourArea(x) < cv::contourArea(y);
            });
        };
        const auto row = outline(mask);
        // each true corner's distance to the nearest corner of q
        auto offBy = [&](const std::vector<cv::Point2f>& q) {
            double worst = 0;
            for (const auto& t : truth) {
                double best = 1e9;
                for (const auto& p : q) best = std::min(best, cv::norm(p - t));
                worst = std::max(worst, best);
            }
            return worst;
        };
        const auto q = vi::rowCorners(row);
        ASSERT_TRUE(q.has_value()) << "trial " << trial;
        cv::Point2f box[4];
        cv::minAreaRect(row).points(box);
        const double found = offBy({q->begin(), q->end()}), boxed = offBy({box, box + 4});
        const bool longFirst = cv::norm((*q)[1] - (*q)[0]) + cv::norm((*q)[2] - (*q)[3]) >
                               cv::norm((*q)[3] - (*q)[0]) + cv::norm((*q)[2] - (*q)[1]);
        std::cerr << "row of " << n << " at a slant, trial " << trial << ": corners off by "
                  << found << " px, its rotated box by " << boxed << " px\n";
        EXPECT_LE(found, 3.0) << "trial " << trial;
        EXPECT_GE(boxed, 6.0) << "trial " << trial;
        EXPECT_EQ(longFirst, len > h) << "trial " << trial;
        // a card lying across the row's end
        cv::Mat across = mask.clone();
        cv::fillConvexPoly(
            across, card(start + u * (float(n - 1) * step + 0.3f * w) + v * (0.4f * h), v, -u),
            255);
        EXPECT_FALSE(vi::rowCorners(outline(across)).has_value()) << "trial " << trial;
    }
}

// Cards seen by a camera that looks at the table at a slant are no rectangles in the picture: their
// corners are 60-80 degrees. The segmenter (at 640 px) gives rectangles around them; the outline is
// fitted again to the card's sides in the full picture. Needs: every card's corners within 3 px on
// average with the fit, and the fit at least twice as close as without it (which is 6-10 px off).
TEST(BackFinder, OutlinesACardSeenAtASlantToItsCornersInTheFullPicture) {
    cv::RNG rng(17);
    cv::Mat img = greenCloth(rng);
    std::vector<vi::Quad> truth;
    for (int i = 0; i < 6; ++i) {
        const cv::Mat& art = decks().art[std::size_t(i % 4)];
        const float h = 150.f, w = h * float(art.cols) / float(art.rows);
        const cv::Point2f c(220.f + 420.f * float(i % 3), 190.f + 340.f * float(i / 3));
        const float a = float(rng.uniform(0.0, 6.283));
        // a slant: the card's width axis turned by 15-25 degrees towards its height axis
        const float shear = float(rng.uniform(0.26, 0.45)) * (i % 2 ? 1.f : -1.f);
        const cv::Point2f u(std::cos(a), std::sin(a)), v0(-std::sin(a), std::cos(a));
        const cv::Point2f v = v0 + u * shear;
        vi::Quad q{c - u * (w / 2) - v * (h / 2), c + u * (w / 2) - v * (h / 2), c + u * (w / 2) + v * (h / 2),
                   c - u * (w / 2) + v * (h / 2)};
        vi::drawCard(img, art, q);
        truth.push_back(q);
    }
    img = jpegCoded(img, 85);
    auto cornerError = [&](const vi::Quad& q) { return nearestCardCornerError(q, truth); };
    vi::BackFinderOptions unfitted;
    unfitted.refineOutlines = false;
    const auto fitted = vi::findBackCards(img);
    const auto boxes = vi::findBackCards(img, unfitted);
    ASSERT_EQ(fitted.size(), truth.size());
    ASSERT_EQ(boxes.size(), truth.size());
    double fittedMean = 0, boxesMean = 0;
    for (std::size_t i = 0; i < truth.size(); ++i) {
        const double e = cornerError(fitted[i].quad);
        EXPECT_LE(e, 6.0) << "card " << i;  // the worst card 5.03 px with the 2026-11-29 segmenter
        fittedMean += e / double(truth.size());
        boxesMean += cornerError(boxes[i].quad) / double(truth.size());
    }
    std::cerr << "slanted cards: mean corner error " << fittedMean << " px fitted, " << boxesMean
              << " px as the segmenter gives them\n";
    EXPECT_LE(fittedMean, 3.5);
    EXPECT_LE(2 * fittedMean, boxesMean);
}

// A card alone on the table that is smaller than the scene's others (farther from the camera, or
// of a smaller deck) is whole: nothing lies across it. It used to be taken for the showing part of a
// covered card and completed to the scene's card size around its middle (on the train batch set
// `ba_tr_21`, a tenth of the cards lying whole and apart got outlines 1.45 times their area or
// more: models/training/BACKS.md, "Whole cards alone on the table"). 20 tables of four cards
// 150-170 px long and two 0.55-0.75 times as long (0.25-0.5 of their area), apart, any turn: with
// the rule (wholeAloneShare 0.15; at 0.3, 13 of the 40 small cards were still completed) every small
// card's outline lies on its corners (within 8 px), and at most half as far off as without it;
// the count is the same.
TEST(BackFinder, ASmallerCardAloneOnTheTableKeepsItsOwnOutline) {
    cv::RNG rng(119);
    double withRule = 0, without = 0;
    int small = 0;
    for (int trial = 0; trial < 20; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = float(rng.uniform(150, 170));
        std::vector<vi::Quad> smallCards, all;
        for (int k = 0; k < 6; ++k) {
            // two rows of three, well apart
            const cv::Point2f c(1280.f * (float(k % 3) + 0.5f) / 3.f + float(rng.uniform(-40, 40)),
                                190.f + 340.f * float(k / 3) + float(rng.uniform(-20, 20)));
            const bool isSmall = k == trial % 3 || k == 3 + (trial + 1) % 3;
            const float hk = isSmall ? h * float(rng.uniform(0.55, 0.75)) : h;
            const vi::Quad q = cardQuad(c, float(rng.uniform(0.0, CV_PI)), hk * 0.69f, hk);
            vi::drawCard(img, decks().art[std::size_t(rng.uniform(0, 4))], q);
            all.push_back(q);
            if (isSmall) smallCards.push_back(q);
        }
        img = jpegCoded(img, 85);
        vi::BackFinderOptions before;
        before.wholeAloneShare = 0.f;
        const auto got = vi::findBackCards(img);
        const auto old = vi::findBackCards(img, before);
        ASSERT_EQ(got.size(), all.size()) << "trial " << trial;
        ASSERT_EQ(old.size(), all.size()) << "trial " << trial;
        // each small card: the found outline nearest to it
        for (const vi::Quad& t : smallCards) {
            const double e = nearestFoundError(got, t), eOld = nearestFoundError(old, t);
            EXPECT_LE(e, 8.0) << "trial " << trial;
            withRule += e;
            without += eOld;
            ++small;
        }
    }
    std::cerr << "small cards alone: mean corner error " << withRule / small << " px, "
              << without / small << " px completed to the scene's card size\n";
    EXPECT_LE(2 * withRule, without);
}

// The boxed NERTZ colour deck's back (diagonal lines and a lettered band) lying alone on the table
// is one card. The row reader read such a card as a row of strips and the segmenter gave it up to
// three middles (`synth_41_000010` of a NERTZ colour batch set: 4 cards apart, 14 counted), while its
// outline map marks the lines too much for BackFinderOptions::wholeCardOutline to tell a whole card
// (BACKS.md, "A card on its own read as strips"). The generator's batch scenes of that deck alone
// (its colours as the decks): a card showing whole with no other card's outline near it is found
// once, and the count over the scenes is nearer the truth than reading such cards as rows.
TEST(BackFinder, ANertzColourCardAloneIsOneCard) {
    namespace sy = nertz::synth;
    sy::SceneOptions o;
    o.kind = sy::SceneKind::Backs;
    const std::vector<sy::CardDesign> designs{sy::makeNertzColourDesign()};  // the generator keeps a reference
    const sy::SceneGenerator gen(designs, o);
    vi::BackFinderOptions before;
    before.loneCardOutline = 0.f;
    int errorWith = 0, errorWithout = 0, alone = 0, aloneOnce = 0, aloneOnceBefore = 0;
    for (std::uint64_t seed = 0; seed < 24; ++seed) {
        const sy::Scene s = gen.generate(seed);
        const int truth = faceDownShown(s);
        const auto got = vi::findBackCards(s.image);
        const auto old = vi::findBackCards(s.image, before);
        errorWith += std::abs(int(got.size()) - truth);
        errorWithout += std::abs(int(old.size()) - truth);
        // each back lying whole and apart (no other card's corner within 0.75 of its diagonal of its middle)
        for (std::size_t i = 0; i < s.cards.size(); ++i) {
            const auto& c = s.cards[i];
            if (c.faceUp || c.visibleFraction < 0.98) continue;
            const cv::Point2f mid = (c.quad[0] + c.quad[1] + c.quad[2] + c.quad[3]) * 0.25f;
            const float len = 0.75f * float(cv::norm(c.quad[2] - c.quad[0]));  // past its own corners
            bool apart = true;
            for (std::size_t j = 0; j < s.cards.size(); ++j)
                for (const auto& p : s.cards[j].quad)
                    apart = apart && (j == i || cv::norm(p - mid) > len);
            if (!apart) continue;
            ++alone;
            auto inside = [&](const std::vector<vi::BackCandidate>& found) {
                int n = 0;
                for (const auto& f : found)
                    n += cv::pointPolygonTest(c.quad, vi::quadCentre(f.quad), false) > 0 ? 1 : 0;
                return n;
            };
            aloneOnce += inside(got) == 1 ? 1 : 0;
            aloneOnceBefore += inside(old) == 1 ? 1 : 0;
        }
    }
    std::cerr << "NERTZ colour batch scenes: |found - true| " << errorWith << " (" << errorWithout
              << " reading lone cards as rows); cards alone found once " << aloneOnce << " of "
              << alone << " (" << aloneOnceBefore << ")\n";
    ASSERT_GE(alone, 10) << "too few cards alone: the test shows nothing";
    EXPECT_EQ(aloneOnce, alone);
    EXPECT_LT(errorWith, errorWithout);
    EXPECT_LT(aloneOnceBefore, alone);
}

// A piece whose middle took pixels of the cards beside or under it (two cards crossing, a card
// pressed against another) was given an outline spanning them, far larger than a card: the cards
// it spans counted as one, or one counted where none lies. Such an outline, over 1.5 of the scene's
// whole card, has cards of the scene's size fitted into it (BackFinderOptions::oversizedPieceFit;
// BACKS.md, "Outlines larger than a card refitted": the train loose sort's error 2.91 -> 2.72 cards
// a scene). On the generator's loose sorts of the four test backs the count over the scenes is
// nearer the truth than with the spanning outlines, and some scene's count changes.
TEST(BackFinder, OutlinesLargerThanACardAreRefitted) {
    namespace sy = nertz::synth;
    const sy::SceneGenerator& gen = testBackLooseSorts();
    vi::BackFinderOptions before;
    before.oversizedPieceFit = 0.f;
    const TwoFinderErrors e =
        countWithAndWithout(gen, 16, {}, before, faceDownShown, "loose sort", "with the spanning outlines");
    EXPECT_GE(e.changed, 1);
    EXPECT_LT(e.with, e.without);
}

// Close-ups (BackFinderOptions::halfBelowClaimed, asked for by `count --close-ups`): a phone held
// over a few cards sees them 0.3-0.7 of its short side, larger than the segmenter knows, and the
// reading at the working size cuts them into scraps and rows of strips. Read at half that size
// where the first reading explains under 0.7 of its mask, the generator's close-ups of the four
// test backs (cards up to 60 degrees aslant; with backOnlyDesign a face-up card shows the back
// too, so every card showing 5% of itself counts) are counted nearer the truth than by the finder
// at the working size alone (the default).
TEST(BackFinder, CloseUpsAreReadAtHalfSize) {
    namespace sy = nertz::synth;
    sy::SceneOptions o;
    o.kind = sy::SceneKind::Backs;
    o.cardSizeLo = 0.3;
    o.cardSizeHi = 0.7;
    o.maxTiltDegrees = 60;
    const sy::SceneGenerator gen(testBackDesigns(), o);
    vi::BackFinderOptions closeUps;  // as `count --close-ups` asks; off by default
    closeUps.halfBelowClaimed = vi::kCloseUpHalfBelow;
    const TwoFinderErrors e = countWithAndWithout(
        gen, 12, closeUps, {},
        [](const sy::Scene& s) {
            int n = 0;
            for (const auto& c : s.cards) n += c.visibleFraction >= 0.05 ? 1 : 0;
            return n;
        },
        "close-up", "at the working size alone");
    // (5 against 14, two scenes: 11 and 8 found at the working size for 4 and 5)
    EXPECT_GE(e.changed, 2);
    EXPECT_LT(e.with, e.without);
}

// Card pixels that no middle of the segmenter took and that make a quarter to a half of a card (a
// card mostly under others) are found only when asked for (BackFinderOptions::ifKnownPieces, as
// countBacks asks), marked ifKnown; countBacks keeps such a piece only where it reads it as an
// enrolled deck's (BACKS.md, "Half-shown cards kept where they are read"). Without the asking the
// finder is the one before: the same cards. On the generator's loose sorts of four test backs.
TEST(BackFinder, HalfShownPiecesAreFoundOnlyWhenAskedFor) {
    namespace sy = nertz::synth;
    const sy::SceneGenerator& gen = testBackLooseSorts();
    int flagged = 0;
    for (std::uint64_t seed = 0; seed < 12; ++seed) {
        const sy::Scene s = gen.generate(seed);
        vi::BackFinderOptions ask;
        ask.ifKnownPieces = true;
        const auto plain = vi::findBackCards(s.image);
        const auto asked = vi::findBackCards(s.image, ask);
        for (const auto& c : plain) EXPECT_FALSE(c.ifKnown) << "seed " << seed;
        // the other cards are the plain finder's, at the same places
        int rest = 0;
        for (const auto& c : asked) {
            if (c.ifKnown) {
                ++flagged;
                continue;
            }
            ++rest;
            double off = 1e9;
            for (const auto& p : plain) {
                double worst = 0;
                for (std::size_t k = 0; k < 4; ++k) worst = std::max(worst, double(cv::norm(p.quad[k] - c.quad[k])));
                off = std::min(off, worst);
            }
            EXPECT_LT(off, 0.01) << "seed " << seed;
        }
        EXPECT_EQ(rest, int(plain.size())) << "seed " << seed;
    }
    RecordProperty("flagged", flagged);
    EXPECT_GE(flagged, 1) << "no half-shown piece in the scenes: the test shows nothing";
}

// A card lying across another: its piece of the card mask often takes in some of the card under it,
// and of the lines the colour steps across such a side support, the outermost is then the lower
// card's far edge. A side with other cards beyond it takes its best-supported line
// (BackFinderOptions::contestedLineShare; models/training/BACKS.md, "Sides with other cards beyond
// them"). 20 tables of three pairs, a card 150-170 px long half across another turned 10-40
// degrees from it: the top cards' corners on the whole no farther off than with the outermost line,
// and the count no worse.
TEST(BackFinder, ACardAcrossAnotherIsOutlinedByItsOwnBorder) {
    cv::RNG rng(44);
    double withRule = 0, without = 0;
    int tops = 0, offWith = 0, offWithout = 0;
    for (int trial = 0; trial < 20; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = float(rng.uniform(150, 170));
        std::vector<vi::Quad> topCards;
        int n = 0;
        for (int k = 0; k < 3; ++k) {
            const cv::Point2f c(1280.f * (float(k) + 0.5f) / 3.f, 360.f + float(rng.uniform(-60, 60)));
            const float a = float(rng.uniform(0.0, CV_PI));
            const float turn = float(rng.uniform(0.17, 0.7)) * (rng.uniform(0, 2) ? 1.f : -1.f);
            const cv::Point2f shift(std::cos(a + 0.8f) * 0.45f * h, std::sin(a + 0.8f) * 0.45f * h);
            const int under = rng.uniform(0, 4), over = (under + 1 + rng.uniform(0, 3)) % 4;
            vi::drawCard(img, decks().art[std::size_t(under)], cardQuad(c - shift * 0.5f, a, h * 0.69f, h));
            const vi::Quad top = cardQuad(c + shift * 0.5f, a + turn, h * 0.69f, h);
            vi::drawCard(img, decks().art[std::size_t(over)], top);
            topCards.push_back(top);
            n += 2;
        }
        img = jpegCoded(img, 85);
        vi::BackFinderOptions before;
        before.contestedLineShare = 0.7f;
        const auto got = vi::findBackCards(img);
        const auto old = vi::findBackCards(img, before);
        offWith += std::abs(int(got.size()) - n);
        offWithout += std::abs(int(old.size()) - n);
        for (const vi::Quad& t : topCards) {
            withRule += nearestFoundError(got, t);
            without += nearestFoundError(old, t);
            ++tops;
        }
    }
    std::cerr << "cards across another: mean corner error " << withRule / tops << " px, "
              << without / tops << " px with the outermost line; cards off " << offWith << " / "
              << offWithout << "\n";
    EXPECT_LE(withRule, without);
    EXPECT_LE(offWith, offWithout);
}

// Cards far larger than any the segmenter was trained on (its scenes' cards are at most 0.4 of a
// 16:9 picture's short side; these are 0.67-0.78 of it) get no card middles at the working size,
// and its card mask falls apart into scraps: 14-31 "cards" for 3 at one working size. The finder
// sees that little of its mask points at a middle and reads the picture again at half the working
// size, where they are the size it knows (models/training/BACKS.md, "Rows the segmenter does not
// see, and cards larger than it knows").
TEST(BackFinder, CardsLargerThanTheSegmenterKnowsAreReadAgainSmaller) {
    const cv::Mat paris = loadBack("paris");
    struct Case {
        const cv::Mat* art;
        float h;
    };
    int offWrong = 0;
    for (const Case& k :
         {Case{&decks().art[2], 480.f}, Case{&decks().art[2], 560.f}, Case{&paris, 560.f}}) {
        cv::RNG rng(3);
        cv::Mat img = greenCloth(rng);
        std::vector<cv::Point2f> centres;
        for (int i = 0; i < 3; ++i) {
            const cv::Point2f c(1280.f * (float(i) + 0.5f) / 3.f, 360.f);
            const float a = 0.3f * float(i - 1), w = k.h * float(k.art->cols) / float(k.art->rows);
            vi::drawCard(img, *k.art, cardQuad(c, a, w, k.h));
            centres.push_back(c);
        }
        img = jpegCoded(img, 90);
        const auto found = vi::findBackCards(img);
        vi::BackFinderOptions once;
        once.minClaimed = 0.f;
        once.halfBelowClaimed = 0.f;  // the close-up rule reads again at half too
        const auto atOneSize = vi::findBackCards(img, once);
        std::cerr << "cards " << k.h << " px tall: " << found.size() << " found, "
                  << atOneSize.size() << " at one working size\n";
        offWrong += atOneSize.size() != 3 ? 1 : 0;
        ASSERT_EQ(found.size(), 3u) << "cards " << k.h << " px tall";
        // each card found once, its middle on a drawn card's middle
        std::vector<bool> taken(3, false);
        for (const auto& c : found) {
            std::size_t best = 0;
            for (std::size_t t = 1; t < 3; ++t)
                if (cv::norm(vi::quadCentre(c.quad) - centres[t]) <
                    cv::norm(vi::quadCentre(c.quad) - centres[best]))
                    best = t;
            EXPECT_LE(cv::norm(vi::quadCentre(c.quad) - centres[best]), 0.1 * k.h);
            EXPECT_FALSE(taken[best]);
            taken[best] = true;
        }
    }
    EXPECT_GE(offWrong, 2);  // what the second reading is for
}

// A real phone photo of face-up cards of the black/gold deck (../shared/data/real-cards, no card
// face down; that deck's pictures were never trained on): the row reader cuts the cards and the
// table into rows of "cards" by their geometry (34 here), most on pixels the segmenter itself does
// not take for face-down cards. Those rows are dropped (10 left; the face reader of `count` leaves
// out most of the rest); real rows are kept (CountsARibbonSpreadByStrips,
// CountsANarrowRibbonSpreadByStrips). (Until 2026-11-29 the picture was a webcam photo of a white
// table and keyboard with 99 such "cards", then a phone photo of the white deck with 23: the
// segmenters fine-tuned on real photos and on busy tables give no rows there at all.)
TEST(BackFinder, RowsOnPixelsTheSegmenterTakesForNoCardAreDropped) {
    const std::string photo = std::string(NERTZ_SHARED_DIR) + "/data/real-cards/phone/images/IMG_7782.jpg";
    if (!fs::is_regular_file(photo)) GTEST_SKIP() << "no real photo at " << photo;
    const cv::Mat img = cv::imread(photo, cv::IMREAD_COLOR);
    ASSERT_FALSE(img.empty());
    vi::BackFinderOptions all;
    all.minRowSupport = 0.f;
    auto inRows = [](const std::vector<vi::BackCandidate>& cards) {
        return std::count_if(cards.begin(), cards.end(), [](const auto& c) { return c.inRow; });
    };
    const auto before = vi::findBackCards(img, all);
    const auto now = vi::findBackCards(img);
    std::cerr << "face-up cards on a table: " << before.size() << " found (" << inRows(before)
              << " in rows) without the rule, " << now.size() << " (" << inRows(now)
              << ") with it\n";
    EXPECT_GE(inRows(before), 15);
    EXPECT_LE(2 * inRows(now), inRows(before));
    EXPECT_EQ(before.size() - now.size(),
              std::size_t(inRows(before) - inRows(now)));  // loose cards untouched
}

// A real phone photo of six face-down cards of a dark plain deck, each about 0.36 of the picture
// long (../shared/data/real-cards, labelled BACK polygons): with the segmenter trained on synthetic
// tables alone, at the working size it found no middles on them and the finder gave 47 scraps, none
// on a card's outline; read again at half the size, 4 or more were found whole. The segmenter
// fine-tuned on real photos of no face-down card (2026-11-29) takes far less of these plain black
// rectangles for card at all: 7 pieces at one size, 3 cards found, 2 of them on a labelled
// outline (BACKS.md, "Real photos as negatives": the price of the real photos' phantoms); the one
// fine-tuned on busy tables as well (BACKS.md, "Busy tables") 2 cards, 1 on a labelled outline (5
// of the 20 such backs in the 11 pictures, as before it). Needs: no scraps (at most 9 found), and
// one of the six found whole.
TEST(BackFinder, RealBacksLargerThanTheSegmenterKnowsAreFoundWhole) {
    const std::string dir = std::string(NERTZ_SHARED_DIR) + "/data/real-cards/phone";
    const std::string photo = dir + "/images/IMG_7802.jpg";
    if (!fs::is_regular_file(photo)) GTEST_SKIP() << "no real photo at " << photo;
    const cv::Mat img = cv::imread(photo, cv::IMREAD_COLOR);
    ASSERT_FALSE(img.empty());
    const auto backs = labelledBacks(dir + "/labels/IMG_7802.txt", img.size());
    ASSERT_EQ(backs.size(), 6u);
    auto matched = [&](const std::vector<vi::BackCandidate>& found) {
        int n = 0;
        std::vector<bool> used(found.size(), false);
        for (const auto& b : backs) {
            cv::Mat t = cv::Mat::zeros(img.size(), CV_8U);
            cv::fillPoly(t, std::vector<std::vector<cv::Point>>{b}, cv::Scalar(255));
            for (std::size_t i = 0; i < found.size(); ++i) {
                if (used[i]) continue;
                cv::Mat f = cv::Mat::zeros(img.size(), CV_8U);
                std::vector<cv::Point> q;
                for (const auto& p : found[i].quad) q.emplace_back(int(p.x), int(p.y));
                cv::fillPoly(f, std::vector<std::vector<cv::Point>>{q}, cv::Scalar(255));
                if (cv::countNonZero(t & f) >= 0.5 * cv::countNonZero(t | f)) {
                    used[i] = true;
                    ++n;
                    break;
                }
            }
        }
        return n;
    };
    vi::BackFinderOptions once;
    once.minClaimed = 0.f;
    const auto atOneSize = vi::findBackCards(img, once);
    const auto found = vi::findBackCards(img);
    std::cerr << "six real backs: " << found.size() << " found, " << matched(found)
              << " on a labelled outline; at one working size " << atOneSize.size() << ", "
              << matched(atOneSize) << "\n";
    EXPECT_GE(matched(found), 1);
    EXPECT_LE(found.size(), 9u);
}

// The 49 real webcam photos of ../shared/data/real-cards/webcam_table: face-up cards on a white
// table, a wooden desk and a knitted blanket, hands and a keyboard, and no card face down. The
// segmenter trained on synthetic tables alone took the blanket's knit, the desks and the cards'
// white faces for backs: the finder gave 1,476 "cards" there, up to 98 in one picture. Fine-tuned
// with real photos that show no face-down card (models/training/seg_real_negatives.sh; none of
// these 49 among them: BACKS.md, "Real photos as negatives") it gives 123, at most 16 in one (the
// face reader of `count` leaves out most of those: 6 are left).
TEST(BackFinder, RealPhotosWithNoCardFaceDownGiveFewCards) {
    const fs::path dir =
        fs::path(NERTZ_SHARED_DIR) / "data/real-cards/webcam_table/images";
    if (!fs::is_directory(dir)) GTEST_SKIP() << "no real photos at " << dir;
    std::vector<fs::path> photos;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".jpg") photos.push_back(e.path());
    std::sort(photos.begin(), photos.end());
    ASSERT_EQ(photos.size(), 49u);
    std::size_t found = 0, most = 0;
    for (const auto& p : photos) {
        const cv::Mat img = cv::imread(p.string(), cv::IMREAD_COLOR);
        ASSERT_FALSE(img.empty()) << p;
        const std::size_t n = vi::findBackCards(img).size();
        found += n;
        most = std::max(most, n);
    }
    RecordProperty("found", int(found));
    RecordProperty("most_in_one_picture", int(most));
    std::cerr << "49 real photos with no card face down: " << found << " cards found, at most "
              << most << " in one\n";
    EXPECT_LE(found, 250u);
    EXPECT_LE(most, 30u);
}

// Cards half covered by others, under a dim warm light and out of focus: what shows of them is
// little, and many are left unknown between the two colours of one design. The scene's own whole
// cards of those decks, seen under the same light, settle them. Needs: on the true outlines, no card
// lost or given to a wrong deck by reading them together; on the found cards, no more unknown cards
// with the scene's cards than without, and the per-deck counts no farther from the truth.
TEST(LakeCounter, CoveredCardsUnderAWarmLightAreSettledBesideTheScenesWholeCards) {
    cv::RNG rng(31);
    int unknownWith = 0, unknownWithout = 0, errorWith = 0, errorWithout = 0;
    int rightTogether = 0, rightAlone = 0, wrongTogether = 0;
    for (int trial = 0; trial < 4; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = 150.f, w = h * float(decks().art[0].cols) / float(decks().art[0].rows);
        std::vector<int> deckOf;
        std::vector<vi::Quad> quads;
        auto card = [&](cv::Point2f c, float a, int d) {
            quads.push_back(cardQuad(c, a, w, h));
            vi::drawCard(img, decks().art[std::size_t(d)], quads.back());
            deckOf.push_back(d);
        };
        // piles of three: each card on the one before, 35-50% of it still showing
        for (int pile = 0; pile < 4; ++pile) {
            cv::Point2f c(180.f + 300.f * float(pile), 250.f + float(rng.uniform(-30, 30)));
            float a = float(rng.uniform(0.0, 6.283));
            for (int k = 0; k < 3; ++k) {
                card(c, a, rng.uniform(0, 2));
                const float shift = h * float(rng.uniform(0.35, 0.5));
                c += cv::Point2f(float(rng.uniform(-0.3, 0.3)), 1.f) * shift;
                a += float(rng.uniform(-0.4, 0.4));
            }
        }
        // dim warm light, out of focus
        std::vector<cv::Mat> ch;
        cv::split(img, ch);
        ch[0] *= 0.55;
        ch[1] *= 0.75;
        ch[2] *= 0.95;
        cv::merge(ch, img);
        cv::GaussianBlur(img, img, cv::Size(0, 0), 1.6);
        img = jpegCoded(img, 70);
        // the scene's cards on and off, both without the refit of unknown cards (RefitOptions; with
        // it, here 4 / 4 unknown and 16 / 17 off the true counts: it settles the same cards)
        vi::MatcherOptions with, without;
        with.refit.on = without.refit.on = false;
        without.sceneExemplars = false;
        vi::BackMatcher scene(with), plain(without);
        for (std::size_t d = 0; d < decks().names.size(); ++d) {
            scene.add(decks().names[d], decks().matcher.decks()[d].signature);
            plain.add(decks().names[d], decks().matcher.decks()[d].signature);
        }
        const vi::DeckCount got = vi::countBacks(img, scene);
        const vi::DeckCount was = vi::countBacks(img, plain);
        std::cerr << "warm light trial " << trial << ": " << deckOf.size() << " cards, found " << got.total() << ", unknown "
                  << got.unknown << " with the scene's cards, " << was.unknown << " without\n";
        unknownWith += got.unknown;
        unknownWithout += was.unknown;
        // cards off the true per-deck counts (an unknown card is one)
        auto error = [&](const vi::DeckCount& c) {
            int e = c.unknown;
            for (const auto& [name, n] : c.counts) e += std::abs(n - truthCounts(deckOf).at(name));
            return e;
        };
        errorWith += error(got);
        errorWithout += error(was);
        // the same on the true outlines, each read by what shows of it (eval-count's attribution):
        // attributeCards reads them together as countBacks does; without the scene's cards
        // (`plain`) it is attributeCard, card by card
        std::vector<vi::BackCandidate> cands;
        for (std::size_t k = 0; k < quads.size(); ++k) {
            vi::BackCandidate c;
            c.quad = quads[k];
            std::vector<std::vector<cv::Point2f>> above;
            for (std::size_t j = k + 1; j < quads.size(); ++j)
                above.emplace_back(quads[j].begin(), quads[j].end());
            if (!above.empty())
                c.shows = vi::uncoveredPart({quads[k].begin(), quads[k].end()}, above);
            cands.push_back(std::move(c));
        }
        // and the top card of each pile read by a strip of it only (a fifth of it at its far end)
        const std::size_t whole = cands.size();
        std::vector<int> truthOf = deckOf;
        for (std::size_t k = 2; k < whole; k += 3) {
            const vi::Quad& q = quads[k];
            vi::BackCandidate c;
            c.quad = q;
            c.shows = {q[0], q[1], q[1] + (q[2] - q[1]) * 0.2f, q[0] + (q[3] - q[0]) * 0.2f};
            cands.push_back(std::move(c));
            truthOf.push_back(deckOf[k]);
        }
        const auto together = vi::attributeCards(img, cands, decks().matcher);
        ASSERT_EQ(together.size(), cands.size());
        for (std::size_t k = 0; k < cands.size(); ++k) {
            const auto alone =
                vi::attributeCard(img, cands[k].quad, {}, decks().matcher, cands[k].shows);
            EXPECT_EQ(vi::attributeCards(img, {cands[k]}, plain)[0].deck, alone.deck);
            rightTogether += together[k].deck == truthOf[k] ? 1 : 0;
            rightAlone += alone.deck == truthOf[k] ? 1 : 0;
            wrongTogether += together[k].deck >= 0 && together[k].deck != truthOf[k] ? 1 : 0;
        }
    }
    std::cerr << "warm light, true outlines: " << rightTogether << " right together, " << rightAlone
              << " alone; " << wrongTogether << " wrong together\n";
    // On true outlines every card is already read right alone here (64 of 64, strips included):
    // reading them together must lose none and give none to a wrong deck.
    EXPECT_GE(rightTogether, rightAlone);
    EXPECT_EQ(wrongTogether, 0);
    std::cerr << "warm light: unknown " << unknownWith << " / " << unknownWithout << ", off the true counts "
              << errorWith << " / " << errorWithout << " with / without the scene's cards\n";
    // On the cards the finder gives, the scene's cards settled one or two more with the segmenter
    // before 2026-11-29; with the one fine-tuned on real photos the cards it leaves unknown here
    // are the same either way (9 / 9, off the counts 19 / 19): they must not be more.
    EXPECT_LE(unknownWith, unknownWithout);
    EXPECT_LE(errorWith, errorWithout);
}

// A batch scene: a few cards lying alone (they give the card's size) and clusters of two or three
// loose cards of different decks that touch or overlap a little, at different angles. Without
// fitting cards into the clusters (`fitClusters = false`) they are read as rows and miscounted.
// Needs: every card found in each trial, and exact per-deck counts in at least 2 of the 3.
TEST(LakeCounter, CountsTouchingLooseCardsOfSeveralDecksExactly) {
    cv::RNG rng(9);
    int exact = 0;
    for (int trial = 0; trial < 3; ++trial) {
        cv::Mat img = greenCloth(rng);
        const float h = 150.f;
        std::vector<int> deckOf;
        auto card = [&](cv::Point2f c, float a) {
            const int d = rng.uniform(0, 4);
            const cv::Mat& art = decks().art[std::size_t(d)];
            vi::drawCard(img, art, cardQuad(c, a, h * float(art.cols) / float(art.rows), h));
            deckOf.push_back(d);
        };
        auto jitter = [&] { return float(rng.uniform(-0.15, 0.15)); };
        // alone
        card({120, 130}, jitter());
        card({120, 560}, 1.4f + jitter());
        card({1170, 140}, 0.5f + jitter());
        card({1160, 580}, jitter());
        // two side by side, touching along their long edges (a little turned against each other)
        card({330, 360}, jitter());
        card({330 + 0.69f * h + 2, 360}, 0.12f + jitter());
        // two overlapping by a quarter, the second turned a lot
        card({690, 200}, 0.3f + jitter());
        card({690 + 0.75f * 0.69f * h, 250}, 1.1f + jitter());
        // three: a card with two others touching it at its ends, turned
        card({800, 520}, 1.57f + jitter());
        card({800 - 0.5f * h - 0.3f * 0.69f * h, 560}, 0.2f + jitter());
        card({800 + 0.5f * h + 0.3f * 0.69f * h, 500}, -0.25f + jitter());
        img = jpegCoded(img, 80);
        const vi::DeckCount got = vi::countBacks(img, decks().matcher);
        EXPECT_EQ(got.total(), int(deckOf.size())) << "trial " << trial;
        exact += got.counts == truthCounts(deckOf) && got.unknown == 0 ? 1 : 0;
        if (const char* dir = std::getenv("NERTZ_TEST_DRAW")) {
            for (const auto& c : got.cards)
                for (std::size_t k = 0; k < 4; ++k)
                    cv::line(img, c.quad[k], c.quad[(k + 1) % 4],
                             c.deck < 0 ? cv::Scalar(0, 0, 255) : cv::Scalar(255, 255, 0), 2);
            cv::imwrite(std::string(dir) + "/touch" + std::to_string(trial) + ".png", img);
        }
    }
    // measured 2026-11-23: trials 0 and 2 exact, trial 1 one card unknown (the side-by-side pair is
    // fitted with a card straddling both); without the cluster fit none of the 3 is exact
    EXPECT_GE(exact, 2);
}

// A hand reaching in over the table and onto a card: forearm, palm and four fingers, flat skin
// colour with a soft edge (drawn here, not by the synth generator the segmenter was trained on).
void drawTestHand(cv::Mat& img, cv::Point2f from, cv::Point2f palm, float width) {
    cv::Mat mask(img.size(), CV_8U, cv::Scalar(0));
    cv::line(mask, from, palm, cv::Scalar(255), int(width * 0.8f));
    cv::circle(mask, palm, int(width * 0.55f), cv::Scalar(255), cv::FILLED);
    const cv::Point2f dir = (palm - from) * (1.f / float(cv::norm(palm - from)));
    const cv::Point2f across(-dir.y, dir.x);
    for (int f = 0; f < 4; ++f) {
        const cv::Point2f base = palm + across * (width * (f - 1.5f) * 0.25f) + dir * (width * 0.3f);
        cv::line(mask, base, base + dir * (width * 0.8f), cv::Scalar(255), int(width * 0.18f));
    }
    cv::GaussianBlur(mask, mask, cv::Size(0, 0), 1.5);
    const cv::Vec3f skin(120, 150, 205);
    for (int y = 0; y < img.rows; ++y)
        for (int x = 0; x < img.cols; ++x) {
            const float a = mask.at<uchar>(y, x) / 255.f;
            if (a <= 0) continue;
            cv::Vec3b& p = img.at<cv::Vec3b>(y, x);
            for (int k = 0; k < 3; ++k) p[k] = cv::saturate_cast<uchar>(p[k] * (1 - a) + skin[k] * a);
        }
}

// The learnt segmenter (models/back_seg.onnx) on a picture it was not trained on: card interiors
// are cards, the cloth is not, and neither is a hand lying over the table and a card.
TEST(BackSegmenter, MarksCardsButNotTheTableOrAHand) {
    Scene s = looseScene(21, 4, 2);
    drawTestHand(s.image, {1280, 700}, {900, 420}, 140);
    const vi::BackSegmenter seg(vi::resolveModelDir(""));
    cv::Mat work;
    cv::resize(s.image, work, cv::Size(640, 360), 0, 0, cv::INTER_AREA);
    const vi::BackSegmentation out = seg.segment(work);
    ASSERT_EQ(out.card.size(), work.size());
    ASSERT_EQ(out.outline.size(), work.size());
    cv::Mat cardMask = cv::Mat::zeros(work.size(), CV_8U);
    for (const auto& q : s.quads) {
        std::vector<cv::Point> poly;
        for (const auto& p : q) poly.emplace_back(cv::Point(int(p.x / 2), int(p.y / 2)));
        cv::fillConvexPoly(cardMask, poly, cv::Scalar(255));
    }
    cv::Mat handMask = cv::Mat::zeros(s.image.size(), CV_8UC3);
    drawTestHand(handMask, {1280, 700}, {900, 420}, 140);  // not black where the hand is
    cv::cvtColor(handMask, handMask, cv::COLOR_BGR2GRAY);
    cv::resize(handMask, handMask, work.size(), 0, 0, cv::INTER_NEAREST);
    handMask = handMask > 100;
    cv::Mat inside, outside;
    cv::erode(cardMask & ~handMask, inside, cv::Mat(), cv::Point(-1, -1), 5);
    cv::dilate(cardMask | handMask, outside, cv::Mat(), cv::Point(-1, -1), 5);
    outside = ~outside;
    cv::Mat handInside;
    cv::erode(handMask, handInside, cv::Mat(), cv::Point(-1, -1), 4);
    const double onCards = cv::mean(out.card, inside)[0] / 255.0;
    const double onTable = cv::mean(out.card, outside)[0] / 255.0;
    const double onHand = cv::mean(out.card, handInside)[0] / 255.0;
    RecordProperty("on_cards", std::to_string(onCards));
    EXPECT_GT(onCards, 0.9) << "mean card probability inside the cards";
    EXPECT_LT(onTable, 0.05) << "on the cloth";
    EXPECT_LT(onHand, 0.2) << "on the hand";
    // outlines run along the cards' edges, not through their middles
    cv::Mat edgeBand;
    cv::Mat cardEdges;
    cv::morphologyEx(cardMask, cardEdges, cv::MORPH_GRADIENT, cv::Mat(), cv::Point(-1, -1), 2);
    EXPECT_GT(cv::mean(out.outline, cardEdges & ~handMask)[0] / 255.0, 0.4) << "on the card edges";
    cv::erode(cardMask, edgeBand, cv::Mat(), cv::Point(-1, -1), 8);
    EXPECT_LT(cv::mean(out.outline, edgeBand & ~handMask)[0] / 255.0, 0.15) << "inside the cards";
}

// The ribbon edge finder's convolutions by hand (AVX2 + FMA) against the sum written out: sample
// counts that are and are not whole blocks of 16, every dilation the net uses, taps reaching past
// both ends (zero there), output channels not a multiple of 4.
TEST(RibbonNet, ConvolutionsByHandAsWrittenOut) {
#if defined(__x86_64__)
    if (!cv::checkHardwareSupport(CV_CPU_AVX2) || !cv::checkHardwareSupport(CV_CPU_FMA3))
        GTEST_SKIP() << "no AVX2 + FMA here: the ribbon net runs through cv::gemm";
    cv::RNG rng(11);
    for (int len : {1, 7, 16, 45, 663}) {
        for (int dilation : {1, 2, 4, 8, 16}) {
            const int cin = 36, cout = 6, k = 5, half = (k - 1) / 2 * dilation;
            std::vector<float> in(std::size_t(cin * len)), w(std::size_t(cout * cin * k));
            rng.fill(in, cv::RNG::UNIFORM, -2.0, 2.0);
            rng.fill(w, cv::RNG::UNIFORM, -0.2, 0.2);
            std::vector<float> out(std::size_t(cout * len), -99.f);
            nertz::vision::detail::conv1dAvx2(in.data(), cin, len, w.data(), cout, k, dilation,
                                              out.data());
            double worst = 0;
            for (int o = 0; o < cout; ++o)
                for (int x = 0; x < len; ++x) {
                    double sum = 0;
                    for (int c = 0; c < cin; ++c)
                        for (int t = 0; t < k; ++t) {
                            const int at = x + t * dilation - half;
                            if (at >= 0 && at < len)
                                sum += double(w[std::size_t((o * cin + c) * k + t)]) *
                                       in[std::size_t(c * len + at)];
                        }
                    worst = std::max(worst, std::abs(sum - double(out[std::size_t(o * len + x)])));
                }
            EXPECT_LT(worst, 1e-4) << "len " << len << ", dilation " << dilation;
        }
    }
#else
    GTEST_SKIP() << "x86-64 only";
#endif
}

// The segmenter's net computed by hand (AVX2 and FMA) gives what cv::dnn gives: the same card and
// outline maps to a grey level, the same centres and offsets to float rounding, on a loose table
// with a hand (1280x720 shrunk to the finder's 640x360) and on a picture whose sides are not
// multiples of 8 (padded, as the finder's working size can be).
TEST(BackSegmenter, ComputedByHandAsByDnn) {
    const vi::BackSegmenter hand(vi::resolveModelDir("")), dnn(vi::resolveModelDir(""), false);
    EXPECT_EQ(hand.computedHere(),
              cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3));
    EXPECT_FALSE(dnn.computedHere());
    Scene s = looseScene(23, 5, 3);
    drawTestHand(s.image, {1280, 650}, {880, 380}, 140);
    for (const cv::Size size : {cv::Size(640, 360), cv::Size(603, 341)}) {
        cv::Mat work;
        cv::resize(s.image, work, size, 0, 0, cv::INTER_AREA);
        const vi::BackSegmentation a = hand.segment(work), b = dnn.segment(work);
        ASSERT_EQ(a.card.size(), b.card.size());
        EXPECT_LE(cv::norm(a.card, b.card, cv::NORM_INF), 1.0) << size;
        EXPECT_LE(cv::norm(a.outline, b.outline, cv::NORM_INF), 1.0) << size;
        ASSERT_TRUE(a.hasCentres() && b.hasCentres());
        ASSERT_EQ(a.centre.size(), b.centre.size());
        EXPECT_LE(cv::norm(a.centre, b.centre, cv::NORM_INF), 1e-4) << size;
        EXPECT_LE(cv::norm(a.offset, b.offset, cv::NORM_INF), 1e-3) << size;
        EXPECT_EQ(a.stride, b.stride);
        EXPECT_GT(cv::mean(b.card)[0], 20.0) << "the picture shows cards";
    }
}

// A hand over the table that reaches onto a card: the learnt segmenter tells it from the cards,
// so it adds at most one card (a finger that cuts a card's corner off can leave a scrap that is
// counted: a known limit). The table-colour finder (`learntMask = false`) reads the hand as cards.
// Measured 2026-11-23 (models/back_seg.onnx and back signature v2 of that day), truth 8 each:
// summed |found - true| over the 3 trials 3 (learnt) against 11 (table colour: 13 / 12 / 10).
// Unknowns are attribution's part and are not asserted here (1-2 per trial, the scrap among them).
// Outlines the finder gets wrong come out unknown: one drawn over two touching cards of different
// decks, one a fifth of a card off its card. Card-sized outlines around them, read over what shows,
// put both right (RefitOptions); an outline on the bare table stays unknown.
TEST(LakeCounter, UnknownOutlinesAreFittedAgainToTheCardsUnderThem) {
    cv::RNG rng(29);
    cv::Mat img = greenCloth(rng);
    const float h = 150.f, w = h * float(decks().art[0].cols) / float(decks().art[0].rows);
    struct Card {
        int deck;
        vi::Quad quad;
    };
    const std::vector<Card> truth{
        {1, cardQuad({150, 150}, 0.f, w, h)},  // whole cards: the scene's card
        {2, cardQuad({1100, 560}, 0.4f, w, h)},
        {0, cardQuad({400, 400}, 0.f, w, h)},  // two that touch
        {2, cardQuad({400 + w + 2, 400}, 0.f, w, h)},
        {3, cardQuad({850, 330}, 0.3f, w, h)},  // one fitted off its place
    };
    for (const auto& c : truth) vi::drawCard(img, decks().art[std::size_t(c.deck)], c.quad);
    img = jpegCoded(img, 85);
    std::vector<vi::BackCandidate> found(5);
    found[0].quad = truth[0].quad;
    found[1].quad = truth[1].quad;
    found[2].quad = cardQuad({400 + (w + 2) / 2, 400}, 0.f, 2 * w + 2, h);
    const cv::Point2f along(std::cos(0.3f), std::sin(0.3f));
    found[3].quad = cardQuad(cv::Point2f(850, 330) + along * (0.2f * w), 0.3f, w, h);
    found[4].quad = cardQuad({1100, 150}, 0.f, w, h);  // bare cloth
    std::vector<vi::CountedCard> cards = vi::attributeCards(img, found, decks().matcher);
    ASSERT_EQ(cards.size(), 5u);
    ASSERT_EQ(cards[0].deckName, decks().names[1]);
    ASSERT_EQ(cards[1].deckName, decks().names[2]);
    // the premise: the wrong outlines match no deck
    ASSERT_LT(cards[2].deck, 0);
    ASSERT_LT(cards[3].deck, 0);
    ASSERT_LT(cards[4].deck, 0);

    vi::refitUnknownCards(img, decks().matcher, found, cards);
    ASSERT_EQ(cards.size(), 6u);  // the outline over two cards is two cards
    ASSERT_EQ(found.size(), 6u);
    // the two that touch: one took the outline's place, the other was added
    for (const std::size_t t : {std::size_t(2), std::size_t(3)}) {
        const auto& q = truth[t].quad;
        const std::size_t k = vi::quadIoU(cards[2].quad, q) > vi::quadIoU(cards[5].quad, q) ? 2 : 5;
        EXPECT_GT(vi::quadIoU(cards[k].quad, q), 0.8) << "card " << t;
        EXPECT_EQ(cards[k].deckName, decks().names[std::size_t(truth[t].deck)]) << "card " << t;
        EXPECT_EQ(found[k].quad, cards[k].quad);
    }
    EXPECT_GT(vi::quadIoU(cards[3].quad, truth[4].quad), 0.8);
    EXPECT_EQ(cards[3].deckName, decks().names[3]);
    EXPECT_LT(cards[4].deck, 0);  // nothing invented on the bare table
    EXPECT_EQ(cards[4].quad, found[4].quad);
}

TEST(LakeCounter, AHandOverTheCardsAddsAtMostOneCard) {
    int errLearnt = 0, errTableColour = 0;
    for (int trial = 0; trial < 3; ++trial) {
        Scene s = looseScene(40 + std::uint64_t(trial), 4, 2);
        drawTestHand(s.image, {1280.f, 300.f + 150.f * trial}, {1010.f, 260.f + 100.f * trial}, 150);
        const int truth = int(s.deckOf.size());
        const vi::DeckCount got = vi::countBacks(s.image, decks().matcher);
        EXPECT_LE(std::abs(got.total() - truth), 1) << "trial " << trial;
        errLearnt += std::abs(got.total() - truth);
        vi::BackFinderOptions old;
        old.learntMask = false;
        errTableColour += std::abs(vi::countBacks(s.image, decks().matcher, old).total() - truth);
        if (const char* dir = std::getenv("NERTZ_TEST_DRAW")) {
            cv::Mat img = s.image.clone();
            for (const auto& c : got.cards)
                for (std::size_t k = 0; k < 4; ++k)
                    cv::line(img, c.quad[k], c.quad[(k + 1) % 4], c.deck < 0 ? cv::Scalar(0, 0, 255) : cv::Scalar(255, 255, 0), 2);
            cv::imwrite(std::string(dir) + "/hand" + std::to_string(trial) + ".png", img);
        }
    }
    RecordProperty("error_learnt", errLearnt);
    RecordProperty("error_table_colour", errTableColour);
    EXPECT_LT(errLearnt, errTableColour);
}

// A hand lying across a card: the card is read without what the segmenter sees as no card
// (attributeCards with the segmenter's card probability), so the skin does not pull a blue card
// towards the red deck of its design or leave it unknown. Where nothing lies on a card, the reading
// is the one without the probability (the same distance to the same deck).
TEST(LakeCounter, AHandOnACardIsLeftOutOfItsReading) {
    cv::RNG rng(5);
    int rightMasked = 0, rightWhole = 0;
    double nearerMasked = 0, nearerWhole = 0;
    const int trials = 6;
    for (int trial = 0; trial < trials; ++trial) {
        cv::Mat img = greenCloth(rng);
        const int d = trial % 2;  // the blue and the red deck of one design
        const cv::Mat& art = decks().art[std::size_t(d)];
        const float h = 200.f, w = h * float(art.cols) / float(art.rows);
        const cv::Point2f at(640.f + float(rng.uniform(-40, 40)), 360.f + float(rng.uniform(-30, 30)));
        const vi::Quad q = cardQuad(at, float(rng.uniform(0.0, 6.283)), w, h);
        vi::drawCard(img, art, q);
        // a second card, clear of the hand, on which nothing lies
        const vi::Quad clear = cardQuad({250.f, 360.f}, float(rng.uniform(0.0, 6.283)), w, h);
        vi::drawCard(img, decks().art[std::size_t(1 - d)], clear);
        // fingers reaching in from the right over a third or so of the card
        drawTestHand(img, {1280.f, at.y + float(rng.uniform(-60, 60))},
                     {at.x + 0.55f * h, at.y + float(rng.uniform(-30, 30))}, 150);
        img = jpegCoded(img, 80);
        std::vector<vi::BackCandidate> found(2);
        found[0].quad = q;
        found[1].quad = clear;
        const cv::Mat probability = vi::backCardProbability(img);
        ASSERT_FALSE(probability.empty());
        // the hand shows in the rectified mask of the covered card, not in the clear one's
        const cv::Mat covered = vi::rectifiedCardMask(probability, img.size(), q, 51);
        const cv::Mat bare = vi::rectifiedCardMask(probability, img.size(), clear, 51);
        ASSERT_EQ(covered.size(), cv::Size(vi::kBackWidth, vi::kBackHeight));
        const double coveredShare = 1.0 - cv::countNonZero(covered) / double(covered.total());
        EXPECT_GT(coveredShare, 0.1) << "trial " << trial;
        EXPECT_LT(coveredShare, 0.7) << "trial " << trial;
        EXPECT_LT(1.0 - cv::countNonZero(bare) / double(bare.total()), 0.05) << "trial " << trial;

        const auto masked = vi::attributeCards(img, found, decks().matcher, probability);
        const auto whole = vi::attributeCards(img, found, decks().matcher);
        ASSERT_EQ(masked.size(), 2u);
        rightMasked += masked[0].deck == d ? 1 : 0;
        rightWhole += whole[0].deck == d ? 1 : 0;
        if (masked[0].deck == d && whole[0].deck == d) {
            nearerMasked += masked[0].distance;
            nearerWhole += whole[0].distance;
        }
        EXPECT_EQ(masked[0].deckName, decks().names[std::size_t(d)]) << "trial " << trial;
        // the hand is left out (it looks nothing like the card's back)
        EXPECT_GT(masked[0].hidden, 0.05f) << "trial " << trial;
        // the clear card is read as before
        EXPECT_EQ(masked[1].deck, whole[1].deck) << "trial " << trial;
        EXPECT_FLOAT_EQ(masked[1].distance, whole[1].distance) << "trial " << trial;
    }
    RecordProperty("right_without_the_hand", rightMasked);
    RecordProperty("right_with_the_hand", rightWhole);
    EXPECT_EQ(rightMasked, trials);
    // better than the reading with the hand: more cards right, or (all right both ways) nearer
    // their deck
    EXPECT_TRUE(rightMasked > rightWhole || nearerMasked < nearerWhole)
        << rightMasked << " right against " << rightWhole << ", summed distances " << nearerMasked
        << " against " << nearerWhole;
}

// The segmenter unsure of a card's own back (a faint pattern on a light table: the held-out
// gnome-neoclassical, BACKS.md, "The segmenter unsure of a faint card"): where what it hides of a
// card looks like what it leaves, all of the card is read, as without the segmenter (the same
// deck at the same distance), and nothing is reported hidden. Here the segmenter's probability is
// set to "surely no card" over half of each card, which otherwise leaves that half out.
TEST(LakeCounter, WhatTheSegmenterHidesOfACardIsReadWhenItLooksLikeTheCard) {
    cv::RNG rng(11);
    for (int trial = 0; trial < 4; ++trial) {
        cv::Mat img = greenCloth(rng);
        const int d = trial % 2;
        const cv::Mat& art = decks().art[std::size_t(d)];
        const float h = 200.f, w = h * float(art.cols) / float(art.rows);
        const vi::Quad q = cardQuad({640.f + float(rng.uniform(-40, 40)), 360.f + float(rng.uniform(-30, 30))},
                                    float(rng.uniform(0.0, 6.283)), w, h);
        vi::drawCard(img, art, q);
        img = jpegCoded(img, 80);
        std::vector<vi::BackCandidate> found(1);
        found[0].quad = q;
        cv::Mat probability = vi::backCardProbability(img).clone();
        ASSERT_FALSE(probability.empty());
        const float sx = float(probability.cols) / float(img.cols),
                    sy = float(probability.rows) / float(img.rows);
        std::vector<cv::Point> half;
        for (const cv::Point2f& p : {q[0], q[1], (q[1] + q[2]) * 0.5f, (q[3] + q[0]) * 0.5f})
            half.emplace_back(cvRound(p.x * sx), cvRound(p.y * sy));
        cv::fillConvexPoly(probability, half, cv::Scalar(0));
        const double hiddenShare =
            1.0 - cv::countNonZero(vi::rectifiedCardMask(probability, img.size(), q, vi::kSureNoCard)) /
                      double(vi::kBackWidth * vi::kBackHeight);
        EXPECT_GT(hiddenShare, 0.3) << "trial " << trial;
        EXPECT_LT(hiddenShare, 0.65) << "trial " << trial;
        const auto unsure = vi::attributeCards(img, found, decks().matcher, probability);
        const auto whole = vi::attributeCards(img, found, decks().matcher);
        ASSERT_EQ(unsure.size(), 1u);
        EXPECT_EQ(unsure[0].deck, d) << "trial " << trial;
        EXPECT_FLOAT_EQ(unsure[0].distance, whole[0].distance) << "trial " << trial;
        EXPECT_EQ(unsure[0].hidden, 0.f) << "trial " << trial;
    }
}

// Face-up cards told from backs by the picture's face reading (faceUpCards): what the back finder
// takes for a card is left out when a read corner index lies on what shows of it, when it lies
// mostly within a face-up card's outline (the pips and court art of a face-up card), or when it is
// far smaller than the face-up cards (pieces of their print, or of a table's texture; a card read
// by its index alone is taken to be 2.5 times its index box at least). A back beside a face-up
// card, or partly under one (only what shows of it counts), stays; so does every card when nothing
// was read face up (no size to compare with), an outline read as a back, and a card whose index
// was read unsurely.
TEST(LakeCounter, FaceUpCardsAndPiecesOfTheirPrintAreNotBacks) {
    auto card = [](cv::Point2f c, float h) {
        const float w = h / 1.4f;
        return vi::Quad{c + cv::Point2f(-w / 2, -h / 2), c + cv::Point2f(w / 2, -h / 2),
                        c + cv::Point2f(w / 2, h / 2), c + cv::Point2f(-w / 2, h / 2)};
    };
    auto candidate = [](const vi::Quad& q, std::vector<cv::Point2f> shows = {}) {
        vi::BackCandidate c;
        c.quad = q;
        c.shows = std::move(shows);
        return c;
    };
    // a face-up seven of hearts at (300, 300), 200 px tall, its index read at its top-left corner
    vi::Detection faces;
    vi::DetectedCard seven;
    seven.quad = card({300, 300}, 200);
    seven.face = nertz::scoring::parseAnyCard("7H");
    vi::IndexReading ix;
    ix.centre = {245, 215};
    ix.box = {235, 200, 20, 30};
    ix.face = *seven.face;
    ix.confidence = 0.97f;
    seven.indices = {ix};
    faces.cards.push_back(seven);

    std::vector<vi::BackCandidate> found{
        candidate(card({300, 300}, 196)),  // 0: the face-up card itself, taken for a back
        candidate(card({310, 330}, 150)),  // 1: its pips cut out as a card (mostly within it)
        candidate(card({245, 240}, 140)),  // 2: a piece holding its index
        candidate(card({700, 300}, 190)),  // 3: a back beside it
        candidate(card({340, 300}, 200),   // 4: a back under it: shows right of its edge
                  {{372, 200}, {411, 200}, {411, 400}, {372, 400}}),
        candidate(card({900, 600}, 60)),  // 5: a scrap of the table, a third of a card
    };
    const std::vector<bool> up = vi::faceUpCards(found, faces);
    EXPECT_EQ(up, (std::vector<bool>{true, true, true, false, false, true}));

    // the same back (4) judged by its whole outline would lie 72% on the face-up card
    vi::BackCandidate whole = found[4];
    whole.shows.clear();
    EXPECT_EQ(vi::faceUpCards({whole}, faces), std::vector<bool>{true});

    // nothing read face up: no card is left out, however small
    EXPECT_EQ(vi::faceUpCards(found, vi::Detection{}), std::vector<bool>(found.size(), false));
    // an outline the reader calls a back (no face, no index) is no face-up card
    vi::Detection backOnly;
    vi::DetectedCard back;
    back.quad = card({300, 300}, 200);
    back.side = vi::Side::Back;
    backOnly.cards.push_back(back);
    EXPECT_EQ(vi::faceUpCards(found, backOnly), std::vector<bool>(found.size(), false));
    // read by its index alone (no outline found): the card is taken to be at least 2.5 times its
    // index box (30 px here), so shapes under 0.6 of 75 px are left out, and larger ones kept
    vi::Detection noOutline = faces;
    noOutline.cards[0].quad.reset();
    EXPECT_EQ(vi::faceUpCards({candidate(card({700, 300}, 190)), candidate(card({900, 600}, 40)),
                               candidate(card({1000, 100}, 50)), candidate(card({245, 215}, 60))},
                              noOutline),
              (std::vector<bool>{false, true, false, true}));
    // an index read at 0.85, as a back's pattern now and then is, makes no face-up card
    vi::Detection unsure = faces;
    unsure.cards[0].indices[0].confidence = 0.85f;
    EXPECT_EQ(vi::faceUpCards(found, unsure), std::vector<bool>(found.size(), false));
}

// All cards on one table are of one size, give or take the view's perspective: a row whose cards
// are mostly under 0.4 of the face-up cards' long side (their median) is no ribbon of backs but a
// face's print, a cloth's knit or a keyboard cut into strips (rowsSmallerThanFaceUp). Rows of cards
// the face-up cards' size stay, and so does a row where only a minority is small; loose cards are
// not this rule's (faceUpCards judges those); with nothing read face up there is no size to judge by.
TEST(LakeCounter, RowsFarSmallerThanTheFaceUpCardsAreNoBacks) {
    auto card = [](cv::Point2f c, float h) {
        const float w = h / 1.4f;
        return vi::Quad{c + cv::Point2f(-w / 2, -h / 2), c + cv::Point2f(w / 2, -h / 2),
                        c + cv::Point2f(w / 2, h / 2), c + cv::Point2f(-w / 2, h / 2)};
    };
    auto row = [&](std::vector<vi::BackCandidate>& found, int r, cv::Point2f from,
                   std::vector<float> heights) {
        for (std::size_t k = 0; k < heights.size(); ++k) {
            vi::BackCandidate c;
            c.quad = card(from + cv::Point2f(float(k) * 0.15f * heights[k], 0), heights[k]);
            c.inRow = true;
            c.row = r;
            found.push_back(c);
        }
    };
    // two face-up cards, 200 and 220 px tall, read with sure indices
    vi::Detection faces;
    for (const auto& [centre, h] : {std::pair{cv::Point2f(300, 300), 200.f}, {{800, 300}, 220.f}}) {
        vi::DetectedCard up;
        up.quad = card(centre, h);
        up.face = nertz::scoring::parseAnyCard("7H");
        vi::IndexReading ix;
        ix.centre = centre - cv::Point2f(55, 85);
        ix.box = {ix.centre.x - 10, ix.centre.y - 15, 20, 30};
        ix.face = *up.face;
        ix.confidence = 0.97f;
        up.indices = {ix};
        faces.cards.push_back(up);
    }
    std::vector<vi::BackCandidate> found;
    row(found, 0, {280, 280}, {40, 40, 42, 38, 40});     // 0-4: strips inside a face's print
    row(found, 1, {200, 600}, {190, 195, 200, 185});      // 5-8: a ribbon of backs
    row(found, 2, {600, 600}, {70, 70, 210});             // 9-11: mostly small: all out
    row(found, 3, {900, 600}, {70, 200, 205});            // 12-14: mostly card-sized: kept
    vi::BackCandidate loose;
    loose.quad = card({1100, 600}, 40);                   // 15: a small loose shape
    found.push_back(loose);
    row(found, 4, {500, 100}, {86, 90, 86});              // 16-18: 0.39 / 0.41 / 0.39 of 220
    const std::vector<bool> small = vi::rowsSmallerThanFaceUp(found, faces, 0.4f);
    const std::vector<bool> want{true,  true,  true,  true,  true,  false, false, false, false, true,
                                 true,  true,  false, false, false, false, true,  true,  true};
    EXPECT_EQ(small, want);
    EXPECT_NEAR(vi::faceUpCardSide(faces), 220.0, 1e-3);  // the larger of two: the upper median
    // nothing read face up, or the rule off: nothing left out
    EXPECT_EQ(vi::rowsSmallerThanFaceUp(found, vi::Detection{}, 0.4f),
              std::vector<bool>(found.size(), false));
    EXPECT_EQ(vi::rowsSmallerThanFaceUp(found, faces, 0.f), std::vector<bool>(found.size(), false));
    // an index read unsurely (0.85, as a back's pattern now and then is) gives no size either
    vi::Detection unsure = faces;
    for (auto& c : unsure.cards) c.indices[0].confidence = 0.85f;
    EXPECT_EQ(vi::rowsSmallerThanFaceUp(found, unsure, 0.4f), std::vector<bool>(found.size(), false));
}

// A close-up of two face-up court cards on a wooden table (`phone/IMG_20220921_194151`), counted
// with the set's black deck enrolled (`phone/IMG_7736`, as `backs enroll` takes it) and the faces
// read, as `count` runs: the finder reads the king's print and the table's grain into rows of card
// shapes of 30-70 px (the cards are about 300 px), sure of the black deck; they are left out and
// listed as rows that are no cards of this table.
TEST(LakeCounter, RowsFarSmallerThanTheFaceUpCardsAreLeftOutOfARealCount) {
    vi::BackSignature black;
    cv::Mat img;
    realBlackDeckAnd("IMG_20220921_194151.jpg", black, img);
    if (IsSkipped() || HasFatalFailure()) return;
    vi::MatcherOptions off;
    off.rowUnderFaceUp = 0.f;
    const auto [was, is] = countedWithoutAndWith(black, img, off);
    std::cerr << "two court cards close up: " << was.total() << " cards without the size rule ("
              << was.rowsLeftOut.size() << " row strips left out), " << is.total() << " with it ("
              << is.rowsLeftOut.size() << ")\n";
    EXPECT_GE(was.total(), 4);
    EXPECT_LE(is.total(), 1);
    EXPECT_EQ(is.rowsLeftOut.size() - was.rowsLeftOut.size(), std::size_t(was.total() - is.total()));
    EXPECT_EQ(is.faceUp.size(), was.faceUp.size());
}

// The lightness check needs something near white in the picture (MatcherOptions::leastWhite): a
// picture of the test decks' backs on a dark cloth with nothing white in view has for its white
// the lightest part of a back, and against it the right cards read far lighter than at enrolment.
// Checked anyway (leastWhite 0), right cards are left unknown as lighter than their deck; with the
// floor they are counted, as on the frames of a video (StreamOptions::leastWhite).
TEST(LakeCounter, ADarkTableWithNothingWhiteIsNotCheckedForLightness) {
    vi::MatcherOptions everyPicture;
    everyPicture.leastWhite = 0.f;
    vi::BackMatcher floor, noFloor(everyPicture);
    for (const auto& d : decks().matcher.decks()) {
        floor.add(d.name, d.signature);
        noFloor.add(d.name, d.signature);
    }
    int lighterWithout = 0, cards = 0, right = 0;
    for (int deck = 0; deck < int(decks().art.size()); ++deck)
        for (int k = 0; k < 3; ++k) {
            // one card in view, its white border well under the 1% of the picture sceneWhite reads
            cv::RNG rng(900 + std::uint64_t(deck * 3 + k));
            cv::Mat table(720, 1280, CV_8UC3, cv::Scalar(28, 34, 30));
            cv::Mat grain(table.size(), CV_8UC3);
            rng.fill(grain, cv::RNG::UNIFORM, 0, 8);
            table += grain;
            vi::drawCard(table, decks().art[std::size_t(deck)],
                         nertz::testing::cardQuad({300.f + 330.f * float(k), 300.f + 60.f * float(k)},
                                                  0.4f * float(k), 110, 155));
            const std::string& name = decks().names[std::size_t(deck)];
            const vi::DeckCount with = vi::countBacks(table, floor);
            const vi::DeckCount without = vi::countBacks(table, noFloor);
            std::cerr << name << " " << k << ": white " << vi::sceneWhite(table) << ", with the floor "
                      << with.counts.at(name) << " of 1, without it " << without.counts.at(name) << "\n";
            EXPECT_LT(vi::sceneWhite(table), vi::kLeastSceneWhite);
            for (const auto& c : with.cards) EXPECT_FALSE(c.lighterThanDeck);
            for (const auto& c : without.cards) lighterWithout += c.lighterThanDeck ? 1 : 0;
            cards += int(with.cards.size());
            right += with.counts.at(name);
        }
    EXPECT_GE(lighterWithout, 4);  // 6 of the 12 on 2026-12-02: every card of the two darker decks
    EXPECT_EQ(cards, 12);
    EXPECT_EQ(right, 12);
}

// A real phone photo (../shared/data/real-cards/phone/IMG_7824): two cards of the set's black deck
// face down beside face-up cards and a white computer mouse, counted with that deck enrolled from
// another photo (IMG_7736). The mouse was read as three more "black" cards: each card back is
// white-balanced and toned on itself, so its distance terms do not see that it lies about six
// times lighter against the picture than the enrolled back (cardLightness over sceneWhite, plus
// kLightnessFloor). Those are left unknown, with black as their likely deck; the two labelled
// backs stay the black deck's.
TEST(LakeCounter, CardsFarLighterThanTheirDeckAreLeftUnknown) {
    vi::BackSignature black;
    cv::Mat img;
    std::vector<std::vector<cv::Point>> backs;
    mousePhoto(black, img, backs);
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_EQ(backs.size(), 2u);
    vi::MatcherOptions off;
    off.lighterBy = off.stripLighterBy = 0.f;
    const auto [was, is] = countedWithoutAndWith(black, img, off);
    // the labelled backs with a card of the black deck centred on them
    auto backsRead = [&](const vi::DeckCount& c) {
        int n = 0;
        for (const auto& b : backs) {
            bool read = false;
            for (const auto& card : c.cards) {
                const cv::Point2f m = (card.quad[0] + card.quad[1] + card.quad[2] + card.quad[3]) / 4.f;
                read = read || (card.deckName == "black" && cv::pointPolygonTest(b, m, false) >= 0);
            }
            n += read ? 1 : 0;
        }
        return n;
    };
    int lighter = 0;
    for (const auto& card : is.cards) {
        if (!card.lighterThanDeck) continue;
        ++lighter;
        EXPECT_EQ(card.deck, -1);
        EXPECT_EQ(card.likely, "black");
        const cv::Point2f m = (card.quad[0] + card.quad[1] + card.quad[2] + card.quad[3]) / 4.f;
        for (const auto& b : backs) EXPECT_LT(cv::pointPolygonTest(b, m, false), 0) << "a labelled back left unknown";
    }
    std::cerr << "two real backs beside a white mouse: black " << was.counts.at("black") << ", unknown "
              << was.unknown << " without the lightness check; black " << is.counts.at("black") << ", unknown "
              << is.unknown << " with it (" << lighter << " far lighter than the deck)\n";
    EXPECT_GE(lighter, 2);
    EXPECT_EQ(was.counts.at("black") - is.counts.at("black"), lighter);
    EXPECT_EQ(is.unknown - was.unknown, lighter);
    EXPECT_EQ(backsRead(is), backsRead(was));
    EXPECT_GE(backsRead(is), 1);
}

// The table-colour finder clusters the border's colours with cv::kmeans, which draws from OpenCV's
// per-thread random generator: the same picture must give the same mask whatever was drawn before
// (eval-count over a folder found 17 cards in a scene after other scenes and 53 alone).
TEST(TableForeground, SamePictureSameMaskWhateverTheRandomStateBefore) {
    cv::Mat work(360, 640, CV_8UC3);
    cv::RNG paint(5);
    // a coarse, noisy cloth (its border colours form no clear clusters) and two cards
    paint.fill(work, cv::RNG::NORMAL, cv::Scalar::all(120), cv::Scalar::all(40));
    cv::rectangle(work, {200, 100, 90, 130}, cv::Scalar(30, 30, 200), cv::FILLED);
    cv::rectangle(work, {330, 120, 90, 130}, cv::Scalar(200, 60, 30), cv::FILLED);
    cv::theRNG().state = 1;
    const cv::Mat first = vi::tableForeground(work);
    int differing = 0;
    for (std::uint64_t seed = 2; seed < 30; ++seed) {
        cv::theRNG().state = seed * 7919;
        const cv::Mat again = vi::tableForeground(work);
        if (cv::countNonZero(again != first) > 0) ++differing;
    }
    EXPECT_EQ(differing, 0);
    EXPECT_GT(cv::countNonZero(first(cv::Rect(200, 100, 90, 130))), 90 * 130 / 2);  // the cards are foreground
    cv::theRNG().state = 12345;  // and the caller's generator is left as it was
    vi::tableForeground(work);
    EXPECT_EQ(cv::theRNG().state, 12345u);
}

// The clip written as a camera's MJPG file and read back frame by frame into `counter`; returns the
// frames read (0 when the file could not be written or opened).
int countThroughMjpg(const vi::DealClip& clip, cv::Size size, vi::StreamCounter& counter) {
    const fs::path file =
        fs::temp_directory_path() / ("nertz_backs_clip_" + std::to_string(::getpid()) + ".avi");
    {
        cv::VideoWriter out(file.string(), cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 15.0, size);
        if (!out.isOpened()) return 0;
        for (const auto& f : clip.frames) out.write(f);
    }
    cv::VideoCapture in(file.string());
    int frames = 0;
    cv::Mat frame;
    while (in.isOpened() && in.read(frame)) {
        counter.push(frame);
        ++frames;
    }
    fs::remove(file);
    return frames;
}

TEST(StreamCounter, CountsA50CardClipDealtAt3PerSecondExactly) {
    vi::DealClipOptions o;
    o.size = {960, 540};
    const vi::DealClip clip = vi::renderDealClip(decks().art, 21, o);
    ASSERT_EQ(clip.frames.size(), 250u);
    vi::StreamCounter counter(decks().matcher);
    ASSERT_EQ(countThroughMjpg(clip, o.size, counter), 250);
    EXPECT_EQ(counter.frames(), 250);
    EXPECT_TRUE(counter.atRest());
    EXPECT_EQ(counter.count().total(), 50);
    EXPECT_EQ(counter.count().counts, truthCounts(clip.decks));
    EXPECT_EQ(counter.count().unknown, 0);
}

// Onto a spot at 1280x720: in seed 102 a lattice back lands on a cloth its colour model takes for
// table (the counter before counted 48 of 50: the change was dropped as "the table shows again");
// the card was followed in, card-shaped, so the change is a card. In seed 108 a card lands nearly
// square on the one below: the change is a sliver, unknown by itself (49 of 50 given to a deck);
// the card's reading in flight gives its deck.
TEST(StreamCounter, ACardFollowedOntoTheSpotIsCountedWhenItsChangeLooksLikeTableOrIsASliver) {
    for (const std::uint64_t seed : {102u, 108u}) {
        SCOPED_TRACE(seed);
        vi::DealClipOptions o;
        o.size = {1280, 720};
        const vi::DealClip clip = vi::renderDealClip(decks().art, seed, o);
        vi::StreamCounter counter(decks().matcher);
        for (const auto& f : clip.frames) counter.push(f);
        EXPECT_TRUE(counter.atRest());
        EXPECT_EQ(counter.count().total(), 50);
        EXPECT_EQ(counter.count().counts, truthCounts(clip.decks));
        EXPECT_EQ(counter.count().unknown, 0);
    }
}

namespace {
// The clip of `seed` with every card of one back (the test deck seed % decks), dealt onto a spot
// at 1280x720; `deck` is set to that deck. With emptyPasses > 0, a hand now and then passes over
// the pile without a card (DealClipOptions::emptyPasses); noise: DealClipOptions::noise.
vi::DealClip oneBackOntoASpot(std::uint64_t seed, std::size_t& deck, float emptyPasses = 0.f,
                              float noise = 2.f) {
    deck = seed % decks().art.size();
    vi::DealClipOptions o;
    o.size = {1280, 720};
    o.emptyPasses = emptyPasses;
    o.noise = noise;
    return vi::renderDealClip({decks().art[deck]}, seed, o);
}

// A one-back clip of test deck `deck` counted: every card once, all to its deck, at rest.
void expectEveryCardToItsDeck(const vi::DealClip& clip, std::size_t deck) {
    vi::StreamCounter counter(decks().matcher);
    for (const auto& f : clip.frames) counter.push(f);
    EXPECT_TRUE(counter.atRest());
    EXPECT_EQ(counter.count().total(), 50);
    EXPECT_EQ(counter.count().unknown, 0);
    EXPECT_EQ(counter.count().counts.at(decks().names[deck]), 50);
}

// The clip of `seed` (oneBackOntoASpot) counted so; returns it.
vi::DealClip expectEveryCardToItsDeck(std::uint64_t seed, float emptyPasses = 0.f, float noise = 2.f) {
    SCOPED_TRACE(seed);
    std::size_t deck = 0;
    vi::DealClip clip = oneBackOntoASpot(seed, deck, emptyPasses, noise);
    if (emptyPasses > 0.f) {
        EXPECT_GT(clip.frames.size(), 50u * 5u);  // some hands passed
    }
    expectEveryCardToItsDeck(clip, deck);
    return clip;
}
}  // namespace

// One player's cards counted onto a spot: every card of one back, so a card landing nearly square
// on the one before changes only a sliver where the two do not overlap (1280x720, seed 102: 7 of 50
// changed less than a card-sized share). After something moved, a sliver at the pile's top card is
// a card. (The look at the frame's own size, StreamOptions::fineShare, finds each of them too.)
TEST(StreamCounter, CardsOfOneBackLandingNearlySquareOnThePileAreEachCounted) {
    std::size_t deck = 0;
    const vi::DealClip clip = oneBackOntoASpot(102, deck);
    vi::StreamOptions neither, slivers, fine;
    neither.sliverFraction = fine.sliverFraction = 0.f;
    neither.fineShare = slivers.fineShare = 0.f;
    vi::StreamCounter before(decks().matcher, neither), bySlivers(decks().matcher, slivers),
        byFine(decks().matcher, fine), now(decks().matcher);
    for (const auto& f : clip.frames) {
        before.push(f);
        bySlivers.push(f);
        byFine.push(f);
        now.push(f);
    }
    EXPECT_LE(before.count().total(), 45);
    EXPECT_EQ(bySlivers.count().total(), 50);
    EXPECT_EQ(byFine.count().total(), 50);
    EXPECT_EQ(now.count().total(), 50);
    // (one sliver is read unknown: listed for a person to give, never to another deck)
    EXPECT_GE(now.count().counts.at(decks().names[deck]), 49);
    EXPECT_LE(now.count().unknown, 1);
    EXPECT_TRUE(now.atRest());
}

// The same where the change at the pile is larger than a sliver, but its part on what the table
// model calls foreground is under a card-sized share (part of the new back is taken for table): it
// is held to the sliver's bar too, not a stricter one. One back, seed 509: at 640x480 the counter
// before counted 49 of 50, at 1280x720 47.
TEST(StreamCounter, AChangeAtThePileIsHeldToTheSliversBarWhereItLooksLikeTable) {
    const std::size_t deck = 509 % decks().art.size();
    for (const cv::Size size : {cv::Size(640, 480), cv::Size(1280, 720)}) {
        SCOPED_TRACE(size.width);
        vi::DealClipOptions o;
        o.size = size;
        const vi::DealClip clip = vi::renderDealClip({decks().art[deck]}, 509, o);
        vi::StreamCounter counter(decks().matcher);
        for (const auto& f : clip.frames) counter.push(f);
        EXPECT_TRUE(counter.atRest());
        EXPECT_EQ(counter.count().total(), 50);
        EXPECT_GE(counter.count().counts.at(decks().names[deck]), 49);
        EXPECT_LE(counter.count().unknown, 1);
    }
}

// One back dealt onto a spot at 1280x720, where a card now and then lands within a working pixel
// (320 px across) of the one under it: at the working size its pattern, shifted by a few of the
// frame's own pixels, averages out and nothing changed; at the frame's own size much of the top
// card's outline did (StreamOptions::fineShare). Seed 405: 48 of 50 without the look at full
// size, 50 with it, every card given to the deck.
TEST(StreamCounter, ACardLandingSquareOnThePileIsSeenAtTheFramesOwnSize) {
    std::size_t deck = 0;
    const vi::DealClip clip = oneBackOntoASpot(405, deck);
    vi::StreamOptions off;
    off.fineShare = 0.f;
    vi::StreamCounter now(decks().matcher), before(decks().matcher, off);
    for (const auto& f : clip.frames) {
        now.push(f);
        before.push(f);
    }
    EXPECT_TRUE(now.atRest());
    EXPECT_EQ(now.count().total(), 50);
    EXPECT_EQ(now.count().counts.at(decks().names[deck]), 50);
    EXPECT_LT(before.count().total(), 50);  // the clip has such cards
    // each card once: no two counted on one frame
    std::set<int> frames;
    for (const auto& c : now.count().cards) EXPECT_TRUE(frames.insert(c.frame).second) << c.frame;
}

// A card landing nearly square on the pile whose sliver of change lies too far from the top card
// to make one card-sized outline with it: the sliver's own box is a part of a card, read as no
// deck (distance 1.03-1.36 from every deck); the top card's outline, which the new card now
// covers, reads it. One back, seed 206 at 1280x720: 3 of 50 were unknown before, none now.
TEST(StreamCounter, ASliverTooFarFromTheTopCardIsReadByTheTopCardsOutline) {
    expectEveryCardToItsDeck(206);
}

// A card landing exactly square on the top card (within a frame's pixel or two, as turned):
// at the working threshold (28) its pattern, shifted by a pixel or two, changes at most 3% (seed
// 302) and 9% (seed 503) of the top card at the frame's own size, under the 10% share; a hand
// passing without a card, none. At StreamOptions::fineThreshold 14: 12.5% and 13%. One back,
// 1280x720: 48 and 49 of 50 at 28, 50 now.
TEST(StreamCounter, ACardLandingExactlySquareIsSeenByAFinerThreshold) {
    for (const std::uint64_t seed : {302u, 503u}) {
        const vi::DealClip clip = expectEveryCardToItsDeck(seed);  // rendered once for both counts
        vi::StreamOptions coarse;
        coarse.fineThreshold = 28;
        vi::StreamCounter before(decks().matcher, coarse);
        for (const auto& f : clip.frames) before.push(f);
        EXPECT_LT(before.count().total(), 50) << seed;
    }
}

// A card landing nearly square on the pile whose change at the working size lies mostly where the
// table model sees table (seed 108: 236 working pixels changed, fewer than a card's share, 230, of
// them where it sees foreground), and no card was followed in: the change is kept where the top
// card's own outline changed at the frame's own size. And a card landing turned on the top card,
// its sliver and the top card together read as no deck (seed 407, the last card): the top card's
// outline reads it. One back, 1280x720: 49 of 50 found and 1 unknown before; now every card to
// the deck.
TEST(StreamCounter, ACardOnThePileIsKeptAndReadByTheTopCardsOwnOutline) {
    for (const std::uint64_t seed : {108u, 407u}) expectEveryCardToItsDeck(seed);
}

// A hand that was in view when the last rest was taken (it held still for a frame over the pile's
// side) and has left since changes the working size at the pile: a change held to the sliver's
// bar (seeds 308 and 502, 2 and 1 counted too many), or at a lower threshold the pile's 1.3x box
// at the frame's own size (seed 106, 10% of the card where the fingers were). Neither changes
// the top card's own pixels, which is what the counter asks now. One back, hands passing over
// the pile without a card before a card with chance 0.2, 1280x720: every card once.
TEST(StreamCounter, AHandThatLeftThePilesSideIsNoCard) {
    for (const std::uint64_t seed : {106u, 308u, 502u}) expectEveryCardToItsDeck(seed, 0.2f);
}

// A noisier camera (a dim room: noise 8 levels per channel, against the clips' 2): the look at the
// frame's own size compares single pixels at a channel threshold of 14, which noise alone now
// passes in about half of them; after the 3x3 opening about 1% are left (two frames of such
// noise), far under a tenth of the card. Hands passing over the pile without a card are still not counted, and
// every card is. One back, seed 101, 1280x720 (the sweep at noise 5 and 8 over set 100 with hands:
// 19 of 20 clips exact each, no hand counted, no card missed; BACKS.md).
TEST(StreamCounter, ANoisyCameraCountsNoHandAtThePile) { expectEveryCardToItsDeck(101, 0.2f, 8.f); }

// Dealing onto a spot, a hand now and then reaches over the pile and leaves without laying a card
// (DealClipOptions::emptyPasses: before a card with chance 0.3): nothing new lies on the spot at
// the next rest, so nothing is counted. One back, seeds 400-401 at 640x480: every card once, none
// for a hand. (The sweep with NERTZ_EMPTY=0.2 over 100 clips: 2 hand passes counted; a sliver bar
// lowered to 0.0005 of the frame found 6 more cards there and counted 4 more hands: BACKS.md.)
TEST(StreamCounter, AHandOverThePileWithoutACardIsNotCounted) {
    for (const std::uint64_t seed : {400u, 401u}) {
        SCOPED_TRACE(seed);
        const std::size_t deck = seed % decks().art.size();
        vi::DealClipOptions o;
        o.size = {640, 480};
        o.emptyPasses = 0.3f;
        const vi::DealClip clip = vi::renderDealClip({decks().art[deck]}, seed, o);
        ASSERT_GT(clip.frames.size(), 50u * std::size_t(o.framesPerCard));  // some hands passed
        vi::StreamCounter counter(decks().matcher);
        for (const auto& f : clip.frames) counter.push(f);
        EXPECT_TRUE(counter.atRest());
        EXPECT_EQ(counter.count().total(), 50);
        EXPECT_EQ(counter.count().unknown, 0);
    }
}

TEST(StreamCounter, ClipCutMidCardKeepsTheCountSoFarAndSaysSo) {
    vi::DealClipOptions o;
    o.size = {640, 360};
    o.cards = 12;
    o.stopAfterFrames = 10 * o.framesPerCard + 1;  // ten cards down, the eleventh in flight
    const vi::DealClip clip = vi::renderDealClip(decks().art, 22, o);
    vi::StreamCounter counter(decks().matcher);
    for (const auto& f : clip.frames) counter.push(f);
    EXPECT_FALSE(counter.atRest());
    EXPECT_EQ(counter.count().total(), 10);
    std::vector<int> landed(clip.decks.begin(), clip.decks.begin() + 10);
    EXPECT_EQ(counter.count().counts, truthCounts(landed));
    for (const auto& c : counter.count().cards)
        if (c.deck < 0)
            ADD_FAILURE() << "unknown card at frame " << c.frame << " d " << c.distance << " r "
                          << c.runnerUp << " conf " << c.confidence;
    EXPECT_THROW(counter.push(cv::Mat()), std::invalid_argument);
    EXPECT_THROW(counter.push(cv::Mat(100, 100, CV_8UC3, cv::Scalar::all(0))),
                 std::invalid_argument);
}

// Issue 5 (c): "video of cards dealt one at a time onto a spot or through the view, each counted
// exactly once (no double count while a card stays in view, no miss at 3 cards per second)". Here
// the cards slide across the view, about two in view at once, smeared by their motion, and a hand
// reaches in and out now and then carrying nothing; MJPG round trip as a camera's clip would be.
TEST(StreamCounter, CountsA50CardClipPassingThroughTheViewAt3PerSecondExactly) {
    vi::DealClipOptions o;
    o.size = {960, 540};
    o.through = true;
    const vi::DealClip clip = vi::renderDealClip(decks().art, 23, o);
    ASSERT_EQ(clip.frames.size(), std::size_t(49 * 5 + 10 + 4));
    vi::StreamCounter counter(decks().matcher);
    ASSERT_EQ(countThroughMjpg(clip, o.size, counter), int(clip.frames.size()));
    EXPECT_TRUE(counter.atRest());
    EXPECT_EQ(counter.count().total(), 50);
    EXPECT_EQ(counter.count().counts, truthCounts(clip.decks));
    EXPECT_EQ(counter.count().unknown, 0);
    // counted in the order dealt, each after it left
    int last = -1;
    for (const auto& c : counter.count().cards) {
        EXPECT_GT(c.frame, last);
        last = c.frame;
    }
    // the counter before (only cards that come to rest on a spot) counts none of them
    vi::StreamOptions spotOnly;
    spotOnly.through = false;
    vi::StreamCounter before(decks().matcher, spotOnly);
    for (const auto& f : clip.frames) before.push(f);
    EXPECT_EQ(before.count().total(), 0);
}


// The real phone photo of the still check above (IMG_7824): one of its two labelled backs of the set's
// black deck and one of the white mouse's outlines the still count reads as that deck, each cut out
// as a card and dealt at random, 24 of them, through the view and onto a spot, with the deck enrolled
// from IMG_7736. Without the lightness check (StreamOptions::lightness) the mouse is counted to the
// deck every time it passes; with it, left unknown with the deck as `likely` (lighterThanDeck), and
// every real back still the deck's. The mouse brings its own white into the frame (frame white 160
// and over, StreamOptions::leastWhite), which is what the check reads it against.
TEST(StreamCounter, AThingFarLighterThanItsDeckIsLeftUnknown) {
    vi::BackSignature black;
    cv::Mat img;
    std::vector<std::vector<cv::Point>> backs;
    mousePhoto(black, img, backs);
    if (IsSkipped() || HasFatalFailure()) return;
    vi::BackMatcher matcher;
    matcher.add("black", black);
    vi::Detector faces(vi::DetectorOptions::readOnce());
    const vi::DeckCount still = vi::countBacks(img, matcher, {}, &faces);
    std::optional<vi::Quad> back, mouse;
    for (const auto& c : still.cards) {
        const cv::Point2f m = (c.quad[0] + c.quad[1] + c.quad[2] + c.quad[3]) / 4.f;
        const bool onBack = std::any_of(backs.begin(), backs.end(), [&](const auto& b) {
            return cv::pointPolygonTest(b, m, false) >= 0;
        });
        if (c.deck == 0 && onBack && !back) back = c.quad;
        if (c.lighterThanDeck && !onBack && !mouse) mouse = c.quad;
    }
    ASSERT_TRUE(back && mouse) << "the still count no longer reads a back and the mouse";
    const std::vector<cv::Mat> art{nertz::testing::cutOutCard(img, *back),
                                   nertz::testing::cutOutCard(img, *mouse)};
    for (const bool through : {true, false}) {
        SCOPED_TRACE(through ? "through the view" : "onto a spot");
        vi::DealClipOptions o;
        o.size = {960, 540};
        o.through = through;
        o.cards = 24;
        const vi::DealClip clip = vi::renderDealClip(art, 31, o);
        const int mice = int(std::count(clip.decks.begin(), clip.decks.end(), 1));
        ASSERT_GE(mice, 4);
        ASSERT_LE(mice, o.cards - 4);
        vi::StreamOptions off;
        off.lightness = false;
        vi::StreamCounter now(matcher), before(matcher, off);
        for (const auto& f : clip.frames) {
            now.push(f);
            before.push(f);
        }
        std::cerr << (through ? "through the view" : "onto a spot") << ": " << o.cards - mice
                  << " backs and " << mice << " mice dealt; without the check " << before.count().counts.at("black")
                  << " to the deck, " << before.count().unknown << " unknown; with it "
                  << now.count().counts.at("black") << ", " << now.count().unknown << "\n";
        // the check moves no card: the same cards counted on the same frames
        ASSERT_EQ(now.count().total(), before.count().total());
        for (std::size_t k = 0; k < now.count().cards.size(); ++k)
            EXPECT_EQ(now.count().cards[k].frame, before.count().cards[k].frame);
        EXPECT_TRUE(now.atRest());
        // through the view every card is counted, in the order dealt; onto the spot, the card
        // dealt at frames [i x framesPerCard, (i + 1) x framesPerCard) when the view rests, but the
        // same cut-out landing on itself (a mouse on a mouse, a black back on a black back) shows
        // too little change to be counted: seed 31 counts 15 of 24, every one of them rightly
        if (through) EXPECT_EQ(now.count().total(), o.cards);
        else EXPECT_GE(now.count().total(), o.cards / 2);
        int miceCounted = 0;
        for (std::size_t k = 0; k < now.count().cards.size(); ++k) {
            const vi::CountedCard& c = now.count().cards[k];
            const std::size_t dealt = through ? k : std::size_t(c.frame / o.framesPerCard);
            ASSERT_LT(dealt, clip.decks.size());
            // without the check every card counted is the deck's, the mouse too
            EXPECT_EQ(before.count().cards[k].deckName, "black") << "frame " << c.frame;
            if (clip.decks[dealt] == 1) {  // the mouse: unknown and said so
                ++miceCounted;
                EXPECT_EQ(c.deck, -1) << "frame " << c.frame;
                EXPECT_TRUE(c.lighterThanDeck) << "frame " << c.frame;
                EXPECT_EQ(c.likely, "black") << "frame " << c.frame;
            } else {  // a real back: the deck's
                EXPECT_EQ(c.deckName, "black") << "frame " << c.frame;
            }
        }
        EXPECT_GE(miceCounted, through ? mice : 4);
        EXPECT_EQ(now.count().unknown, miceCounted);
    }
}

// The measurement behind the README's figure for cards through the view (slow, ~5 minutes: run it
// with --gtest_also_run_disabled_tests --gtest_filter='*ThroughTheViewOverManyClips'): 40 clips of
// 50 cards of the four test decks at 3 cards a second, hands reaching in, at two picture sizes and
// two speeds (crossing the view in 8 or 12 frames). NERTZ_EXPOSURE=0.1 sets the share of the frame
// interval exposed (default 1/3); NERTZ_CLIP=WxH,CROSS,SEED runs one clip; NERTZ_SEED0=S deals
// seeds S..S+9 instead of 100..109 (clips no setting was chosen on); NERTZ_SPOT=1 deals the 20
// clips of the two sizes onto a spot instead (CROSS 0 in NERTZ_CLIP).
TEST(StreamCounter, DISABLED_ThroughTheViewOverManyClips) {
    const float exposure =
        std::getenv("NERTZ_EXPOSURE") ? float(std::atof(std::getenv("NERTZ_EXPOSURE"))) : 1.f / 3.f;
    const std::uint64_t seed0 =
        std::getenv("NERTZ_SEED0") ? std::strtoull(std::getenv("NERTZ_SEED0"), nullptr, 10) : 100;
    // NERTZ_SPOT=1: the cards are dealt onto a spot instead (20 clips: no crossing speeds)
    const bool spot = std::getenv("NERTZ_SPOT") != nullptr;
    int clips = 0, exact = 0, found = 0, wrongDeck = 0, unknown = 0, missed = 0, extra = 0;
    for (const cv::Size size : {cv::Size(640, 480), cv::Size(1280, 720)})
        for (const int cross : spot ? std::vector<int>{0} : std::vector<int>{8, 12})
            for (std::uint64_t seed = seed0; seed < seed0 + 10; ++seed) {
                if (const char* only = std::getenv("NERTZ_CLIP")) {
                    int w = 0, h = 0, c = 0;
                    unsigned long long sd = 0;
                    if (std::sscanf(only, "%dx%d,%d,%llu", &w, &h, &c, &sd) == 4 &&
                        (w != size.width || h != size.height || c != cross || sd != seed))
                        continue;
                }
                vi::DealClipOptions o;
                o.size = size;
                o.through = !spot;
                o.crossFrames = cross;
                o.exposure = exposure;
                // NERTZ_EMPTY=P: onto a spot, a hand passes over the pile without a card before
                // a card with chance P (DealClipOptions::emptyPasses)
                if (const char* e = std::getenv("NERTZ_EMPTY")) o.emptyPasses = float(std::atof(e));
                // NERTZ_NOISE=S: the camera's noise, per channel (DealClipOptions::noise)
                if (const char* e = std::getenv("NERTZ_NOISE")) o.noise = float(std::atof(e));
                // NERTZ_ONE_DECK=1: every card of a clip is of one deck (seed % 4), as when one
                // player's cards are counted
                const bool oneDeck = std::getenv("NERTZ_ONE_DECK") != nullptr;
                const std::size_t only = std::size_t(seed % decks().art.size());
                vi::DealClip clip = vi::renderDealClip(
                    oneDeck ? std::vector<cv::Mat>{decks().art[only]} : decks().art, seed, o);
                if (oneDeck)
                    for (int& d : clip.decks) d = int(only);
                vi::StreamOptions so;
                // NERTZ_SLIVER=F: StreamOptions::sliverFraction
                if (const char* e = std::getenv("NERTZ_SLIVER"))
                    so.sliverFraction = float(std::atof(e));
                // NERTZ_FINE=F: StreamOptions::fineShare (0: off)
                if (const char* e = std::getenv("NERTZ_FINE")) so.fineShare = float(std::atof(e));
                // NERTZ_FINE_T=N: StreamOptions::fineThreshold
                if (const char* e = std::getenv("NERTZ_FINE_T")) so.fineThreshold = std::atoi(e);
                // NERTZ_LIGHTNESS=0: StreamOptions::lightness off
                if (const char* e = std::getenv("NERTZ_LIGHTNESS")) so.lightness = std::atoi(e) != 0;
                // NERTZ_LEAST_WHITE=F: StreamOptions::leastWhite (0: every frame checked)
                if (const char* e = std::getenv("NERTZ_LEAST_WHITE")) so.leastWhite = float(std::atof(e));
                vi::StreamCounter counter(decks().matcher, so);
                for (const auto& f : clip.frames) counter.push(f);
                const auto truth = truthCounts(clip.decks);
                int over = 0;
                for (const auto& [deck, n] : truth)
                    over += std::max(0, counter.count().counts.at(deck) - n);
                const int total = counter.count().total();
                ++clips;
                exact += counter.count().counts == truth && counter.count().unknown == 0 &&
                         counter.atRest();
                found += total == 50;
                missed += std::max(0, 50 - total);
                extra += std::max(0, total - 50);
                wrongDeck += over;
                unknown += counter.count().unknown;
                if (std::getenv("NERTZ_CLIP")) {  // the frames its cards were counted in (u: unknown)
                    for (const auto& c : counter.count().cards)
                        std::fprintf(stderr, "%d%s ", c.frame, c.deck < 0 ? "u" : "");
                    std::fprintf(stderr, "\n");
                }
                std::fprintf(stderr,
                             "%dx%d cross %d seed %llu: %d found, %d unknown, %d given to a deck "
                             "beyond its cards\n",
                             size.width, size.height, cross, (unsigned long long)seed, total,
                             counter.count().unknown, over);
            }
    std::fprintf(stderr,
                 "%s, exposure %.2f: %d clips; all 50 found (none twice) in %d; "
                 "exact per deck in %d; "
                 "cards missed %d, extra %d; unknown %d; given to a deck beyond its cards %d\n",
                 spot ? "onto a spot" : "through the view", exposure, clips, found, exact, missed,
                 extra, unknown, wrongDeck);
    EXPECT_GT(found, 0);
}

namespace {
// A 1280x720 clip of 50 cards through the view at 3 a second (crossing in `cross` frames, hands
// reaching in, exposure 1/3: the sweep's clips), fed to a counter with `options` and to one with
// the defaults. Returns the two.
std::pair<vi::DeckCount, vi::DeckCount> countThroughTwice(
    std::uint64_t seed, int cross, const vi::StreamOptions& options, std::vector<int>& decksDealt,
    const vi::BackMatcher* matcher = nullptr) {
    vi::DealClipOptions o;
    o.through = true;
    o.crossFrames = cross;
    const vi::DealClip clip = vi::renderDealClip(decks().art, seed, o);
    vi::StreamCounter other(matcher ? *matcher : decks().matcher, options);
    vi::StreamCounter byDefault(decks().matcher);
    for (const auto& f : clip.frames) {
        other.push(f);
        byDefault.push(f);
    }
    EXPECT_TRUE(byDefault.atRest());
    decksDealt = clip.decks;
    return {other.count(), byDefault.count()};
}
}  // namespace

// A hand reaching in joins a passing card; for one frame the hand's track takes the card's piece,
// card-shaped, then leaves. Seen whole once and followed long enough, it would be counted as a
// card, and the card itself (followed on under its own track) again. Settled a few frames later,
// it is seen to be where the card's own track was.
TEST(StreamCounter, AHandsTrackThatTookAPassingCardForOneFrameDoesNotCountItTwice) {
    vi::StreamOptions unsettled;
    unsettled.sameCardFrames = -1;  // (never matches a frame: every card seen once is counted)
    std::vector<int> dealt;
    const auto [before, now] = countThroughTwice(201, 12, unsettled, dealt);
    EXPECT_EQ(before.total(), 51);
    EXPECT_EQ(now.total(), 50);
    EXPECT_EQ(now.counts, truthCounts(dealt));
    EXPECT_EQ(now.unknown, 0);
}

// A fast card over a cloth near its colour: the trailing part of its smear differs from the
// table by less than the threshold, and the piece followed fills only 0.6-0.7 of its rectangle (a
// bite out of one side). Its convex hull still fills the rectangle: a card.
TEST(StreamCounter, AFastCardWithABiteOutOfItsPieceIsStillCardShaped) {
    vi::StreamOptions fillOnly;
    fillOnly.hullFill = 0.f;
    std::vector<int> dealt;
    const auto [before, now] = countThroughTwice(303, 8, fillOnly, dealt);
    EXPECT_LE(before.total(), 46);
    EXPECT_EQ(now.total(), 50);
    EXPECT_EQ(now.counts, truthCounts(dealt));
}

// The clip's first frame (the first rest view) shows a sliver of the first card coming in; once it
// has left, that place differs from the rest view for ever, a piece at the edge that joins each
// card coming in. Held still, it becomes part of the rest view. And the last card, still at the
// edge in the last moving frame, is counted when the view comes to rest.
TEST(StreamCounter, WhatTheFirstFrameShowedLeavesNoGhostAndTheLastCardOutIsCounted) {
    vi::StreamOptions noAbsorb;
    noAbsorb.absorbFrames = 0;
    std::vector<int> dealt;
    const auto [before, now] = countThroughTwice(307, 8, noAbsorb, dealt);
    EXPECT_LT(before.total(), 50);
    EXPECT_EQ(now.total(), 50);
    EXPECT_EQ(now.counts, truthCounts(dealt));
    ASSERT_FALSE(now.cards.empty());
    EXPECT_EQ(now.cards.back().deckName, decks().names[std::size_t(dealt.back())]);
}

// A fast lattice back (anglo, crossing 1280 px in 8 frames at exposure 1/3) is smeared over a
// third of its width: beyond the quarter-width smeared enrolment copies, every deck is about as
// far, and the card is unknown. The half-width copies read it.
TEST(StreamCounter, ALatticeBackSmearedOverAThirdOfItsWidthIsRead) {
    // the signatures without the copies smeared by the longer line (their blur: its spread,
    // length / sqrt 12, the length a share of the rectified card's width)
    const float shortSpread =
        float(int(std::lround(vi::kEnrolmentSmears.front() * float(vi::kBackWidth))) | 1) /
        std::sqrt(12.f);
    vi::BackMatcher shortSmears;
    for (const auto& d : decks().matcher.decks()) {
        vi::BackSignature s = d.signature;
        const std::size_t all = s.descriptors.size();
        s.descriptors.erase(std::remove_if(s.descriptors.begin(), s.descriptors.end(),
                                           [&](const vi::BackDescriptor& x) {
                                               return x.blur > shortSpread + 0.5f;
                                           }),
                            s.descriptors.end());
        ASSERT_EQ(s.descriptors.size(), all - 4);
        shortSmears.add(d.name, s);
    }
    std::vector<int> dealt;
    const auto [before, now] = countThroughTwice(204, 8, {}, dealt, &shortSmears);
    EXPECT_GE(before.unknown, 3);
    EXPECT_EQ(now.unknown, 0);
    EXPECT_EQ(now.counts, truthCounts(dealt));
}

TEST(StreamCounter, ACardStillPassingWhenTheClipStopsIsNotCountedAndSaysSo) {
    vi::DealClipOptions o;
    o.size = {640, 360};
    o.through = true;
    o.cards = 8;
    o.hands = false;
    o.stopAfterFrames = 5 * 5 + 6;  // card 6 (from 0) left at frame 25 + 10; 5 left by frame 30
    const vi::DealClip clip = vi::renderDealClip(decks().art, 24, o);
    vi::StreamCounter counter(decks().matcher);
    for (const auto& f : clip.frames) counter.push(f);
    EXPECT_FALSE(counter.atRest());
    // cards 0-4 have left (card k leaves at frame 5k + 10); 5 and 6 are still in view
    EXPECT_EQ(counter.count().total(), 5);
    std::vector<int> gone(clip.decks.begin(), clip.decks.begin() + 5);
    EXPECT_EQ(counter.count().counts, truthCounts(gone));
}

// The scene generator never deals two players of one backs or ribbon scene the same-looking back:
// designs that share their back artwork, and a hue turn of a grey back (which changes nothing),
// are re-drawn; the same design in another colour (the red/blue pair) still comes up.
TEST(SynthBacks, DecksOfOneSceneAlwaysLookDifferent) {
    namespace sy = nertz::synth;
    const cv::Mat paris = loadBack("paris"), bellot = loadBack("bellot");
    cv::Mat grey;
    {
        std::vector<cv::Mat> ch;
        cv::split(loadBack("anglo"), ch);
        cv::Mat bgr, g;
        cv::merge(std::vector<cv::Mat>{ch[0], ch[1], ch[2]}, bgr);
        cv::cvtColor(bgr, g, cv::COLOR_BGR2GRAY);
        grey = cv::Mat();
        cv::merge(std::vector<cv::Mat>{g, g, g, ch[3]}, grey);
    }
    // two designs sharing one back (as gnome-paris and gnome-guyenne-classic do), a grey back, and
    // a coloured one
    const std::vector<sy::CardDesign> designs{
        backOnlyDesign("shared-a", paris), backOnlyDesign("shared-b", paris),
        backOnlyDesign("grey", grey), backOnlyDesign("bellot", bellot)};
    // what a player sees: the artwork, and its colour where a hue turn changes it
    auto look = [](const std::string& back) {
        const std::string art = back.substr(0, back.find('/'));
        const auto at = back.find("@hue");
        if (art == "shared-a" || art == "shared-b") return std::string("paris") + (at == std::string::npos ? "" : back.substr(at));
        if (art == "grey") return std::string("grey");
        return back;
    };
    int sameDesignColourPairs = 0, scenes = 0;
    for (const auto kind : {sy::SceneKind::Backs, sy::SceneKind::Ribbon}) {
        sy::SceneOptions o;
        o.kind = kind;
        o.size = {480, 320};
        const sy::SceneGenerator gen(designs, o);
        for (std::uint64_t seed = 0; seed < 30; ++seed) {
            const sy::Scene s = gen.generate(seed);
            ++scenes;
            std::set<std::string> looks;
            std::map<std::string, int> perDesign;
            for (const auto& d : s.decks) {
                EXPECT_TRUE(looks.insert(look(d.back)).second)
                    << "seed " << seed << ": two decks look like " << look(d.back);
                ++perDesign[d.design];
            }
            for (const auto& [name, n] : perDesign) sameDesignColourPairs += n >= 2 ? 1 : 0;
        }
    }
    EXPECT_GT(sameDesignColourPairs, scenes / 10);
}

// One back photographed close, as a phone held over it takes it to enrol a deck: the card fills
// 80-95% of the picture's height (renderEnrolmentView's views, cut around the card and brought back
// to 640x480). The segmenter was trained on tables seen from above (cards at most 0.4 of the
// picture's short side); at the working size and at half of it such a card gets no middle and its
// mask falls apart, and the enrolment took the largest scrap seen whole (a real close-up:
// ../shared/data/real-cards/phone/IMG_7736, a corner of 22 x 32 px of a card 400 px wide).
// findEnrolmentCard reads smaller again until the card is found. The count's finder, reading at a
// quarter too where half its mask is left unexplained, counts more of these views as one card.
TEST(BackFinder, ACloseUpCardIsEnrolledWhole) {
    int whole = 0, wholeBefore = 0, views = 0, oneCard = 0, oneCardBefore = 0;
    for (std::size_t d = 0; d < decks().art.size(); ++d)
        for (std::uint64_t seed = 1; seed <= 3; ++seed) {
            const auto v = vi::renderEnrolmentView(decks().art[d], 40 + 10 * d + seed);
            cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(v.quad.begin(), v.quad.end()));
            // a 4:3 window holding the card and 2-8% of its height around it
            const double margin = 0.02 + 0.03 * double(seed - 1);
            const int h = int(box.height * (1 + 2 * margin)), w = std::max(h * 4 / 3, box.width + 8);
            const int hh = w * 3 / 4;
            cv::Rect win(box.x + box.width / 2 - w / 2, box.y + box.height / 2 - hh / 2, w, hh);
            win &= cv::Rect(0, 0, v.image.cols, v.image.rows);
            cv::Mat close;
            cv::resize(v.image(win), close, {640, 480}, 0, 0, cv::INTER_CUBIC);
            vi::Quad truth = v.quad;
            for (auto& p : truth)
                p = {(p.x - float(win.x)) * 640.f / float(win.width),
                     (p.y - float(win.y)) * 480.f / float(win.height)};
            const vi::EnrolmentReading now = vi::findEnrolmentCard(close);
            vi::BackFinderOptions once;  // the finder before: one second reading, at half size
            once.minWorkLongSide = 240;
            const auto found = vi::findBackCards(close, once);
            const vi::BackCandidate* before = vi::enrolmentCard(found);
            const double iouNow = now.card ? vi::quadIoU(now.card->quad, truth) : 0.0;
            // the count's finder reads smaller too (down to 160 px here)
            const auto counted = vi::findBackCards(close);
            oneCard += counted.size() == 1 ? 1 : 0;
            oneCardBefore += found.size() == 1 ? 1 : 0;
            const double iouBefore = before ? vi::quadIoU(before->quad, truth) : 0.0;
            std::cerr << "deck " << d << " seed " << seed << ": card " << box.height << " of "
                      << v.image.rows << " px cut to " << win.height << "; IoU " << iouNow
                      << " at " << now.workLongSide << " px, before " << iouBefore << "\n";
            ++views;
            whole += iouNow >= 0.85 ? 1 : 0;
            wholeBefore += iouBefore >= 0.85 ? 1 : 0;
        }
    std::cerr << "close-up views enrolled whole: " << whole << " of " << views << ", before "
              << wholeBefore << "; counted as one card: " << oneCard << ", before " << oneCardBefore
              << "\n";
    EXPECT_EQ(whole, views);
    EXPECT_GT(oneCard, oneCardBefore);  // measured: 9 against 7 (27 and 6 cards for two views)
}

// The demo clip's close view of its red back (the GUI's Enrol step; gui_vision_test): a lattice back
// (the test decks' `anglo`, blue and turned to two other hues) lying on a beige table in a 640x480
// frame, cut to a 4:3 window with the card 95% of its height and brought up to 960x720. The lattice
// steps three times as hard as the card's border against the table, so the finder's outline fit
// (findSide's peaks) loses the border: with real gnome-anglo art the reading at 320 px had two sides
// inside the card and the one at 160 px, which was enrolled, a sheared outline (IoU 0.79 with the
// card, 9% of it table). An outline with at most one side on a border is fitted again to the weaker
// steps, and a card that large is taken where all four of its sides lie on borders
// (vi::sidesOnBorders; BACKS.md, "A close-up card outlined on its sides"). Five of the nine views
// stay at IoU 0.85-0.92 either way: their outlines have two or three sides on borders.
TEST(BackFinder, ACloseLatticeBackIsOutlinedOnItsBorders) {
    int close = 0, closeBefore = 0, views = 0;
    double worst = 1.0;
    for (double hue : {0.0, 120.0, 240.0}) {
        const cv::Mat art = hue == 0.0 ? decks().art[2] : nertz::synth::recolourBack(decks().art[2], hue);
        for (int pose = 0; pose < 3; ++pose) {
            cv::Mat frame(480, 640, CV_8UC3);
            for (int y = 0; y < frame.rows; ++y)
                frame.row(y).setTo(cv::Scalar(140 - y / 12, 160 - y / 12, 180 - y / 12));
            // the demo's red card, turned by -4.6, 0 or 4.6 degrees about its middle
            vi::Quad q{cv::Point2f(207, 81), {408, 107}, {374, 398}, {192, 385}};
            const cv::Point2f mid(295, 243);
            const float t = 0.08f * float(pose - 1);
            for (auto& p : q) {
                const cv::Point2f d = p - mid;
                p = mid + cv::Point2f(d.x * std::cos(t) - d.y * std::sin(t), d.x * std::sin(t) + d.y * std::cos(t));
            }
            vi::drawCard(frame, art, q);
            cv::GaussianBlur(frame, frame, {3, 3}, 0.6);
            const cv::Rect card = cv::boundingRect(std::vector<cv::Point2f>(q.begin(), q.end()));
            const int h = int(card.height / 0.95), w = h * 4 / 3;
            const cv::Rect win(card.x + card.width / 2 - w / 2, card.y + card.height / 2 - h / 2, w, h);
            cv::Mat view(h, w, frame.type(), cv::mean(frame(cv::Rect(0, 0, 16, 16))));
            const cv::Rect inFrame = win & cv::Rect(0, 0, frame.cols, frame.rows);
            frame(inFrame).copyTo(view(inFrame - win.tl()));
            cv::resize(view, view, {960, 720}, 0, 0, cv::INTER_CUBIC);
            vi::Quad truth = q;
            for (auto& p : truth)
                p = {(p.x - float(win.x)) * 960.f / float(win.width), (p.y - float(win.y)) * 720.f / float(win.height)};
            vi::BackFinderOptions before;
            before.enrolOnBorders = false;
            const vi::EnrolmentReading now = vi::findEnrolmentCard(view), was = vi::findEnrolmentCard(view, before);
            ASSERT_TRUE(now.card.has_value()) << "hue " << hue << " pose " << pose;
            const double iou = vi::quadIoU(now.card->quad, truth);
            const double iouBefore = was.card ? vi::quadIoU(was.card->quad, truth) : 0.0;
            std::cerr << "hue " << hue << " pose " << pose << ": IoU " << iou << " at " << now.workLongSide
                      << " px, before " << iouBefore << " at " << was.workLongSide << " px\n";
            ++views;
            close += iou >= 0.95 ? 1 : 0;
            closeBefore += iouBefore >= 0.95 ? 1 : 0;
            worst = std::min(worst, iou - iouBefore);
        }
    }
    std::cerr << "outlined within IoU 0.95: " << close << " of " << views << ", before " << closeBefore << "\n";
    EXPECT_GT(close, closeBefore);  // measured: 4 against 2 (0.921 -> 0.987, 0.942 -> 0.978)
    EXPECT_GE(worst, -0.01);        // and no view outlined worse
}

// The real close-up back of ../shared/data/real-cards (phone/IMG_7736: one card of the black deck
// lying flat, 400 px wide in a 640 x 640 export squashed from the phone's aspect): the finder's
// reading at the working size took the card for scraps, and the largest seen whole was a 22 x 32
// px piece of its upper corner (the whole card at one end of a "row" of strips across it);
// findEnrolmentCard reads the card at 160 px, whole across and down
// to the middle of its lower half (the export's squash makes the card nearly square, and the
// finder's card shape takes a card's aspect).
TEST(BackFinder, TheRealCloseUpBackIsEnrolledFromMostOfTheCard) {
    const std::string dir = std::string(NERTZ_SHARED_DIR) + "/data/real-cards/phone/";
    const std::string photo = dir + "images/IMG_7736.jpg";
    if (!fs::is_regular_file(photo)) GTEST_SKIP() << "no real photo at " << photo;
    const cv::Mat img = cv::imread(photo, cv::IMREAD_COLOR);
    ASSERT_FALSE(img.empty());
    // the labelled back: "40 cx cy w h" (BACK in classes.txt), normalised
    std::ifstream label(dir + "labels/IMG_7736.txt");
    float cx = 0, cy = 0, w = 0, h = 0;
    for (std::string line; std::getline(label, line);) {
        std::istringstream in(line);
        int cls = -1;
        if (in >> cls && cls == 40) in >> cx >> cy >> w >> h;
    }
    ASSERT_GT(w * h, 0.f);
    const cv::Rect2f card((cx - w / 2) * float(img.cols), (cy - h / 2) * float(img.rows),
                          w * float(img.cols), h * float(img.rows));
    // the share of the labelled card's box that a quad covers
    auto inCard = [&](const vi::Quad& q) {
        cv::Mat box = cv::Mat::zeros(img.size(), CV_8U), read = box.clone();
        cv::rectangle(box, cv::Rect(card), cv::Scalar(255), cv::FILLED);
        std::vector<cv::Point> poly;
        for (const auto& p : q) poly.emplace_back(cvRound(p.x), cvRound(p.y));
        cv::fillPoly(read, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(255));
        return double(cv::countNonZero(box & read)) / double(cv::countNonZero(box));
    };
    vi::BackFinderOptions once;  // the finder before: one second reading, at half size
    once.minWorkLongSide = 240;
    const auto found = vi::findBackCards(img, once);
    const vi::BackCandidate* before = vi::enrolmentCard(found);
    const vi::EnrolmentReading now = vi::findEnrolmentCard(img);
    ASSERT_TRUE(now.card.has_value());
    std::cerr << "the card's box covered: " << inCard(now.card->quad) << " at "
              << now.workLongSide << " px (explained " << now.explained << "), before "
              << (before ? inCard(before->quad) : 0.0) << "\n";
    EXPECT_GE(inCard(now.card->quad), 0.55);
    EXPECT_GE(now.explained, 0.5f);
    ASSERT_NE(before, nullptr);
    EXPECT_LE(inCard(before->quad), 0.01);  // what the readings at smaller sizes are for
}

// The top of a deck photographed to enrol it (the issue's other way to enrol: "one card lying
// flat, or the top of the deck"): 30 cards squared up, each a little off the one under it, so the
// deck's sides show below and to the right of the top card. The card enrolled is the top card.
TEST(BackFinder, TheTopOfADeckIsEnrolledAsItsTopCard) {
    int whole = 0, wholeBefore = 0, views = 0;
    for (std::size_t d = 0; d < decks().art.size(); ++d)
        for (std::uint64_t seed = 1; seed <= 2; ++seed) {
            cv::RNG rng(seed * 31 + d);
            const auto flat = vi::renderEnrolmentView(decks().art[d], 60 + 10 * d + seed);
            cv::Mat img(flat.image.size(), CV_8UC3, cv::mean(flat.image(cv::Rect(0, 0, 20, 20))));
            const cv::Point2f step(float(rng.uniform(-0.6, 0.6)), float(rng.uniform(0.3, 0.7)));
            vi::Quad top = flat.quad;
            for (int k = 29; k >= 0; --k) {
                vi::Quad q = flat.quad;
                for (auto& p : q) p += step * float(k);
                // the cards under the top one: their edges shaded as a deck's side is
                cv::Mat art = decks().art[d].clone();
                if (k > 0) {
                    std::vector<cv::Mat> ch;
                    cv::split(art, ch);
                    for (int c = 0; c < 3; ++c) ch[std::size_t(c)] *= 0.75;
                    cv::merge(ch, art);
                }
                vi::drawCard(img, art, q);
                if (k == 0) top = q;
            }
            img = jpegCoded(img, 85);
            const vi::EnrolmentReading got = vi::findEnrolmentCard(img);
            const double iou = got.card ? vi::quadIoU(got.card->quad, top) : 0.0;
            vi::BackFinderOptions once;  // the finder before: one second reading, at half size
            once.minWorkLongSide = 240;
            const auto found = vi::findBackCards(img, once);
            const vi::BackCandidate* before = vi::enrolmentCard(found);
            const double iouBefore = before ? vi::quadIoU(before->quad, top) : 0.0;
            std::cerr << "deck " << d << " seed " << seed << ": IoU with the top card " << iou
                      << " at " << got.workLongSide << " px, before " << iouBefore << "\n";
            ++views;
            whole += iou >= 0.85 ? 1 : 0;
            wholeBefore += iouBefore >= 0.85 ? 1 : 0;
        }
    std::cerr << "tops of decks enrolled from their top card: " << whole << " of " << views
              << ", before " << wholeBefore << "\n";
    EXPECT_EQ(whole, views);
}
