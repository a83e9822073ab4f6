// Reading the weights of a net cv::dnn loaded, for the layers computed by hand (index_reader.cpp,
// backs/back_segmenter.cpp); internal to nertz::vision.
#pragma once

#include <cstddef>
#include <vector>

#include <opencv2/dnn.hpp>
#include <opencv2/dnn/all_layers.hpp>

namespace nertz::vision::detail {

// Whether `layer` is a k x k convolution of this stride and dilation, padded by dilation * (k / 2)
// on every side.
inline bool isConv(const cv::Ptr<cv::dnn::Layer>& layer, int k, int stride, int dilation) {
    const auto* c = dynamic_cast<const cv::dnn::ConvolutionLayer*>(layer.get());
    if (!c) return false;
    const std::size_t kk = std::size_t(k), s = std::size_t(stride), d = std::size_t(dilation),
                      pad = std::size_t(dilation * (k / 2));
    return c->kernel_size == std::vector<std::size_t>{kk, kk} &&
           c->strides == std::vector<std::size_t>{s, s} &&
           c->dilations == std::vector<std::size_t>{d, d} &&
           c->pads_begin == std::vector<std::size_t>{pad, pad} &&
           c->pads_end == std::vector<std::size_t>{pad, pad};
}

// A continuous CV_32F blob's values in order.
inline std::vector<float> blobValues(const cv::Mat& m) {
    const float* p = m.ptr<float>();
    return std::vector<float>(p, p + m.total());
}

// A convolution's weights, [out][in][ky][kx] as dnn holds them, as [ky][kx][in][out] with the
// output channels padded with zeros to coPadded (>= co).
inline std::vector<float> weightsByTap(const cv::Mat& w, int ci, int co, int k, int coPadded) {
    const float* p = w.ptr<float>();
    std::vector<float> r(std::size_t(k * k * ci * coPadded), 0.f);
    for (int o = 0; o < co; ++o)
        for (int i = 0; i < ci; ++i)
            for (int t = 0; t < k * k; ++t)
                r[std::size_t((t * ci + i) * coPadded + o)] = p[(o * ci + i) * k * k + t];
    return r;
}

}  // namespace nertz::vision::detail
