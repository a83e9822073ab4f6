// Card-level scoring of detections against labelled folders laid out like ../shared/data/real-cards
// (classes.txt, images/, labels/ YOLO; or groups of such folders), as that folder's README defines:
// per image, truth = distinct card classes labelled (BACK and jokers excluded), prediction =
// distinct faces reported; true/false positives and misses summed over images.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "nertz/scoring/card.hpp"
#include "nertz/vision/card_outlines.hpp"

namespace nertz::vision {

// One labelled picture: its path, group name ("" when the folder has no groups), true faces, and
// the outlines of its face-down cards (class BACK: a polygon, or a YOLO box given as its four
// corners), in shares of the picture's width and height.
struct LabelledImage {
    std::string imagePath;
    std::string group;
    std::set<scoring::Card> truth;
    std::vector<std::vector<cv::Point2f>> backs;
};

// All labelled pictures of a folder: DIR/images + DIR/labels, or DIR/<group>/images + labels for
// each group; classes.txt is read from the folder itself or its parent. Throws std::runtime_error
// (naming the file) when the layout or a label file is broken.
std::vector<LabelledImage> loadLabelledFolder(const std::string& dir);

struct CardScore {
    long truePositives = 0;
    long falsePositives = 0;
    long falseNegatives = 0;
    double precision() const {
        return truePositives + falsePositives
                   ? double(truePositives) / (truePositives + falsePositives)
                   : 1.0;
    }
    double recall() const {
        return truePositives + falseNegatives
                   ? double(truePositives) / (truePositives + falseNegatives)
                   : 1.0;
    }
    double f1() const {
        double p = precision(), r = recall();
        return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
    }
};

// Adds one picture's comparison to score; confusions gets "TRUTH->PREDICTED" counts for pictures
// where a truth was missed and a wrong face reported (paired in order), "missed:X" and "extra:X"
// otherwise.
void scoreImage(const std::set<scoring::Card>& truth, const std::set<scoring::Card>& predicted,
                CardScore& score, std::map<std::string, long>& confusions);

// The same comparison split by the suit of each card: a truth card found or missed counts to its
// own suit, a reported card not in the truth to the suit it was read as (a club read as a spade is
// a miss of clubs and a false spade). Shows where a deck's suit is misread (MODEL.md).
void scoreBySuit(const std::set<scoring::Card>& truth, const std::set<scoring::Card>& predicted,
                 std::map<scoring::Suit, CardScore>& bySuit);

// Card outlines against a synthetic set's own labels (`nertzref-cli synth` writes cards/NAME.json
// beside images/): a face-up card showing at least half of itself, with a corner index in view, is
// outlined when a reported quadrilateral covers it with IoU >= 0.7; a reported quadrilateral is
// right when it covers some labelled card (face or back) so.
struct OutlineScore {
    long cards = 0, outlined = 0;    // labelled face-up cards, and those outlined
    long reported = 0, onACard = 0;  // reported outlines, and those on a labelled card
    double recall() const { return cards ? double(outlined) / double(cards) : 1.0; }
    double precision() const { return reported ? double(onACard) / double(reported) : 1.0; }
};

struct LabelledOutline {
    Quad quad;
    bool faceUp = false;
    bool counts = false;  // face up, at least half showing, an index in view
};

double quadIoU(const Quad& a, const Quad& b);

void scoreOutlines(const std::vector<LabelledOutline>& truth, const std::vector<Quad>& reported,
                   OutlineScore& score);

}  // namespace nertz::vision
