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

namespace nertz::vision {

// One labelled picture: its path, group name ("" when the folder has no groups) and true faces.
struct LabelledImage {
    std::string imagePath;
    std::string group;
    std::set<scoring::Card> truth;
};

// All labelled pictures of a folder: DIR/images + DIR/labels, or DIR/<group>/images + labels for
// each group; classes.txt is read from the folder itself or its parent. Throws std::runtime_error
// (naming the file) when the layout or a label file is broken.
std::vector<LabelledImage> loadLabelledFolder(const std::string& dir);

struct CardScore {
    long truePositives = 0;
    long falsePositives = 0;
    long falseNegatives = 0;
    double precision() const { return truePositives + falsePositives ? double(truePositives) / (truePositives + falsePositives) : 1.0; }
    double recall() const { return truePositives + falseNegatives ? double(truePositives) / (truePositives + falseNegatives) : 1.0; }
    double f1() const {
        double p = precision(), r = recall();
        return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
    }
};

// Adds one picture's comparison to score; confusions gets "TRUTH->PREDICTED" counts for pictures where
// a truth was missed and a wrong face reported (paired in order), "missed:X" and "extra:X" otherwise.
void scoreImage(const std::set<scoring::Card>& truth, const std::set<scoring::Card>& predicted, CardScore& score,
                std::map<std::string, long>& confusions);

}  // namespace nertz::vision
