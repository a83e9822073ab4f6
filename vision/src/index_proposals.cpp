// Corner-index candidates; see index_proposals.hpp (and models/training/proposals.py, its twin).
#include "nertz/vision/index_proposals.hpp"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

namespace nertz::vision {
namespace {

struct Blob {
    float x, y, s;
};

std::vector<Blob> inkBlobs(const cv::Mat& g, const ProposalParams& p) {
    cv::Mat bw, labels, stats, centroids;
    cv::adaptiveThreshold(g, bw, 255, cv::ADAPTIVE_THRESH_MEAN_C, cv::THRESH_BINARY_INV, p.block, p.thresholdC);
    int n = cv::connectedComponentsWithStats(bw, labels, stats, centroids, 8, CV_32S);
    std::vector<Blob> out;
    for (int i = 1; i < n; ++i) {
        int w = stats.at<int>(i, cv::CC_STAT_WIDTH), h = stats.at<int>(i, cv::CC_STAT_HEIGHT);
        int area = stats.at<int>(i, cv::CC_STAT_AREA);
        int s = std::max(w, h);
        if (s < p.minBlob || s > p.maxBlob || area < 10) continue;
        double fill = double(area) / (double(w) * h);
        if (fill < 0.12 || fill > 0.97) continue;
        out.push_back({float(centroids.at<double>(i, 0)), float(centroids.at<double>(i, 1)), float(s)});
    }
    return out;
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
    for (const cv::Mat& l : pyr.levels) pyr.inverted.push_back(255 - l);
    return pyr;
}

std::vector<IndexCandidate> proposeIndexCandidates(const ProposalPyramid& pyr, const ProposalParams& p) {
    std::vector<IndexCandidate> out;
    for (std::size_t li = 0; li < pyr.levels.size(); ++li) {
        float f = float(1 << li);
        for (bool inv : {false, true}) {
            std::vector<Blob> bl = inkBlobs(inv ? pyr.inverted[li] : pyr.levels[li], p);
            for (std::size_t i = 0; i < bl.size(); ++i) {
                for (std::size_t j = 0; j < bl.size(); ++j) {
                    if (i == j) continue;
                    float smax = std::max(bl[i].s, bl[j].s), smin = std::min(bl[i].s, bl[j].s);
                    if (smin < 0.3f * smax) continue;
                    float dx = bl[i].x - bl[j].x, dy = bl[i].y - bl[j].y;
                    float d2 = dx * dx + dy * dy;
                    if (d2 <= (0.55f * smax) * (0.55f * smax) || d2 >= (1.9f * smax) * (1.9f * smax)) continue;
                    out.push_back({{bl[i].x * f, bl[i].y * f}, {bl[j].x * f, bl[j].y * f}, inv});
                }
            }
        }
    }
    return out;
}

cv::Mat cutIndexPatch(const ProposalPyramid& pyr, const IndexCandidate& c, const ProposalParams& p) {
    double d = std::hypot(double(c.b.x - c.a.x), double(c.b.y - c.a.y));
    int k = int(std::lround(std::log2(std::max(d, 1e-3) / p.idealDistance)));
    k = std::clamp(k, 0, int(pyr.levels.size()) - 1);
    double q = double(1 << k);
    double ax = c.a.x / q, ay = c.a.y / q, bx = c.b.x / q, by = c.b.y / q;
    double vx = bx - ax, vy = by - ay, dd = std::hypot(vx, vy);
    double dx = vx / dd, dy = vy / dd, rx = -dy, ry = dx;
    double cx = (ax + bx) / 2, cy = (ay + by) / 2;
    double sw = p.spanWidth * dd, sh = p.spanHeight * dd;
    double kx = sw / p.patchWidth, ky = sh / p.patchHeight;
    cv::Matx23d m(rx * kx, dx * ky, cx - rx * sw / 2 - dx * sh / 2,
                  ry * kx, dy * ky, cy - ry * sw / 2 - dy * sh / 2);
    cv::Mat patch;
    cv::warpAffine(c.invert ? pyr.inverted[k] : pyr.levels[k], patch, m, cv::Size(p.patchWidth, p.patchHeight),
                   cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_REPLICATE);
    return patch;
}

}  // namespace nertz::vision
