// Index proposals: a corner index whose rank glyph touches the card's printed outline (and so the table
// band beside it in the ink mask) still gets a candidate: the oversized ink component is split by the
// closed paper mask.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include <opencv2/imgproc.hpp>

#include "nertz/vision/index_proposals.hpp"

using namespace nertz::vision;

namespace {

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

}  // namespace

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
