// The corner-index reader's first block with 8-lane AVX2 and FMA (this file alone is compiled with
// -mavx2 -mfma; index_reader.cpp calls it only where the processor has both). Same arithmetic as
// firstBlock in index_reader.cpp (which uses OpenCV's 4-lane universal intrinsics), eight output
// columns at a time: 2.4 ms instead of 5.1 ms for 400 patches.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

namespace nertz::vision::detail {

void firstBlockAvx2(const float* in, const float* w, const float* b, float* out) {
    constexpr int H = 40, W = 24, C = 16;
    alignas(32) float pad[H + 2][W + 8] = {};
    for (int y = 0; y < H; ++y) std::memcpy(&pad[y + 1][1], in + y * W, W * sizeof(float));
    for (int py = 0; py < H / 2; ++py)
        for (int xv = 0; xv < W / 8; ++xv) {
            __m256 r[4][3];
            for (int k = 0; k < 4; ++k)
                for (int s = 0; s < 3; ++s) r[k][s] = _mm256_loadu_ps(&pad[2 * py + k][xv * 8 + s]);
            for (int ch = 0; ch < C; ++ch) {
                const float* wc = w + ch * 9;
                __m256 a0 = _mm256_set1_ps(b[ch]), a1 = a0;
                for (int ky = 0; ky < 3; ++ky)
                    for (int kx = 0; kx < 3; ++kx) {
                        const __m256 wv = _mm256_set1_ps(wc[ky * 3 + kx]);
                        a0 = _mm256_fmadd_ps(wv, r[ky][kx], a0);
                        a1 = _mm256_fmadd_ps(wv, r[ky + 1][kx], a1);
                    }
                alignas(32) float m[8];
                _mm256_store_ps(m, _mm256_max_ps(_mm256_max_ps(a0, a1), _mm256_setzero_ps()));
                float* o = out + (ch * (H / 2) + py) * (W / 2) + xv * 4;
                for (int k = 0; k < 4; ++k) o[k] = std::max(m[2 * k], m[2 * k + 1]);
            }
        }
}

// The gate after its 2x2 average pool (240 -> 48 ReLU, 48 -> 2): its two output logits for one
// patch's pooled 20x12. `w1t` is the first layer's weights transposed (240 x 48), `w2` the
// second's (2 x 48).
void gateAvx2(const float* pooled, const float* w1t, const float* b1, const float* w2,
              const float* b2, float* logits) {
    __m256 acc[6];
    for (int k = 0; k < 6; ++k) acc[k] = _mm256_loadu_ps(b1 + 8 * k);
    for (int i = 0; i < 240; ++i) {
        const __m256 x = _mm256_set1_ps(pooled[i]);
        const float* wr = w1t + i * 48;
        for (int k = 0; k < 6; ++k)
            acc[k] = _mm256_fmadd_ps(x, _mm256_loadu_ps(wr + 8 * k), acc[k]);
    }
    alignas(32) float hidden[48];
    for (int k = 0; k < 6; ++k)
        _mm256_store_ps(hidden + 8 * k, _mm256_max_ps(acc[k], _mm256_setzero_ps()));
    for (int o = 0; o < 2; ++o) {
        float z = b2[o];
        for (int j = 0; j < 48; ++j) z += w2[o * 48 + j] * hidden[j];
        logits[o] = z;
    }
}

// The gate for eight patches at once (their pooled 20x12 at in + j * 240): each
// weight of the first layer is loaded once for the eight, not once a patch (a patch's 46 KB of
// weights do not stay in the level-1 cache), and eight sums are in flight instead of six. Each
// patch's sums are taken in gateAvx2's order: the same logits, bit for bit. logits: 8 x 2.
void gateAvx2x8(const float* in, const float* w1t, const float* b1, const float* w2,
                const float* b2, float* logits) {
    constexpr int kN = 8;
    const float(*pooled)[240] = reinterpret_cast<const float(*)[240]>(in);
    alignas(32) float hidden[kN][48];
    for (int k = 0; k < 6; ++k) {
        __m256 acc[kN];
        for (int j = 0; j < kN; ++j) acc[j] = _mm256_loadu_ps(b1 + 8 * k);
        for (int i = 0; i < 240; ++i) {
            const __m256 wv = _mm256_loadu_ps(w1t + i * 48 + 8 * k);
            for (int j = 0; j < kN; ++j)
                acc[j] = _mm256_fmadd_ps(_mm256_set1_ps(pooled[j][i]), wv, acc[j]);
        }
        for (int j = 0; j < kN; ++j)
            _mm256_store_ps(hidden[j] + 8 * k, _mm256_max_ps(acc[j], _mm256_setzero_ps()));
    }
    for (int j = 0; j < kN; ++j)
        for (int o = 0; o < 2; ++o) {
            float z = b2[o];
            for (int q = 0; q < 48; ++q) z += w2[o * 48 + q] * hidden[j][q];
            logits[j * 2 + o] = z;
        }
}

}  // namespace nertz::vision::detail
