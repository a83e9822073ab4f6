// Stream counting; see stream_counter.hpp.
#include "nertz/vision/stream_counter.hpp"

#include "nertz/vision/back_finder.hpp"

#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace nertz::vision {

namespace {

// Pixels whose largest channel difference is above `t`.
cv::Mat changed(const cv::Mat& a, const cv::Mat& b, int t) {
    cv::Mat d;
    cv::absdiff(a, b, d);
    std::vector<cv::Mat> ch;
    cv::split(d, ch);
    cv::Mat m = cv::max(ch[0], cv::max(ch[1], ch[2]));
    return m > t;
}

}  // namespace

StreamCounter::StreamCounter(const BackMatcher& matcher, StreamOptions options)
    : matcher_(&matcher), options_(options) {
    for (const auto& d : matcher.decks()) count_.counts[d.name] = 0;
}

std::vector<CountedCard> StreamCounter::push(const cv::Mat& bgr) {
    if (bgr.empty() || bgr.type() != CV_8UC3)
        throw std::invalid_argument("frame " + std::to_string(frame_) +
                                    ": not an 8-bit BGR picture");
    if (frame_ == 0) {
        size_ = bgr.size();
        scale_ = std::min(1.f, float(options_.workLongSide) / float(std::max(bgr.cols, bgr.rows)));
    } else if (bgr.size() != size_) {
        throw std::invalid_argument("frame " + std::to_string(frame_) + ": size changed mid-clip");
    }
    cv::Mat small;
    cv::resize(bgr, small, cv::Size(), scale_, scale_, cv::INTER_AREA);
    cv::GaussianBlur(small, small, cv::Size(3, 3), 0);
    std::vector<CountedCard> fresh;
    const int index = frame_++;
    if (previous_.empty()) {
        previous_ = small;
        reference_ = small.clone();
        return fresh;
    }
    const double area = double(small.total());
    const cv::Mat moved = changed(small, previous_, options_.pixelThreshold);
    const bool still = cv::countNonZero(moved) < options_.stillFraction * area;
    previous_ = small;
    if (!still) {
        pending_ = true;
        return fresh;
    }
    // at rest: what changed against the last rest?
    cv::Mat diff = changed(small, reference_, options_.pixelThreshold);
    cv::morphologyEx(diff, diff, cv::MORPH_OPEN,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    cv::morphologyEx(diff, diff, cv::MORPH_CLOSE,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
    const int n = cv::countNonZero(diff);
    pending_ = false;
    if (n < options_.minCardFraction * area) {
        // nothing new (a hand passed, or light flickered): adopt this view as the rest
        reference_ = small.clone();
        return fresh;
    }
    // only what now lies on the table counts: a hand or a moving card seen at the last rest
    // left a change where the table shows again
    diff &= tableForeground(small);
    if (cv::countNonZero(diff) < options_.minCardFraction * area) {
        reference_ = small.clone();
        return fresh;
    }
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(diff, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    double largest = 0;
    for (const auto& c : contours) largest = std::max(largest, cv::contourArea(c));
    std::vector<cv::Point> pts;
    for (const auto& c : contours)
        if (cv::contourArea(c) >= 0.1 * largest) pts.insert(pts.end(), c.begin(), c.end());
    reference_ = small.clone();
    if (pts.size() < 3) return fresh;
    const cv::RotatedRect box = cv::minAreaRect(pts);
    cv::Point2f p[4];
    box.points(p);
    Quad q;
    for (int i = 0; i < 4; ++i) q[std::size_t(i)] = p[i] * (1.f / scale_);
    CountedCard c = attributeCard(bgr, q, {}, *matcher_);
    c.frame = index;
    if (c.deck >= 0)
        ++count_.counts[c.deckName];
    else
        ++count_.unknown;
    count_.cards.push_back(c);
    fresh.push_back(c);
    return fresh;
}

}  // namespace nertz::vision
