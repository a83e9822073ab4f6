// Corner-index candidates; see index_proposals.hpp (and models/training/proposals.py, its twin).
#include "nertz/vision/index_proposals.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/imgproc.hpp>

namespace nertz::vision {
namespace {

struct Blob {
    float x, y, s;
};

// Blobs of glyph size of mask bw (appended to out); where big is given, it becomes the mask of the
// components too large to be a glyph (longest side > maxBlob). Returns whether there is any such.
bool blobsOf(const cv::Mat& bw, const ProposalParams& p, int minBlob, std::vector<Blob>& out,
             cv::Mat* big = nullptr) {
    bool anyBig = false;
    for (const InkComponent& c : inkComponents(bw, big, p.maxBlob)) {
        const int s = std::max(c.width, c.height);
        anyBig = anyBig || s > p.maxBlob;
        if (s < minBlob || s > p.maxBlob || c.area < 10) continue;
        double fill = double(c.area) / (double(c.width) * c.height);
        if (fill < 0.12 || fill > 0.97) continue;
        out.push_back({float(c.cx), float(c.cy), float(s)});
    }
    return anyBig;
}

// Ink blobs of both polarities of one level: dark ink where g <= mean - C, light ink where
// g >= mean + C (mean over block x block, replicated border), the same masks as cv::adaptiveThreshold
// (MEAN_C, BINARY_INV) of g and of 255 - g, from one box filter. With split, the oversized components
// of each polarity are split by the other polarity's mask closed by a paperClose square (see
// ProposalParams::splitLevels) and the glyph-sized pieces added.
void inkBlobs(const cv::Mat& g, const ProposalParams& p, int minBlob, bool split, std::vector<Blob>& dark,
              std::vector<Blob>& light) {
    cv::Mat mean;
    cv::boxFilter(g, mean, g.type(), cv::Size(p.block, p.block), cv::Point(-1, -1), true,
                  cv::BORDER_REPLICATE | cv::BORDER_ISOLATED);
    const int c = int(std::floor(p.thresholdC));
    cv::Mat bwDark(g.size(), CV_8U), bwLight(g.size(), CV_8U);
    // (for 1 <= c <= 255: dark where mean - g >= c, light where g - mean >= c, in saturating byte
    // differences, sixteen pixels at a time)
    const cv::v_uint8x16 vc = cv::v_setall_u8(std::uint8_t(std::clamp(c, 1, 255)));
    for (int y = 0; y < g.rows; ++y) {
        const std::uint8_t* gs = g.ptr<std::uint8_t>(y);
        const std::uint8_t* ms = mean.ptr<std::uint8_t>(y);
        std::uint8_t* d = bwDark.ptr<std::uint8_t>(y);
        std::uint8_t* l = bwLight.ptr<std::uint8_t>(y);
        int x = 0;
        if (c >= 1 && c <= 255)
            for (; x + 16 <= g.cols; x += 16) {
                const cv::v_uint8x16 gv = cv::v_load(gs + x), mv = cv::v_load(ms + x);
                cv::v_store(d + x, (mv - gv) >= vc);  // 255 or 0
                cv::v_store(l + x, (gv - mv) >= vc);
            }
        for (; x < g.cols; ++x) {
            const int diff = int(gs[x]) - int(ms[x]);
            d[x] = diff <= -c ? 255 : 0;
            l[x] = diff >= c ? 255 : 0;
        }
    }
    if (!split) {
        blobsOf(bwDark, p, minBlob, dark);
        blobsOf(bwLight, p, minBlob, light);
        return;
    }
    cv::Mat bigDark, bigLight;
    const bool anyBigDark = blobsOf(bwDark, p, minBlob, dark, &bigDark);
    const bool anyBigLight = blobsOf(bwLight, p, minBlob, light, &bigLight);
    const cv::Mat k = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(p.paperClose, p.paperClose));
    cv::Mat paper;
    if (anyBigDark) {
        cv::morphologyEx(bwLight, paper, cv::MORPH_CLOSE, k);
        cv::bitwise_and(bigDark, paper, bigDark);
        blobsOf(bigDark, p, minBlob, dark);
    }
    if (anyBigLight) {
        cv::morphologyEx(bwDark, paper, cv::MORPH_CLOSE, k);
        cv::bitwise_and(bigLight, paper, bigLight);
        blobsOf(bigLight, p, minBlob, light);
    }
}

// Ordered pairs (i above j) of blobs of compatible size and distance; blobs sorted by x so that only
// neighbours within the largest possible distance are compared.
void pairBlobs(std::vector<Blob>& bl, float f, bool inv, std::vector<IndexCandidate>& out) {
    if (bl.size() < 2) return;
    std::sort(bl.begin(), bl.end(), [](const Blob& a, const Blob& b) { return a.x < b.x; });
    float sMax = 0;
    for (const Blob& b : bl) sMax = std::max(sMax, b.s);
    const float reach = 1.9f * sMax;
    for (std::size_t i = 0; i < bl.size(); ++i) {
        for (std::size_t j = i + 1; j < bl.size() && bl[j].x - bl[i].x < reach; ++j) {
            float smax = std::max(bl[i].s, bl[j].s), smin = std::min(bl[i].s, bl[j].s);
            if (smin < 0.3f * smax) continue;
            float dx = bl[i].x - bl[j].x, dy = bl[i].y - bl[j].y;
            float d2 = dx * dx + dy * dy;
            if (d2 <= (0.55f * smax) * (0.55f * smax) || d2 >= (1.9f * smax) * (1.9f * smax)) continue;
            cv::Point2f pi(bl[i].x * f, bl[i].y * f), pj(bl[j].x * f, bl[j].y * f);
            out.push_back({pi, pj, inv});
            out.push_back({pj, pi, inv});
        }
    }
}

}  // namespace

ProposalPyramid buildPyramid(const cv::Mat& gray8, const ProposalParams& p) {
    ProposalPyramid pyr;
    cv::Mat g;
    cv::medianBlur(gray8, g, 3);
    pyr.levels.push_back(g);
    while (int(pyr.levels.size()) < p.levels && std::min(pyr.levels.back().rows, pyr.levels.back().cols) >= 2 * p.minLevelSide) {
        const cv::Mat& last = pyr.levels.back();
        cv::Mat half;
        cv::resize(last, half, cv::Size(last.cols / 2, last.rows / 2), 0, 0, cv::INTER_AREA);
        pyr.levels.push_back(half);
    }
    return pyr;
}

std::vector<IndexCandidate> proposeIndexCandidates(const ProposalPyramid& pyr, const ProposalParams& p) {
    std::vector<IndexCandidate> out;
    std::vector<Blob> dark, light;
    for (std::size_t li = 0; li < pyr.levels.size(); ++li) {
        const float f = float(1 << li);
        dark.clear();
        light.clear();
        inkBlobs(pyr.levels[li], p, li == 0 ? p.minBlobLevel0 : p.minBlob, int(li) < p.splitLevels, dark, light);
        pairBlobs(dark, f, false, out);
        pairBlobs(light, f, true, out);
    }
    return out;
}

namespace {

// Candidate c's patch; with reversed, also that of c read the other way round: the grid is then cut
// a pixel wider and taller, and the reversed patch's pixel (u, v) is the grid's (pw - u, ph - v).
void cutGrid(const ProposalPyramid& pyr, const IndexCandidate& c, const ProposalParams& p,
             cv::Mat& patch, cv::Mat* reversed = nullptr) {
    const int grow = reversed ? 1 : 0;
    const int pw = p.patchWidth + grow, ph = p.patchHeight + grow;
    double d = std::hypot(double(c.b.x - c.a.x), double(c.b.y - c.a.y));
    int k = int(std::lround(std::log2(std::max(d, 1e-3) / p.idealDistance)));
    k = std::clamp(k, 0, int(pyr.levels.size()) - 1);
    double q = double(1 << k);
    double ax = c.a.x / q, ay = c.a.y / q, bx = c.b.x / q, by = c.b.y / q;
    double vx = bx - ax, vy = by - ay, dd = std::max(std::hypot(vx, vy), 1e-6);
    double dx = vx / dd, dy = vy / dd, rx = -dy, ry = dx;
    double cx = (ax + bx) / 2, cy = (ay + by) / 2;
    double sw = p.spanWidth * dd, sh = p.spanHeight * dd;
    double kx = sw / p.patchWidth, ky = sh / p.patchHeight;
    // patch pixel (u, v) samples the level at (m00 u + m01 v + m02, m10 u + m11 v + m12), bilinear,
    // border replicated: what cv::warpAffine(..., WARP_INVERSE_MAP, BORDER_REPLICATE) computes, without
    // its per-call set-up and fixed-point coordinates (differences of a grey level at most)
    const float m00 = float(rx * kx), m01 = float(dx * ky), m02 = float(cx - rx * sw / 2 - dx * sh / 2);
    const float m10 = float(ry * kx), m11 = float(dy * ky), m12 = float(cy - ry * sw / 2 - dy * sh / 2);
    const cv::Mat& src = pyr.levels[std::size_t(k)];
    const int W = src.cols, H = src.rows;
    const std::size_t step = src.step[0];
    const std::uint8_t* base = src.ptr<std::uint8_t>();
    // inside: every sample and its right/lower neighbour lie in the level (no clamping needed)
    bool inside = true;
    for (float u : {0.f, float(pw - 1)})
        for (float v : {0.f, float(ph - 1)}) {
            const float x = m00 * u + m01 * v + m02, y = m10 * u + m11 * v + m12;
            inside = inside && x >= 0.f && y >= 0.f && x < float(W - 1) && y < float(H - 1);
        }
    // The same float operations as one sample at a time (the patch is bit for bit what it was), in
    // SIMD lanes: each patch row v walks the level from (m01 v + m02, m11 v + m12) in steps of
    // (m00, m10), a running float sum per row, so four rows at a time go through the lanes. The work is
    // kept column-major (sample (u, v) at u * rows8 + v, rows8: the rows padded to a multiple of 8):
    // coordinates and weights, then the four neighbours gathered, then the blend, then the transpose.
    const int rows8 = (ph + 7) / 8 * 8, n8 = pw * rows8;
    // on the stack for the trained 24 x 40 patch and also for the pair's 25 x 41 grid (n8 1,200), so
    // that no cut of the live path takes memory from the heap for its work
    constexpr std::size_t kOnStack = 25 * 48;
    cv::AutoBuffer<int, 4 * kOnStack> idxBuf(std::size_t(n8) * 4);
    cv::AutoBuffer<float, 2 * kOnStack> fBuf(std::size_t(n8) * 2);
    cv::AutoBuffer<std::uint8_t, 4 * kOnStack> pixBuf(std::size_t(n8) * 4);
    int *xaT = idxBuf.data(), *xbT = xaT + n8, *yaT = xbT + n8, *ybT = yaT + n8;
    float *wxT = fBuf.data(), *wyT = wxT + n8;
    std::uint8_t *p00 = pixBuf.data(), *p01 = p00 + n8, *p10 = p01 + n8, *p11 = p10 + n8;
    {
        const cv::v_float32x4 vm00 = cv::v_setall_f32(m00), vm10 = cv::v_setall_f32(m10), v4096 = cv::v_setall_f32(4096.f);
        const cv::v_int32x4 i4096 = cv::v_setall_s32(4096), one = cv::v_setall_s32(1);
        // clamping only where a sample may fall outside (the same bounds as before: none when inside)
        const int big = 1 << 30;
        const cv::v_int32x4 xLo = cv::v_setall_s32(inside ? -big : 0), xHi = cv::v_setall_s32(inside ? big : W - 1);
        const cv::v_int32x4 yLo = cv::v_setall_s32(inside ? -big : 0), yHi = cv::v_setall_s32(inside ? big : H - 1);
        for (int v = 0; v < rows8; v += 4) {
            const cv::v_float32x4 fv(float(v), float(v + 1), float(v + 2), float(v + 3));
            cv::v_float32x4 x = cv::v_setall_f32(m01) * fv + cv::v_setall_f32(m02);
            cv::v_float32x4 y = cv::v_setall_f32(m11) * fv + cv::v_setall_f32(m12);
            for (int u = 0, at = v; u < pw; ++u, at += rows8, x = x + vm00, y = y + vm10) {
                const cv::v_int32x4 x0 = cv::v_trunc(x + v4096) - i4096, y0 = cv::v_trunc(y + v4096) - i4096;  // floor for |x| < 4096
                cv::v_store(wxT + at, x - cv::v_cvt_f32(x0));
                cv::v_store(wyT + at, y - cv::v_cvt_f32(y0));
                cv::v_store(xaT + at, cv::v_min(cv::v_max(x0, xLo), xHi));
                cv::v_store(xbT + at, cv::v_min(cv::v_max(x0 + one, xLo), xHi));
                cv::v_store(yaT + at, cv::v_min(cv::v_max(y0, yLo), yHi));
                cv::v_store(ybT + at, cv::v_min(cv::v_max(y0 + one, yLo), yHi));
            }
        }
    }
    // gathered a patch row at a time: its samples lie along a few level rows (a column of the patch
    // crosses ~40 level rows, which the cache's sets cannot all hold when the level's step is a power of 2)
    for (int u = 0; u < pw; ++u)  // padding rows
        for (int at = u * rows8 + ph; at < (u + 1) * rows8; ++at) p00[at] = p01[at] = p10[at] = p11[at] = 0;
    if (inside) {  // xb = xa + 1, yb = ya + 1: two neighbours per load
        for (int v = 0; v < ph; ++v)
            for (int u = 0, at = v; u < pw; ++u, at += rows8) {
                const std::uint8_t* ra = base + std::ptrdiff_t(yaT[at]) * std::ptrdiff_t(step) + xaT[at];
                std::uint8_t t[2], b[2];
                std::memcpy(t, ra, 2);
                std::memcpy(b, ra + step, 2);
                p00[at] = t[0];
                p01[at] = t[1];
                p10[at] = b[0];
                p11[at] = b[1];
            }
    } else {
        for (int v = 0; v < ph; ++v)
            for (int u = 0, at = v; u < pw; ++u, at += rows8) {
                const std::uint8_t* ra = base + std::ptrdiff_t(yaT[at]) * std::ptrdiff_t(step);
                const std::uint8_t* rb = base + std::ptrdiff_t(ybT[at]) * std::ptrdiff_t(step);
                p00[at] = ra[xaT[at]];
                p01[at] = ra[xbT[at]];
                p10[at] = rb[xaT[at]];
                p11[at] = rb[xbT[at]];
            }
    }
    const cv::v_float32x4 half = cv::v_setall_f32(0.5f);
    const cv::v_int32x4 flip = cv::v_setall_s32(c.invert ? 255 : 0);
    std::uint8_t* resT = p00;  // each group of eight is read before it is overwritten
    auto bytes = [](const std::uint8_t* q) { return cv::v_cvt_f32(cv::v_reinterpret_as_s32(cv::v_load_expand_q(q))); };
    auto blend = [&](int at) {
        const cv::v_float32x4 ta = bytes(p00 + at), tb = bytes(p01 + at), ba = bytes(p10 + at), bb = bytes(p11 + at);
        const cv::v_float32x4 wx = cv::v_load(wxT + at), wy = cv::v_load(wyT + at);
        const cv::v_float32x4 top = ta + wx * (tb - ta), bot = ba + wx * (bb - ba);
        return cv::v_trunc(top + wy * (bot - top) + half) ^ flip;  // 0..255: a convex mix of bytes
    };
    for (int at = 0; at < n8; at += 8) {
        const cv::v_int32x4 lo = blend(at), hi = blend(at + 4);
        cv::v_pack_u_store(resT + at, cv::v_pack(lo, hi));
    }
    const int outW = p.patchWidth, outH = p.patchHeight;
    patch.create(outH, outW, CV_8U);
    for (int v = 0; v < outH; ++v) {
        std::uint8_t* out = patch.ptr<std::uint8_t>(v);
        for (int u = 0; u < outW; ++u) out[u] = resT[u * rows8 + v];
    }
    if (!reversed) return;
    reversed->create(outH, outW, CV_8U);
    for (int v = 0; v < outH; ++v) {
        std::uint8_t* out = reversed->ptr<std::uint8_t>(v);
        for (int u = 0; u < outW; ++u) out[u] = resT[(outW - u) * rows8 + (outH - v)];
    }
}

}  // namespace

cv::Mat cutIndexPatch(const ProposalPyramid& pyr, const IndexCandidate& c,
                      const ProposalParams& p) {
    cv::Mat patch;
    cutGrid(pyr, c, p, patch);
    return patch;
}

bool reversedPair(const IndexCandidate& c, const IndexCandidate& r) {
    return c.a == r.b && c.b == r.a && c.invert == r.invert;
}

std::pair<cv::Mat, cv::Mat> cutIndexPatchPair(const ProposalPyramid& pyr, const IndexCandidate& c,
                                              const ProposalParams& p) {
    // the reversed candidate has the same middle and span with both axes turned (cutGrid)
    std::pair<cv::Mat, cv::Mat> out;
    cutGrid(pyr, c, p, out.first, &out.second);
    return out;
}

std::vector<cv::Mat> cutIndexPatches(const ProposalPyramid& pyr, const std::vector<IndexCandidate>& cands,
                                     const ProposalParams& p) {
    std::vector<cv::Mat> patches;
    patches.reserve(cands.size());
    for (std::size_t i = 0; i < cands.size(); ++i) {
        if (i + 1 < cands.size() && reversedPair(cands[i], cands[i + 1])) {
            auto [ab, ba] = cutIndexPatchPair(pyr, cands[i], p);
            patches.push_back(std::move(ab));
            patches.push_back(std::move(ba));
            ++i;
        } else {
            patches.push_back(cutIndexPatch(pyr, cands[i], p));
        }
    }
    return patches;
}

ProposalParams halfPatchParams(const ProposalParams& p) {
    ProposalParams half = p;
    half.patchWidth = p.patchWidth / 2;
    half.patchHeight = p.patchHeight / 2;
    return half;
}

std::vector<InkComponent> inkComponents(const cv::Mat& mask, cv::Mat* big, int bigSide) {
    CV_Assert(mask.type() == CV_8UC1);
    struct Run {
        int start, end, parent;  // columns [start, end); parent: union-find over the runs
    };
    std::vector<Run> runs;
    std::vector<int> rowStart(std::size_t(mask.rows) + 1, 0);
    for (int y = 0; y < mask.rows; ++y) {
        rowStart[std::size_t(y)] = int(runs.size());
        const std::uint8_t* row = mask.ptr<std::uint8_t>(y);
        int x = 0;
        const int w = mask.cols;
        while (x < w) {
            while (x + 16 <= w && !cv::v_check_any(cv::v_reinterpret_as_s8(cv::v_load(row + x)) !=
                                                   cv::v_setzero_s8()))
                x += 16;
            while (x < w && !row[x]) ++x;
            if (x >= w) break;
            const int start = x;
            while (x < w && row[x]) ++x;
            runs.push_back({start, x, int(runs.size())});
        }
    }
    rowStart[std::size_t(mask.rows)] = int(runs.size());
    auto root = [&runs](int i) {
        while (runs[std::size_t(i)].parent != i) {
            int& up = runs[std::size_t(i)].parent;
            up = runs[std::size_t(up)].parent;  // path halving
            i = up;
        }
        return i;
    };
    // runs of neighbouring rows touch (8-connected) when their column ranges, one widened by a
    // pixel each side, overlap; the earlier run becomes the root
    for (int y = 1; y < mask.rows; ++y) {
        int a = rowStart[std::size_t(y - 1)], b = rowStart[std::size_t(y)];
        const int aEnd = rowStart[std::size_t(y)], bEnd = rowStart[std::size_t(y) + 1];
        while (a < aEnd && b < bEnd) {
            const Run &ra = runs[std::size_t(a)], &rb = runs[std::size_t(b)];
            if (ra.start <= rb.end && rb.start <= ra.end) {
                const int ka = root(a), kb = root(b);
                if (ka < kb)
                    runs[std::size_t(kb)].parent = ka;
                else if (kb < ka)
                    runs[std::size_t(ka)].parent = kb;
            }
            if (ra.end < rb.end)
                ++a;
            else
                ++b;
        }
    }
    // figures per component, numbered by first run; each also keeps the first 2 x 2 block (in block
    // raster order) it touches, the order CCL_GRANA numbers its labels in
    struct Acc {
        int x0, y0, x1, y1, area;
        double sx, sy;
        std::int64_t firstBlock;
    };
    std::vector<Acc> acc;
    std::vector<int> compOf(runs.size(), -1);  // by root run; then by run (for the big mask)
    const std::int64_t blockCols = std::int64_t(mask.cols) / 2 + 1;
    for (int y = 0; y < mask.rows; ++y)
        for (int i = rowStart[std::size_t(y)]; i < rowStart[std::size_t(y) + 1]; ++i) {
            const Run& r = runs[std::size_t(i)];
            const int k = root(i);
            int c = compOf[std::size_t(k)];
            const std::int64_t block = std::int64_t(y / 2) * blockCols + r.start / 2;
            if (c < 0) {
                c = compOf[std::size_t(k)] = int(acc.size());
                acc.push_back({r.start, y, r.end - 1, y, 0, 0.0, 0.0, block});
            }
            Acc& a = acc[std::size_t(c)];
            a.x0 = std::min(a.x0, r.start);
            a.x1 = std::max(a.x1, r.end - 1);
            a.y1 = y;
            const int n = r.end - r.start;
            a.area += n;
            a.sx += double(r.start + r.end - 1) * n / 2;  // exact: a sum of whole columns
            a.sy += double(y) * n;
            a.firstBlock = std::min(a.firstBlock, block);
            if (k != i) compOf[std::size_t(i)] = c;
        }
    std::vector<int> order(acc.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = int(i);
    std::sort(order.begin(), order.end(), [&acc](int a, int b) {
        return acc[std::size_t(a)].firstBlock < acc[std::size_t(b)].firstBlock;
    });
    std::vector<InkComponent> out;
    out.reserve(acc.size());
    for (int i : order) {
        const Acc& a = acc[std::size_t(i)];
        out.push_back(
            {a.x0, a.y0, a.x1 - a.x0 + 1, a.y1 - a.y0 + 1, a.area, a.sx / a.area, a.sy / a.area});
    }
    if (big) {
        std::vector<std::uint8_t> isBig(acc.size());
        for (std::size_t c = 0; c < acc.size(); ++c)
            isBig[c] = std::max(acc[c].x1 - acc[c].x0, acc[c].y1 - acc[c].y0) + 1 > bigSide;
        big->create(mask.size(), CV_8U);
        big->setTo(0);
        for (int y = 0; y < mask.rows; ++y) {
            std::uint8_t* row = big->ptr<std::uint8_t>(y);
            for (int i = rowStart[std::size_t(y)]; i < rowStart[std::size_t(y) + 1]; ++i)
                if (isBig[std::size_t(compOf[std::size_t(i)])]) {
                    const Run& r = runs[std::size_t(i)];
                    std::memset(row + r.start, 255, std::size_t(r.end - r.start));
                }
        }
    }
    return out;
}

}  // namespace nertz::vision
