// The back segmenter's net (models/back_seg.onnx) computed by hand with 8-lane AVX2 and FMA (this
// file alone is compiled with -mavx2 -mfma; back_segmenter.cpp calls it only where the processor
// has both, and only when it agrees with cv::dnn on a test picture when the model loads).
//
// Activations are held as [y][x][channel] with a zero border as wide as the next convolution's
// padding, so no tap needs a bounds test; the convolutions are conv_avx2.hpp's.
#include "back_segmenter_net.hpp"

#include <algorithm>

#include "../conv_avx2.hpp"

namespace nertz::vision::detail {

namespace {

// One activation's memory (ActView, conv_avx2.hpp), kept from one picture to the next (SegWork);
// only the border is cleared, every interior value being written by the layer that makes it.
struct Act {
    std::vector<float> v;
    ActView view;
    const ActView& reset(int h, int w, int c, int pad) {
        const std::size_t rowLen = std::size_t(w + 2 * pad) * std::size_t(c);
        v.resize(std::size_t(h + 2 * pad) * rowLen);
        view = {v.data(), h, w, c, pad};
        if (pad > 0) {
            std::fill(v.begin(), v.begin() + std::ptrdiff_t(std::size_t(pad) * rowLen), 0.f);
            std::fill(v.end() - std::ptrdiff_t(std::size_t(pad) * rowLen), v.end(), 0.f);
            const std::size_t side = std::size_t(pad) * std::size_t(c);
            for (int y = 0; y < h; ++y) {
                float* row = v.data() + std::size_t(y + pad) * rowLen;
                std::fill(row, row + side, 0.f);
                std::fill(row + rowLen - side, row + rowLen, 0.f);
            }
        }
        return view;
    }
};

ConvSpec spec(const SegConv& l) {
    return {l.w.data(), l.b.data(), l.stride, l.dilation, l.relu};
}

}  // namespace

struct SegWork {
    Act x, a1, a2, a3, r1, r2, r3, cat, u1, u2, head;
};

void SegWorkDelete::operator()(SegWork* w) const {
    delete w;
}

cv::Mat segNetAvx2(const SegNet& net, const cv::Mat& padded,
                   std::unique_ptr<SegWork, SegWorkDelete>& work) {
    const int H = padded.rows, W = padded.cols;
    if (!work) work.reset(new SegWork);
    auto& [x, a1, a2, a3, r1, r2, r3, cat, u1, u2, head] = *work;
    // the input: BGR in 0..1 minus 0.5 (blobFromImage's (v - 127.5) / 255)
    const ActView& vx = x.reset(H, W, 3, 1);
    for (int y = 0; y < H; ++y) {
        const std::uint8_t* s = padded.ptr<std::uint8_t>(y);
        float* d = vx.at(y, 0);
        for (int i = 0; i < 3 * W; ++i) d[i] = (float(s[i]) - 127.5f) * (1.f / 255.f);
    }
    const auto& L = net.layers;
    const ActView& v1 = a1.reset(H / 2, W / 2, 8, 1);
    convAvx2<3, 3, 1, 8>(vx, spec(L[0]), v1);
    const ActView& v2 = a2.reset(H / 4, W / 4, 16, 1);
    convAvx2<3, 8, 2, 4>(v1, spec(L[1]), v2);
    const ActView& v3 = a3.reset(H / 8, W / 8, 32, L[3].dilation);
    convAvx2<3, 16, 4, 2>(v2, spec(L[2]), v3);
    // three dilated convolutions, each added to its input
    const ActView& w1 = r1.reset(v3.h, v3.w, 32, L[4].dilation);
    convAvx2<3, 32, 4, 2>(v3, spec(L[3]), w1, &v3);
    const ActView& w2 = r2.reset(v3.h, v3.w, 32, L[5].dilation);
    convAvx2<3, 32, 4, 2>(w1, spec(L[4]), w2, &w1);
    const ActView& w3 = r3.reset(v3.h, v3.w, 32, 0);
    convAvx2<3, 32, 4, 2>(w2, spec(L[5]), w3, &w2);
    // twice as large (nearest, floor), beside the second layer's output: 32 + 16 channels
    const ActView& vc = cat.reset(v2.h, v2.w, 48, 0);
    for (int y = 0; y < v2.h; ++y)
        for (int xx = 0; xx < v2.w; ++xx) {
            float* d = vc.at(y, xx);
            const float* up = w3.at(y / 2, xx / 2);
            std::copy(up, up + 32, d);
            const float* skip = v2.at(y, xx);
            std::copy(skip, skip + 16, d + 32);
        }
    const ActView& vu1 = u1.reset(v2.h, v2.w, 24, 1);
    convAvx2<1, 48, 3, 3>(vc, spec(L[6]), vu1);
    const ActView& vu2 = u2.reset(v2.h, v2.w, 24, 1);
    convAvx2<3, 24, 3, 3>(vu1, spec(L[7]), vu2);
    const ActView& vh = head.reset(v2.h, v2.w, net.outChannels, 0);
    convAvx2<3, 24, 1, 8>(vu2, spec(L[8]), vh);
    // 1 x C x h x w, as dnn gives it
    int dims[4] = {1, net.outChannels, vh.h, vh.w};
    cv::Mat out(4, dims, CV_32F);
    for (int c = 0; c < net.outChannels; ++c) {
        float* d = out.ptr<float>(0, c);
        for (int y = 0; y < vh.h; ++y)
            for (int xx = 0; xx < vh.w; ++xx) d[y * vh.w + xx] = vh.at(y, xx)[c];
    }
    return out;
}

}  // namespace nertz::vision::detail
