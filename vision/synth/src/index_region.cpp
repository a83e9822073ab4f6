// Finds where the corner index (rank glyph + suit pip) is printed on a rendered card face.
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include "nertz/synth/card_art.hpp"

namespace nertz::synth {
namespace {

// The card's paper colour: the most common colour (quantised) of opaque pixels in `bgra`.
cv::Vec3b paperColour(const cv::Mat& bgra, const cv::Mat& opaque) {
    std::vector<int> hist(4096, 0);
    for (int y = 0; y < bgra.rows; ++y) {
        for (int x = 0; x < bgra.cols; ++x) {
            if (!opaque.at<uchar>(y, x)) continue;
            const auto& p = bgra.at<cv::Vec4b>(y, x);
            ++hist[(p[0] >> 4) << 8 | (p[1] >> 4) << 4 | (p[2] >> 4)];
        }
    }
    const int best = int(std::max_element(hist.begin(), hist.end()) - hist.begin());
    return {uchar(((best >> 8) & 15) * 16 + 8), uchar(((best >> 4) & 15) * 16 + 8), uchar((best & 15) * 16 + 8)};
}

// The index box in the top-left corner of `bgra`, or nullopt.
std::optional<cv::Rect> topLeftIndex(const cv::Mat& bgra) {
    const int w = bgra.cols, h = bgra.rows;
    const cv::Rect region(0, 0, int(std::lround(w * 0.36)), int(std::lround(h * 0.40)));
    std::vector<cv::Mat> ch;
    cv::split(bgra, ch);
    cv::Mat opaque = ch[3] > 200;
    // keep away from the card's outline: erode the card shape by ~2% of its width (outline strokes
    // that remain run along the region's edges and are dropped below)
    const int margin = std::max(2, int(std::lround(w * 0.022)));
    cv::Mat inner;
    cv::erode(opaque, inner, cv::getStructuringElement(cv::MORPH_ELLIPSE, {2 * margin + 1, 2 * margin + 1}));
    const cv::Mat corner = bgra(region);
    const cv::Vec3b paper = paperColour(corner, inner(region));
    cv::Mat ink(region.size(), CV_8U, cv::Scalar(0));
    for (int y = 0; y < region.height; ++y) {
        for (int x = 0; x < region.width; ++x) {
            if (!inner.at<uchar>(y, x)) continue;
            const auto& p = corner.at<cv::Vec4b>(y, x);
            const int d = std::abs(p[0] - paper[0]) + std::abs(p[1] - paper[1]) + std::abs(p[2] - paper[2]);
            if (d > 90) ink.at<uchar>(y, x) = 255;
        }
    }
    // join the strokes of one glyph ("10", a pip's stem) without joining the rank to the pip
    cv::Mat joined;
    cv::dilate(ink, joined, cv::getStructuringElement(cv::MORPH_RECT, {3, 3}));
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(joined, labels, stats, centroids, 8);
    struct Blob {
        cv::Rect box;
        int area;
    };
    std::vector<Blob> blobs;
    const int minArea = std::max(6, int(w * h * 0.0004));
    for (int i = 1; i < n; ++i) {
        const cv::Rect b(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                         stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT));
        const int area = stats.at<int>(i, cv::CC_STAT_AREA);
        // court-card frames and big centre pips run out of the corner region: not an index
        if (b.x + b.width >= region.width - 1 || b.y + b.height >= region.height - 1) continue;
        if (area < minArea || b.height > h * 0.2 || b.width > w * 0.3) continue;
        blobs.push_back({b, area});
    }
    if (blobs.empty()) return std::nullopt;
    // the rank glyph: the blob nearest the corner
    auto seed = std::min_element(blobs.begin(), blobs.end(), [](const Blob& a, const Blob& b) {
        return a.box.x + a.box.y < b.box.x + b.box.y;
    });
    cv::Rect box = seed->box;
    blobs.erase(seed);
    // grow by the suit pip (below or beside it) and the second stroke of a rank such as "10"
    for (int round = 0; round < 3 && !blobs.empty(); ++round) {
        std::optional<std::size_t> pick;
        double bestGap = 1e9;
        for (std::size_t i = 0; i < blobs.size(); ++i) {
            const cv::Rect& b = blobs[i].box;
            const int xOverlap = std::min(box.x + box.width, b.x + b.width) - std::max(box.x, b.x);
            const int yOverlap = std::min(box.y + box.height, b.y + b.height) - std::max(box.y, b.y);
            double gap = 1e9;
            if (xOverlap > 0.3 * std::min(box.width, b.width) && b.y >= box.y + box.height / 2)
                gap = b.y - (box.y + box.height);  // below
            else if (yOverlap > 0.5 * std::min(box.height, b.height) && b.x >= box.x + box.width / 2)
                gap = b.x - (box.x + box.width);  // beside
            if (gap < bestGap && gap < 0.6 * std::max(box.height, 8)) {
                bestGap = gap;
                pick = i;
            }
        }
        if (!pick) break;
        box |= blobs[*pick].box;
        blobs.erase(blobs.begin() + std::ptrdiff_t(*pick));
    }
    // undo the dilation, then a small margin as in hand-drawn labels
    box = cv::Rect(box.x + 1 - 2, box.y + 1 - 2, box.width - 2 + 4, box.height - 2 + 4) & cv::Rect(0, 0, w, h);
    if (box.height < h * 0.05 || box.width < w * 0.035) return std::nullopt;
    return box;
}

}  // namespace

std::vector<IndexRegion> findIndexRegions(const cv::Mat& faceBgra) {
    CV_Assert(faceBgra.type() == CV_8UC4);
    std::optional<cv::Rect> tl = topLeftIndex(faceBgra);
    cv::Mat rotated;
    cv::rotate(faceBgra, rotated, cv::ROTATE_180);
    std::optional<cv::Rect> br = topLeftIndex(rotated);  // in the rotated image's coordinates
    // cards are printed point-symmetric: when one corner's finding is much smaller (the rank glyph
    // or the pip missed), the other corner's box, turned by 180 degrees, is the better answer
    if (tl && br) {
        if (tl->height < 0.75 * br->height || tl->width < 0.6 * br->width) tl = br;
        else if (br->height < 0.75 * tl->height || br->width < 0.6 * tl->width) br = tl;
    } else if (tl) {
        br = tl;
    } else if (br) {
        tl = br;
    }
    std::vector<IndexRegion> out;
    if (!tl || !br) return out;
    const float w = float(faceBgra.cols), h = float(faceBgra.rows);
    out.push_back({cv::Rect2f(*tl), "top_left"});
    out.push_back({cv::Rect2f(w - float(br->x + br->width), h - float(br->y + br->height), float(br->width), float(br->height)),
                   "bottom_right"});
    return out;
}

cv::Mat indexSheet(const CardDesign& design) {
    if (design.faces.empty()) return {};
    const int cw = 250, chh = 350, cols = 13, rows = int((design.faces.size() + cols - 1) / cols);
    cv::Mat sheet(rows * chh, cols * cw, CV_8UC3, cv::Scalar(60, 90, 60));
    for (std::size_t i = 0; i < design.faces.size(); ++i) {
        const FaceArt& f = design.faces[i];
        const cv::Rect cell(int(i % cols) * cw, int(i / cols) * chh, std::min(cw, f.image.cols), std::min(chh, f.image.rows));
        cv::Mat bgr;
        cv::cvtColor(f.image(cv::Rect(0, 0, cell.width, cell.height)), bgr, cv::COLOR_BGRA2BGR);
        bgr.copyTo(sheet(cell));
        for (const auto& r : f.indices) {
            cv::rectangle(sheet, cv::Rect(r.box) + cell.tl(), r.corner == "top_left" ? cv::Scalar(0, 200, 0) : cv::Scalar(255, 0, 255), 2);
        }
    }
    return sheet;
}

}  // namespace nertz::synth
