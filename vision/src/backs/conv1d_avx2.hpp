// The ribbon edge finder's 1-D convolutions with AVX2 + FMA (conv1d_avx2.cpp); internal to
// nertz::vision, x86-64 builds only (NERTZ_READER_AVX2).
#pragma once

namespace nertz::vision::detail {

// out[o][x] = sum over c, then t of w[o][c][t] * in[c][x + t * dilation - half] (zero outside
// 0..len), half = (k - 1) / 2 * dilation; weights [cout][cin][k], `in` [cin][len], `out`
// [cout][len], no bias. Call only where the processor has AVX2 and FMA.
void conv1dAvx2(const float* in, int cin, int len, const float* w, int cout, int k, int dilation,
                float* out);

}  // namespace nertz::vision::detail
