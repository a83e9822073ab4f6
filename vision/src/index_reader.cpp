// Corner-index classifier through cv::dnn; see index_reader.hpp.
#include "nertz/vision/index_reader.hpp"

#include "dnn_weights.hpp"
#include "index_reader_blocks.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>

#include <iostream>
#include <numeric>

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/dnn.hpp>
#include <opencv2/dnn/all_layers.hpp>

#ifndef NERTZ_DEFAULT_MODEL_DIR
#define NERTZ_DEFAULT_MODEL_DIR "models"
#endif

namespace nertz::vision {
#ifdef NERTZ_READER_AVX2
namespace detail {  // index_reader_avx2.cpp
void firstBlockAvx2(const float* in, const float* w, const float* b, float* out);
void readerAvx2(const float* patch, const ReaderWeights& rw, float* prob);
void gateAvx2(const float* pooled, const float* w1t, const float* b1, const float* w2,
              const float* b2, float* logits);
void gateAvx2x8(const float* pooled, const float* w1t, const float* b1, const float* w2,
                const float* b2, float* logits);
}  // namespace detail
#endif

std::string resolveModelDir(const std::string& explicitDir) {
    if (!explicitDir.empty()) return explicitDir;
    if (const char* env = std::getenv("NERTZ_MODEL_DIR"); env && *env) return env;
    return NERTZ_DEFAULT_MODEL_DIR;
}

scoring::Card cardOfClass(int cls) {
    static constexpr scoring::Suit kSuits[4] = {scoring::Suit::Clubs, scoring::Suit::Diamonds,
                                                scoring::Suit::Hearts, scoring::Suit::Spades};
    return scoring::Card{cls % 13 + 1, kSuits[cls / 13]};
}

void normalisePatch(const cv::Mat& p, float* dst, cv::Range statsColumns) {
    CV_Assert(p.type() == CV_8UC1 && p.isContinuous());
    const int all = p.rows * p.cols;
    const std::uint8_t* src = p.ptr<std::uint8_t>();
    // the percentiles are of the pixels in the column band (all of them by default)
    const cv::Range cols = statsColumns == cv::Range::all() ? cv::Range(0, p.cols) : statsColumns;
    CV_Assert(cols.start >= 0 && cols.end <= p.cols && cols.start < cols.end);
    const bool band = cols.size() < p.cols;
    const int n = p.rows * cols.size();
    // four partial histograms: runs of one grey level (flat patches) do not wait on each other's
    // counts
    int part[4][256] = {};
    if (band) {
        for (int y = 0; y < p.rows; ++y)
            for (int x = cols.start; x < cols.end; ++x) ++part[x & 3][src[y * p.cols + x]];
    } else {
        int i = 0;
        for (; i + 4 <= all; i += 4) {
            ++part[0][src[i]];
            ++part[1][src[i + 1]];
            ++part[2][src[i + 2]];
            ++part[3][src[i + 3]];
        }
        for (; i < all; ++i) ++part[0][src[i]];
    }
    int hist[256];
    for (int v = 0; v < 256; ++v) hist[v] = part[0][v] + part[1][v] + part[2][v] + part[3][v];
    // counts of 16 levels at a time, so that a sorted position is found in at most 16 + 16 steps
    int block[16];
    for (int b = 0; b < 16; ++b) {
        int sum = 0;
        for (int v = 16 * b; v < 16 * b + 16; ++v) sum += hist[v];
        block[b] = sum;
    }
    // the grey level at sorted position k: the first level whose cumulative count exceeds k (255
    // past the end, where pct() does not use it)
    auto levelAt = [&](std::size_t k) {
        std::size_t cum = 0;
        int b = 0;
        while (b < 16 && cum + std::size_t(block[b]) <= k) cum += std::size_t(block[b++]);
        if (b == 16) return 255.0;
        for (int v = 16 * b;; ++v)
            if ((cum += std::size_t(hist[v])) > k) return double(v);
    };
    // a percentile interpolates between the values at sorted positions k and k + 1 (as
    // numpy.percentile)
    const double posLo = 0.05 * (n - 1), posHi = 0.95 * (n - 1);
    const std::size_t kLo = std::size_t(posLo), kHi = std::size_t(posHi);
    const double at[4] = {levelAt(kLo), levelAt(kLo + 1), levelAt(kHi), levelAt(kHi + 1)};
    auto pct = [&](std::size_t k, double pos, double a0, double a1) {
        const double frac = pos - double(k);
        return k + 1 < std::size_t(n) ? a0 * (1 - frac) + a1 * frac : a0;
    };
    const double lo = pct(kLo, posLo, at[0], at[1]), hi = pct(kHi, posHi, at[2], at[3]);
    const double scale = 1.0 / std::max(hi - lo, 8.0);
    // the output depends on the grey level alone: one table entry per level
    // (two levels a vector where the CPU has them: the same values as std::clamp, since v - lo is
    // never -0 and never NaN)
    float lut[256];
#if CV_SIMD128_64F
    const cv::v_float64x2 vLo = cv::v_setall_f64(lo), vScale = cv::v_setall_f64(scale),
                          vZero = cv::v_setzero_f64(), vOne = cv::v_setall_f64(1.0),
                          vFour = cv::v_setall_f64(4.0);
    cv::v_float64x2 a(0.0, 1.0), b(2.0, 3.0);
    for (int v = 0; v < 256; v += 4, a += vFour, b += vFour)
        cv::v_store(lut + v, cv::v_cvt_f32(cv::v_min(cv::v_max((a - vLo) * vScale, vZero), vOne),
                                           cv::v_min(cv::v_max((b - vLo) * vScale, vZero), vOne)));
#else
    for (int v = 0; v < 256; ++v) lut[v] = float(std::clamp((v - lo) * scale, 0.0, 1.0));
#endif
    for (int k = 0; k < all; ++k) dst[k] = lut[src[k]];
}

namespace {

// the patch size the hand-computed layers are written for (ProposalParams' 24 x 40, as trained)
constexpr int kPatchRows = 40, kPatchCols = 24;

cv::dnn::Net loadNet(const std::filesystem::path& file) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw ModelError("model file " + file.string() +
                         " not found (set NERTZ_MODEL_DIR or --models to the folder holding " +
                         kIndexModelFile + " and " + kGateModelFile +
                         "; models/MODEL.md says how to retrain them)");
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

// Runs net on the rows `which` of the normalised patches (n x 1 x h x w), in batches; returns n x
// classes. Without which: on all rows in order, fed from `all` itself (no gathering copy).
cv::Mat forward(cv::dnn::Net& net, const cv::Mat& all, const std::vector<int>* which, int h,
                int w) {
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
                std::copy_n(all.ptr<float>((*which)[std::size_t(start + k)]), h * w,
                            blob.ptr<float>() + std::size_t(k) * h * w);
        } else {
            blob =
                cv::Mat(4, dims, CV_32F,
                        const_cast<float*>(all.ptr<float>(start)));  // rows start.. are contiguous
        }
        net.setInput(blob);
        cv::Mat prob = net.forward();
        out.push_back(prob.reshape(1, m));
    }
    return out;
}

// The reader's first block (3x3 convolution 1 -> 16 with padding 1, ReLU, 2x2 max-pool) on one
// 40x24 patch: 16 x 20 x 12 floats to `out`. `w` holds the 16 kernels (row-major 3x3), `b` the
// biases. Four output columns at a time: the twelve input vectors that two conv rows read are
// loaded once and serve all sixteen channels; ReLU and the pool commute (max of ReLUs = ReLU of the
// max).
void firstBlock(const float* in, const float* w, const float* b, float* out) {
    constexpr int H = kPatchRows, W = kPatchCols, C = 16;
    alignas(16) float pad[H + 2][W + 4] = {};
    for (int y = 0; y < H; ++y) std::copy_n(in + y * W, W, &pad[y + 1][1]);
    for (int py = 0; py < H / 2; ++py)
        for (int xv = 0; xv < W / 4; ++xv) {
            cv::v_float32x4 r[4][3];
            for (int k = 0; k < 4; ++k)
                for (int s = 0; s < 3; ++s) r[k][s] = cv::v_load(&pad[2 * py + k][xv * 4 + s]);
            for (int ch = 0; ch < C; ++ch) {
                const float* wc = w + ch * 9;
                cv::v_float32x4 a0 = cv::v_setall_f32(b[ch]), a1 = a0;
                for (int ky = 0; ky < 3; ++ky)
                    for (int kx = 0; kx < 3; ++kx) {
                        const cv::v_float32x4 wv = cv::v_setall_f32(wc[ky * 3 + kx]);
                        a0 = cv::v_fma(wv, r[ky][kx], a0);
                        a1 = cv::v_fma(wv, r[ky + 1][kx], a1);
                    }
                alignas(16) float m[4];
                cv::v_store(m, cv::v_max(cv::v_max(a0, a1), cv::v_setzero_f32()));
                float* o = out + (ch * (H / 2) + py) * (W / 2) + xv * 2;
                o[0] = std::max(m[0], m[1]);
                o[1] = std::max(m[2], m[3]);
            }
        }
}

// The gate after its 2x2 average pool of the 40x24 patch (240 -> 48 with ReLU, 48 -> 2): its two
// logits for one patch's pooled 20x12, with 4-lane universal intrinsics over the 48 hidden units.
// `w1t`: the first layer's weights transposed (240 x 48); `w2`: the second's (2 x 48).
void gateBlock(const float* pooled, const float* w1t, const float* b1, const float* w2,
               const float* b2, float* logits) {
    cv::v_float32x4 acc[12];
    for (int k = 0; k < 12; ++k) acc[k] = cv::v_load(b1 + 4 * k);
    for (int i = 0; i < 240; ++i) {
        const cv::v_float32x4 x = cv::v_setall_f32(pooled[i]);
        const float* wr = w1t + i * 48;
        for (int k = 0; k < 12; ++k) acc[k] = cv::v_fma(x, cv::v_load(wr + 4 * k), acc[k]);
    }
    alignas(16) float hidden[48];
    for (int k = 0; k < 12; ++k)
        cv::v_store(hidden + 4 * k, cv::v_max(acc[k], cv::v_setzero_f32()));
    for (int o = 0; o < 2; ++o) {
        float z = b2[o];
        for (int j = 0; j < 48; ++j) z += w2[o * 48 + j] * hidden[j];
        logits[o] = z;
    }
}

// The gate's weights from its loaded net, when it is that perceptron (an average pool 2x2, then two
// fully connected layers 240 -> 48 -> 2).
bool gateWeights(cv::dnn::Net& net, cv::Mat& w1t, cv::Mat& b1, cv::Mat& w2, cv::Mat& b2) {
    std::vector<cv::Ptr<cv::dnn::Layer>> dense;
    int pools = 0;
    for (const auto& name : net.getLayerNames()) {
        const auto layer = net.getLayer(name);
        if (const auto* p = dynamic_cast<cv::dnn::PoolingLayer*>(layer.get())) {
            if (p->type != 1 /* AVE */ || p->kernel_size != std::vector<size_t>{2, 2} ||
                p->strides != std::vector<size_t>{2, 2})
                return false;
            ++pools;
        } else if (layer->type == "InnerProduct") {
            dense.push_back(layer);
        } else if (layer->type == "Convolution") {
            return false;
        }
    }
    if (pools != 1 || dense.size() != 2 || dense[0]->blobs.size() < 2 || dense[1]->blobs.size() < 2)
        return false;
    const cv::Mat a = dense[0]->blobs[0].reshape(1, 48), c = dense[1]->blobs[0].reshape(1, 2);
    if (dense[0]->blobs[0].total() != 48 * 240 || dense[1]->blobs[0].total() != 2 * 48 ||
        a.type() != CV_32F)
        return false;
    w1t = a.t();
    b1 = dense[0]->blobs[1].reshape(1, 1).clone();
    w2 = c.clone();
    b2 = dense[1]->blobs[1].reshape(1, 1).clone();
    return b1.total() == 48 && b2.total() == 2;
}

// The first block's weights from the loaded whole reader, when its first three layers are that
// block (the tail file is cut from the same net by models/training/split_reader.py).
bool firstBlockWeights(cv::dnn::Net& net, cv::Mat& w, cv::Mat& b) {
    const std::vector<cv::String> names = net.getLayerNames();
    if (names.size() < 3) return false;
    const auto conv = net.getLayer(names[0]), relu = net.getLayer(names[1]),
               pool = net.getLayer(names[2]);
    const auto* p = dynamic_cast<cv::dnn::PoolingLayer*>(pool.get());
    if (!detail::isConv(conv, 3, 1, 1) || !p || relu->type != "ReLU" || conv->blobs.size() < 2)
        return false;
    if (p->type != 0 /* MAX */ || p->kernel_size != std::vector<size_t>{2, 2} ||
        p->strides != std::vector<size_t>{2, 2})
        return false;
    w = conv->blobs[0].reshape(1, 1).clone();
    b = conv->blobs[1].reshape(1, 1).clone();
    return w.total() == 16 * 9 && b.total() == 16 && w.type() == CV_32F && b.type() == CV_32F;
}

// The whole reader's weights for readerAvx2: the first block's (firstBlockWeights) and the tail's,
// when the tail is the expected net (two 3x3 stride-2 convolutions with ReLU, 16 -> 24 -> 32, a
// dense layer 480 -> 96 with ReLU, heads of 2, 13 and 4 log-probabilities and the 53 x 19 matrix
// that combines them). Anything else: false (dnn reads the tail).
bool readerWeights(cv::dnn::Net& tail, const cv::Mat& w1, const cv::Mat& b1,
                   detail::ReaderWeights& rw) {
    std::vector<cv::Ptr<cv::dnn::Layer>> convs, dense;
    for (const auto& name : tail.getLayerNames()) {
        const auto layer = tail.getLayer(name);
        if (layer->type == "Convolution") {
            if (!detail::isConv(layer, 3, 2, 1)) return false;
            convs.push_back(layer);
        } else if (layer->type == "InnerProduct") {
            dense.push_back(layer);
        }
    }
    if (convs.size() != 2 || dense.size() != 5) return false;
    const auto blob = [](const cv::Ptr<cv::dnn::Layer>& l, std::size_t i, std::size_t n) {
        return l->blobs.size() > i && l->blobs[i].type() == CV_32F && l->blobs[i].total() == n &&
               l->blobs[i].isContinuous();
    };
    if (!blob(convs[0], 0, 24 * 16 * 9) || !blob(convs[0], 1, 24) ||
        !blob(convs[1], 0, 32 * 24 * 9) || !blob(convs[1], 1, 32) || !blob(dense[0], 0, 96 * 480) ||
        !blob(dense[0], 1, 96) || !blob(dense[1], 0, 2 * 96) || !blob(dense[1], 1, 2) ||
        !blob(dense[2], 0, 13 * 96) || !blob(dense[2], 1, 13) || !blob(dense[3], 0, 4 * 96) ||
        !blob(dense[3], 1, 4) || !blob(dense[4], 0, 53 * 19) || dense[4]->blobs.size() != 1)
        return false;
    using detail::blobValues, detail::weightsByTap;
    rw.w1 = blobValues(w1);
    rw.b1 = blobValues(b1);
    rw.w2 = weightsByTap(convs[0]->blobs[0], 16, 24, 3, 24);
    rw.b2 = blobValues(convs[0]->blobs[1]);
    rw.w3 = weightsByTap(convs[1]->blobs[0], 24, 32, 3, 32);
    rw.b3 = blobValues(convs[1]->blobs[1]);
    // the dense layer's input is the flattened 32 x 5 x 3 (channel major); readerAvx2 keeps it as
    // [position][channel]
    const float* d = dense[0]->blobs[0].ptr<float>();
    rw.wd.assign(480 * 96, 0.f);
    for (int pos = 0; pos < 15; ++pos)
        for (int c = 0; c < 32; ++c)
            for (int o = 0; o < 96; ++o)
                rw.wd[std::size_t((pos * 32 + c) * 96 + o)] = d[o * 480 + c * 15 + pos];
    rw.bd = blobValues(dense[0]->blobs[1]);
    rw.wh.clear();
    rw.bh.clear();
    for (int h = 1; h <= 3; ++h) {
        const auto w = blobValues(dense[std::size_t(h)]->blobs[0]),
                   b = blobValues(dense[std::size_t(h)]->blobs[1]);
        rw.wh.insert(rw.wh.end(), w.begin(), w.end());
        rw.bh.insert(rw.bh.end(), b.begin(), b.end());
    }
    rw.mix = blobValues(dense[4]->blobs[0]);
    return true;
}

// A test batch for the hand-computed layers (checked against dnn when the models load): 8 patches
// of noise and 8 smooth ramps (across or down the patch), as real normalised patches are 0..1.
cv::Mat probeBatch(std::uint64_t seed, bool across) {
    cv::Mat probe(16, kPatchRows * kPatchCols, CV_32F);
    cv::RNG rng(seed);
    rng.fill(probe, cv::RNG::UNIFORM, 0.f, 1.f);
    for (int r = 8; r < 16; ++r)
        for (int k = 0; k < kPatchRows * kPatchCols; ++k)
            probe.at<float>(r, k) = across
                                        ? float((k % kPatchCols) * (r - 7)) / float(kPatchCols * 8)
                                        : float((k / kPatchCols) * (r - 7)) / float(kPatchRows * 8);
    return probe;
}

}  // namespace

struct IndexReader::Impl {
    cv::dnn::Net reader;
    cv::dnn::Net gate;
    // the reader split: its first block computed here, the rest (index_cnn_tail.onnx) by dnn
    bool split = false;
    cv::dnn::Net tail;
    cv::Mat w1, b1;
    // the whole reader computed here (AVX2 only), when the tail is the expected net
    bool own = false;
    detail::ReaderWeights rw;
    void (*block)(const float*, const float*, const float*, float*) = firstBlock;
    // the gate computed here (same weights), when its net is the perceptron it is trained as
    bool ownGate = false;
    cv::Mat g1t, gb1, g2, gb2;
    void (*gateFn)(const float*, const float*, const float*, const float*, const float*,
                   float*) = gateBlock;
    // the same for eight consecutive patches at once, where there is such a version (AVX2)
    void (*gateFn8)(const float*, const float*, const float*, const float*, const float*,
                    float*) = nullptr;

    // n x 2 gate probabilities ("not an index", "index") of the normalised patches
    cv::Mat gateRows(const cv::Mat& all, int h, int w) {
        if (!ownGate || h != kPatchRows || w != kPatchCols)
            return forward(gate, all, nullptr, h, w);
        cv::Mat pooled(all.rows, 240, CV_32F);
        for (int k = 0; k < all.rows; ++k)
            detail::averagePool2x2(all.ptr<float>(k), pooled.ptr<float>(k));
        return pooledGateRows(pooled);
    }

    // n x 2 gate probabilities of patches already averaged to 20 x 12 (n x 240; ownGate)
    cv::Mat pooledGateRows(const cv::Mat& pooled) const {
        cv::Mat out(pooled.rows, 2, CV_32F);
        float z[16];
        for (int k = 0; k < pooled.rows;) {
            const int m = gateFn8 && k + 8 <= pooled.rows ? 8 : 1;  // (the rows are contiguous)
            (m == 8 ? gateFn8 : gateFn)(pooled.ptr<float>(k), g1t.ptr<float>(), gb1.ptr<float>(),
                                        g2.ptr<float>(), gb2.ptr<float>(), z);
            for (int j = 0; j < m; ++j, ++k) {
                const float p1 = 1.f / (1.f + std::exp(z[2 * j] - z[2 * j + 1]));
                out.at<float>(k, 0) = 1.f - p1;
                out.at<float>(k, 1) = p1;
            }
        }
        return out;
    }

    // the reader's probabilities for rows `which` of the normalised 40x24 patches
    cv::Mat readRows(const cv::Mat& all, const std::vector<int>& which, int h, int w) {
        if (!split || h != kPatchRows || w != kPatchCols) return forward(reader, all, &which, h, w);
#ifdef NERTZ_READER_AVX2
        if (own) {
            cv::Mat out(int(which.size()), 53, CV_32F);
            for (std::size_t k = 0; k < which.size(); ++k)
                detail::readerAvx2(all.ptr<float>(which[k]), rw, out.ptr<float>(int(k)));
            return out;
        }
#endif
        // (batches of 64: the tail's intermediate blobs stay in the cache; 17.2-17.3 ms against
        // 17.6-18.4 ms for a frame's reading with one batch of ~400; the same probabilities)
        constexpr int kBatch = 64, kPooled = 16 * 20 * 12;
        const int n = int(which.size());
        cv::Mat out;
        for (int start = 0; start < n; start += kBatch) {
            const int m = std::min(kBatch, n - start);
            int dims[4] = {m, 16, 20, 12};
            cv::Mat pooled(4, dims, CV_32F);
            for (int k = 0; k < m; ++k)
                block(all.ptr<float>(which[std::size_t(start + k)]), w1.ptr<float>(),
                      b1.ptr<float>(), pooled.ptr<float>() + std::size_t(k) * kPooled);
            tail.setInput(pooled);
            cv::Mat prob = tail.forward();
            out.push_back(prob.reshape(1, m));
        }
        return out;
    }
};

IndexReader::IndexReader(const std::string& modelDir, bool wideSimd)
    : impl_(std::make_shared<Impl>()) {
#ifdef NERTZ_READER_AVX2
    const bool avx2 =
        wideSimd && cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3);
#else
    (void)wideSimd;
#endif
    impl_->reader = loadNet(std::filesystem::path(modelDir) / kIndexModelFile);
    impl_->gate = loadNet(std::filesystem::path(modelDir) / kGateModelFile);
    // The gate computed here instead of by dnn (4 ms for 2,560 patches there, much of it copying
    // them in; 1-2.5 ms here), when its net is the expected perceptron and agrees with dnn on a
    // test batch.
    if (gateWeights(impl_->gate, impl_->g1t, impl_->gb1, impl_->g2, impl_->gb2)) {
#ifdef NERTZ_READER_AVX2
        if (avx2) {
            impl_->gateFn = detail::gateAvx2;
            impl_->gateFn8 = detail::gateAvx2x8;
        }
#endif
        const cv::Mat probe = probeBatch(54321, false);
        const cv::Mat theirs = forward(impl_->gate, probe, nullptr, kPatchRows, kPatchCols);
        impl_->ownGate = true;
        const cv::Mat ours = impl_->gateRows(probe, kPatchRows, kPatchCols);
        impl_->ownGate =
            ours.size() == theirs.size() && cv::norm(ours, theirs, cv::NORM_INF) < 1e-4;
    }
    // The split reader, when its tail file is there and agrees with the whole net on a test batch
    // (a tail left from another training run would not): else the whole net reads, as before.
    const std::filesystem::path tailFile = std::filesystem::path(modelDir) / kIndexTailModelFile;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(tailFile, ec) ||
        !firstBlockWeights(impl_->reader, impl_->w1, impl_->b1))
        return;
    try {
        impl_->tail = loadNet(tailFile);
    } catch (const ModelError&) {
        return;
    }
    const cv::Mat probe = probeBatch(12345, true);
    std::vector<int> rows(16);
    std::iota(rows.begin(), rows.end(), 0);
    const cv::Mat whole = forward(impl_->reader, probe, &rows, kPatchRows, kPatchCols);
#ifdef NERTZ_READER_AVX2
    if (avx2) impl_->block = detail::firstBlockAvx2;
#endif
    impl_->split = true;
    try {
        const cv::Mat parts = impl_->readRows(probe, rows, kPatchRows, kPatchCols);
        impl_->split = parts.size() == whole.size() && parts.type() == whole.type() &&
                       cv::norm(parts, whole, cv::NORM_INF) < 1e-4;
    } catch (const cv::Exception&) {  // a tail of another shape
        impl_->split = false;
    }
#ifdef NERTZ_READER_AVX2
    // The whole reader by hand (the tail's dnn layers cost ~2.5 times the arithmetic here), when it
    // agrees with dnn on the test batch; else the split above.
    if (impl_->split && avx2 && readerWeights(impl_->tail, impl_->w1, impl_->b1, impl_->rw)) {
        impl_->own = true;
        const cv::Mat ours = impl_->readRows(probe, rows, kPatchRows, kPatchCols);
        impl_->own = cv::norm(ours, whole, cv::NORM_INF) < 1e-4;
    }
#endif
    if (!impl_->split)
        std::cerr << "index reader: " << tailFile.string() << " does not match " << kIndexModelFile
                  << " (models/training/split_reader.py writes it); reading with the whole net\n";
}

bool IndexReader::split() const {
    return impl_->split;
}

bool IndexReader::ownReader() const {
    return impl_->own;
}

bool IndexReader::ownGate() const {
    return impl_->ownGate;
}

std::vector<float> IndexReader::gateHalf(const std::vector<cv::Mat>& halves) {
    if (!impl_->ownGate) return {};
    cv::Mat pooled(int(halves.size()), 240, CV_32F);
    for (std::size_t k = 0; k < halves.size(); ++k) {
        CV_Assert(halves[k].rows == kPatchRows / 2 && halves[k].cols == kPatchCols / 2);
        normalisePatch(halves[k], pooled.ptr<float>(int(k)));
    }
    const cv::Mat p = impl_->pooledGateRows(pooled);
    std::vector<float> out(halves.size());
    for (std::size_t k = 0; k < halves.size(); ++k) out[k] = p.at<float>(int(k), 1);
    return out;
}

std::vector<PatchReading> IndexReader::read(const std::vector<cv::Mat>& patches,
                                            float gateThreshold, cv::Range statsColumns) {
    std::vector<PatchReading> out(patches.size());
    if (patches.empty()) return out;
    const int h = patches[0].rows, w = patches[0].cols;
    cv::Mat all(int(patches.size()), h * w, CV_32F);
    for (std::size_t k = 0; k < patches.size(); ++k) {
        CV_Assert(patches[k].rows == h && patches[k].cols == w);
        normalisePatch(patches[k], all.ptr<float>(int(k)), statsColumns);
    }
    std::vector<int> kept;
    if (gateThreshold > 0.f) {
        cv::Mat gate = impl_->gateRows(all, h, w);  // n x 2
        for (int k = 0; k < gate.rows; ++k)
            if (gate.at<float>(k, 1) >= gateThreshold) kept.push_back(k);
    } else {  // every probability passes 0: no need to compute them
        kept.resize(patches.size());
        std::iota(kept.begin(), kept.end(), 0);
    }
    if (kept.empty()) return out;
    cv::Mat prob = impl_->readRows(all, kept, h, w);  // kept x 53
    for (std::size_t k = 0; k < kept.size(); ++k) {
        const float* row = prob.ptr<float>(int(k));
        int best = int(std::max_element(row, row + prob.cols) - row);
        PatchReading& r = out[std::size_t(kept[k])];
        r.passedGate = true;
        std::copy(row, row + 52, r.faces.begin());
        r.confidence = row[best];
        if (best != kNotIndexClass) r.face = cardOfClass(best);
    }
    return out;
}

}  // namespace nertz::vision
