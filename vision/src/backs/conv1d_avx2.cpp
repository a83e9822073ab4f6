// See conv1d_avx2.hpp. Compiled with -mavx2 -mfma.
#include "conv1d_avx2.hpp"

#include <immintrin.h>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace nertz::vision::detail {

void conv1dAvx2(const float* in, int cin, int len, const float* w, int cout, int k, int dilation,
                float* out) {
    constexpr int kBlock = 16;  // samples a step: two registers
    constexpr int kOuts = 4;    // output channels a step
    const int half = (k - 1) / 2 * dilation;
    const int len16 = (len + kBlock - 1) / kBlock * kBlock;
    // the input zero-padded by `half` either side and to whole blocks, so that no tap needs a test
    const int stride = len16 + 2 * half;
    thread_local std::vector<float> padded;
    padded.assign(std::size_t(cin) * std::size_t(stride), 0.f);
    for (int c = 0; c < cin; ++c)
        std::copy(in + std::size_t(c) * std::size_t(len),
                  in + std::size_t(c + 1) * std::size_t(len),
                  padded.begin() +
                      std::ptrdiff_t(std::size_t(c) * std::size_t(stride) + std::size_t(half)));
    const int taps = cin * k;
    for (int o0 = 0; o0 < cout; o0 += kOuts) {
        const int no = std::min(kOuts, cout - o0);
        for (int x = 0; x < len16; x += kBlock) {
            __m256 acc[kOuts][2];
            for (int j = 0; j < kOuts; ++j) acc[j][0] = acc[j][1] = _mm256_setzero_ps();
            for (int c = 0; c < cin; ++c) {
                const float* src =
                    padded.data() + std::size_t(c) * std::size_t(stride) + std::size_t(x);
                for (int t = 0; t < k; ++t) {
                    const float* s = src + t * dilation;
                    const __m256 a = _mm256_loadu_ps(s), b = _mm256_loadu_ps(s + 8);
                    const int tap = c * k + t;
                    for (int j = 0; j < no; ++j) {
                        const __m256 wt = _mm256_broadcast_ss(
                            w + std::size_t(o0 + j) * std::size_t(taps) + std::size_t(tap));
                        acc[j][0] = _mm256_fmadd_ps(wt, a, acc[j][0]);
                        acc[j][1] = _mm256_fmadd_ps(wt, b, acc[j][1]);
                    }
                }
            }
            // a whole block straight into `out`, the last one's samples up to `len` only
            const int n = std::min(kBlock, len - x);
            for (int j = 0; j < no; ++j) {
                float* dst = out + std::size_t(o0 + j) * std::size_t(len) + std::size_t(x);
                if (n == kBlock) {
                    _mm256_storeu_ps(dst, acc[j][0]);
                    _mm256_storeu_ps(dst + 8, acc[j][1]);
                } else {
                    alignas(32) float tail[kBlock];
                    _mm256_store_ps(tail, acc[j][0]);
                    _mm256_store_ps(tail + 8, acc[j][1]);
                    std::copy(tail, tail + n, dst);
                }
            }
        }
    }
}

}  // namespace nertz::vision::detail
