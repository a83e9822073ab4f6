// Face-down cards in a picture of the sort: loose cards as whole outlines, and the cards of a
// ribbon spread (or of any overlapping row) as one outline each plus the strip of it that shows.
// Cards are told from the table by colour against a table model taken from the picture's border.
#pragma once

#include <optional>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/vision/back_segmenter.hpp"
#include "nertz/vision/back_signature.hpp"

namespace nertz::vision {

struct BackCandidate {
    Quad quad;           // the whole card (its covered part estimated), corners in order
    BackRegion region;   // the part of the rectified card that shows (whole for a loose card)
    // What shows of a card that others lie across (picture pixels; empty: all of `quad` shows,
    // or `region` says what): attribution reads only that part.
    std::vector<cv::Point2f> shows;
    bool inRow = false;  // found in a ribbon spread / overlapping row
    int row = -1;        // which row (cards of one row are consecutive)
    // Found only from card pixels no middle took, under BackFinderOptions::leftoverShare of a card
    // (leftoverIfKnownShare): a card only where its reading gives it to a deck (countBacks).
    bool ifKnown = false;
};

// BackFinderOptions::halfBelowClaimed when close-ups are asked for (`count --close-ups`).
inline constexpr float kCloseUpHalfBelow = 0.7f;

struct BackFinderOptions {
    int workLongSide = 640;          // the picture is shrunk to this long side first
    float minCardFraction = 0.002f;  // smallest card, as a share of the picture's area
    float cardAspect = 1.40f;        // long side / short side of a card (poker 88x63 mm)
    // Ribbon rows read by the learnt edge finder (models/training/train_ribbon_edges.py: a 1-D net
    // over the row at the picture's full resolution, its marks chained from either end) instead of
    // the autocorrelation of the row's edge profile (models/training/BACKS.md, "Ribbon spreads read
    // at full resolution").
    bool learntRows = true;
    // Learnt rows are seen in the frame of their four corners in perspective (a homography from the
    // blob's hull cut to four sides; the edge finder is trained so), else of their rotated box.
    bool rowCorners = true;
    float rowFill = 0.85f;           // learnt rows: a blob filling this share of its box is a row
    // learnt rows with the segmenter's pieces: a blob filling this share of its box that holds two
    // middles or more, or more than 1.3 cards, is tried as a ribbon spread (0.85: ribbon-set error
    // 7.79 against 7.23, loose the same; BACKS.md)
    float ribbonFill = 0.75f;
    // Learnt rows with the segmenter's instances: a blob filling less than `ribbonFill` of its box
    // (rows that touch each other or a loose card) is split into parts by joining neighbouring
    // instances while their union fills at least this share of its box; a part the edge finder
    // reads with clear edges is a ribbon row. 0: off.
    float splitRows = 0.8f;
    // Blobs that fill less than `clusterFill` of their box are loose cards that touch or overlap:
    // cards of the scene's size (the median loose card) are fitted into them one by one.
    bool fitClusters = true;
    float clusterFill = 0.80f;
    float clusterCover = 0.75f;  // the fitted cards must cover this share of the blob
    float shortRowScore = 0.3f;      // learnt rows: a card-shaped blob is a row when its edge chain
                                     // scores this much an edge (at most 0.5: see ribbonCards)
    // Learnt rows: a row read into `longRowCards` cards or more and at least `longRowThick` of the
    // scene's card length thick is a row at `longRowScore` an edge (the edge finder trained on rows
    // framed by their corners marks edges less surely than the one before; a checkered back's grid
    // read as strips is thinner than a card is long).
    float longRowScore = 0.2f;
    int longRowCards = 6;
    float longRowThick = 0.8f;
    // Learnt rows with the segmenter: a blob that the rules above leave out of the row reader (no
    // larger than the scene's card, whose size a row alone in the picture sets itself; filling its
    // box too poorly, seen in perspective or cut by the picture's edge) is read as a row when the
    // segmenter's outline map marks at least this share of its inside (card sides: 0.40-0.89 on
    // the rows of the train ribbon scenes, 0.03-0.06 on single cards, at most 0.47 on other
    // blobs). It is one when it reads into `rowMinCentres` cards or more with clear edges and the
    // part past its last edge is a whole card. 0: off (the finder before 2026-11-27, sixth
    // session).
    float outlineRows = 0.4f;
    // Cards told from the table (and hands) by the learnt segmenter (back_segmenter.hpp), whose
    // card outlines also guide the cluster fit; off, or without its model, the table's colour model
    // and image edges are used.
    bool learntMask = true;
    const BackSegmenter* segmenter = nullptr;  // null: BackSegmenter::forThisThread()
    // With the segmenter: cards are the pieces of the card mask that its outlines cut apart.
    bool pieces = true;
    // a piece is grown by this much (work px) on every side to the card's edge (the outline band
    // takes it off); chosen on the train-design tuning set, see BACKS.md
    float outlineHalfWidth = 5.5f;
    float minPieceShare = 0.06f;    // a smaller piece is a scrap (in cards' area)
    float mergeShare = 0.4f;        // a piece under this share of a card may join a larger one
    float maxPieceCards = 1.6f;     // a larger piece is several cards (the cluster fit splits it)
    // A piece that is one card seen whole: it has a card's four corners and fills them
    // (fourCorners), and the segmenter's outline map marks under this share of its inside
    // (outlineRows' measure: 0.03-0.06 on one card; a side between two cards marks more). Such a
    // piece is one card however large (a card nearer the camera than the others: not split as a
    // squared pile past maxPieceCards), and two pieces of a good part of a card each (a quarter)
    // that together are one join (a large card given two middles by the segmenter; the size rule
    // centreMergeFit joins them only within the scene's card size). A blob of fewer than
    // rowMinCentres middles that is one card seen whole is no ribbon row, whatever edges the row
    // reader finds in its print (stripes, a lattice). 0: off (the finder before 2026-11-27,
    // seventh session).
    float wholeCardOutline = 0.1f;
    // A blob of a card's shape alone on the table (it fills its box, has a card's four corners and
    // fills them) with under this share of its inside marked as card sides (outlineShare) is one
    // card, though the row reader reads clear edges in it or the segmenter gives it two middles or
    // more: the boxed NERTZ colour deck's back (diagonal lines, a lettered band) was read as strips
    // and given up to three middles, and its lines mark 0.06-0.24 (over wholeCardOutline); short
    // ribbon rows alone on the table mark 0.35-0.40 or more (train sets; BACKS.md, "A card on its
    // own read as strips"). 0: off (the finder before 2026-12-01).
    float loneCardOutline = 0.3f;
    double minOutlineLine = 14;     // outline stretches shorter than this (work px) cut nothing
    float pieceCardFill = 0.75f;    // a piece filling this share of its box (and card-shaped) is a
                                    // whole card: these give the scene's card size
    // With a segmenter that has centre and offset heads: the pieces are its instances (every card
    // pixel goes to the card middle it points at) rather than what its outlines cut apart.
    bool centres = true;
    float centreThreshold = 0.3f;   // a card's middle: a local maximum of the centre map above this
    float centreReach = 6.f;        // a pixel pointing farther from every middle (cells) is no middle's
    float leftoverShare = 0.5f;     // card pixels no middle took: a card when this share of one
    // ... and from this share of one, a card only where its reading gives it to a deck: countBacks
    // asks for such pieces (ifKnownPieces, BackCandidate::ifKnown) and leaves out those it reads as
    // no enrolled deck; findBackCards returns none of them otherwise. Chosen on the train sets
    // (BACKS.md, "Half-shown cards kept where they are read"). leftoverShare or more: off.
    float leftoverIfKnownShare = 0.25f;
    bool ifKnownPieces = false;
    float centreMergeShare = 0.75f; // a piece under this share of a card joins a larger one when
    float centreMergeFit = 1.1f;    // both fit in a card of this many times the card's size
    int rowMinCentres = 3;          // a blob that fills its box is read as a ribbon row only when it
                                    // holds this many middles
    // A blob whose middles make it a row though the row reader found no clear edges in it is
    // counted by its pieces instead when that unclear reading found fewer cards than this share of
    // its middles (a wide ribbon cut by the picture's edge, read in its rotated box: 2 cards where
    // the segmenter sees 13 middles). 0: always a row (the finder before 2026-11-29, twentieth
    // session).
    float unclearRowMiddles = 0.5f;
    // A piece smaller than this share of a card (or not card-shaped) is part of a card that others
    // lie across: its card is completed to the scene's card size under them, and attribution reads
    // only the part that shows (BackCandidate::shows). 0: pieces are given as they show.
    float completeBelow = 0.85f;
    // A piece that is no whole card, and not completed, whose outline (its four corners, or its
    // box) comes to more than this share of the scene's whole card (the median of the pieces that
    // are whole cards; else the card size): its middle took pixels of the cards beside or under it
    // (two cards crossing, a card pressed against another), and its outline spans them. Cards of the
    // scene's size are fitted into it as into a cluster (one that fits it better, or two); kept as
    // it was when none fits. 0: off (the finder before 2026-12-01, thirty-first session; BACKS.md,
    // "Outlines larger than a card refitted").
    float oversizedPieceFit = 1.5f;
    // ... except a piece alone on the table: one with a card's four corners that it fills
    // (fourCorners), at least wholeAloneShare of a card, clear of the picture's edge, with no other
    // card's pixel beside any of its sides. Nothing lies across it, so it is a whole card, smaller
    // than the scene's others (farther from the camera, or of a smaller deck); completed, it was
    // given the scene's card size around its middle (models/training/BACKS.md, "Whole cards alone on
    // the table"). Applied with refineOutlines only (the pieces' four corners are that path's
    // starting outlines). 0: off (the finder before 2026-11-30, twenty-fourth session).
    float wholeAloneShare = 0.15f;
    // Loose cards' outlines are fitted again to their sides in the full picture (the segmenter sees
    // them at 640 px, and gives a card seen at an angle as a rectangle): each side is looked for
    // within `refineReach` of the card's short side and `refineTurn` degrees. Then, of two
    // overlapping cards the one whose border shows across the other lies on it, and a card that
    // others lie on is read by what shows of it.
    bool refineOutlines = true;
    float refineReach = 0.15f;
    float refineTurn = 25.f;
    // Of the lines a side's colour steps support, the outermost of those nearly as well supported
    // as the best is the card's border (a back's own frame is printed inside it). Where other cards
    // lie beyond the side, the outermost is often theirs (a neighbour's far edge, swallowed into
    // this card's piece), and the line must have this share of the best one's votes (1: the best,
    // the outermost of equals; 0.7 as every other side: the finder before 2026-11-30,
    // twenty-fourth session; models/training/BACKS.md, "Sides with other cards beyond them").
    float contestedLineShare = 1.f;
    // With the segmenter: a card of a row (BackCandidate::inRow) whose showing part (its `shows`,
    // else its outline) the segmenter itself calls a face-down card by less than this mean
    // probability is dropped. The row reader and the cluster split place cards by geometry; on
    // the real photos they placed most of their rows on knitted cloth, keyboards and face-up cards
    // this way (models/training/BACKS.md, "Rows the segmenter does not see, and cards larger than
    // it knows"). 0: keep every card.
    float minRowSupport = 0.5f;
    // With the segmenter's instances: when less than `minClaimed` of its card mask points at a
    // card's middle, the picture is read again at `retryScale` of the working size, and again at
    // `retryScale` of that, ... (not below `minWorkLongSide` px) while the reading kept explains
    // under `minClaimed`; the reading at `retryScale` is kept when its instances explain more of
    // its mask than the first, a smaller one only when they also explain `minClaimed` of it (at a
    // quarter, a knitted cloth's loops read as small cards). Cards larger than the segmenter was trained on (at most 0.4 of a 16:9 picture's
    // short side) get no middles at the working size, and their mask falls apart into scraps (same
    // section); a card held close to the camera needs a quarter of it (BACKS.md, "A close-up card
    // enrolled whole"). 0 (`minClaimed` or `retryScale`): never.
    float minClaimed = 0.5f;
    // Close-ups (asked for: `count --close-ups`; 0, off, by default): when the reading at the
    // working size explains under `halfBelowClaimed` of its card mask, the reading at `retryScale`
    // of it replaces it where that one explains `halfMinClaimed` of its own mask (or more than the
    // first, as above); the retries above go on from there, a still smaller reading kept only when
    // it explains `minClaimed`. A phone held over a few cards sees them 0.3-0.7 of its short side,
    // larger than the segmenter knows: their mask is cut into scraps and rows of strips whose
    // middles still explain 0.5-0.7 of it, so the rule above keeps them. Scenes of the usual sizes
    // explain 0.8-1 of their mask; on the real photos a half reading explaining under 0.3 found
    // more cards where none lie. Off by default: held-out batch and ribbon sets of the usual sizes
    // are counted exact as often but a little further off in total with it (BACKS.md,
    // "Close-ups"). kCloseUpHalfBelow: the value asked for.
    float halfBelowClaimed = 0.f;
    float halfMinClaimed = 0.3f;
    float retryScale = 0.5f;
    int minWorkLongSide = 120;
    // findEnrolmentCard: an outline with at most one side on a border in the picture
    // (sidesOnBorders) fitted again to the weaker steps, and a large card taken where its four sides
    // lie on borders (off: the enrolment before 2026-12-01, thirty-third session; BACKS.md, "A
    // close-up card outlined on its sides").
    bool enrolOnBorders = true;
};

// Every face-down card found in an 8-bit BGR picture (quads in the picture's pixels). `explained`
// (optional): the share of the segmenter's card mask that its instances explain in the reading
// kept (BackFinderOptions::minClaimed), 1 without the instances. Low (under 0.5) where the picture
// is unlike the scenes the segmenter was trained on: cards far larger or smaller, clutter it takes
// for cards. Synthetic table scenes give 0.73-1.
// `cardProbability` (optional): the segmenter's BackSegmentation::card of the reading kept, at its
// working size (empty without the segmenter), for attributeCards.
std::vector<BackCandidate> findBackCards(const cv::Mat& bgr, const BackFinderOptions& options = {},
                                         float* explained = nullptr,
                                         cv::Mat* cardProbability = nullptr);

// The card an enrolment reads in a picture of a deck's back: the largest of `found` (findBackCards)
// seen whole; nullptr when none is.
const BackCandidate* enrolmentCard(const std::vector<BackCandidate>& found);

// What an enrolment reads in a picture of one back lying flat: the card (enrolmentCard of the
// finder's cards) and the segmenter's card map of the reading it came from (for hiddenShare).
struct EnrolmentReading {
    std::optional<BackCandidate> card;  // none: no card seen whole at any working size
    cv::Mat cardProbability;            // as findBackCards gives it, for that reading
    float explained = 1.f;              // as findBackCards gives it, for that reading
    int workLongSide = 0;               // the working size of that reading
};

// The card to enrol from a picture of one back lying flat, as a player takes it with a phone: often
// close, the card filling most of the picture. The segmenter was trained on tables seen from above
// (cards at most 0.4 of the picture's short side); a card far larger gets no middle, its mask falls
// apart into scraps, or the card is cut in two, and the largest scrap seen whole (a corner of the
// card) would be enrolled. So the picture is read at the working size, then at half of it, a
// quarter, ... (not under kMinEnrolWorkSide px), until a reading whose instances explain
// `minClaimed` of its card mask holds a card seen whole whose long side is at most
// kEnrolKnownSide of the picture's short side. A reading's card whose outline has at most one side
// on a border in the picture (sidesOnBorders) is fitted again to the weaker steps; the card counts
// where its reading explains `minClaimed` of the mask or, longer than kEnrolKnownSide of the short
// side, where all four of its sides lie on borders; of those the largest is kept (failing any, the
// card of the reading that explains most). (models/training/BACKS.md, "A close-up card enrolled
// whole" and "A close-up card outlined on its sides".)
EnrolmentReading findEnrolmentCard(const cv::Mat& bgr, const BackFinderOptions& options = {});
inline constexpr int kMinEnrolWorkSide = 120;
inline constexpr double kEnrolKnownSide = 0.5;

// How many of the card outline `q`'s four sides (reading order, picture pixels) lie on a border in
// the 8-bit BGR picture: a straight colour step at 9 of 12 places along the side (spanning a third
// of it or more), within kBorderReach of the card's short side of it and turned at most kBorderTurn
// degrees against it, weaker steps than the card's pattern counted too. A side drawn across the
// card's pattern or across the table finds none. 0 for pictures other than 8-bit BGR.
int sidesOnBorders(const cv::Mat& bgr, const Quad& q);
inline constexpr float kBorderReach = 0.04f;
inline constexpr float kBorderTurn = 4.f;

// The segmenter's BackSegmentation::card of `bgr` at the finder's working size, as findBackCards
// sees it first; empty without the segmenter (BackFinderOptions::learntMask off, or no model).
cv::Mat backCardProbability(const cv::Mat& bgr, const BackFinderOptions& options = {});

// The four corners of a row of cards (a ribbon spread) from its outline, as a camera at a slant
// sees it (a quadrilateral, not a rectangle): the quadrilateral that the sides of the outline's
// convex hull make when its shortest sides are cut away one by one (each time the side whose
// cutting, its two neighbours extended until they meet, adds the least area). Corners 0-1 and 3-2
// are the row's long sides (its short sides with `acrossLong`). None when the outline is no
// quadrilateral: the four sides hold more than 1.1 times the hull's area, or a corner lies farther
// outside the hull than 20% of the mean short side (a row cut by the picture's edge, a card
// sticking out). The ribbon reader samples a row in the frame of these corners (a homography;
// BackFinderOptions::rowCorners).
std::optional<Quad> rowCorners(const std::vector<cv::Point>& outline, bool acrossLong = false);

// The foreground (not-table) mask the finder works on, at the working size; exposed for tests.
cv::Mat tableForeground(const cv::Mat& bgrWork);

}  // namespace nertz::vision
