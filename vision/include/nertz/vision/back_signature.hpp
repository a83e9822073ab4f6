// Back signatures: a compact, lighting-tolerant description of a card back's colour and pattern,
// computed from a card's outline in a picture, compared at any of the two upright orientations and
// from a whole card or a visible strip of one; stored as bytes with the deck in the league file.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/vision/card_outlines.hpp"  // Quad

namespace nertz::vision {

// A malformed or foreign signature blob, or a picture/outline a signature cannot be made from.
class SignatureError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// Canonical size of a rectified card (portrait), pixels.
inline constexpr int kBackWidth = 64;
inline constexpr int kBackHeight = 90;

// Which part of a card a descriptor describes: the whole interior, or a strip along one long edge
// (what shows of a card in a ribbon spread), as a fraction of the card's width.
struct BackRegion {
    float x0 = 0.f, x1 = 1.f;  // 0..1 across the rectified card's width
    bool whole() const noexcept { return x0 <= 0.f && x1 >= 1.f; }
};

// Colour and pattern statistics of one region of one card.
struct BackDescriptor {
    static constexpr int kChromaBins = 12;  // r = R/(R+G+B), g = G/(R+G+B), 12 x 12 soft bins
    static constexpr int kToneBins = 10;    // brightness / mean brightness in 0..2.5
    static constexpr int kOrientBins = 8;   // gradient orientation modulo 180 degrees
    static constexpr int kLayoutCols = 3, kLayoutRows = 4;  // coarse grid, whole cards only
    static constexpr int kSpectrumBands = 8;  // radial frequency bands (0.44 octave), whole cards

    BackRegion region;
    // Enrolment only: the Gaussian blur (sigma, rectified pixels) the card was given before it was
    // described, so that a card seen small or out of focus in a scene still finds its deck's
    // colours; 0 = as seen (a view proper, counted by BackSignature::views()).
    float blur = 0.f;
    std::vector<float> chroma;  // sums to 1
    std::vector<float> tone;    // sums to 1
    std::vector<float> orient;  // sums to 1
    float texture = 0.f;        // log mean gradient magnitude / mean brightness
    float fine = 0.f;           // share of gradient energy at the fine scale
    std::vector<float> layout;  // kLayoutRows * kLayoutCols * 3 (tone, r, g); empty for strips
    // The pattern's spatial frequencies (signature version 3): power of the windowed Fourier
    // transform of the grey interior, blurred by kSpectrumBlur, summed over rings of radius
    // 2^kSpectrumLog2Lo .. 2^kSpectrumLog2Hi (1/32 .. 0.35) cycle per rectified pixel in
    // kSpectrumBands bands even on a log scale; sums to 1; empty for strips. A ring is the same at
    // any rotation, so the two upright orientations need no separate comparison.
    std::vector<float> spectrum;
};

// A deck's back: descriptors of the whole card and of edge strips, from one or a few views.
struct BackSignature {
    // 4: the card's lightness against its picture (lightLo, lightHi); a version 3 signature is
    // still read, without them (0: not known, so no card is left unknown for its lightness).
    // 3: a radial frequency spectrum of whole cards (BackDescriptor::spectrum). 2: white-balanced on
    // the card's own margin, blurred enrolment copies. Older versions are refused: their
    // descriptors cannot be compared with today's cards, so the deck must be enrolled again.
    static constexpr std::uint8_t kVersion = 4;
    std::vector<BackDescriptor> descriptors;
    // How light the deck's back lies in its enrolment pictures: cardLightness over sceneWhite, the
    // least and the most of its views; 0 where not known (a version 3 signature).
    float lightLo = 0.f, lightHi = 0.f;

    // Bytes: "NBS", version, then the descriptors. fromBytes() throws SignatureError on anything
    // else (wrong magic, other version, truncated, NaN).
    std::vector<std::uint8_t> toBytes() const;
    static BackSignature fromBytes(const std::vector<std::uint8_t>& bytes);

    // Adds the descriptors of another view of the same deck (and widens the lightness range to
    // its; not known where either's is not).
    void merge(const BackSignature& other);
    // Whole-card descriptors as seen (blur == 0): the number of pictures the deck was enrolled
    // from.
    int views() const noexcept;
};

// The card inside `quad` warped to kBackWidth x kBackHeight, portrait (a landscape quad is turned a
// quarter turn; which of the two upright orientations comes out is arbitrary). 8-bit BGR in and
// out.
cv::Mat rectifyCard(const cv::Mat& bgr, const Quad& quad);

// The white of a picture: the 99th percentile of its grey, read on the means of 2 x 2 pixels
// sampled about kSceneWhiteWidth across (at least 1). What a card's lightness is measured against
// (cardLightness). Any depth and channel count; 8-bit BGR or BGRA as they are.
float sceneWhite(const cv::Mat& bgr);
inline constexpr int kSceneWhiteWidth = 160;
// The least lightness a signature records (a card black to the camera still has a known one).
inline constexpr float kLeastLightness = 1e-3f;
// The mean grey of a rectified card's interior (cardInterior; of the strip `region`; where `shows`
// is non-zero, when given), as seen (not balanced).
float cardLightness(const cv::Mat& rectified, BackRegion region = {}, const cv::Mat& shows = {});

// The part of the rectified card (rectifyCard(bgr, quad)) that `shows` (a polygon in picture
// pixels, e.g. what the finder saw of a card that others lie across): 255 inside, 0 outside,
// kBackWidth x kBackHeight, less a band of kShowsInset rectified pixels along its edge.
inline constexpr int kShowsInset = 3;
cv::Mat rectifiedShows(const Quad& quad, const std::vector<cv::Point2f>& shows);

// Where the back segmenter sees a face-down card on the rectified card (rectifyCard(bgr, quad)):
// `cardProbability` is BackSegmentation::card (probability x 255) of the picture `picture` at any
// size (the finder's working size); 255 where it is over `threshold`, 0 elsewhere (a hand, a
// face-up card, the table), kBackWidth x kBackHeight. Empty when `cardProbability` is.
cv::Mat rectifiedCardMask(const cv::Mat& cardProbability, cv::Size picture, const Quad& quad,
                          int threshold = 127);

// The segmenter's card probability (x 255) under which a pixel is surely no face-down card (a hand,
// a face-up card, the table): what a card's reading leaves out (attributeCards) and what enrolment
// warns about (models/training/BACKS.md, "A hand on a card").
inline constexpr int kSureNoCard = 51;
// The part of a rectified whole card (kBackWidth x kBackHeight) that describeBack reads: 6% in from
// the long sides, 7% from the short ones.
cv::Rect cardInterior();
// The share of the card's interior (cardInterior) that `cardProbability` (as for
// rectifiedCardMask) says is surely no face-down card.
float hiddenShare(const cv::Mat& cardProbability, cv::Size picture, const Quad& quad);
// An enrolment picture whose card has this share of it hidden (a finger, a hand on it) is not a
// clean view of the back: the CLI warns, the app does not collect the view.
inline constexpr float kEnrolHidden = 0.1f;

// What shows of a card: the largest part of `outline` (picture pixels) that none of `onTop` covers,
// simplified to within 1 px; empty when nothing of it is left.
std::vector<cv::Point2f> uncoveredPart(const std::vector<cv::Point2f>& outline,
                                       const std::vector<std::vector<cv::Point2f>>& onTop);

// Statistics of `region` of a rectified card (see rectifyCard). For a whole card the colours are
// first white-balanced on the card's own margin (the light frame around the pattern): each
// channel is scaled so that the margin's bright pixels come out grey, so a colour cast of the
// light or camera cancels. A margin that needs more than a gain of exp(kBalanceFull) ~ 1.22 in
// some channel is less and less likely a white margin under a cast (a coloured design, an outline
// that is not a card): the gains fade to none at exp(kBalanceOff) ~ 1.42. Strips are described as
// seen (their margin is one edge, and a ribbon's strips decide which rows are cards at all).
inline constexpr float kBalanceFull = 0.2f, kBalanceOff = 0.35f;
// With `shows` (a mask of the rectified card, see rectifiedShows; whole region only) only the
// pixels that show are described, balanced on the part of the margin that shows; the coarse
// layout and the spectrum need the whole card and stay empty (backDistance then leaves them out).
BackDescriptor describeBack(const cv::Mat& rectified, BackRegion region = {}, const cv::Mat& shows = {});

// The spectrum (BackDescriptor::spectrum): blur before the transform (rectified pixels), band
// range (log2 cycles per pixel), and its weight in backDistance (on the L1 of the bands). Tuned on
// train designs only; see BACKS.md, "Signature version 3".
inline constexpr float kSpectrumBlur = 0.7f;
inline constexpr float kSpectrumLog2Lo = -5.f, kSpectrumLog2Hi = -1.5f;
inline constexpr float kSpectrumWeight = 0.3f;

// Blurs applied to the enrolment view for the extra whole-card descriptors (rectified pixels).
inline constexpr std::array<float, 2> kEnrolmentBlurs{0.7f, 1.2f};

// Long sides (picture pixels) the enrolment card is also shrunk to, each giving one more whole-card
// descriptor when it shrinks the card to at most kEnrolmentShrinkAtMost of its size: the card is
// resampled, softened by kEnrolmentShrunkSoften (sigma, shrunk pixels) and JPEG-coded at
// kEnrolmentShrunkJpeg, as a camera shows a card further away than the one held up to enrol. A
// fine, faint pattern (thin rings or a fine checker on white) loses most of its top frequencies so,
// and matched only to the sharp enrolment it was left unknown (BACKS.md, "Shrunk enrolment
// copies"). Their spread (BackDescriptor::blur) is kEnrolmentShrunkSpread: copies of a still card.
inline constexpr std::array<float, 2> kEnrolmentShrunkSides{240.f, 160.f};
inline constexpr float kEnrolmentShrinkAtMost = 0.8f;
inline constexpr float kEnrolmentShrunkSoften = 0.6f;
inline constexpr int kEnrolmentShrunkJpeg = 75;
inline constexpr float kEnrolmentShrunkSpread = 0.9f;

// Lengths of the motion smears applied to the enrolment view, each for four more whole-card
// descriptors (share of the rectified card's width, across, along and both diagonals): a card
// passing through the view at speed is smeared by about this much (StreamCounter); a fast card at
// exposure 1/3 by a third of its width or more, hence the second length.
inline constexpr std::array<float, 2> kEnrolmentSmears{0.25f, 0.45f};
// The spread (BackDescriptor::blur) of the copy smeared by `share` of the card's width. Copies
// smeared beyond the first length are for moving cards only (BackMatcher::match, `moving`): a still
// picture's blurred or dim card matched to them goes to the wrong deck more often than not.
inline float smearSpread(float share) {
    return float(int(std::lround(share * float(kBackWidth))) | 1) / std::sqrt(12.f);
}
// The largest spread of an enrolment copy that a still card is compared with (BackMatcher::match).
inline float stillSpread() { return smearSpread(kEnrolmentSmears.front()) + 0.01f; }

// The signature of one view of a deck: the whole card as seen, blurred by each of kEnrolmentBlurs,
// smeared by each of kEnrolmentSmears four ways and shrunk to kEnrolmentShrunkSides, and strips of
// 12% and 25% along either long edge. Throws SignatureError when the quad is degenerate or mostly
// outside the picture.
BackSignature makeBackSignature(const cv::Mat& bgr, const Quad& quad);

// The terms backDistance adds up, in this order: L1 of the chroma histograms, of the tone
// histograms and of the orientation histograms; |texture difference|; |fine-share difference|; the
// coarse layout's mean weighted difference (the smaller of the two upright orientations); L1 of the
// spectra. The last two are 0 where either descriptor lacks them (strips, cards described over
// what shows of them).
inline constexpr int kBackTerms = 7;
std::array<float, kBackTerms> backTerms(const BackDescriptor& a, const BackDescriptor& b);
// Each term's weight in backDistance. Set by hand over the signature's versions (BACKS.md); weights
// fitted to the train designs' cards with `eval-count --dump-terms` and
// models/training/fit_back_weights.py did not read the held-out designs' cards better (BACKS.md,
// "Term weights fitted").
inline constexpr std::array<float, kBackTerms> kBackTermWeights{0.55f, 0.25f, 0.2f, 0.15f,
                                                               0.5f,  0.25f, kSpectrumWeight};

// Dissimilarity of two descriptors (0 = identical; about 1 = clearly different backs): the terms of
// backTerms weighted by kBackTermWeights. Whole cards are compared in both upright orientations and
// the smaller distance is taken.
float backDistance(const BackDescriptor& a, const BackDescriptor& b);

// Quad helpers.
float quadArea(const Quad& q);
cv::Point2f quadCentre(const Quad& q);
// Mean length of the two long sides and of the two short sides.
cv::Size2f quadSides(const Quad& q);

}  // namespace nertz::vision
