// Corner-index candidates; see index_proposals.hpp (and models/training/proposals.py, its twin).
#include "nertz/vision/index_proposals.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <opencv2/imgproc.hpp>

namespace nertz::vision {
namespace {

struct Blob {
    float x, y, s;
};

// Blobs of glyph size of mask bw (appended to out); where big is given, it becomes the mask of the
// components too large to be a glyph (longest side > maxBlob).
void blobsOf(const cv::Mat& bw, const ProposalParams& p, int minBlob, std::vector<Blob>& out,
             cv::Mat* big = nullptr) {
    cv::Mat labels, stats, centroids;
    int n = cv::connectedComponentsWithStats(bw, labels, stats, centroids, 8, CV_32S);
    std::vector<std::uint8_t> isBig(std::size_t(std::max(n, 1)), 0);
    bool anyBig = false;
    for (int i = 1; i < n; ++i) {
        int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
        int area = stats.at<int>(i, cv::CC_STAT_AREA);
        int s = std::max(w, h);
        if (s > p.maxBlob) {
            isBig[std::size_t(i)] = 255;
            anyBig = true;
        }
        if (s < minBlob || s > p.maxBlob || area < 10) continue;
        double fill = double(area) / (double(w) * h);
        if (fill < 0.12 || fill > 0.97) continue;
        out.push_back({float(centroids.at<double>(i, 0)), float(centroids.at<double>(i, 1)), float(s)});
    }
    if (!big) return;
    big->create(bw.size(), CV_8U);
    if (!anyBig) {
        big->setTo(0);
        return;
    }
    for (int y = 0; y < bw.rows; ++y) {
        const int* l = labels.ptr<int>(y);
        std::uint8_t* d = big->ptr<std::uint8_t>(y);
        for (int x = 0; x < bw.cols; ++x) d[x] = isBig[std::size_t(l[x])];
    }
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
    for (int y = 0; y < g.rows; ++y) {
        const std::uint8_t* gs = g.ptr<std::uint8_t>(y);
        const std::uint8_t* ms = mean.ptr<std::uint8_t>(y);
        std::uint8_t* d = bwDark.ptr<std::uint8_t>(y);
        std::uint8_t* l = bwLight.ptr<std::uint8_t>(y);
        for (int x = 0; x < g.cols; ++x) {
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
    blobsOf(bwDark, p, minBlob, dark, &bigDark);
    blobsOf(bwLight, p, minBlob, light, &bigLight);
    const cv::Mat k = cv::getStructuringElement(cv::MORPH_RECT, cv::Size(p.paperClose, p.paperClose));
    cv::Mat paper;
    if (cv::countNonZero(bigDark) > 0) {
        cv::morphologyEx(bwLight, paper, cv::MORPH_CLOSE, k);
        cv::bitwise_and(bigDark, paper, bigDark);
        blobsOf(bigDark, p, minBlob, dark);
    }
    if (cv::countNonZero(bigLight) > 0) {
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

cv::Mat cutIndexPatch(const ProposalPyramid& pyr, const IndexCandidate& c, const ProposalParams& p) {
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
    cv::Mat patch(p.patchHeight, p.patchWidth, CV_8U);
    // inside: every sample and its right/lower neighbour lie in the level (no clamping needed)
    bool inside = true;
    for (float u : {0.f, float(p.patchWidth - 1)})
        for (float v : {0.f, float(p.patchHeight - 1)}) {
            const float x = m00 * u + m01 * v + m02, y = m10 * u + m11 * v + m12;
            inside = inside && x >= 0.f && y >= 0.f && x < float(W - 1) && y < float(H - 1);
        }
    const std::uint8_t flip = c.invert ? 255 : 0;
    for (int v = 0; v < p.patchHeight; ++v) {
        std::uint8_t* out = patch.ptr<std::uint8_t>(v);
        float x = m01 * float(v) + m02, y = m11 * float(v) + m12;
        for (int u = 0; u < p.patchWidth; ++u, x += m00, y += m10) {
            const int x0 = int(x + 4096.f) - 4096, y0 = int(y + 4096.f) - 4096;  // floor for |x| < 4096
            const float wx = x - float(x0), wy = y - float(y0);
            int xa = x0, xb = x0 + 1, ya = y0, yb = y0 + 1;
            if (!inside) {
                xa = std::clamp(xa, 0, W - 1); xb = std::clamp(xb, 0, W - 1);
                ya = std::clamp(ya, 0, H - 1); yb = std::clamp(yb, 0, H - 1);
            }
            const std::uint8_t* ra = base + std::size_t(ya) * step;
            const std::uint8_t* rb = base + std::size_t(yb) * step;
            const float top = float(ra[xa]) + wx * (float(ra[xb]) - float(ra[xa]));
            const float bot = float(rb[xa]) + wx * (float(rb[xb]) - float(rb[xa]));
            const int val = int(top + wy * (bot - top) + 0.5f);  // 0..255: a convex mix of bytes
            out[u] = std::uint8_t(val ^ flip);
        }
    }
    return patch;
}

}  // namespace nertz::vision
