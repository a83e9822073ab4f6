// Reads corner-index patches: a small CNN (ONNX, run by cv::dnn) that names the card face of an
// upright patch (52 classes in scoring::Card::index() order) or says "not an index" (class 52).
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <opencv2/core.hpp>

#include "nertz/scoring/card.hpp"

namespace nertz::vision {

// A trained model file is missing or unreadable; what() names the file and how to get it.
class ModelError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The model directory: `explicitDir` when not empty, else $NERTZ_MODEL_DIR, else the source tree's models/.
std::string resolveModelDir(const std::string& explicitDir = {});

inline constexpr int kNotIndexClass = 52;
inline constexpr const char* kIndexModelFile = "index_cnn.onnx";

// One patch's answer: the most likely face (nullopt: not an index) and its probability.
struct PatchReading {
    std::optional<scoring::Card> face;
    float confidence = 0.f;
};

// The standard-deck card of classifier class 0..51 (suit * 13 + rank - 1, suits C D H S).
scoring::Card cardOfClass(int cls);

class IndexReader {
public:
    // Loads modelDir/index_cnn.onnx; throws ModelError when it is missing or broken.
    explicit IndexReader(const std::string& modelDir);

    // Classifies CV_8U patches (all of the proposals' patch size); one reading per patch.
    std::vector<PatchReading> read(const std::vector<cv::Mat>& patches);

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace nertz::vision
