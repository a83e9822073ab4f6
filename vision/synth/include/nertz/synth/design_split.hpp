// The fixed train / held-out split of deck designs (models/training/designs.json), shared by the
// scene generator, the trainers and the evaluators: held-out designs are never trained or tuned on.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace nertz::synth {

// Which designs a run may use.
enum class DesignSet { Train, HeldOut, All };

// "train" / "heldout" / "all" -> DesignSet; throws scoring::InputError("designs", ...) otherwise.
DesignSet parseDesignSet(const std::string& text);

struct DesignSplit {
    std::vector<std::string> heldOut;  // design names, e.g. "gnome-paris"

    bool isHeldOut(const std::string& design) const;
    // Whether a design belongs to `set`. The procedural "nertz-colour" deck is in every set.
    bool allows(DesignSet set, const std::string& design) const;
};

// Reads a split file: JSON {"heldout": ["gnome-paris", ...], ...}. Throws scoring::InputError
// naming the file when it is missing or malformed.
DesignSplit loadDesignSplit(const std::filesystem::path& file);

// models/training/designs.json of this source tree ($NERTZ_DESIGNS overrides).
std::filesystem::path defaultDesignSplitFile();

}  // namespace nertz::synth
