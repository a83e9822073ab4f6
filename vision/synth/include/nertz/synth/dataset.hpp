// Writing synthetic scenes as a data set laid out like shared/data/real-cards: classes.txt,
// images/NAME.jpg, labels/NAME.txt (YOLO), plus cards/NAME.json (every card's geometry, deck and
// visibility) and optionally crops/<class>/NAME_k.png (rectified corner-index crops).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "nertz/synth/scene.hpp"

namespace nertz::synth {

// The 55 class names of the real set, in its index order ("10C" .. "QS", "BACK", jokers).
const std::vector<std::string>& yoloClassNames();
// The class index of a name, or -1 (colour-deck cards have no YOLO class).
int yoloClassOf(const std::string& name);

// The YOLO label text of a scene: "class cx cy w h" per visible corner index of a standard card,
// "BACK x1 y1 x2 y2 ..." (class index of BACK) per face-down card with at least 10% showing,
// its outline clipped to the image and closed (first point repeated, as in the real set).
// Coordinates normalised to 0..1, six decimals.
std::string yoloLabels(const Scene& scene);

// The per-image JSON record (see models/training/SYNTH.md for the fields).
std::string sceneJson(const Scene& scene, const std::string& name, std::uint64_t seed);

struct DatasetOptions {
    int scenes = 10;
    std::uint64_t seed = 1;
    bool crops = false;  // also write crops/<class>/NAME_k.png
    cv::Size cropSize{48, 72};
    bool previews = false;  // also write previews/NAME.png: the image with its labels drawn
    bool masks = false;     // also write masks/NAME.png: 16-bit, 0 table, 1 hand, 2 + i card i (Scene::ids)
};

// The scene image with its labels drawn: card outlines (blue face-up, orange face-down), visible
// index boxes (green) and covered ones (red), each visible box named.
cv::Mat previewImage(const Scene& scene, const cv::Mat& image);

// Writes `options.scenes` scenes into `dir` (created if needed). Scene i uses seed
// options.seed * 1000003 + i and is named synth_<seed>_<i, 6 digits>. `progress(done, total)` is
// called after every scene when given.
void writeDataset(const std::filesystem::path& dir, const SceneGenerator& generator, const DatasetOptions& options,
                  const std::function<void(int, int)>& progress = {});

// A rectified crop of a corner index, read from the scene image through its quad, with a margin.
cv::Mat indexCrop(const cv::Mat& image, const std::vector<cv::Point2f>& quad, cv::Size size);

}  // namespace nertz::synth
