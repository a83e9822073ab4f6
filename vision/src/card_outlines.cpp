// Card outlines; see card_outlines.hpp.
#include "nertz/vision/card_outlines.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include <opencv2/imgproc.hpp>

namespace nertz::vision {

Quad orderCorners(const std::vector<cv::Point2f>& pts) {
    cv::Point2f c(0, 0);
    for (auto& p : pts) c += p;
    c *= 1.f / float(pts.size());
    std::vector<cv::Point2f> s = pts;
    std::sort(s.begin(), s.end(), [&](const cv::Point2f& a, const cv::Point2f& b) {
        return std::atan2(a.y - c.y, a.x - c.x) < std::atan2(b.y - c.y, b.x - c.x);
    });
    // angles run from -pi: the corner with the smallest x + y starts (top-left), then clockwise
    std::size_t start = 0;
    for (std::size_t i = 1; i < s.size(); ++i)
        if (s[i].x + s[i].y < s[start].x + s[start].y) start = i;
    Quad q;
    for (int i = 0; i < 4; ++i) q[i] = s[(start + i) % 4];
    return q;
}

bool quadContains(const Quad& q, cv::Point2f p) {
    std::vector<cv::Point2f> poly(q.begin(), q.end());
    return cv::pointPolygonTest(poly, p, false) >= 0;
}

namespace {

// A contour as a card's outline: four-sided (fitted at 3% of its length, else at 5%, 7% ... up to
// `loosest`), convex, 0.3-70% of the picture, a card's aspect, filling its rectangle; with the side
// guessed from the mean saturation and value inside, and with `cornerSides` a face also where
// that says back but the card showsIndexCorners (a court card's picture).
std::optional<CardOutline> cardOutline(const std::vector<cv::Point>& c, const cv::Mat& bgr,
                                       double loosest, bool cornerSides) {
    const double imageArea = double(bgr.cols) * bgr.rows;
    const double area = cv::contourArea(c);
    if (area < 0.003 * imageArea || area > 0.7 * imageArea) return std::nullopt;
    std::vector<cv::Point> approx;
    const double length = cv::arcLength(c, true);
    for (double eps = 0.03; eps <= loosest + 1e-9; eps += 0.02) {
        cv::approxPolyDP(c, approx, eps * length, true);
        if (approx.size() <= 4) break;
    }
    if (approx.size() != 4 || !cv::isContourConvex(approx)) return std::nullopt;
    const cv::RotatedRect rr = cv::minAreaRect(approx);
    const float lo = std::min(rr.size.width, rr.size.height),
                hi = std::max(rr.size.width, rr.size.height);
    if (lo <= 0 || hi / lo < 1.1f || hi / lo > 2.2f) return std::nullopt;
    if (area < 0.8 * double(rr.size.area())) return std::nullopt;
    std::vector<cv::Point2f> pts(approx.begin(), approx.end());
    CardOutline o;
    o.quad = orderCorners(pts);
    // mean hue, saturation and value inside the outline (its box only: the rest is masked out)
    const cv::Rect box = cv::boundingRect(approx) & cv::Rect(0, 0, bgr.cols, bgr.rows);
    if (box.area() <= 0) return std::nullopt;
    cv::Mat hsv;
    cv::cvtColor(bgr(box), hsv, cv::COLOR_BGR2HSV);
    cv::Mat mask = cv::Mat::zeros(box.size(), CV_8U);
    std::vector<cv::Point> local;
    for (const auto& p : approx) local.push_back(p - box.tl());
    cv::fillConvexPoly(mask, local, 255);
    const cv::Scalar m = cv::mean(hsv, mask);
    o.side = (m[1] < 70 && m[2] > 110) || (cornerSides && showsIndexCorners(bgr, o.quad)) ? Side::Face
                                                                                         : Side::Back;
    return o;
}

cv::Point2f middle(const Quad& q) { return (q[0] + q[1] + q[2] + q[3]) * 0.25f; }

}  // namespace

std::vector<CardOutline> findCardOutlines(const cv::Mat& bgr, bool indexCornerSides) {
    std::vector<CardOutline> out;
    if (bgr.empty()) return out;
    cv::Mat gray, bw;
    cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
    cv::GaussianBlur(gray, gray, cv::Size(5, 5), 0);
    cv::threshold(gray, bw, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    cv::morphologyEx(bw, bw, cv::MORPH_CLOSE,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(bw, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    for (const auto& c : contours)
        if (auto o = cardOutline(c, bgr, 0.03, indexCornerSides)) out.push_back(*o);
    return out;
}

bool showsIndexCorners(const cv::Mat& bgr, const Quad& q) {
    if (bgr.empty() || bgr.type() != CV_8UC3) return false;
    constexpr int kW = 60, kH = 90, kEdge = 3;
    const float across = float(cv::norm(q[1] - q[0])), down = float(cv::norm(q[2] - q[1]));
    if (across < 8.f || down < 8.f) return false;
    // the card upright (its long side down); which way up does not matter, the test is symmetric
    const std::array<cv::Point2f, 4> upright =
        down >= across
            ? std::array<cv::Point2f, 4>{{{0, 0}, {kW - 1, 0}, {kW - 1, kH - 1}, {0, kH - 1}}}
            : std::array<cv::Point2f, 4>{{{0, kH - 1}, {0, 0}, {kW - 1, 0}, {kW - 1, kH - 1}}};
    const cv::Mat m = cv::getPerspectiveTransform(q.data(), upright.data());
    cv::Mat card, hsv;
    cv::warpPerspective(bgr, card, m, cv::Size(kW, kH), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    cv::cvtColor(card, hsv, cv::COLOR_BGR2HSV);
    const cv::Rect inner(kEdge, kEdge, kW - 2 * kEdge, kH - 2 * kEdge);
    // the paper's brightness: the 95th percentile of the value inside
    int hist[256] = {};
    for (int y = inner.y; y < inner.br().y; ++y)
        for (int x = inner.x; x < inner.br().x; ++x) ++hist[hsv.at<cv::Vec3b>(y, x)[2]];
    const int n95 = int(0.95 * inner.area());
    int v95 = 0;
    for (int acc = 0; v95 < 255 && acc + hist[v95] <= n95; ++v95) acc += hist[v95];
    if (v95 < 60) return false;  // a dark card: no paper white to read ink on
    cv::Mat white(kH, kW, CV_8U), ink(kH, kW, CV_8U);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const cv::Vec3b p = hsv.at<cv::Vec3b>(y, x);
            const bool w = p[1] < 60 && p[2] > 0.75 * v95;
            white.at<uchar>(y, x) = w;
            ink.at<uchar>(y, x) = !w && (p[2] < 0.6 * v95 || p[1] > 90);
        }
    if (cv::sum(white(inner))[0] < 0.2 * inner.area()) return false;
    // the corner cells where indices print: a fifth of the width, a fifth of the height
    struct Cell {
        double white, ink;
    };
    auto cellAt = [&](bool right, bool bottom) {
        const cv::Rect cell(right ? kW - kEdge - 12 : kEdge, bottom ? kH - kEdge - 17 : kEdge, 12, 17);
        const double a = cell.area();
        return Cell{cv::sum(white(cell))[0] / a, cv::sum(ink(cell))[0] / a};
    };
    const std::array<Cell, 4> c{cellAt(false, false), cellAt(true, false), cellAt(true, true),
                                cellAt(false, true)};  // clockwise from the top left
    auto index = [](const Cell& k, double leastWhite) { return k.white >= leastWhite && k.ink >= 0.06; };
    auto bare = [](const Cell& k) { return k.white >= 0.7 && k.ink <= 0.02; };
    for (int d = 0; d < 2; ++d) {
        const Cell &a = c[std::size_t(d)], &b = c[std::size_t(d + 2)];
        const Cell &x = c[std::size_t(d + 1)], &y = c[std::size_t((d + 3) % 4)];
        // two index corners on paper; or two inked ones (a large index, a pip beside it) with the
        // other two corners bare paper, as a face prints them and a back's pattern does not
        if (index(a, 0.45) && index(b, 0.45)) return true;
        if (index(a, 0.2) && index(b, 0.2) && bare(x) && bare(y)) return true;
    }
    return false;
}

std::vector<CardOutline> findCardOutlinesByEdges(const cv::Mat& bgr,
                                                 const std::vector<CardOutline>& known, double loosestFit) {
    std::vector<CardOutline> out;
    if (bgr.empty()) return out;
    cv::Mat gray, edges;
    cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
    cv::GaussianBlur(gray, gray, cv::Size(5, 5), 0);
    cv::Canny(gray, edges, 20, 60);
    // closed over small gaps of a card's edge (a soft shadow, a corner's round)
    cv::dilate(edges, edges, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(edges, contours, cv::RETR_LIST, cv::CHAIN_APPROX_SIMPLE);
    auto overlaps = [](const Quad& a, const Quad& b) {
        return quadContains(a, middle(b)) || quadContains(b, middle(a));
    };
    for (const auto& c : contours) {
        const auto o = cardOutline(c, bgr, loosestFit, true);
        if (!o || o->side != Side::Face) continue;
        const bool seen =
            std::any_of(known.begin(), known.end(), [&](const CardOutline& k) { return overlaps(k.quad, o->quad); }) ||
            std::any_of(out.begin(), out.end(), [&](const CardOutline& k) { return overlaps(k.quad, o->quad); });
        if (!seen) out.push_back(*o);
    }
    return out;
}

}  // namespace nertz::vision
