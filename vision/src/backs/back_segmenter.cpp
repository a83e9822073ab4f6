// Learnt card / outline segmentation; see back_segmenter.hpp.
#include "nertz/vision/back_segmenter.hpp"

#include <algorithm>
#include <filesystem>
#include <iostream>

#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include "../dnn_weights.hpp"
#include "back_segmenter_net.hpp"
#include "nertz/vision/index_reader.hpp"

namespace nertz::vision {

namespace {

// The nine convolutions of the loaded net, when they are the ones back_segmenter_net.hpp describes
// (kernel, stride, dilation, padding and channels checked; the adds, the resize and the concat are
// checked by the agreement test in the constructor).
bool segNetWeights(cv::dnn::Net& net, detail::SegNet& out) {
    struct Shape {
        int k, stride, dilation, ci, co;
        bool relu;
    };
    static constexpr Shape kShapes[9] = {
        {3, 2, 1, 3, 8, true},   {3, 2, 1, 8, 16, true},  {3, 2, 1, 16, 32, true},
        {3, 1, 2, 32, 32, true}, {3, 1, 4, 32, 32, true}, {3, 1, 8, 32, 32, true},
        {1, 1, 1, 48, 24, true}, {3, 1, 1, 24, 24, true}, {3, 1, 1, 24, 0, false}};
    std::vector<cv::Ptr<cv::dnn::Layer>> convs;
    for (const auto& name : net.getLayerNames()) {
        const auto layer = net.getLayer(name);
        if (layer->type == "Convolution") convs.push_back(layer);
    }
    if (convs.size() != 9) return false;
    out.layers.clear();
    for (int i = 0; i < 9; ++i) {
        const Shape& e = kShapes[i];
        if (!detail::isConv(convs[std::size_t(i)], e.k, e.stride, e.dilation) ||
            convs[std::size_t(i)]->blobs.size() < 2)
            return false;
        const cv::Mat& w = convs[std::size_t(i)]->blobs[0];
        const cv::Mat& b = convs[std::size_t(i)]->blobs[1];
        const int co = w.dims == 4 ? w.size[0] : 0;
        if (w.type() != CV_32F || b.type() != CV_32F || w.dims != 4 || w.size[1] != e.ci ||
            w.size[2] != e.k || w.size[3] != e.k || int(b.total()) != co ||
            (e.co > 0 ? co != e.co : (co < 1 || co > 8)))
            return false;
        const int cop = (co + 7) / 8 * 8;
        detail::SegConv l;
        l.k = e.k;
        l.stride = e.stride;
        l.dilation = e.dilation;
        l.relu = e.relu;
        l.w = detail::weightsByTap(w, e.ci, co, e.k, cop);
        l.b = detail::blobValues(b);
        l.b.resize(std::size_t(cop), 0.f);
        out.layers.push_back(std::move(l));
        if (i == 8) out.outChannels = co;
    }
    return true;
}

}  // namespace

struct BackSegmenter::Impl {
    mutable cv::dnn::Net net;
    // the net computed by hand (AVX2 and FMA), when it agrees with dnn on a test picture
    bool own = false;
    detail::SegNet hand;
#ifdef NERTZ_READER_AVX2
    mutable std::unique_ptr<detail::SegWork, detail::SegWorkDelete> work;  // one thread's
#endif

    cv::Mat forward(const cv::Mat& padded) const {
#ifdef NERTZ_READER_AVX2
        if (own) return detail::segNetAvx2(hand, padded, work);
#endif
        // BGR in 0..1 minus 0.5, as in training
        const cv::Mat blob = cv::dnn::blobFromImage(padded, 1.0 / 255.0, cv::Size(),
                                                    cv::Scalar(127.5, 127.5, 127.5), false, false);
        net.setInput(blob);
        return net.forward();
    }
};

BackSegmenter::BackSegmenter(const std::string& modelDir, bool wideSimd)
    : impl_(std::make_shared<Impl>()) {
    const std::filesystem::path file = std::filesystem::path(modelDir) / kBackSegModelFile;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw ModelError("model file " + file.string() +
                         " not found (set NERTZ_MODEL_DIR to the folder holding it; models/training/BACKS.md says how to retrain it)");
    try {
        impl_->net = cv::dnn::readNetFromONNX(file.string());
        impl_->net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
        impl_->net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
    } catch (const cv::Exception& e) {
        throw ModelError("cannot load " + file.string() + ": " + e.what());
    }
    if (impl_->net.empty()) throw ModelError("cannot load " + file.string());
#ifndef NERTZ_READER_AVX2
    (void)wideSimd;
#endif
#ifdef NERTZ_READER_AVX2
    if (wideSimd && cv::checkHardwareSupport(CV_CPU_AVX2) &&
        cv::checkHardwareSupport(CV_CPU_FMA3) && segNetWeights(impl_->net, impl_->hand)) {
        // a test picture (noise over two ramps, 96 x 64) read both ways: the same logits to
        // within float rounding, or dnn reads every picture
        cv::Mat probe(64, 96, CV_8UC3);
        cv::RNG rng(777);
        rng.fill(probe, cv::RNG::UNIFORM, 0, 256);
        for (int y = 0; y < probe.rows; ++y)
            for (int x = 0; x < probe.cols; ++x)
                if ((x / 16 + y / 16) % 2)
                    probe.at<cv::Vec3b>(y, x) = cv::Vec3b(uchar(2 * x), uchar(3 * y), 128);
        const cv::Mat theirs = impl_->forward(probe).clone();
        impl_->own = true;
        const cv::Mat ours = impl_->forward(probe);
        impl_->own =
            ours.size == theirs.size && cv::norm(ours, theirs, cv::NORM_INF) <=
                                            1e-3 * std::max(1.0, cv::norm(theirs, cv::NORM_INF));
    }
#endif
}

bool BackSegmenter::computedHere() const {
    return impl_->own;
}

BackSegmentation BackSegmenter::segment(const cv::Mat& bgrWork) const {
    CV_Assert(bgrWork.type() == CV_8UC3 && !bgrWork.empty());
    // the net halves its input three times: pad to a multiple of 8 (replicated border)
    const int W = (bgrWork.cols + 7) / 8 * 8, H = (bgrWork.rows + 7) / 8 * 8;
    cv::Mat padded;
    cv::copyMakeBorder(bgrWork, padded, 0, H - bgrWork.rows, 0, W - bgrWork.cols, cv::BORDER_REPLICATE);
    const cv::Mat out = impl_->forward(padded);  // 1 x 2 (or 5) x H/4 x W/4
    CV_Assert(out.dims == 4 && (out.size[1] == 2 || out.size[1] == 5));
    const int oh = out.size[2], ow = out.size[3];
    BackSegmentation seg;
    seg.stride = float(W) / float(ow);
    if (out.size[1] == 5) {
        // centre logits -> probability; offsets were learnt in units of kOffsetUnit cells
        constexpr float kOffsetUnit = 8.f;  // train_back_seg.py OFFSET_UNIT
        cv::Mat logits(oh, ow, CV_32F, const_cast<float*>(out.ptr<float>(0, 2)));
        cv::exp(-logits, seg.centre);
        seg.centre = 1.0 / (1.0 + seg.centre);
        const cv::Mat dx(oh, ow, CV_32F, const_cast<float*>(out.ptr<float>(0, 3)));
        const cv::Mat dy(oh, ow, CV_32F, const_cast<float*>(out.ptr<float>(0, 4)));
        cv::merge(std::vector<cv::Mat>{dx * kOffsetUnit, dy * kOffsetUnit}, seg.offset);
    }
    cv::Mat* dst[2] = {&seg.card, &seg.outline};
    for (int c = 0; c < 2; ++c) {
        cv::Mat logits(oh, ow, CV_32F, const_cast<float*>(out.ptr<float>(0, c)));
        cv::Mat prob;
        cv::exp(-logits, prob);
        prob = 255.0 / (1.0 + prob);
        cv::Mat p8;
        prob.convertTo(p8, CV_8U);
        cv::Mat up;
        cv::resize(p8, up, cv::Size(W, H), 0, 0, cv::INTER_LINEAR);
        *dst[c] = up(cv::Rect(0, 0, bgrWork.cols, bgrWork.rows)).clone();
    }
    return seg;
}

const BackSegmenter* BackSegmenter::forThisThread() {
    thread_local std::unique_ptr<BackSegmenter> seg;
    thread_local bool tried = false;
    if (!tried) {
        tried = true;
        try {
            seg = std::make_unique<BackSegmenter>(resolveModelDir(""));
        } catch (const std::exception& e) {
            std::cerr << "back finder: " << e.what() << "; finding cards by the table's colour instead\n";
        }
    }
    return seg.get();
}

}  // namespace nertz::vision
