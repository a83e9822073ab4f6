// Shared by the 4-lane (index_reader.cpp) and AVX2 (index_reader_avx2.cpp) versions of the layers
// the corner-index reader computes itself; internal to nertz::vision.
#pragma once

#include <vector>

namespace nertz::vision::detail {

// The gate's first step: the 40x24 patch averaged over 2x2 blocks to 20x12 (240 floats).
inline void averagePool2x2(const float* in, float* pooled) {
    for (int py = 0; py < 20; ++py)
        for (int px = 0; px < 12; ++px) {
            const float* r = in + (2 * py) * 24 + 2 * px;
            pooled[py * 12 + px] = (r[0] + r[1] + r[24] + r[25]) * 0.25f;
        }
}

// The whole reader's weights laid out for readerAvx2 (index_reader_avx2.cpp), filled by
// IndexReader from the loaded nets: the first block as firstBlock takes them; the two strided
// convolutions as [ky][kx][input channel][output channel]; the dense layer as [position][channel]
// (the order readerAvx2 keeps the last convolution's output in) x 96; the three heads (index 2,
// rank 13, suit 4) as 19 x 96 rows; and the constant 53 x 19 matrix that makes face probabilities
// of the heads' log-probabilities.
struct ReaderWeights {
    std::vector<float> w1, b1;  // 16 x 9, 16
    std::vector<float> w2, b2;  // 3 x 3 x 16 x 24, 24
    std::vector<float> w3, b3;  // 3 x 3 x 24 x 32, 32
    std::vector<float> wd, bd;  // 480 x 96, 96
    std::vector<float> wh, bh;  // 19 x 96, 19
    std::vector<float> mix;     // 53 x 19
};

}  // namespace nertz::vision::detail
