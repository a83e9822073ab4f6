// A convolution with 8-lane AVX2 and FMA over activations held as [y][x][channel] with zero
// borders, shared by the hand-computed nets (index_reader_avx2.cpp, backs/back_segmenter_avx2.cpp);
// include it only from files compiled with -mavx2 -mfma. Internal to nertz::vision.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstddef>

namespace nertz::vision::detail {

// An activation of h x w pixels, c channels a pixel, with a zero border of `pad` pixels all round:
// pixel (y, x), -pad <= y < h + pad, at data + ((y + pad) * (w + 2 pad) + x + pad) * c.
struct ActView {
    float* data = nullptr;
    int h = 0, w = 0, c = 0, pad = 0;
    float* at(int y, int x) const {
        return data + (std::size_t(y + pad) * std::size_t(w + 2 * pad) + std::size_t(x + pad)) *
                          std::size_t(c);
    }
};

// One KxK convolution (K 1 or 3; padding dilation * (K / 2)): weights as [ky][kx][input
// channel][output channel], the output channels (and the bias) padded to 8 G with zeros.
struct ConvSpec {
    const float* w = nullptr;
    const float* b = nullptr;
    int stride = 1, dilation = 1;
    bool relu = true;
};

// P neighbouring output pixels (oy, ox0 ..) of a convolution with CI input channels and 8 G output
// channels (out.c of them written): each input value is broadcast against the weights of 8 output
// channels, and the P x G sums in flight keep the FMA units busy (one chain alone waits on each
// addition). Each sum is the bias plus the taps in [ky][kx][ci] order; then the ReLU, then the
// residual (same place in `residual`) added.
template <int K, int CI, int G, int P>
inline void convPixelsAvx2(const ActView& in, const ConvSpec& l, int oy, int ox0,
                           const ActView& out, const ActView* residual) {
    constexpr int half = K / 2;
    __m256 acc[P][G];
#pragma GCC unroll 8
    for (int p = 0; p < P; ++p)
#pragma GCC unroll 4
        for (int g = 0; g < G; ++g) acc[p][g] = _mm256_loadu_ps(l.b + 8 * g);
    const std::size_t pixStep = std::size_t(l.stride) * std::size_t(CI);
    for (int ky = 0; ky < K; ++ky)
        for (int kx = 0; kx < K; ++kx) {
            const float* px = in.at(oy * l.stride + (ky - half) * l.dilation,
                                    ox0 * l.stride + (kx - half) * l.dilation);
            const float* wk = l.w + std::size_t(ky * K + kx) * CI * G * 8;
            for (int ci = 0; ci < CI; ++ci) {
                __m256 wv[G];
#pragma GCC unroll 4
                for (int g = 0; g < G; ++g) wv[g] = _mm256_loadu_ps(wk + (ci * G + g) * 8);
#pragma GCC unroll 8
                for (int p = 0; p < P; ++p) {
                    const __m256 v =
                        _mm256_broadcast_ss(px + std::size_t(p) * pixStep + std::size_t(ci));
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
            } else {  // fewer channels than the padded weights (the segmenter's head)
                alignas(32) float t[8];
                _mm256_store_ps(t, s);
                std::copy(t, t + (out.c - 8 * g), o + 8 * g);
            }
        }
    }
}

// Every output pixel of `out`: P at a time along a row, the rest one at a time.
template <int K, int CI, int G, int P>
inline void convAvx2(const ActView& in, const ConvSpec& l, const ActView& out,
                     const ActView* residual = nullptr) {
    for (int oy = 0; oy < out.h; ++oy) {
        int ox = 0;
        for (; ox + P <= out.w; ox += P) convPixelsAvx2<K, CI, G, P>(in, l, oy, ox, out, residual);
        for (; ox < out.w; ++ox) convPixelsAvx2<K, CI, G, 1>(in, l, oy, ox, out, residual);
    }
}

}  // namespace nertz::vision::detail
