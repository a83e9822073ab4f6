// Card outlines; see card_outlines.hpp.
#include "nertz/vision/card_outlines.hpp"

#include <algorithm>
#include <cmath>

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

std::vector<CardOutline> findCardOutlines(const cv::Mat& bgr) {
    std::vector<CardOutline> out;
    if (bgr.empty()) return out;
    cv::Mat gray, hsv, bw;
    cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
    cv::GaussianBlur(gray, gray, cv::Size(5, 5), 0);
    cv::threshold(gray, bw, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    cv::morphologyEx(bw, bw, cv::MORPH_CLOSE,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(bw, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    const double imageArea = double(bgr.cols) * bgr.rows;
    for (const auto& c : contours) {
        double area = cv::contourArea(c);
        if (area < 0.003 * imageArea || area > 0.7 * imageArea) continue;
        std::vector<cv::Point> approx;
        cv::approxPolyDP(c, approx, 0.03 * cv::arcLength(c, true), true);
        if (approx.size() != 4 || !cv::isContourConvex(approx)) continue;
        cv::RotatedRect rr = cv::minAreaRect(approx);
        float lo = std::min(rr.size.width, rr.size.height),
              hi = std::max(rr.size.width, rr.size.height);
        if (lo <= 0 || hi / lo < 1.1f || hi / lo > 2.2f) continue;
        if (area < 0.8 * double(rr.size.area())) continue;
        std::vector<cv::Point2f> pts(approx.begin(), approx.end());
        CardOutline o;
        o.quad = orderCorners(pts);
        // mean hue, saturation and value inside the outline (its box only: the rest is masked out)
        const cv::Rect box = cv::boundingRect(approx) & cv::Rect(0, 0, bgr.cols, bgr.rows);
        cv::cvtColor(bgr(box), hsv, cv::COLOR_BGR2HSV);
        cv::Mat mask = cv::Mat::zeros(box.size(), CV_8U);
        std::vector<cv::Point> local;
        for (const auto& p : approx) local.push_back(p - box.tl());
        cv::fillConvexPoly(mask, local, 255);
        cv::Scalar m = cv::mean(hsv, mask);
        o.side = (m[1] < 70 && m[2] > 110) ? Side::Face : Side::Back;
        out.push_back(o);
    }
    return out;
}

}  // namespace nertz::vision
