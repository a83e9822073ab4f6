// Learnt segmentation for the back finder (issue 5): which pixels of a table picture show face-down
// cards (not the table, not a hand) and where the outlines of cards run, also between two cards
// that overlap. A small fully convolutional net (models/back_seg.onnx, trained by
// models/training/train_back_seg.py on synthetic scenes of the train designs, then fine-tuned with
// real photos that show no face-down card, seg_real_negatives.sh, and with busy tablecloths,
// seg_busy_tables.sh) loaded by cv::dnn and computed by hand where the processor has AVX2 and FMA.
#pragma once

#include <memory>
#include <string>

#include <opencv2/core.hpp>

namespace nertz::vision {

inline constexpr const char* kBackSegModelFile = "back_seg.onnx";

struct BackSegmentation {
    cv::Mat card;     // CV_8U, the picture's size: probability x 255 that a face-down card shows here
    cv::Mat outline;  // CV_8U, the picture's size: probability x 255 of a card's outline
    // Instances, from a model with centre and offset heads (empty otherwise), at the net's output
    // size (`stride` picture pixels a cell, cell (i, j) centred on picture pixel stride * (j + 0.5)):
    cv::Mat centre;   // CV_32F: probability that the middle of what shows of a card lies here
    cv::Mat offset;   // CV_32FC2: from this cell to its card's middle, in cells
    float stride = 4.f;
    bool hasCentres() const { return !centre.empty(); }
};

class BackSegmenter {
public:
    // Loads modelDir/back_seg.onnx; throws ModelError (index_reader.hpp) when missing or broken.
    // wideSimd false: cv::dnn computes the net even where AVX2 is there (tests).
    explicit BackSegmenter(const std::string& modelDir, bool wideSimd = true);

    // `bgrWork`: an 8-bit BGR picture at the finder's working size (long side ~640 px).
    // Not thread-safe: one segmenter per thread.
    BackSegmentation segment(const cv::Mat& bgrWork) const;
    // Whether the net is computed by hand (AVX2 and FMA, and in agreement with cv::dnn on a test
    // picture when it loaded) rather than by cv::dnn.
    bool computedHere() const;

    // The segmenter of the calling thread, loaded from resolveModelDir("") on first use; null
    // (with one message on stderr) when the model cannot be loaded.
    static const BackSegmenter* forThisThread();

private:
    struct Impl;
    std::shared_ptr<Impl> impl_;
};

}  // namespace nertz::vision
