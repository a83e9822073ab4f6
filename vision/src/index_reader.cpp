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
    // four partial histograms: runs of one grey level (flat patches) do not wait on each other's counts
    int part[4][256] = {};
    int i = 0;
    for (; i + 4 <= n; i += 4) {
        ++part[0][src[i]];
        ++part[1][src[i + 1]];
        ++part[2][src[i + 2]];
        ++part[3][src[i + 3]];
    }
    for (; i < n; ++i) ++part[0][src[i]];
    int hist[256];
    for (int v = 0; v < 256; ++v) hist[v] = part[0][v] + part[1][v] + part[2][v] + part[3][v];
    // a percentile interpolates between the values at sorted positions k and k + 1 (as numpy.percentile);
    // the four values are found in one walk of the cumulative histogram
    const double posLo = 0.05 * (n - 1), posHi = 0.95 * (n - 1);
    const std::size_t kLo = std::size_t(posLo), kHi = std::size_t(posHi);
    const std::size_t want[4] = {kLo, kLo + 1, kHi, kHi + 1};
    double at[4] = {255.0, 255.0, 255.0, 255.0};
    bool done[4] = {};
    int found = 0;
    std::size_t cum = 0;
    for (int v = 0; v < 256 && found < 4; ++v) {
        cum += std::size_t(hist[v]);
        for (int t = 0; t < 4; ++t)
            if (!done[t] && cum > want[t]) {
                at[t] = double(v);
                done[t] = true;
                ++found;
            }
    }
    auto pct = [&](std::size_t k, double pos, double a0, double a1) {
        const double frac = pos - double(k);
        return k + 1 < std::size_t(n) ? a0 * (1 - frac) + a1 * frac : a0;
    };
    const double lo = pct(kLo, posLo, at[0], at[1]), hi = pct(kHi, posHi, at[2], at[3]);
    const double scale = 1.0 / std::max(hi - lo, 8.0);
    // the output depends on the grey level alone: one table entry per level
    float lut[256];
    for (int v = 0; v < 256; ++v) lut[v] = float(std::clamp((v - lo) * scale, 0.0, 1.0));
    for (int k = 0; k < n; ++k) dst[k] = lut[src[k]];
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
// Without which: on all rows in order, fed from `all` itself (no gathering copy).
cv::Mat forward(cv::dnn::Net& net, const cv::Mat& all, const std::vector<int>* which, int h, int w) {
    constexpr int kBatch = 1024;
    const int n = which ? int(which->size()) : all.rows;
    cv::Mat out;
    for (int start = 0; start < n; start += kBatch) {
        const int m = std::min(kBatch, n - start);
        int dims[4] = {m, 1, h, w};
        cv::Mat blob;
        if (which) {
            blob.create(4, dims, CV_32F);
            for (int k = 0; k < m; ++k)
                std::copy_n(all.ptr<float>((*which)[std::size_t(start + k)]), h * w, blob.ptr<float>() + std::size_t(k) * h * w);
        } else {
            blob = cv::Mat(4, dims, CV_32F, const_cast<float*>(all.ptr<float>(start)));  // rows start.. are contiguous
        }
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
    cv::Mat gate = forward(impl_->gate, all, nullptr, h, w);  // n x 2
    std::vector<int> kept;
    for (int k = 0; k < gate.rows; ++k)
        if (gate.at<float>(k, 1) >= gateThreshold) kept.push_back(k);
    if (kept.empty()) return out;
    cv::Mat prob = forward(impl_->reader, all, &kept, h, w);  // kept x 53
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
