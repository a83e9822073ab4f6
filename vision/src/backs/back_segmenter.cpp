// Learnt card / outline segmentation; see back_segmenter.hpp.
#include "nertz/vision/back_segmenter.hpp"

#include <filesystem>
#include <iostream>

#include <opencv2/dnn.hpp>
#include <opencv2/imgproc.hpp>

#include "nertz/vision/index_reader.hpp"

namespace nertz::vision {

struct BackSegmenter::Impl {
    mutable cv::dnn::Net net;
};

BackSegmenter::BackSegmenter(const std::string& modelDir) : impl_(std::make_shared<Impl>()) {
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
}

BackSegmentation BackSegmenter::segment(const cv::Mat& bgrWork) const {
    CV_Assert(bgrWork.type() == CV_8UC3 && !bgrWork.empty());
    // the net halves its input three times: pad to a multiple of 8 (replicated border)
    const int W = (bgrWork.cols + 7) / 8 * 8, H = (bgrWork.rows + 7) / 8 * 8;
    cv::Mat padded;
    cv::copyMakeBorder(bgrWork, padded, 0, H - bgrWork.rows, 0, W - bgrWork.cols, cv::BORDER_REPLICATE);
    // BGR in 0..1 minus 0.5, as in training
    const cv::Mat blob = cv::dnn::blobFromImage(padded, 1.0 / 255.0, cv::Size(), cv::Scalar(127.5, 127.5, 127.5), false, false);
    impl_->net.setInput(blob);
    const cv::Mat out = impl_->net.forward();  // 1 x 2 (or 5) x H/4 x W/4
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
