// The detection pipeline: picture -> card outlines, corner indices read and grouped to cards.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/scoring/card.hpp"
#include "nertz/vision/card_outlines.hpp"
#include "nertz/vision/index_proposals.hpp"
#include "nertz/vision/index_reader.hpp"

namespace nertz::vision {

// One corner index read in the picture.
struct IndexReading {
    cv::Rect2f box;  // axis-aligned box around the index, image pixels
    cv::Point2f centre;
    cv::Point2f up;     // unit vector from pip to rank glyph (the card's "up" at this corner)
    float scale = 0.f;  // rank-to-pip distance, image pixels
    scoring::Card face;
    float confidence = 0.f;
    // read under minConfidence, reported only as one of two unsure corners of one face at a card's
    // opposite corners (DetectorOptions::pairConfidence)
    bool paired = false;
};

// One card: its outline when the edges were found, its side, its face when an index was read.
struct DetectedCard {
    std::optional<Quad> quad;
    Side side = Side::Face;
    std::optional<scoring::Card> face;
    float confidence = 0.f;
    std::vector<IndexReading> indices;  // one or two corners of this card
};

struct Detection {
    int width = 0;
    int height = 0;
    double ms = 0;  // processing time of detect(), milliseconds
    // A square picture read restored to another aspect (DetectorOptions::squareAspects): it was
    // read stretched by these factors; every position above is in the picture as given.
    float stretchX = 1.f, stretchY = 1.f;
    // Read again enlarged by this for its small indices (DetectorOptions::smallIndexHeight); 1:
    // not.
    double enlarged = 1.0;
    std::vector<DetectedCard> cards;
};

struct DetectorOptions {
    std::string modelDir;  // empty: resolveModelDir()
    float minConfidence =
        0.80f;  // an index is reported at or above this probability (calibrated: models/MODEL.md)
    float gateThreshold =
        0.30f;  // patches the pre-filter rates less likely an index are not read (MODEL.md)
    // The picture is brought to a working size first: larger ones are shrunk to workMaxSide on
    // their longest side, smaller ones enlarged (bicubic) to workMinSide (0: never). Tiny corner
    // indices (4-6 px glyphs on a 640 px webcam export, or a far camera's lake) are read far more
    // often at these sizes than at 1024 / none (models/MODEL.md, "Working size"); the cost grows
    // with the area.
    int workMaxSide = 1280;
    int workMinSide = 960;
    bool findOutlines = true;
    // ... also in a picture where no index was read (its cards reported by their outlines alone,
    // unread: backs, faces too small to read). readOnce() turns it off: countBacks asks only about
    // cards read face up, and the frames it reads are mostly backs with no index to read, where
    // the outlines cost 2.4 of a count's 40 ms (models/training/BACKS.md, "The face-up test cheaper").
    bool outlinesWithoutIndices = true;
    bool outlinesFromIndices = true;  // a read card without an outline gets one from its indices
    // Face-up cards outlined by their edges too (findCardOutlinesByEdges): a light table the
    // brightness threshold merges them with, and a court card's outline that its colourful picture
    // made a back taken for a face where it showsIndexCorners. stillPicture() turns it on (the
    // lake's unread piles); live frames keep to the threshold's outlines.
    bool edgeOutlines = false;
    // A reading's suit must agree with its pip's ink: red -> hearts / diamonds, neutral -> clubs /
    // spades; a light green-to-violet glow (a lit key, a screen) is no index (pip_colour.hpp); not
    // in colourless (grayscale) pictures.
    bool suitFromInk = true;
    // A black index's clubs-or-spades split is read again from its patch stretched between the
    // percentiles of its middle half (the rank and pip column) rather than of all of it, where a
    // court card's art or the table beside the index takes the contrast (models/MODEL.md, "Clubs
    // read as spades"). The index's and rank's probabilities stay those of the first reading.
    bool blackSuitFromIndexColumn = true;
    // Two unsure readings of one face at a card's two opposite corners (oppositeCorners), each at
    // or above pairConfidence but below minConfidence, are taken together: both are reported, with
    // the probability that not both are wrong, 1 - (1 - p1)(1 - p2). A deck the reader reads
    // unsurely is read at both corners the same way far more often than two misreadings agree
    // there (models/MODEL.md, "Two unsure corners of one card"). 1 or more: off.
    float pairConfidence = 0.5f;
    // A square picture is most often a camera's picture squashed to a square by an export (the
    // labelled real photos are such exports): glyphs 4-6 px wide lose their shape. A square one is
    // read as given and restored to the common camera aspects (4:3, 16:9, either way), and the
    // reading whose surest indices are surest is kept (the mean of its 5 most confident: a wrong
    // aspect reads fewer indices, and less surely). Five readings' time; models/MODEL.md, "Square
    // pictures". False: read as given.
    bool squareAspects = true;
    // ... and the indices another of those aspects reads at least this surely, where the kept
    // reading has none, are added to it (with their cards): a large index at a picture's edge, or a
    // card the kept aspect's stretch reads unsurely, is often read surely at another. Chosen on
    // squashed train-design scenes (models/MODEL.md, "Indices of the other aspects"). 1: off.
    float aspectExtraConfidence = 0.95f;
    // Small indices: a picture the working size does not enlarge whose indices read at under
    // smallIndexHeight working pixels high (the median; or none read) is read again enlarged by
    // smallIndexEnlarge, and that reading is kept. A far camera's lake has 8-30 px indices, which
    // the reader reads far better enlarged; it costs a second, larger reading of such pictures
    // (models/MODEL.md, "Small indices read again"; 2 times since 2026-11-27, "Small indices read
    // twice as large"). 0: off, the default for following a camera live (a frame of small indices
    // would take ~2.5 times the 40 ms budget); stillPicture() turns it on for pictures read once
    // (nertzref-cli detect / eval / lake, the app's lake step).
    float smallIndexHeight = 0.f;
    double smallIndexEnlarge = 2.0;
    // A picture is also read at these multiples of its working scale, and the indices those
    // readings (and a reading not kept for its small indices) read at least extraScaleConfidence
    // surely where the kept reading has none are added to it, with their cards: an index the reader
    // is unsure of at one size is often sure at another (models/MODEL.md, "Other scales"). A square
    // picture's kept aspect is read so, held to aspectExtraConfidence. Empty: read once, the
    // default for following a camera live (each scale costs a reading); stillPicture() sets 1.25
    // and 0.75.
    std::vector<double> extraScales;
    float extraScaleConfidence = 0.9f;
    // An unsure reading (at least recutConfidence, under minConfidence) where no sure index lies
    // is cut 8 ways more: both ends of its pair moved along and across it by recutShift of its
    // span, the span recutZoom larger and smaller, turned recutTurn degrees either way. Where at
    // least recutAgree of those 8 read its face surely (minConfidence), it is taken as the surest
    // of them reads it. A proposal's pair of glyph centres is often a little off the index (a glyph
    // merged with the card's edge or art), and a patch cut a little otherwise is then read surely
    // (models/MODEL.md, "Unsure indices cut again"). At most recutMost readings a reading of the
    // picture (the surest). 1 or more: off, the default for a camera followed live;
    // stillPicture() sets 0.3.
    float recutConfidence = 1.f;
    float recutShift = 0.08f;
    float recutZoom = 0.1f;
    float recutTurn = 6.f;
    int recutAgree = 3;
    int recutMost = 64;

    // A face-up card's outline where no index was read is read at its two index corners (a card's
    // indices sit at the top left and, turned half a turn, the bottom right as it reads; the
    // outline is also grown 1.1 and 1.25 times, a design's printed frame around its pips being
    // found in place of the card's edge): six patches a corner and size, cut where an index lies
    // on most designs (its middle 0.064 of the card's length in from the long side and 0.145 down,
    // the median over the scene generator's designs, and where groupIndices' frame of rank-to-pip
    // distances puts it), read by the reader with no proposal and no gate. The card takes the face
    // both corners read, each at least outlineCornerConfidence sure and 1 - (1 - p1)(1 - p2) at
    // least minConfidence, or one corner reads at least outlineCornerAlone sure while the other
    // reads no other face at outlineCornerConfidence. For a lake's pile tops whose small indices
    // no proposal paired (models/training/BACKS.md, "Outlines read at their corners"). 1 or more:
    // off, the default for a camera followed live; stillPicture() sets 0.5. Dark ink on light
    // paper only.
    float outlineCornerConfidence = 1.f;
    float outlineCornerAlone = 0.95f;

    // The settings for a still picture (a photo, a lake check): small indices read again enlarged,
    // and the picture also read at 1.25 and 0.75 times its working scale (extraScales).
    static DetectorOptions stillPicture();
    // One reading of the picture as given, at the working size (no other aspect, no second
    // enlarged reading, no black suit read again, no unsure pairs): telling face-up cards from
    // backs (countBacks), where a picture of backs has no index to read and the other settings
    // would read it five or two times, and the suit does not matter; the gate stricter (0.5: a
    // face-up card read surely passes it all the same, a back's pattern far less often) and no
    // outlines where no index was read (outlinesWithoutIndices).
    static DetectorOptions readOnce();
};

// A place where an index should lie (picture pixels): its middle, which way it stands (a unit
// vector from pip to rank glyph) and its rank-to-pip distance, as an IndexReading gives them.
struct IndexPlace {
    cv::Point2f centre;
    cv::Point2f up;
    float scale = 0.f;
    // Above 0: what lies further across the index than this from its middle (picture pixels) is
    // taken as paper (in a tight fan the next card's edge and index lie there).
    float halfWidth = 0.f;
};

// Owns the loaded models; detect() may be called for frame after frame (not concurrently).
class Detector {
  public:
    explicit Detector(DetectorOptions options = {});  // throws ModelError when a model is missing

    // Any 8/16-bit, 1/3/4-channel picture; throws ImageError for empty or oversized ones.
    Detection detect(const cv::Mat& image);

    const DetectorOptions& options() const noexcept { return options_; }

    // A second look at a picture that detect() read as `first` (a picture read once, readOnce()):
    // also read at these multiples of its working scale, the indices those read at least
    // extraScaleConfidence surely where `first` has none added, with their cards, as a still
    // picture's other scales are (DetectorOptions::extraScales). With `region` (picture pixels)
    // only that part is read again, at the scale the whole picture would be read at times each of
    // `scales`. `first.ms` grows by the time.
    Detection readAgainAt(const cv::Mat& image, Detection first, const std::vector<double>& scales,
                          cv::Rect region = {});

    // An index read at each place of a picture (as detect() takes it), where the proposals found
    // none to read: a fan's card whose index its spacing says lies between two read
    // (vision::readFannedPile). Each place is cut kPlaceCuts ways around it (moved along and
    // across by a fifth of its rank-to-pip distance, a tenth larger and smaller; with halfWidth,
    // what lies beyond it across taken as paper); its face is the one read at minConfidence or
    // more, the pip's ink checked as detect()'s are, by at least `agree` cuts and by more than twice
    // as many as any other face, with the surest of those cuts' confidence, placed where they are
    // on average. Nothing where no face is.
    static constexpr int kPlaceCuts = 27;
    std::vector<std::optional<IndexReading>> readAt(const cv::Mat& image,
                                                    const std::vector<IndexPlace>& places,
                                                    int agree = 3);

  private:
    // One reading of an 8-bit BGR picture at the working size times `enlarge`.
    // surest: set to the mean of the 5 surest indices kept, as the reader read them (before a black
    // suit is read again): how surely the picture reads at this aspect.
    Detection detectAsGiven(const cv::Mat& bgr, double enlarge, float* surest = nullptr);
    // Each candidate's reading (passedGate false where the gate dropped it); `patches` gets the
    // full patches of those read (the others stay empty).
    std::vector<PatchReading> readCandidates(const ProposalPyramid& pyr,
                                             const std::vector<IndexCandidate>& cands,
                                             std::vector<cv::Mat>& patches);
    // detectAsGiven, read again enlarged when its indices are small (smallIndexHeight).
    // notKept: the first reading where the second one is kept.
    Detection read(const cv::Mat& bgr, std::vector<Detection>& notKept);
    // DetectorOptions::recutConfidence: `readings` of `cands` (working pixels; `inv` takes them to
    // the picture's) changed where the re-cut patches' mean reads surely
    void readUnsureAgain(const cv::Mat& bgr, const ProposalPyramid& pyr,
                         const std::vector<IndexCandidate>& cands, float inv,
                         bool colourlessPicture, std::vector<PatchReading>& readings,
                         std::vector<cv::Mat>& patches);
    // DetectorOptions::blackSuitFromIndexColumn: each reading whose clubs and spades together
    // reach `atLeast` gets its black suit read again from its patch's middle columns
    void readBlackSuitsByColumn(std::vector<PatchReading>& readings,
                                const std::vector<cv::Mat>& patches, float atLeast);
    // DetectorOptions::outlineCornerConfidence: `cards`' unread face-up outlines read at their
    // index corners, cut from `pyr` (working pixels; `inv` takes them to the picture's)
    void readOutlineCorners(const cv::Mat& bgr, const ProposalPyramid& pyr, float inv,
                            bool colourlessPicture, std::vector<DetectedCard>& cards);
    double workScale(cv::Size size) const;
    DetectorOptions options_;
    ProposalParams params_;
    IndexReader reader_;
};

// Indices of one face that belong to one card (both corners of it) are merged: corners of the same
// face within 9 rank-to-pip distances, inside one outline, or at opposite corners of one card
// (printed half a turn apart, each below the other, 3-16 rank-to-pip distances apart) are one card.
// Exposed for tests.
// The outline of the card whose corner indices these are (image pixels, reading order), from where
// an index sits on its card: with two corners half a turn apart the card spans them; with one, its
// far sides are looked for as colour steps across the card. Nothing when no card-shaped outline is
// found. `bgr`: the picture the indices were read in (8-bit BGR, same pixels).
std::optional<Quad> outlineFromIndices(const cv::Mat& bgr,
                                       const std::vector<IndexReading>& indices);

// True when a and b read like the two corner indices of one card: printed half a turn apart, each
// below the other as it reads, 3-16 rank-to-pip distances apart.
bool oppositeCorners(const IndexReading& a, const IndexReading& b);

// Of unsure readings (one per place), those of one face that lie at a card's opposite corners
// (oppositeCorners), each with the probability that not both readings of its pair are wrong,
// 1 - (1 - p1)(1 - p2) (the largest over its pairs).
std::vector<IndexReading> pairedCorners(const std::vector<IndexReading>& unsure);

// True when a and b read one face and lie as groupIndices takes one card's corners to lie (within 9
// rank-to-pip distances of each other, or at opposite corners), outlines aside.
bool cornersOfOneCard(const IndexReading& a, const IndexReading& b);

std::vector<DetectedCard> groupIndices(std::vector<IndexReading> indices,
                                       const std::vector<CardOutline>& outlines);

}  // namespace nertz::vision
