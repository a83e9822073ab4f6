// Stream counting; see stream_counter.hpp.
#include "nertz/vision/stream_counter.hpp"

#include "nertz/vision/back_finder.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

#include <opencv2/imgproc.hpp>

#include "../scaled_size.hpp"

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

// Whether reading `a` of a card is surer than `b`: given to a deck, and more confidently.
bool surer(const CountedCard& a, const CountedCard& b) {
    return a.deck >= 0 && (b.deck < 0 || a.confidence > b.confidence);
}

// A box (working pixels) at the frame's edge: its piece is cut by the frame.
bool touchesEdge(const cv::Rect& b, cv::Size frame) {
    return b.x <= 1 || b.y <= 1 || b.br().x >= frame.width - 1 || b.br().y >= frame.height - 1;
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

Quad StreamCounter::inPicture(const cv::RotatedRect& r) const {
    cv::Point2f p[4];
    r.points(p);
    Quad q;
    for (int i = 0; i < 4; ++i) q[std::size_t(i)] = p[i] * (1.f / scale_);
    return q;
}

std::vector<cv::Point> StreamCounter::pileBox(float toScale, float grow) const {
    cv::Point2f c4[4];
    cv::RotatedRect(spotTop_.center * toScale, spotTop_.size * (grow * toScale), spotTop_.angle)
        .points(c4);
    std::vector<cv::Point> pile;
    for (const auto& c : c4) pile.push_back(rounded(c));
    return pile;
}

void StreamCounter::takeRest(const cv::Mat& small, const cv::Mat& bgr) {
    reference_ = small.clone();
    // the frame's own size only where the pile's fine check reads it
    if (options_.fineShare > 0.f && scale_ <= 0.99f) bgr.copyTo(referenceFull_);
}

CountedCard StreamCounter::read(const cv::Mat& bgr, const Quad& q, bool moving) const {
    std::vector<CountedCard> one{attributeCard(bgr, q, {}, *matcher_, {}, moving)};
    if (options_.lightness && one.front().deck >= 0) {
        if (white_ < 0.f) white_ = sceneWhite(bgr);  // once a frame, when a card needs it
        if (white_ >= options_.leastWhite) unknownWhereLightnessDiffers(white_, one, *matcher_);
    }
    return one.front();
}

CountedCard StreamCounter::restingCard(const cv::Mat& bgr, const Quad& q,
                                       const std::optional<CountedCard>& inFlight) const {
    const CountedCard c = read(bgr, q);
    // the change may be only part of the card (it landed nearly square on the one below): then
    // its reading in flight, whole, says more
    if (c.deck < 0 && inFlight && inFlight->deck >= 0) return *inFlight;
    return c;
}

bool StreamCounter::looksFinely(const cv::Mat& bgr) const {
    return options_.fineShare > 0.f && scale_ <= 0.99f && spotTop_.size.area() > 0.f &&
           referenceFull_.size() == bgr.size();
}

bool StreamCounter::pileChangedFinely(const cv::Mat& bgr) const {
    if (!looksFinely(bgr)) return false;
    std::vector<cv::Point> pile = pileBox(1.f / scale_, 1.f);
    const cv::Rect roi = cv::boundingRect(pile) & cv::Rect(cv::Point(0, 0), bgr.size());
    if (roi.area() <= 0) return false;
    cv::Mat atPile = cv::Mat::zeros(roi.size(), CV_8U);
    for (auto& p : pile) p -= roi.tl();
    cv::fillConvexPoly(atPile, pile, cv::Scalar(255));
    cv::Mat d = changed(bgr(roi), referenceFull_(roi), options_.fineThreshold) & atPile;
    cv::morphologyEx(d, d, cv::MORPH_OPEN,
                     cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    const double card = double(spotTop_.size.area()) / double(scale_ * scale_);
    return cv::countNonZero(d) >= options_.fineShare * card;
}

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

bool StreamCounter::countsAsCard(int id) const {
    if (std::find(countedIds_.begin(), countedIds_.end(), id) != countedIds_.end()) return true;
    for (const Track& t : oneView_)
        if (t.id == id) return true;
    for (const Track& t : tracks_)
        if (t.id == id) return t.views >= options_.minCardViews;
    return false;
}

void StreamCounter::settleOneView(int index, bool all, std::vector<CountedCard>& fresh) {
    for (std::size_t k = 0; k < oneView_.size();) {
        const Track& c = oneView_[k];
        if (!all && index < c.viewFrame + options_.sameCardFrames) {
            ++k;
            continue;
        }
        bool seenElsewhere = false;
        for (const Sighting& s : sightings_) {
            if (s.track == c.id || std::abs(s.frame - c.viewFrame) > options_.sameCardFrames ||
                !countsAsCard(s.track))
                continue;
            // at that track's latest speed
            cv::Point2f v = s.velocity;
            for (const Sighting& o : sightings_)
                if (o.track == s.track && o.frame >= s.frame) v = o.velocity;
            const cv::Point2f there = s.centre + v * float(c.viewFrame - s.frame);
            if (cv::norm(there - c.viewCentre) < options_.sameCardReach * c.viewSide) {
                seenElsewhere = true;
                break;
            }
        }
        const Track card = c;
        oneView_.erase(oneView_.begin() + std::ptrdiff_t(k));
        if (seenElsewhere) continue;
        countedIds_.push_back(card.id);
        countCard(card.best, index, fresh);
    }
}

bool StreamCounter::placeClear(const Track& t, const cv::Mat& away) const {
    const cv::Rect where = (t.box + rounded(t.step())) & cv::Rect(0, 0, away.cols, away.rows);
    return where.area() == 0 || cv::countNonZero(away(where)) < 0.3 * where.area();
}

void StreamCounter::left(const Track& t, int index, std::vector<CountedCard>& fresh) {
    if (t.views >= options_.minCardViews) {
        countedIds_.push_back(t.id);
        countCard(t.best, index, fresh);
    } else if (options_.oneViewAge > 0 && t.views == 1 && t.age >= options_.oneViewAge) {
        oneView_.push_back(t);
    }
}

void StreamCounter::follow(const cv::Mat& bgr, const cv::Mat& small, const cv::Mat& previous,
                           int index, std::vector<CountedCard>& fresh) {
    for (Track& t : tracks_) ++t.age;
    if (followView_.empty()) followView_ = reference_.clone();
    cv::Mat away = changed(small, followView_, options_.followThreshold, options_.meanShare);
    if (options_.absorbFrames > 0) {
        // a difference from the rest view that holds still is nothing passing through (it was in
        // view when the rest view was taken and has left, or it lies still at the side): after
        // absorbFrames frames it becomes part of the rest view
        if (heldFor_.size() != small.size()) heldFor_ = cv::Mat::zeros(small.size(), CV_8U);
        // (held frames count up, frames that change it count down: cards passing over such a
        // place keep changing it, and it shows the table again between them)
        const cv::Mat still = ~changed(small, previous, options_.followThreshold);
        cv::add(heldFor_, cv::Scalar(1), heldFor_, away & still);
        cv::subtract(heldFor_, cv::Scalar(1), heldFor_, away & ~still);  // saturates at 0
        heldFor_.setTo(0, ~away);
        const cv::Mat settled = heldFor_ >= options_.absorbFrames;
        small.copyTo(followView_, settled);
        heldFor_.setTo(0, settled);
        away.setTo(0, settled);
    }
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
    for (std::size_t p = 0; p < pieces.size(); ++p) {
        const Piece& pc = pieces[p];
        if (pieceTrack[p] == -2) continue;
        if (pieceTrack[p] < 0) {
            pieceTrack[p] = int(tracks_.size());
            Track t;
            t.id = nextId_++;
            t.centre = pc.centre;
            tracks_.push_back(t);
            taken.push_back(1);
        } else {
            Track& t = tracks_[std::size_t(pieceTrack[p])];
            const float area = float(stats.at<int>(pc.label, cv::CC_STAT_AREA));
            if (t.views > 0 && t.moved && area > 1.5f * t.area &&
                !touchesEdge(t.box, small.size())) {
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
        if (touchesEdge(pc.box, small.size())) continue;
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
        const bool moving = t.moved && norm(t.velocity) > 1.f;
        const float minFill = moving ? options_.movingFill : options_.cardFill;
        if (fill < minFill) {
            // a moving card whose trailing part differs little from the table (its smear over a
            // cloth of its colour) leaves a bite out of the piece: card-shaped still when the
            // piece's hull fills the rectangle
            if (!moving || options_.hullFill <= 0.f || fill < options_.bittenFill) continue;
            std::vector<cv::Point> hull;
            cv::convexHull(pts, hull);
            if (cv::contourArea(hull) < options_.hullFill * r.size.width * r.size.height) continue;
        }
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
        CountedCard c =  // in motion
            read(bgr, inPicture({r.center, card, r.angle}), true);
        ++t.views;
        if (t.views == 1) {
            t.viewFrame = index;
            t.viewCentre = t.centre;
            t.viewSide = std::min(card.width, card.height);
        }
        sightings_.push_back({index, t.id, t.centre, t.moved ? t.velocity : cv::Point2f()});
        if (t.views == 1 || surer(c, t.best)) t.best = c;
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
        ++tr.lost;
        if (placeClear(tr, away)) {
            left(tr, index, fresh);
            continue;
        }
        if (tr.lost <= 8) keep.push_back(tr);  // hidden in something else for now
    }
    tracks_ = std::move(keep);
    settleOneView(index, false, fresh);
    const int oldest = index - 4 * std::max(1, options_.sameCardFrames);
    sightings_.erase(std::remove_if(sightings_.begin(), sightings_.end(),
                                    [&](const Sighting& s) { return s.frame < oldest; }),
                     sightings_.end());
    if (countedIds_.size() > 64) countedIds_.erase(countedIds_.begin(), countedIds_.end() - 32);
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
    white_ = -1.f;  // this frame's, read when a card needs it
    cv::Mat small;
    // a frame that keeps no pixel one way at the working size (a 1 x 4000 strip) shows no card
    if (!detail::keepsPixels(bgr.size(), scale_, scale_)) {
        ++frame_;
        return {};
    }
    cv::resize(bgr, small, cv::Size(), scale_, scale_, cv::INTER_AREA);
    cv::GaussianBlur(small, small, cv::Size(3, 3), 0);
    std::vector<CountedCard> fresh;
    const int index = frame_++;
    if (previous_.empty()) {
        previous_ = small;
        takeRest(small, bgr);
        return fresh;
    }
    const double area = double(small.total());
    const cv::Mat moved = changed(small, previous_, options_.pixelThreshold);
    const bool still = cv::countNonZero(moved) < options_.stillFraction * area;
    const cv::Mat previous = previous_;
    previous_ = small;
    if (!still) {
        pending_ = true;
        if (options_.through) follow(bgr, small, previous, index, fresh);
        return fresh;
    }
    heldFor_.release();
    // at rest: a card followed out by the frame's edge is counted; pieces still in view lie on the
    // spot now (counted below, once) or were never cards
    // the surest reading of a piece that was card-shaped and is still in view
    std::optional<CountedCard> cameToRest;
    if (!tracks_.empty()) {  // (then follow() has run since the last rest: followView_ is set)
        cv::Mat away = changed(small, followView_, options_.followThreshold, options_.meanShare);
        clean(away);
        for (const Track& t : tracks_) {
            if (touchesEdge(t.box, small.size()) && placeClear(t, away))
                left(t, index, fresh);
            else if (t.views > 0 && (!cameToRest || surer(t.best, *cameToRest)))
                cameToRest = t.best;
        }
    }
    tracks_.clear();
    settleOneView(index, true, fresh);
    sightings_.clear();
    followView_.release();  // the rest view again, renewed below
    // what changed against the last rest?
    cv::Mat diff = changed(small, reference_, options_.pixelThreshold);
    clean(diff);
    const int n = cv::countNonZero(diff);
    // A card landing nearly square on the pile's top card of the same back changes only a sliver
    // where the two do not overlap: after something moved, a change of sliverFraction lying at the
    // pile's top card is one too. So is a larger change there whose part on the table's foreground
    // (below) is under minCardFraction: it is held to the sliver's bar, not a stricter one.
    double bar = options_.minCardFraction * area;
    const bool afterMotion = pending_;
    pending_ = false;
    // the pile's top card at the frame's own size (pileChangedFinely), looked at once at most,
    // before this view becomes the rest; only after something moved
    std::optional<bool> finely;
    auto changedFinely = [&] {
        if (!finely) finely = afterMotion && pileChangedFinely(bgr);
        return *finely;
    };
    if (afterMotion && options_.sliverFraction > 0.f && spotTop_.size.area() > 0.f &&
        n >= options_.sliverFraction * area) {
        cv::Mat atPile = cv::Mat::zeros(diff.size(), CV_8U);
        cv::fillConvexPoly(atPile, pileBox(1.f), cv::Scalar(255));
        // (where the frame is larger than the working size, only if the top card's own pixels
        // changed: a hand that was in view at the last rest and left the pile's side is no card)
        if (cv::countNonZero(diff & atPile) >= 0.8 * n &&
            (!looksFinely(bgr) || changedFinely()))
            bar = options_.sliverFraction * area;
    }
    // A card landing within a working pixel of the one under it, of the same back, changes
    // nothing at the working size: its pattern, shifted by a few of the frame's own pixels,
    // averages out. At the frame's own size it changes much of the pile's box; a hand that
    // passed without a card changes nothing there (StreamOptions::fineShare).
    if (n < bar && changedFinely()) {
        takeRest(small, bgr);
        countCard(restingCard(bgr, inPicture(spotTop_), cameToRest), index, fresh);
        return fresh;
    }
    if (n < bar) {
        // nothing new (a hand passed, or light flickered): adopt this view as the rest
        takeRest(small, bgr);
        return fresh;
    }
    // only what now lies on the table counts: a hand or a moving card seen at the last rest
    // left a change where the table shows again. (Unless a card was followed in and lies there
    // now: a back near the cloth's colour can look like the table to its colour model; or the
    // pile's top card changed at the frame's own size: a card landed nearly square on it.)
    const cv::Mat onTable = diff & tableForeground(small);
    if (cv::countNonZero(onTable) >= bar)
        diff = onTable;
    else if (!cameToRest && !changedFinely()) {
        takeRest(small, bgr);
        return fresh;
    }
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(diff, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    double largest = 0;
    for (const auto& c : contours) largest = std::max(largest, cv::contourArea(c));
    std::vector<cv::Point> pts;
    for (const auto& c : contours)
        if (cv::contourArea(c) >= 0.1 * largest) pts.insert(pts.end(), c.begin(), c.end());
    takeRest(small, bgr);
    if (pts.size() < 3) return fresh;
    cv::RotatedRect box = cv::minAreaRect(pts);
    // a change of a sliver of the card counted last on the spot is a card landing nearly square on
    // it (the same back: only where they do not overlap changed): its outline is about the two
    // together, when that is still about one card
    const float cardArea = spotTop_.size.area();
    const bool sliver = cardArea > 0.f && float(cv::countNonZero(diff)) < 0.3f * cardArea;
    if (sliver) {
        cv::Point2f top[4];
        spotTop_.points(top);
        for (const auto& c : top) pts.push_back(rounded(c));
        const cv::RotatedRect both = cv::minAreaRect(pts);
        if (both.size.area() <= 1.25f * cardArea) box = both;
    } else {
        spotTop_ = box;
    }
    CountedCard c = restingCard(bgr, inPicture(box), cameToRest);
    // a sliver read as no deck (too far from the top card to make one card with it, so a part of
    // a card alone; or the two together, turned against each other, a box wider than either):
    // the new card lies over most of the top card's outline, so that outline reads it
    if (c.deck < 0 && sliver) {
        CountedCard onTop = read(bgr, inPicture(spotTop_));
        if (onTop.deck >= 0) c = onTop;
    }
    countCard(c, index, fresh);
    return fresh;
}

}  // namespace nertz::vision
