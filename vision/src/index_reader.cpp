// Corner-index classifier through cv::dnn; see index_reader.hpp.
#include "nertz/vision/index_reader.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <opencv2/dnn.hpp>

#ifndef NERTZ_DEFAULT_MODEL_DIR
#define NERTZ_DEFAULT_MODEL_DIR "models"
#endif

namespace nertz::vision {

std::string resolveModelDir(const std::string& explicitDir) {
    if (!explicitDir.empty()) return explicitDir;
    if (const char* env = std::getenv("NERTZ_MODEL_DIR"); env && *env) return env;
    return NERTZ_DEFAULT_MODEL_DIR;
}

scoring::Card cardOfClass(int cls) {
    static constexpr scoring::Suit kSuits[4] = {scoring::Suit::Clubs, scoring::Suit::Diamonds, scoring::Suit::Hearts,
                                                scoring::Suit::Spades};
    return scoring::Card{cls % 13 + 1, kSuits[cls / 13]};
}

struct IndexReader::Impl {
    cv::dnn::Net net;
};

IndexReader::IndexReader(const std::string& modelDir) : impl_(std::make_shared<Impl>()) {
    std::filesystem::path file = std::filesystem::path(modelDir) / kIndexModelFile;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw ModelError("model file " + file.string() + " not found (set NERTZ_MODEL_DIR or --models to the folder holding " +
                         kIndexModelFile + "; models/MODEL.md says how to retrain it)");
    try {
        impl_->net = cv::dnn::readNetFromONNX(file.string());
    } catch (const cv::Exception& e) {
        throw ModelError("model file " + file.string() + " cannot be loaded: " + e.err);
    }
    if (impl_->net.empty()) throw ModelError("model file " + file.string() + " holds no network");
    impl_->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    impl_->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
}

std::vector<PatchReading> IndexReader::read(const std::vector<cv::Mat>& patches) {
    std::vector<PatchReading> out(patches.size());
    constexpr std::size_t kBatch = 512;
    std::vector<float> values;
    for (std::size_t start = 0; start < patches.size(); start += kBatch) {
        std::size_t n = std::min(kBatch, patches.size() - start);
        const int h = patches[start].rows, w = patches[start].cols;
        int dims[4] = {int(n), 1, h, w};
        cv::Mat blob(4, dims, CV_32F);
        float* dst = blob.ptr<float>();
        for (std::size_t k = 0; k < n; ++k) {
            const cv::Mat& p = patches[start + k];
            CV_Assert(p.type() == CV_8UC1 && p.rows == h && p.cols == w && p.isContinuous());
            // contrast stretch between the 5th and 95th percentiles (linear interpolation, as numpy)
            values.assign(p.datastart, p.dataend);
            std::sort(values.begin(), values.end());
            auto pct = [&](double q) {
                double pos = q * (values.size() - 1);
                std::size_t i = std::size_t(pos);
                double frac = pos - i;
                return i + 1 < values.size() ? values[i] * (1 - frac) + values[i + 1] * frac : double(values[i]);
            };
            double lo = pct(0.05), hi = pct(0.95);
            double scale = 1.0 / std::max(hi - lo, 8.0);
            const std::uint8_t* src = p.ptr<std::uint8_t>();
            for (int i = 0; i < h * w; ++i) *dst++ = float(std::clamp((src[i] - lo) * scale, 0.0, 1.0));
        }
        impl_->net.setInput(blob);
        cv::Mat prob = impl_->net.forward();  // n x 53, softmax
        for (std::size_t k = 0; k < n; ++k) {
            const float* row = prob.ptr<float>(int(k));
            int best = int(std::max_element(row, row + prob.cols) - row);
            PatchReading& r = out[start + k];
            r.confidence = row[best];
            if (best != kNotIndexClass) r.face = cardOfClass(best);
        }
    }
    return out;
}

}  // namespace nertz::vision
