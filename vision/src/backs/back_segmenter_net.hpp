// The back segmenter's net as back_segmenter_avx2.cpp computes it: its nine convolutions' weights,
// read from the net cv::dnn loaded (back_segmenter.cpp); internal to nertz::vision.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <opencv2/core.hpp>

namespace nertz::vision::detail {

// One convolution: weights as [ky][kx][input channel][output channel], the output channels padded
// with zeros to a multiple of 8 (as is the bias).
struct SegConv {
    int k = 3, stride = 1, dilation = 1;
    bool relu = true;
    std::vector<float> w, b;
};

// models/back_seg.onnx: c1-c3 (3x3, stride 2: 3 -> 8 -> 16 -> 32), c4-c6 (3x3, dilated 2, 4, 8,
// each added to its input), their output doubled (nearest) beside c2's, ua (1x1, 48 -> 24), ub
// (3x3, 24 -> 24), the head (3x3, 24 -> outChannels, no ReLU).
struct SegNet {
    std::vector<SegConv> layers;  // the nine, in that order
    int outChannels = 0;
};

// segNetAvx2's activations, kept from one picture to the next (allocated on first use).
struct SegWork;
struct SegWorkDelete {
    void operator()(SegWork* w) const;
};

// The net's output for a BGR picture whose sides are multiples of 8: 1 x outChannels x h/4 x w/4.
cv::Mat segNetAvx2(const SegNet& net, const cv::Mat& padded,
                   std::unique_ptr<SegWork, SegWorkDelete>& work);

}  // namespace nertz::vision::detail
