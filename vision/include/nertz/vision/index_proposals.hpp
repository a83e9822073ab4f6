// Corner-index candidates: ordered pairs of glyph-sized ink blobs (rank glyph A above suit pip B),
// found on an image pyramid in both ink polarities, and the upright patch each pair cuts.
// Twin of models/training/proposals.py: the classifier is trained on exactly these patches.
#pragma once

#include <utility>
#include <vector>

#include <opencv2/core.hpp>

namespace nertz::vision {

// Parameters shared with models/training/proposals.py; change both together (and retrain).
struct ProposalParams {
    int patchWidth = 24;     // classifier input, pixels
    int patchHeight = 40;
    float spanWidth = 1.5f;  // patch extent in units of the A-B distance
    float spanHeight = 2.5f;
    int block = 25;          // adaptive threshold window (mean) and offset
    double thresholdC = 10;
    int minBlob = 5;         // blob size range (longest bounding-box side) at pyramid levels 1..
    int maxBlob = 28;
    int minBlobLevel0 = 4;   // smallest blob at level 0 (4 reaches the 4-6 px glyphs of small lake cards)
    // Oversized ink components (longest side > maxBlob) of the first splitLevels levels are split: their
    // pixels inside the other polarity's mask ("paper": lighter than the local mean) closed by a
    // paperClose square give further blobs (the blobs found before are all kept). A rank glyph merged
    // with the card's printed outline and the dark table band beside it is freed that way: the paper
    // around the glyph closes over its strokes, the outline and band have paper on one side only.
    // Solid pips wider than paperClose are not recovered. 0 turns it off. The committed reader is
    // trained on the patches of these defaults (models/MODEL.md, "Proposals: splitting glyphs off the
    // card edge"); the Python twin (models/training/proposals.py) must keep the same values.
    int splitLevels = 1;
    int paperClose = 7;
    int levels = 4;          // pyramid levels (each half the size of the one before)
    int minLevelSide = 48;
    float idealDistance = 16.f;  // A-B distance (pixels) a patch is best cut at
};

// One candidate index: rank-glyph centre a, pip centre b (working-image pixels); invert: light ink.
struct IndexCandidate {
    cv::Point2f a;
    cv::Point2f b;
    bool invert = false;
};

// The image pyramid the proposals and patches are computed on (median-filtered gray, halved per level;
// light-ink patches are cut from it and inverted).
struct ProposalPyramid {
    std::vector<cv::Mat> levels;
};

ProposalPyramid buildPyramid(const cv::Mat& gray8, const ProposalParams& p = {});

// All candidate pairs of the pyramid, in level-0 pixels (the same set as the twin's, in another order).
std::vector<IndexCandidate> proposeIndexCandidates(const ProposalPyramid& pyr, const ProposalParams& p = {});

// The upright patch (CV_8U, patchWidth x patchHeight, dark ink) of one candidate.
cv::Mat cutIndexPatch(const ProposalPyramid& pyr, const IndexCandidate& c, const ProposalParams& p = {});

// Whether r is c read the other way round (proposeIndexCandidates gives each pair of blobs so, one
// after the other).
bool reversedPair(const IndexCandidate& c, const IndexCandidate& r);

// The patches of c and of c reversed, from one cut: the second is the first's grid, a pixel larger,
// turned half a turn. Each equals cutIndexPatch's to within a grey level (the sampling positions
// are the same points, reached by other float sums); most pixels are equal.
std::pair<cv::Mat, cv::Mat> cutIndexPatchPair(const ProposalPyramid& pyr, const IndexCandidate& c,
                                              const ProposalParams& p = {});

// The patches of all candidates, in their order: a candidate followed by its reversed one is cut
// once for both (cutIndexPatchPair), any other alone (cutIndexPatch).
std::vector<cv::Mat> cutIndexPatches(const ProposalPyramid& pyr, const std::vector<IndexCandidate>& cands,
                                     const ProposalParams& p = {});

// The same proposals' patches at half resolution (patchWidth / 2 x patchHeight / 2): the full
// patch's samples at even columns and rows, from the same cut (cutIndexPatches with these params).
// The gate reads these (IndexReader::gateHalf); only the patches it passes are cut in full.
ProposalParams halfPatchParams(const ProposalParams& p);

// One 8-connected component of ink: bounding box, pixel count, centroid.
struct InkComponent {
    int x, y, width, height, area;
    double cx, cy;
};

// The 8-connected components of a CV_8UC1 mask (nonzero: ink), joined from its runs of ink: the
// same components, figures and order as cv::connectedComponentsWithStats(..., 8, CV_32S,
// cv::CCL_GRANA) gives (labels 1..n), without a label per pixel (the proposals' masks are mostly
// empty). With big, it becomes the mask (0 / 255, the size of mask) of the components whose longest
// side exceeds bigSide.
std::vector<InkComponent> inkComponents(const cv::Mat& mask, cv::Mat* big = nullptr,
                                        int bigSide = 0);

}  // namespace nertz::vision
