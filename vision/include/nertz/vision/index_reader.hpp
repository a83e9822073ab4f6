// Reads corner-index patches: a cheap gate CNN drops most non-index patches, then a small CNN names
// the face (52 classes, scoring::Card::index() order) or "not an index" (52). Both are ONNX files
// loaded by cv::dnn, and computed by hand where the processor has AVX2 and FMA.
#pragma once

#include <array>
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

// The model directory: `explicitDir` when not empty, else $NERTZ_MODEL_DIR, else the source tree's
// models/.
std::string resolveModelDir(const std::string& explicitDir = {});

inline constexpr int kNotIndexClass = 52;
inline constexpr const char* kIndexModelFile = "index_cnn.onnx";
inline constexpr const char* kGateModelFile = "index_gate.onnx";
// The reader from its first block on (models/training/split_reader.py); optional: without it, or
// when it does not match kIndexModelFile, the whole reader runs in dnn (slower, the same readings).
inline constexpr const char* kIndexTailModelFile = "index_cnn_tail.onnx";

// One patch's answer: the most likely face (nullopt: not an index) and its probability;
// passedGate: false when the pre-filter dropped it (the reader did not run on it). faces: the
// probability of each of the 52 faces (classifier order; zeros when the gate dropped the patch).
struct PatchReading {
    std::optional<scoring::Card> face;
    float confidence = 0.f;
    bool passedGate = false;
    std::array<float, 52> faces{};
};

// The reader's input for one patch: stretched between its 5th and 95th percentile (linear
// interpolation, as numpy.percentile) to 0..1, written to dst (rows*cols floats). statsColumns: the
// percentiles of these columns only (the whole patch is stretched by them; all columns: as
// trained).
void normalisePatch(const cv::Mat& patch8u, float* dst, cv::Range statsColumns = cv::Range::all());

// The standard-deck card of classifier class 0..51 (suit * 13 + rank - 1, suits C D H S).
scoring::Card cardOfClass(int cls);

class IndexReader {
  public:
    // Loads modelDir/index_cnn.onnx and index_gate.onnx; throws ModelError when one is missing or
    // broken. wideSimd false: the hand-computed layers use 4-lane vectors even where AVX2 is there
    // (tests).
    explicit IndexReader(const std::string& modelDir, bool wideSimd = true);

    // Classifies CV_8U patches (all of the proposals' patch size); one reading per patch. Patches
    // whose gate probability of "index" is below gateThreshold are not read (face nullopt,
    // confidence 0).
    // statsColumns: each patch stretched by the percentiles of these columns (normalisePatch).
    std::vector<PatchReading> read(const std::vector<cv::Mat>& patches, float gateThreshold = 0.f,
                                   cv::Range statsColumns = cv::Range::all());

    // The gate's probability of "index" for each patch given at half resolution (12 x 20: the full
    // patch's samples at even columns and rows, halfPatchParams), each stretched by its own
    // percentiles, in place of the full patch averaged over 2 x 2 blocks (what the gate is trained
    // on: models/MODEL.md, "The gate from half-resolution patches"). Empty when the gate is not
    // computed here (ownGate() false): the caller then gates full patches through read().
    std::vector<float> gateHalf(const std::vector<cv::Mat>& halves);

    // Whether the reader's first block is computed here and the rest by kIndexTailModelFile.
    bool split() const;
    // Whether the whole reader is computed here (AVX2 and FMA, wideSimd, and a split reader of the
    // expected shape that agrees with dnn when it loads), dnn then running neither part.
    bool ownReader() const;
    // Whether the gate is computed here (from kGateModelFile's weights) rather than by dnn.
    bool ownGate() const;

  private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace nertz::vision
