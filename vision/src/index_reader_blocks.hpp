// Shared by the 4-lane (index_reader.cpp) and AVX2 (index_reader_avx2.cpp) versions of the layers
// the corner-index reader computes itself; internal to nertz::vision.
#pragma once

namespace nertz::vision::detail {

// The gate's first step: the 40x24 patch averaged over 2x2 blocks to 20x12 (240 floats).
inline void averagePool2x2(const float* in, float* pooled) {
    for (int py = 0; py < 20; ++py)
        for (int px = 0; px < 12; ++px) {
            const float* r = in + (2 * py) * 24 + 2 * px;
            pooled[py * 12 + px] = (r[0] + r[1] + r[24] + r[25]) * 0.25f;
        }
}

}  // namespace nertz::vision::detail
