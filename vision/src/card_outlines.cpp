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

// A contour as a card's outline: four-sided, convex, 0.3-70% of the picture, a card's aspect, filling
// its rectangle; with the side guessed from the mean saturation and value inside.
std::optional<CardOutline> cardOutline(const std::vector<cv::Point>& c, const cv::Mat& bgr) {
    const double imageArea = double(bgr.cols) * bgr.rows;
    const double area = cv::contourArea(c);
    if (area < 0.003 * imageArea || area > 0.7 * imageArea) return std::nullopt;
    std::vector<cv::Point> approx;
    cv::approxPolyDP(c, approx, 0.03 * cv::arcLength(c, true), true);
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
    o.side = (m[1] < 70 && m[2] > 110) ? Side::Face : Side::Back;
    return o;
}

cv::Point2f middle(const Quad& q) { return (q[0] + q[1] + q[2] + q[3]) * 0.25f; }

}  // namespace

std::vector<CardOutline> findCardOutlines(const cv::Mat& bgr) {
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
        if (auto o = cardOutline(c, bgr)) out.push_back(*o);
    return out;
}

std::vector<CardOutline> findCardOutlinesByEdges(const cv::Mat& bgr,
                                                 const std::vector<CardOutline>& known) {
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
        const auto o = cardOutline(c, bgr);
        if (!o || o->side != Side::Face) continue;
        const bool seen =
            std::any_of(known.begin(), known.end(), [&](const CardOutline& k) { return overlaps(k.quad, o->quad); }) ||
            std::any_of(out.begin(), out.end(), [&](const CardOutline& k) { return overlaps(k.quad, o->quad); });
        if (!seen) out.push_back(*o);
    }
    return out;
}

}  // namespace nertz::vision
