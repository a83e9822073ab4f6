// Reading the train / held-out design split.
#include <opencv2/core.hpp>

#include <algorithm>
#include <cstdlib>

#include "nertz/scoring/error.hpp"
#include "nertz/synth/design_split.hpp"

#ifndef NERTZ_SYNTH_SOURCE_DIR
#define NERTZ_SYNTH_SOURCE_DIR "."
#endif

namespace nertz::synth {

DesignSet parseDesignSet(const std::string& text) {
    if (text == "train") return DesignSet::Train;
    if (text == "heldout") return DesignSet::HeldOut;
    if (text == "all") return DesignSet::All;
    throw scoring::InputError("designs", "'" + text + "' is not one of train, heldout, all");
}

bool DesignSplit::isHeldOut(const std::string& design) const {
    return std::find(heldOut.begin(), heldOut.end(), design) != heldOut.end();
}

bool DesignSplit::allows(DesignSet set, const std::string& design) const {
    if (design == "nertz-colour" || set == DesignSet::All) return true;
    return isHeldOut(design) == (set == DesignSet::HeldOut);
}

DesignSplit loadDesignSplit(const std::filesystem::path& file) {
    if (!std::filesystem::exists(file)) throw scoring::InputError("designs", "no design split file " + file.string());
    DesignSplit split;
    try {
        cv::FileStorage fs(file.string(), cv::FileStorage::READ | cv::FileStorage::FORMAT_JSON);
        const cv::FileNode node = fs["heldout"];
        if (!node.isSeq()) throw scoring::InputError("designs", file.string() + ": 'heldout' must be a list of design names");
        for (const auto& item : node) {
            if (!item.isString()) throw scoring::InputError("designs", file.string() + ": 'heldout' holds a non-string");
            split.heldOut.push_back(item.string());
        }
    } catch (const cv::Exception& e) {
        throw scoring::InputError("designs", file.string() + ": not valid JSON: " + e.msg);
    }
    return split;
}

std::filesystem::path defaultDesignSplitFile() {
    if (const char* env = std::getenv("NERTZ_DESIGNS"); env && *env) return env;
    return std::filesystem::path(NERTZ_SYNTH_SOURCE_DIR) / "models" / "training" / "designs.json";
}

}  // namespace nertz::synth
