// The back segmenter's net (models/back_seg.onnx) computed by hand with 8-lane AVX2 and FMA (this
// file alone is compiled with -mavx2 -mfma; back_segmenter.cpp calls it only where the processor
// has both, and only when it agrees with cv::dnn on a test picture when the model loads).
//
// Activations are held as [y][x][channel] with a zero border as wide as the next convolution's
// padding, so no tap needs a bounds test; each output pixel's channels are sums in vectors of 8,
// each input value broadcast against the weights of 8 output channels, several output pixels at a
// time so that enough independent sums are in flight.
#include "back_segmenter_net.hpp"

#include <immintrin.h>

#include <algorithm>

namespace nertz::vision::detail {

namespace {

// One activation: h x w pixels of c channels, with a zero border of `pad` pixels all round. Its
// memory is kept from one picture to the next (SegWork); only the border is cleared, every
// interior value being written by the layer that makes it.
struct Act {
    int h = 0, w = 0, c = 0, pad = 0;
    std::vector<float> v;
    void reset(int hh, int ww, int cc, int pp) {
        h = hh;
        w = ww;
        c = cc;
        pad = pp;
        const std::size_t rowLen = std::size_t(w + 2 * pad) * std::size_t(c);
        v.resize(std::size_t(h + 2 * pad) * rowLen);
        if (pad == 0) return;
        std::fill(v.begin(), v.begin() + std::ptrdiff_t(std::size_t(pad) * rowLen), 0.f);
        std::fill(v.end() - std::ptrdiff_t(std::size_t(pad) * rowLen), v.end(), 0.f);
        const std::size_t side = std::size_t(pad) * std::size_t(c);
        for (int y = 0; y < h; ++y) {
            float* row = v.data() + std::size_t(y + pad) * rowLen;
            std::fill(row, row + side, 0.f);
            std::fill(row + rowLen - side, row + rowLen, 0.f);
        }
    }
    float* at(int y, int x) { return v.data() + (std::size_t(y + pad) * std::size_t(w + 2 * pad) + std::size_t(x + pad)) * std::size_t(c); }
    const float* at(int y, int x) const {
        return v.data() + (std::size_t(y + pad) * std::size_t(w + 2 * pad) + std::size_t(x + pad)) * std::size_t(c);
    }
};

// P output pixels (oy, ox0 .. ox0 + P - 1) of a KxK convolution (K 1 or 3) with CI input channels
// and 8 G output channels: sums of the taps in [ky][kx][ci] order.
template <int K, int CI, int G, int P>
inline void convPixels(const Act& in, const SegConv& l, int oy, int ox0, Act& out, const Act* residual) {
    const int half = K / 2;
    __m256 acc[P][G];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p)
#pragma GCC unroll 4
        for (int g = 0; g < G; ++g) acc[p][g] = _mm256_loadu_ps(l.b.data() + 8 * g);
    const float* w = l.w.data();
    for (int ky = 0; ky < K; ++ky)
        for (int kx = 0; kx < K; ++kx) {
            const int iy = oy * l.stride + (ky - half) * l.dilation;
            const int ix = ox0 * l.stride + (kx - half) * l.dilation;
            const float* px = in.at(iy, ix);
            const std::size_t pixStep = std::size_t(l.stride) * std::size_t(CI);
            const float* wk = w + std::size_t(ky * K + kx) * CI * G * 8;
            for (int ci = 0; ci < CI; ++ci) {
                __m256 wv[G];
#pragma GCC unroll 4
                for (int g = 0; g < G; ++g) wv[g] = _mm256_loadu_ps(wk + (ci * G + g) * 8);
#pragma GCC unroll 8
                for (int p = 0; p < P; ++p) {
                    const __m256 v = _mm256_broadcast_ss(px + std::size_t(p) * pixStep + std::size_t(ci));
#pragma GCC unroll 4
                    for (int g = 0; g < G; ++g) acc[p][g] = _mm256_fmadd_ps(v, wv[g], acc[p][g]);
                }
            }
        }
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p) {
        float* o = out.at(oy, ox0 + p);
        const float* r = residual ? residual->at(oy, ox0 + p) : nullptr;
#pragma GCC unroll 4
        for (int g = 0; g < G; ++g) {
            __m256 s = acc[p][g];
            if (l.relu) s = _mm256_max_ps(s, _mm256_setzero_ps());
            if (r) s = _mm256_add_ps(_mm256_loadu_ps(r + 8 * g), s);
            if (out.c >= 8 * (g + 1)) {
                _mm256_storeu_ps(o + 8 * g, s);
            } else {  // the head's 5 channels, padded to 8 in the weights
                alignas(32) float t[8];
                _mm256_store_ps(t, s);
                std::copy(t, t + (out.c - 8 * g), o + 8 * g);
            }
        }
    }
}

template <int K, int CI, int G, int P>
void conv(const Act& in, const SegConv& l, Act& out, const Act* residual = nullptr) {
    for (int oy = 0; oy < out.h; ++oy) {
        int ox = 0;
        for (; ox + P <= out.w; ox += P) convPixels<K, CI, G, P>(in, l, oy, ox, out, residual);
        for (; ox < out.w; ++ox) convPixels<K, CI, G, 1>(in, l, oy, ox, out, residual);
    }
}

}  // namespace

struct SegWork {
    Act x, a1, a2, a3, r1, r2, r3, cat, u1, u2, head;
};

void SegWorkDelete::operator()(SegWork* w) const {
    delete w;
}

cv::Mat segNetAvx2(const SegNet& net, const cv::Mat& padded, std::unique_ptr<SegWork, SegWorkDelete>& work) {
    const int H = padded.rows, W = padded.cols;
    if (!work) work.reset(new SegWork);
    auto& [x, a1, a2, a3, r1, r2, r3, cat, u1, u2, head] = *work;
    // the input: BGR in 0..1 minus 0.5 (blobFromImage's (v - 127.5) / 255)
    x.reset(H, W, 3, 1);
    for (int y = 0; y < H; ++y) {
        const std::uint8_t* s = padded.ptr<std::uint8_t>(y);
        float* d = x.at(y, 0);
        for (int i = 0; i < 3 * W; ++i) d[i] = (float(s[i]) - 127.5f) * (1.f / 255.f);
    }
    const auto& L = net.layers;
    a1.reset(H / 2, W / 2, 8, 1);
    conv<3, 3, 1, 8>(x, L[0], a1);
    a2.reset(H / 4, W / 4, 16, 1);
    conv<3, 8, 2, 4>(a1, L[1], a2);
    a3.reset(H / 8, W / 8, 32, L[3].dilation);
    conv<3, 16, 4, 2>(a2, L[2], a3);
    // three dilated convolutions, each added to its input
    r1.reset(a3.h, a3.w, 32, L[4].dilation);
    conv<3, 32, 4, 2>(a3, L[3], r1, &a3);
    r2.reset(a3.h, a3.w, 32, L[5].dilation);
    conv<3, 32, 4, 2>(r1, L[4], r2, &r1);
    r3.reset(a3.h, a3.w, 32, 0);
    conv<3, 32, 4, 2>(r2, L[5], r3, &r2);
    // twice as large (nearest, floor), beside the second layer's output: 32 + 16 channels
    cat.reset(a2.h, a2.w, 48, 0);
    for (int y = 0; y < a2.h; ++y)
        for (int xx = 0; xx < a2.w; ++xx) {
            float* d = cat.at(y, xx);
            const float* up = r3.at(y / 2, xx / 2);
            std::copy(up, up + 32, d);
            const float* skip = a2.at(y, xx);
            std::copy(skip, skip + 16, d + 32);
        }
    u1.reset(a2.h, a2.w, 24, 1);
    conv<1, 48, 3, 3>(cat, L[6], u1);
    u2.reset(a2.h, a2.w, 24, 1);
    conv<3, 24, 3, 3>(u1, L[7], u2);
    head.reset(a2.h, a2.w, net.outChannels, 0);
    conv<3, 24, 1, 8>(u2, L[8], head);
    // 1 x C x h x w, as dnn gives it
    int dims[4] = {1, net.outChannels, head.h, head.w};
    cv::Mat out(4, dims, CV_32F);
    for (int c = 0; c < net.outChannels; ++c) {
        float* d = out.ptr<float>(0, c);
        for (int y = 0; y < head.h; ++y)
            for (int xx = 0; xx < head.w; ++xx) d[y * head.w + xx] = head.at(y, xx)[c];
    }
    return out;
}

}  // namespace nertz::vision::detail
