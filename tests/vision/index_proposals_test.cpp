// Index proposals: a corner index whose rank glyph touches the card's printed outline (and so the table
// band beside it in the ink mask) still gets a candidate: the oversized ink component is split by the
// closed paper mask.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "nertz/vision/image_io.hpp"
#include "nertz/vision/index_proposals.hpp"
#include "nertz/vision/index_reader.hpp"

using namespace nertz::vision;

namespace {

// The patch of one candidate computed one sample at a time: the definition cutIndexPatch's SIMD lanes
// must keep bit for bit (the reader is trained on these patches).
cv::Mat referencePatch(const ProposalPyramid& pyr, const IndexCandidate& c, const ProposalParams& p) {
    double d = std::hypot(double(c.b.x - c.a.x), double(c.b.y - c.a.y));
    int k = int(std::lround(std::log2(std::max(d, 1e-3) / p.idealDistance)));
    k = std::clamp(k, 0, int(pyr.levels.size()) - 1);
    double q = double(1 << k);
    double ax = c.a.x / q, ay = c.a.y / q, bx = c.b.x / q, by = c.b.y / q;
    double vx = bx - ax, vy = by - ay, dd = std::max(std::hypot(vx, vy), 1e-6);
    double dx = vx / dd, dy = vy / dd, rx = -dy, ry = dx;
    double cx = (ax + bx) / 2, cy = (ay + by) / 2;
    double sw = p.spanWidth * dd, sh = p.spanHeight * dd;
    double kx = sw / p.patchWidth, ky = sh / p.patchHeight;
    const float m00 = float(rx * kx), m01 = float(dx * ky), m02 = float(cx - rx * sw / 2 - dx * sh / 2);
    const float m10 = float(ry * kx), m11 = float(dy * ky), m12 = float(cy - ry * sw / 2 - dy * sh / 2);
    const cv::Mat& src = pyr.levels[std::size_t(k)];
    const int W = src.cols, H = src.rows;
    cv::Mat patch(p.patchHeight, p.patchWidth, CV_8U);
    bool inside = true;
    for (float u : {0.f, float(p.patchWidth - 1)})
        for (float v : {0.f, float(p.patchHeight - 1)}) {
            const float x = m00 * u + m01 * v + m02, y = m10 * u + m11 * v + m12;
            inside = inside && x >= 0.f && y >= 0.f && x < float(W - 1) && y < float(H - 1);
        }
    for (int v = 0; v < p.patchHeight; ++v) {
        float x = m01 * float(v) + m02, y = m11 * float(v) + m12;
        for (int u = 0; u < p.patchWidth; ++u, x += m00, y += m10) {
            const int x0 = int(x + 4096.f) - 4096, y0 = int(y + 4096.f) - 4096;
            const float wx = x - float(x0), wy = y - float(y0);
            int xa = x0, xb = x0 + 1, ya = y0, yb = y0 + 1;
            if (!inside) {
                xa = std::clamp(xa, 0, W - 1), xb = std::clamp(xb, 0, W - 1);
                ya = std::clamp(ya, 0, H - 1), yb = std::clamp(yb, 0, H - 1);
            }
            const std::uint8_t* ra = src.ptr<std::uint8_t>(ya);
            const std::uint8_t* rb = src.ptr<std::uint8_t>(yb);
            const float top = float(ra[xa]) + wx * (float(ra[xb]) - float(ra[xa]));
            const float bot = float(rb[xa]) + wx * (float(rb[xb]) - float(rb[xa]));
            patch.at<std::uint8_t>(v, u) = std::uint8_t(int(top + wy * (bot - top) + 0.5f) ^ (c.invert ? 255 : 0));
        }
    }
    return patch;
}

// Table, a white card with a printed outline along its left edge at x = 200..203, and a corner index:
// a rank "0" (a ring of thin strokes, glyph px tall) `gap` px right of the outline and a pip disc below
// it. Returns whether some candidate pairs the two.
bool indexFound(const ProposalParams& p, int glyph, int gap, int table) {
    cv::Mat g(400, 500, CV_8U, cv::Scalar(table));
    cv::rectangle(g, cv::Rect(200, 60, 220, 300), cv::Scalar(235), cv::FILLED);
    cv::rectangle(g, cv::Rect(200, 60, 4, 300), cv::Scalar(60), cv::FILLED);  // the outline
    const cv::Point rank(204 + gap + glyph / 3, 100 + glyph / 2);
    cv::ellipse(g, rank, cv::Size(glyph / 3, glyph / 2), 0, 0, 360, cv::Scalar(30), 2);
    const cv::Point pip(rank.x, rank.y + glyph + 2);
    cv::circle(g, pip, glyph / 3, cv::Scalar(30), cv::FILLED);
    cv::GaussianBlur(g, g, cv::Size(5, 5), 1.0);  // a camera's blur
    ProposalPyramid pyr = buildPyramid(g, p);
    for (const IndexCandidate& c : proposeIndexCandidates(pyr, p)) {
        if (c.invert) continue;
        if (std::hypot(c.a.x - float(rank.x), c.a.y - float(rank.y)) < 0.4 * glyph &&
            std::hypot(c.b.x - float(pip.x), c.b.y - float(pip.y)) < 0.4 * glyph)
            return true;
    }
    return false;
}

// inkComponents(mask) against cv::connectedComponentsWithStats(CCL_GRANA): the same components in
// the same order, the same boxes, areas and centroids (exactly), and the same mask of big ones.
// Returns the number of components compared.
int expectSameComponents(const cv::Mat& mask, int bigSide, const std::string& what) {
    cv::Mat labels, stats, centroids;
    const int n =
        cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S, cv::CCL_GRANA);
    cv::Mat big;
    const std::vector<InkComponent> ours = inkComponents(mask, &big, bigSide);
    EXPECT_EQ(int(ours.size()), n - 1) << what;
    if (int(ours.size()) != n - 1) return 0;
    std::vector<std::uint8_t> isBig(std::size_t(n), 0);
    for (int i = 1; i < n; ++i) {
        const InkComponent& c = ours[std::size_t(i - 1)];
        const bool same = c.x == stats.at<int>(i, cv::CC_STAT_LEFT) &&
                          c.y == stats.at<int>(i, cv::CC_STAT_TOP) &&
                          c.width == stats.at<int>(i, cv::CC_STAT_WIDTH) &&
                          c.height == stats.at<int>(i, cv::CC_STAT_HEIGHT) &&
                          c.area == stats.at<int>(i, cv::CC_STAT_AREA) &&
                          c.cx == centroids.at<double>(i, 0) && c.cy == centroids.at<double>(i, 1);
        EXPECT_TRUE(same) << what << ": component " << i << " of " << n - 1 << " differs";
        if (!same) return 0;
        isBig[std::size_t(i)] = std::max(c.width, c.height) > bigSide ? 255 : 0;
    }
    cv::Mat theirs(mask.size(), CV_8U);
    for (int y = 0; y < mask.rows; ++y)
        for (int x = 0; x < mask.cols; ++x)
            theirs.at<std::uint8_t>(y, x) = isBig[std::size_t(labels.at<int>(y, x))];
    EXPECT_EQ(cv::countNonZero(big != theirs), 0) << what << ": the big components' mask differs";
    return n - 1;
}

}  // namespace

// The gate's half-resolution patches (halfPatchParams) are the full patches' samples at even
// columns and rows: the same points, reached by other float sums (within a grey level), both ways
// round a pair.
TEST(IndexProposals, HalfPatchesAreTheFullPatchesEvenSamples) {
    cv::Mat gray;
    cv::cvtColor(loadImage(std::string(NERTZ_SHARED_DIR) +
                           "/data/real-cards/webcam_table/images/WIN_20240627_11_36_36_Pro.jpg"),
                 gray, cv::COLOR_BGR2GRAY);
    const ProposalParams p;
    const ProposalParams half = halfPatchParams(p);
    EXPECT_EQ(half.patchWidth, 12);
    EXPECT_EQ(half.patchHeight, 20);
    const ProposalPyramid pyr = buildPyramid(gray, p);
    const std::vector<IndexCandidate> cands = proposeIndexCandidates(pyr, p);
    const std::vector<cv::Mat> full = cutIndexPatches(pyr, cands, p),
                               halves = cutIndexPatches(pyr, cands, half);
    ASSERT_EQ(full.size(), halves.size());
    ASSERT_GT(full.size(), 500u);
    long differ = 0, all = 0;
    for (std::size_t k = 0; k < full.size(); ++k) {
        ASSERT_EQ(halves[k].size(), cv::Size(12, 20));
        for (int v = 0; v < 20; ++v)
            for (int u = 0; u < 12; ++u) {
                const int d = std::abs(int(halves[k].at<std::uint8_t>(v, u)) -
                                       int(full[k].at<std::uint8_t>(2 * v, 2 * u)));
                ASSERT_LE(d, 1) << "candidate " << k << " at " << u << ", " << v;
                differ += d ? 1 : 0;
                ++all;
            }
    }
    EXPECT_LT(differ, all / 100);
}

// The proposals join ink runs into components themselves (a label per pixel, as OpenCV writes it,
// cost 2.6 ms a 1280x720 mask against 0.7 ms): they must be OpenCV's components, in OpenCV's order
// (the blobs' order decides ties when they are sorted), on noise of every density, on shapes made
// by closing and opening, on edge cases, and on the ink masks of a real photo.
TEST(IndexProposals, InkComponentsAreOpenCvsComponents) {
    cv::RNG rng(20261125);
    int compared = 0;
    for (int it = 0; it < 200; ++it) {
        const int w = rng.uniform(1, 160), h = rng.uniform(1, 120);
        cv::Mat noise(h, w, CV_8U);
        rng.fill(noise, cv::RNG::UNIFORM, 0, 256);
        cv::Mat mask = noise < rng.uniform(5, 240);
        if (it % 3 == 1) cv::morphologyEx(mask, mask, cv::MORPH_OPEN, cv::Mat::ones(3, 3, CV_8U));
        if (it % 3 == 2) cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, cv::Mat::ones(3, 3, CV_8U));
        if (it % 2) mask.setTo(7, mask);  // any nonzero value is ink
        compared += expectSameComponents(mask, rng.uniform(1, 30), "noise " + std::to_string(it));
    }
    EXPECT_GT(compared, 5000);
    EXPECT_EQ(expectSameComponents(cv::Mat::zeros(5, 40, CV_8U), 3, "empty"), 0);
    EXPECT_EQ(expectSameComponents(cv::Mat(3, 35, CV_8U, cv::Scalar(255)), 3, "full"), 1);
    EXPECT_EQ(expectSameComponents(cv::Mat(1, 1, CV_8U, cv::Scalar(255)), 3, "one pixel"), 1);
    cv::Mat diagonal = cv::Mat::eye(33, 33, CV_8U) * 255;  // 8-connected only
    EXPECT_EQ(expectSameComponents(diagonal, 40, "diagonal"), 1);
    cv::Mat part = cv::Mat(20, 64, CV_8U, cv::Scalar(0));
    cv::Mat roi = part(cv::Rect(3, 2, 40, 15));  // a view: rows are not contiguous
    roi.setTo(255);
    roi(cv::Rect(10, 0, 1, 15)).setTo(0);
    EXPECT_EQ(expectSameComponents(roi, 5, "view"), 2);

    const cv::Mat photo =
        loadImage(std::string(NERTZ_SHARED_DIR) +
                  "/data/real-cards/webcam_table/images/WIN_20240627_11_36_36_Pro.jpg");
    cv::Mat gray, mean;
    cv::cvtColor(photo, gray, cv::COLOR_BGR2GRAY);
    for (int level = 0; level < 2; ++level) {
        if (level)
            cv::resize(gray, gray, cv::Size(gray.cols / 2, gray.rows / 2), 0, 0, cv::INTER_AREA);
        cv::boxFilter(gray, mean, CV_8U, cv::Size(25, 25), cv::Point(-1, -1), true,
                      cv::BORDER_REPLICATE);
        cv::Mat dark = mean - gray >= 10, light = gray - mean >= 10;
        EXPECT_GT(expectSameComponents(dark, 28, "dark ink"), 50);
        EXPECT_GT(expectSameComponents(light, 28, "light ink"), 50);
    }
}

TEST(IndexProposals, GlyphTouchingTheCardOutlineIsProposed) {
    // the rank ring touches the outline (gap 0-1): one oversized component with the outline and the
    // table band beside it; without the split it has no candidate, with it it has one
    ProposalParams off, on;
    off.splitLevels = 0;
    on.splitLevels = 1;
    on.minBlobLevel0 = 4;
    for (int table : {40, 140})
        for (int glyph : {10, 20}) {
            SCOPED_TRACE("table " + std::to_string(table) + " glyph " + std::to_string(glyph));
            EXPECT_FALSE(indexFound(off, glyph, 0, table) && indexFound(off, glyph, 1, table));
            EXPECT_TRUE(indexFound(on, glyph, 1, table));
            EXPECT_TRUE(indexFound(on, glyph, 3, table));  // a free index stays proposed
            EXPECT_TRUE(indexFound(off, glyph, 3, table));
        }
    EXPECT_TRUE(indexFound(on, 10, 0, 40));
    EXPECT_FALSE(indexFound(off, 10, 0, 40));
}

TEST(IndexProposals, PatchesAreUpright) {
    cv::Mat g(200, 200, CV_8U, cv::Scalar(200));
    ProposalPyramid pyr = buildPyramid(g);
    cv::Mat patch = cutIndexPatch(pyr, {{100, 80}, {100, 96}, false});
    EXPECT_EQ(patch.cols, ProposalParams{}.patchWidth);
    EXPECT_EQ(patch.rows, ProposalParams{}.patchHeight);
}

// cutIndexPatch gives the one-sample-at-a-time patches bit for bit: noise and smooth pictures, every
// pyramid level, any direction, inside the picture and across its borders, both ink polarities, and a
// patch size whose rows are no multiple of the SIMD width.
TEST(IndexProposals, PatchesEqualTheSampleBySampleDefinition) {
    cv::RNG rng(11);
    for (const cv::Size size : {cv::Size(1024, 576), cv::Size(333, 251)})
        for (bool smooth : {false, true}) {
            cv::Mat g(size, CV_8U);
            rng.fill(g, cv::RNG::UNIFORM, 0, 256);
            if (smooth) cv::GaussianBlur(g, g, cv::Size(0, 0), 4.0);
            for (const cv::Size patch : {cv::Size(24, 40), cv::Size(13, 21)}) {
                ProposalParams p;
                p.patchWidth = patch.width;
                p.patchHeight = patch.height;
                ProposalPyramid pyr = buildPyramid(g, p);
                for (int i = 0; i < 3000; ++i) {
                    const cv::Point2f a(rng.uniform(-20.f, float(size.width) + 20), rng.uniform(-20.f, float(size.height) + 20));
                    const float len = float(std::exp(rng.uniform(std::log(3.0), std::log(150.0))));
                    const float angle = rng.uniform(0.f, float(2 * CV_PI));
                    const IndexCandidate c{a, a + cv::Point2f(std::cos(angle), std::sin(angle)) * len, rng.uniform(0, 2) == 1};
                    const cv::Mat got = cutIndexPatch(pyr, c, p), want = referencePatch(pyr, c, p);
                    ASSERT_EQ(cv::norm(got, want, cv::NORM_INF), 0.0)
                        << "candidate " << c.a << " -> " << c.b << (c.invert ? " light" : " dark") << " patch " << patch;
                }
            }
        }
}

// The proposals give every pair of blobs both ways round, one after the other; one cut serves both
// (cutIndexPatchPair). Each of its patches is cutIndexPatch's within a grey level (the same
// sampling points, reached by other float sums), and almost every pixel is equal: noise and smooth
// pictures, both polarities, inside the picture and across its borders.
TEST(IndexProposals, APairsTwoPatchesComeFromOneCut) {
    cv::RNG rng(12);
    std::size_t pixels = 0, differing = 0;
    for (bool smooth : {false, true}) {
        cv::Mat g(576, 1024, CV_8U);
        rng.fill(g, cv::RNG::UNIFORM, 0, 256);
        if (smooth) cv::GaussianBlur(g, g, cv::Size(0, 0), 4.0);
        const ProposalPyramid pyr = buildPyramid(g);
        for (int i = 0; i < 2000; ++i) {
            const cv::Point2f a(rng.uniform(-20.f, 1044.f), rng.uniform(-20.f, 596.f));
            const float len = float(std::exp(rng.uniform(std::log(3.0), std::log(150.0))));
            const float angle = rng.uniform(0.f, float(2 * CV_PI));
            const IndexCandidate c{a, a + cv::Point2f(std::cos(angle), std::sin(angle)) * len,
                                   rng.uniform(0, 2) == 1};
            const IndexCandidate r{c.b, c.a, c.invert};
            ASSERT_TRUE(reversedPair(c, r));
            const auto [ab, ba] = cutIndexPatchPair(pyr, c);
            for (const auto& [got, want] :
                 {std::pair{ab, cutIndexPatch(pyr, c)}, std::pair{ba, cutIndexPatch(pyr, r)}}) {
                ASSERT_EQ(got.size(), want.size());
                ASSERT_TRUE(got.isContinuous());
                ASSERT_LE(cv::norm(got, want, cv::NORM_INF), 1.0)
                    << "candidate " << c.a << " -> " << c.b;
                pixels += got.total();
                differing += std::size_t(cv::countNonZero(got != want));
            }
        }
        // all of a picture's candidates, in their order (pairs and lone ones alike)
        const std::vector<IndexCandidate> cands = proposeIndexCandidates(pyr);
        const std::vector<cv::Mat> all = cutIndexPatches(pyr, cands);
        ASSERT_EQ(all.size(), cands.size());
        for (std::size_t i = 0; i < cands.size(); ++i)
            ASSERT_LE(cv::norm(all[i], cutIndexPatch(pyr, cands[i]), cv::NORM_INF), 1.0) << i;
    }
    EXPECT_LT(double(differing), 0.01 * double(pixels)) << differing << " of " << pixels;
    // not a pair: another polarity, or a candidate sharing one blob only
    EXPECT_FALSE(reversedPair({{1, 2}, {3, 4}, false}, {{3, 4}, {1, 2}, true}));
    EXPECT_FALSE(reversedPair({{1, 2}, {3, 4}, false}, {{3, 4}, {1, 5}, false}));
    EXPECT_FALSE(reversedPair({{1, 2}, {3, 4}, false}, {{1, 2}, {3, 4}, false}));
}

// numpy.percentile of sorted values (linear interpolation between the two nearest)
static double percentileOfSorted(const std::vector<std::uint8_t>& sorted, double q) {
    const std::size_t n = sorted.size();
    const double pos = q * double(n - 1);
    const std::size_t k = std::size_t(pos);
    const double frac = pos - double(k);
    return k + 1 < n ? sorted[k] * (1 - frac) + sorted[k + 1] * frac : double(sorted[k]);
}

// normalisePatch gives numpy.percentile's stretch bit for bit (the percentiles from the sorted values,
// then (v - lo) / max(hi - lo, 8) clipped to 0..1): noise, flat, two-level and narrow-range patches.
TEST(IndexProposals, NormalisedPatchEqualsSortedPercentiles) {
    cv::RNG rng(5);
    for (int i = 0; i < 440; ++i) {
        // the last 40: one to four pixels (the sorted positions of both percentiles at the ends)
        cv::Mat p = i >= 400 ? cv::Mat(1, 1 + (i / 4) % 4, CV_8U)
                             : cv::Mat(i % 7 == 0 ? 3 : 40, i % 5 == 0 ? 1 : 24, CV_8U);
        switch (i % 4) {
            case 0: rng.fill(p, cv::RNG::UNIFORM, 0, 256); break;
            case 1: p.setTo(rng.uniform(0, 256)); break;
            case 2: rng.fill(p, cv::RNG::UNIFORM, 0, 2); p = p * 255; break;
            default: rng.fill(p, cv::RNG::UNIFORM, 100, 107); break;
        }
        std::vector<std::uint8_t> sorted(p.begin<std::uint8_t>(), p.end<std::uint8_t>());
        std::sort(sorted.begin(), sorted.end());
        const std::size_t n = sorted.size();
        const double lo = percentileOfSorted(sorted, 0.05), hi = percentileOfSorted(sorted, 0.95);
        const double scale = 1.0 / std::max(hi - lo, 8.0);
        std::vector<float> got(n);
        normalisePatch(p, got.data());
        for (std::size_t k = 0; k < n; ++k)
            ASSERT_EQ(got[k], float(std::clamp((p.data[k] - lo) * scale, 0.0, 1.0))) << "patch " << i << " pixel " << k;
    }
}

// Stretched by a band of columns: the percentiles are of the band's pixels alone, the whole patch
// is stretched by them; the band of every column is the stretch as trained.
TEST(IndexProposals, NormalisedPatchByAColumnBand) {
    cv::RNG rng(9);
    for (int i = 0; i < 100; ++i) {
        cv::Mat p(40, 24, CV_8U);
        rng.fill(p, cv::RNG::UNIFORM, 90, 220);
        p.colRange(0, 5).setTo(rng.uniform(0, 40));  // dark art beside the index
        const cv::Range band(6, 18);
        std::vector<std::uint8_t> sorted;
        for (int y = 0; y < p.rows; ++y)
            for (int x = band.start; x < band.end; ++x) sorted.push_back(p.at<std::uint8_t>(y, x));
        std::sort(sorted.begin(), sorted.end());
        const double lo = percentileOfSorted(sorted, 0.05), hi = percentileOfSorted(sorted, 0.95);
        const double scale = 1.0 / std::max(hi - lo, 8.0);
        std::vector<float> got(std::size_t(p.total())), whole(got.size()), all(got.size());
        normalisePatch(p, got.data(), band);
        for (std::size_t k = 0; k < got.size(); ++k)
            ASSERT_EQ(got[k], float(std::clamp((p.data[k] - lo) * scale, 0.0, 1.0)))
                << "patch " << i << " pixel " << k;
        normalisePatch(p, whole.data());
        normalisePatch(p, all.data(), cv::Range(0, p.cols));
        EXPECT_EQ(whole, all);
        EXPECT_NE(whole, got);  // the dark columns moved the whole patch's 5th percentile
    }
    cv::Mat p(40, 24, CV_8U, cv::Scalar(100));
    std::vector<float> out(p.total());
    EXPECT_THROW(normalisePatch(p, out.data(), cv::Range(20, 30)), cv::Exception);
}
