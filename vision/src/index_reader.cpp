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

void normalisePatch(const cv::Mat& p, float* dst) {
    CV_Assert(p.type() == CV_8UC1 && p.isContinuous());
    const int n = p.rows * p.cols;
    const std::uint8_t* src = p.ptr<std::uint8_t>();
    int hist[256] = {};
    for (int i = 0; i < n; ++i) ++hist[src[i]];
    // value at sorted position i, from the cumulative histogram
    auto sortedAt = [&](std::size_t i) {
        std::size_t cum = 0;
        for (int v = 0; v < 256; ++v) {
            cum += std::size_t(hist[v]);
            if (cum > i) return double(v);
        }
        return 255.0;
    };
    auto pct = [&](double q) {
        double pos = q * (n - 1);
        std::size_t i = std::size_t(pos);
        double frac = pos - double(i);
        return i + 1 < std::size_t(n) ? sortedAt(i) * (1 - frac) + sortedAt(i + 1) * frac : sortedAt(i);
    };
    const double lo = pct(0.05), hi = pct(0.95);
    const double scale = 1.0 / std::max(hi - lo, 8.0);
    for (int i = 0; i < n; ++i) dst[i] = float(std::clamp((src[i] - lo) * scale, 0.0, 1.0));
}

namespace {

cv::dnn::Net loadNet(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw ModelError("model file " + file.string() + " not found (set NERTZ_MODEL_DIR or --models to the folder holding " +
                         kIndexModelFile + " and " + kGateModelFile + "; models/MODEL.md says how to retrain them)");
    cv::dnn::Net net;
    try {
        net = cv::dnn::readNetFromONNX(file.string());
    } catch (const cv::Exception& e) {
        throw ModelError("model file " + file.string() + " cannot be loaded: " + e.err);
    }
    if (net.empty()) throw ModelError("model file " + file.string() + " holds no network");
    net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
    net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    return net;
}

// Runs net on the rows `which` of the normalised patches (n x 1 x h x w), in batches; returns n x classes.
cv::Mat forward(cv::dnn::Net& net, const cv::Mat& all, const std::vector<int>& which, int h, int w) {
    constexpr int kBatch = 1024;
    const int n = int(which.size());
    cv::Mat out;
    for (int start = 0; start < n; start += kBatch) {
        const int m = std::min(kBatch, n - start);
        int dims[4] = {m, 1, h, w};
        cv::Mat blob(4, dims, CV_32F);
        for (int k = 0; k < m; ++k)
            std::copy_n(all.ptr<float>(which[start + k]), h * w, blob.ptr<float>() + std::size_t(k) * h * w);
        net.setInput(blob);
        cv::Mat prob = net.forward();
        out.push_back(prob.reshape(1, m));
    }
    return out;
}

}  // namespace

struct IndexReader::Impl {
    cv::dnn::Net reader;
    cv::dnn::Net gate;
};

IndexReader::IndexReader(const std::string& modelDir) : impl_(std::make_shared<Impl>()) {
    impl_->reader = loadNet(std::filesystem::path(modelDir) / kIndexModelFile);
    impl_->gate = loadNet(std::filesystem::path(modelDir) / kGateModelFile);
}

std::vector<PatchReading> IndexReader::read(const std::vector<cv::Mat>& patches, float gateThreshold) {
    std::vector<PatchReading> out(patches.size());
    if (patches.empty()) return out;
    const int h = patches[0].rows, w = patches[0].cols;
    cv::Mat all(int(patches.size()), h * w, CV_32F);
    for (std::size_t k = 0; k < patches.size(); ++k) {
        CV_Assert(patches[k].rows == h && patches[k].cols == w);
        normalisePatch(patches[k], all.ptr<float>(int(k)));
    }
    std::vector<int> everyone(patches.size());
    for (std::size_t k = 0; k < patches.size(); ++k) everyone[k] = int(k);
    cv::Mat gate = forward(impl_->gate, all, everyone, h, w);  // n x 2
    std::vector<int> kept;
    for (int k = 0; k < gate.rows; ++k)
        if (gate.at<float>(k, 1) >= gateThreshold) kept.push_back(k);
    if (kept.empty()) return out;
    cv::Mat prob = forward(impl_->reader, all, kept, h, w);  // kept x 53
    for (std::size_t k = 0; k < kept.size(); ++k) {
        const float* row = prob.ptr<float>(int(k));
        int best = int(std::max_element(row, row + prob.cols) - row);
        PatchReading& r = out[std::size_t(kept[k])];
        r.passedGate = true;
        r.confidence = row[best];
        if (best != kNotIndexClass) r.face = cardOfClass(best);
    }
    return out;
}

}  // namespace nertz::vision
