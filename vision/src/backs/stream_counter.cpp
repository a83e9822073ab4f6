// Stream counting; see stream_counter.hpp.
#include "nertz/vision/stream_counter.hpp"

#include "nertz/vision/back_finder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

namespace nertz::vision {

namespace {

// Pixels whose largest channel difference is above `t`, or whose 5x5 neighbourhood differs by more
// than `meanShare` x `t` on average (a card near the table's colour differs by its pattern, in
// speckles too small for `t` alone; the window's mean makes one piece of them). meanShare 0: off.
cv::Mat changed(const cv::Mat& a, const cv::Mat& b, int t, float meanShare = 0.f) {
    cv::Mat d;
    cv::absdiff(a, b, d);
    std::vector<cv::Mat> ch;
    cv::split(d, ch);
    cv::Mat m = cv::max(ch[0], cv::max(ch[1], ch[2]));
    cv::Mat out = m > t;
    if (meanShare > 0.f) {
        cv::Mat mean;
        cv::blur(m, mean, cv::Size(5, 5));
        // eroded by the window's reach, so that a card that differs strongly is not grown by it
        cv::Mat textured = mean > meanShare * float(t);
        cv::erode(textured, textured, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
        out |= textured;
    }
    return out;
}

cv::Point rounded(cv::Point2f p) {
    return {int(std::lround(p.x)), int(std::lround(p.y))};
}

// `diff` cleaned of speckle and closed over a card's pattern.
void clean(cv::Mat& diff) {
    cv::morphologyEx(diff, diff, cv::MORPH_OPEN,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    cv::morphologyEx(diff, diff, cv::MORPH_CLOSE,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(5, 5)));
}

}  // namespace

void StreamCounter::Track::carryOn() {
    const cv::Point2f s = step();
    centre += s;
    box += rounded(s);
    lost = 0;
}

void StreamCounter::countCard(CountedCard c, int index, std::vector<CountedCard>& fresh) {
    c.frame = index;
    if (c.deck >= 0)
        ++count_.counts[c.deckName];
    else
        ++count_.unknown;
    count_.cards.push_back(c);
    fresh.push_back(c);
}

void StreamCounter::follow(const cv::Mat& bgr, const cv::Mat& small, int index,
                           std::vector<CountedCard>& fresh) {
    for (Track& t : tracks_) ++t.age;
    cv::Mat away = changed(small, reference_, options_.followThreshold, options_.meanShare);
    clean(away);
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(away, labels, stats, centroids, 8, CV_32S);
    const double minArea = options_.minCardFraction * double(small.total());
    struct Piece {
        cv::Point2f centre;
        cv::Rect box;
        int label;
        float reach;  // how far its track may have come since the last frame
    };
    std::vector<Piece> pieces;
    for (int i = 1; i < n; ++i) {
        if (stats.at<int>(i, cv::CC_STAT_AREA) < minArea) continue;
        const cv::Rect box(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                           stats.at<int>(i, cv::CC_STAT_WIDTH),
                           stats.at<int>(i, cv::CC_STAT_HEIGHT));
        pieces.push_back(
            {cv::Point2f(float(centroids.at<double>(i, 0)), float(centroids.at<double>(i, 1))), box,
             i, float(std::hypot(box.width, box.height))});
    }
    // A piece where two or more tracks are expected is things that joined (a card and a hand, two
    // cards): it says nothing of where each is or what shape, so they carry on as they went.
    std::vector<int> pieceTrack(pieces.size(), -1);
    std::vector<char> taken(tracks_.size(), 0);
    for (std::size_t p = 0; p < pieces.size(); ++p) {
        std::vector<std::size_t> inside;
        for (std::size_t t = 0; t < tracks_.size(); ++t) {
            const cv::Point e = tracks_[t].expected();
            if (pieces[p].box.contains(e) && labels.at<int>(e) == pieces[p].label)
                inside.push_back(t);
        }
        if (inside.size() < 2) continue;
        pieceTrack[p] = -2;
        for (std::size_t t : inside) {
            tracks_[t].carryOn();
            taken[t] = 2;
        }
    }
    // each other piece to the nearest track that expects it there (greedy, nearest pair first)
    for (;;) {
        float bestD = std::numeric_limits<float>::max();
        int bp = -1, bt = -1;
        for (std::size_t p = 0; p < pieces.size(); ++p) {
            if (pieceTrack[p] != -1) continue;
            for (std::size_t t = 0; t < tracks_.size(); ++t) {
                if (taken[t]) continue;
                const Track& tr = tracks_[t];
                const float d = float(cv::norm(pieces[p].centre - tr.expected()));
                const float gate = (tr.moved ? 0.6f : 1.2f) * pieces[p].reach;
                if (d < gate && d < bestD) bestD = d, bp = int(p), bt = int(t);
            }
        }
        if (bp < 0) break;
        pieceTrack[std::size_t(bp)] = bt;
        taken[std::size_t(bt)] = 1;
    }
    const cv::Rect frameRect(0, 0, small.cols, small.rows);
    auto touchesEdge = [&](const cv::Rect& b) {
        return b.x <= 1 || b.y <= 1 || b.br().x >= small.cols - 1 || b.br().y >= small.rows - 1;
    };
    for (std::size_t p = 0; p < pieces.size(); ++p) {
        const Piece& pc = pieces[p];
        if (pieceTrack[p] == -2) continue;
        if (pieceTrack[p] < 0) {
            pieceTrack[p] = int(tracks_.size());
            Track t;
            t.centre = pc.centre;
            tracks_.push_back(t);
            taken.push_back(1);
        } else {
            Track& t = tracks_[std::size_t(pieceTrack[p])];
            const float area = float(stats.at<int>(pc.label, cv::CC_STAT_AREA));
            if (t.views > 0 && t.moved && area > 1.5f * t.area && !touchesEdge(t.box)) {
                // a card seen whole, grown by half: it joined something that came in (a hand):
                // carry it on as it went, its place and shape unknown for now
                t.carryOn();
                continue;
            }
            // A piece cut by the frame's edge (a card coming in or going out) moves its middle
            // slower than the card: along that axis its far edge tells the card's speed.
            const cv::Rect& a = t.box;
            const cv::Rect& b = pc.box;
            auto along = [](int a0, int a1, int b0, int b1, int size, float centreStep) {
                if (a0 <= 1 || b0 <= 1) return float(b1 - a1);
                if (a1 >= size - 1 || b1 >= size - 1) return float(b0 - a0);
                return centreStep;
            };
            const cv::Point2f step = pc.centre - t.centre;
            t.velocity = cv::Point2f(along(a.x, a.br().x, b.x, b.br().x, small.cols, step.x),
                                     along(a.y, a.br().y, b.y, b.br().y, small.rows, step.y)) *
                         (1.f / float(1 + t.lost));
            t.moved = true;
            t.centre = pc.centre;
        }
        Track& t = tracks_[std::size_t(pieceTrack[p])];
        t.box = pc.box;
        t.area = float(stats.at<int>(pc.label, cv::CC_STAT_AREA));
        t.lost = 0;
        // card-shaped: whole in the frame, filling a card-like rectangle
        if (touchesEdge(pc.box)) continue;
        cv::Mat mask = labels(pc.box) == pc.label;
        std::vector<std::vector<cv::Point>> contours;
        cv::findContours(mask, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE, pc.box.tl());
        if (contours.empty()) continue;
        std::vector<cv::Point> pts;
        for (const auto& c : contours) pts.insert(pts.end(), c.begin(), c.end());
        const cv::RotatedRect r = cv::minAreaRect(pts);
        if (std::min(r.size.width, r.size.height) < 4.f) continue;
        const float fill = float(cv::countNonZero(mask)) / (r.size.width * r.size.height);
        // (a card smeared at a slant sweeps a hexagon, which fills less of its rectangle)
        const float minFill =
            t.moved && norm(t.velocity) > 1.f ? options_.movingFill : options_.cardFill;
        if (fill < minFill) continue;
        // A moving card is smeared along its motion by the exposure: its rectangle is the card's
        // lengthened by up to smear x its speed along the motion. The card is the rectangle less
        // the smear that leaves the most card-like aspect (as near 1.4 as the allowance reaches).
        const float th = r.angle * float(CV_PI / 180.0);
        const cv::Point2f ax(std::cos(th), std::sin(th));  // along r.size.width
        const float speed = t.moved ? float(cv::norm(t.velocity)) : 0.f;
        const cv::Point2f along = speed > 0 ? t.velocity * (1.f / speed) : cv::Point2f(1, 0);
        const float cw = std::abs(along.dot(ax)), ch = std::sqrt(std::max(0.f, 1.f - cw * cw));
        cv::Size2f card = r.size;
        float bestGap = std::numeric_limits<float>::max();
        for (int k = 0; k <= 8; ++k) {
            const float s = options_.smear * speed * float(k) / 8.f;
            const cv::Size2f sz(r.size.width - s * cw, r.size.height - s * ch);
            if (std::min(sz.width, sz.height) < 4.f) break;
            const float gap =
                std::abs(std::max(sz.width, sz.height) / std::min(sz.width, sz.height) - 1.4f);
            if (gap < bestGap) bestGap = gap, card = sz;
        }
        const float aspect = std::max(card.width, card.height) / std::min(card.width, card.height);
        if (aspect < options_.minAspect || aspect > options_.maxAspect) continue;
        cv::Point2f c4[4];
        cv::RotatedRect(r.center, card, r.angle).points(c4);
        Quad q;
        for (int i = 0; i < 4; ++i) q[std::size_t(i)] = c4[i] * (1.f / scale_);
        CountedCard c = attributeCard(bgr, q, {}, *matcher_);
        ++t.views;
        const bool better =
            t.views == 1 || (c.deck >= 0 && (t.best.deck < 0 || c.confidence > t.best.confidence));
        if (better) t.best = c;
    }
    // tracks not seen now: gone when their place shows the rest view again (or they left the frame)
    std::vector<Track> keep;
    for (std::size_t t = 0; t < tracks_.size(); ++t) {
        Track& tr = tracks_[t];
        const bool seen = taken[t] != 0;
        if (seen) {
            keep.push_back(tr);
            continue;
        }
        // where it would be now; a piece there (it joined something: a hand, another card) keeps it
        const cv::Rect where = (tr.box + rounded(tr.step())) & frameRect;
        ++tr.lost;
        const bool clear = where.area() == 0 || cv::countNonZero(away(where)) < 0.3 * where.area();
        if (clear) {
            if (tr.views >= options_.minCardViews ||
                (options_.oneViewAge > 0 && tr.views == 1 && tr.age >= options_.oneViewAge))
                countCard(tr.best, index, fresh);
            continue;
        }
        if (tr.lost <= 8) keep.push_back(tr);  // hidden in something else for now
    }
    tracks_ = std::move(keep);
}

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
        if (options_.through) follow(bgr, small, index, fresh);
        return fresh;
    }
    // at rest: pieces still in view lie on the spot now (counted below, once) or were never cards
    tracks_.clear();
    // what changed against the last rest?
    cv::Mat diff = changed(small, reference_, options_.pixelThreshold);
    clean(diff);
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
    countCard(attributeCard(bgr, q, {}, *matcher_), index, fresh);
    return fresh;
}

}  // namespace nertz::vision
