// Grouping index readings to cards; see detector.hpp.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "nertz/vision/back_signature.hpp"
#include "nertz/vision/detector.hpp"

#include <opencv2/imgproc.hpp>

#include "sample_bgr.hpp"

namespace nertz::vision {

// Two indices at opposite corners of one card: a card's indices are printed turned half a turn from
// each other (`up` opposite, within 60 degrees for perspective and a squashed picture), and each
// lies below the other as that index reads ("down" its card), a card's diagonal apart less the
// corners' insets: 8-13 rank-to-pip distances on the real photos (nine of ten such pairs were left
// as two cards by the plain 9x reach), up to 16 allowed here for decks with small indices.
bool oppositeCorners(const IndexReading& a, const IndexReading& b) {
    const float s = std::max(a.scale, b.scale);
    if (s <= 0.f || a.up.dot(b.up) > -0.5f) return false;
    const cv::Point2f d = b.centre - a.centre;  // from a to b
    const float len = std::hypot(d.x, d.y);
    if (len > 16.f * s || len < 3.f * s) return false;
    // "down" is -up at each index; b below a, and a below b, by a good share of the distance
    return -a.up.dot(d) >= 0.4f * len && b.up.dot(d) >= 0.4f * len;
}

std::vector<IndexReading> pairedCorners(const std::vector<IndexReading>& unsure) {
    std::vector<float> paired(unsure.size(), 0.f);  // the pair's probability, 0: none
    for (std::size_t i = 0; i < unsure.size(); ++i)
        for (std::size_t j = i + 1; j < unsure.size(); ++j)
            if (unsure[i].face == unsure[j].face && oppositeCorners(unsure[i], unsure[j])) {
                const float p = 1.f - (1.f - unsure[i].confidence) * (1.f - unsure[j].confidence);
                paired[i] = std::max(paired[i], p);
                paired[j] = std::max(paired[j], p);
            }
    std::vector<IndexReading> out;
    for (std::size_t i = 0; i < unsure.size(); ++i)
        if (paired[i] > 0.f) {
            out.push_back(unsure[i]);
            out.back().confidence = paired[i];
            out.back().paired = true;
        }
    return out;
}

bool cornersOfOneCard(const IndexReading& a, const IndexReading& b) {
    if (!(a.face == b.face)) return false;
    const cv::Point2f d = a.centre - b.centre;
    return std::hypot(d.x, d.y) < 9.f * std::max(a.scale, b.scale) || oppositeCorners(a, b);
}

std::vector<DetectedCard> groupIndices(std::vector<IndexReading> indices,
                                       const std::vector<CardOutline>& outlines) {
    const std::size_t n = indices.size();
    std::vector<int> quadOf(n, -1);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t q = 0; q < outlines.size(); ++q)
            if (quadContains(outlines[q].quad, indices[i].centre)) quadOf[i] = int(q);
    // An outline around indices of two or more faces is not one card's (a spread or an overlapping
    // pile whose cards merged into one bright region): none of those cards gets it, and it is not
    // reported as a card of its own either.
    std::vector<bool> quadUsed(outlines.size(), false);
    for (std::size_t q = 0; q < outlines.size(); ++q) {
        std::optional<scoring::Card> first;
        bool several = false;
        for (std::size_t i = 0; i < n; ++i)
            if (quadOf[i] == int(q)) {
                if (!first)
                    first = indices[i].face;
                else if (!(*first == indices[i].face))
                    several = true;
            }
        if (!several) continue;
        quadUsed[q] = true;
        for (std::size_t i = 0; i < n; ++i)
            if (quadOf[i] == int(q)) quadOf[i] = -1;
    }
    std::vector<std::size_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&](std::size_t x) {
        while (parent[x] != x) x = parent[x] = parent[parent[x]];
        return x;
    };
    // A card's indices lie on it: an index well outside the outline around another index of its
    // face is another card's, a second deck's copy of that face (a lake holds one a deck). Two
    // groups whose indices lie in two different outlines are two cards.
    auto farOutside = [&](std::size_t i, std::size_t j) {  // j well outside i's outline
        if (quadOf[i] < 0 || quadOf[i] == quadOf[j]) return false;
        const Quad& q = outlines[quadOf[i]].quad;
        const std::vector<cv::Point2f> poly(q.begin(), q.end());
        const cv::Size2f sides = quadSides(q);
        return cv::pointPolygonTest(poly, indices[j].centre, true) <
               -0.25 * std::min(sides.width, sides.height);
    };
    std::vector<int> rootQuad(quadOf);  // the outline of each group, by its root; -1 none
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            if (!(indices[i].face == indices[j].face)) continue;
            const std::size_t ri = find(i), rj = find(j);
            if (ri == rj) continue;
            const bool sameQuad = quadOf[i] >= 0 && quadOf[i] == quadOf[j];
            if (!sameQuad && !cornersOfOneCard(indices[i], indices[j])) continue;
            if (rootQuad[ri] >= 0 && rootQuad[rj] >= 0 && rootQuad[ri] != rootQuad[rj]) continue;
            if (farOutside(i, j) || farOutside(j, i)) continue;
            parent[ri] = rj;
            if (rootQuad[rj] < 0) rootQuad[rj] = rootQuad[ri];
        }
    }
    std::vector<DetectedCard> cards;
    std::vector<int> cardOfRoot(n, -1);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t r = find(i);
        if (cardOfRoot[r] < 0) {
            cardOfRoot[r] = int(cards.size());
            cards.push_back({});
        }
        DetectedCard& c = cards[cardOfRoot[r]];
        c.face = indices[i].face;
        c.side = Side::Face;
        c.confidence = std::max(c.confidence, indices[i].confidence);
        if (quadOf[i] >= 0 && !c.quad) {
            c.quad = outlines[quadOf[i]].quad;
            quadUsed[quadOf[i]] = true;
        }
        c.indices.push_back(indices[i]);
    }
    for (std::size_t q = 0; q < outlines.size(); ++q) {
        if (quadUsed[q]) continue;
        DetectedCard c;
        c.quad = outlines[q].quad;
        c.side = outlines[q].side;
        c.confidence = 0.5f;
        cards.push_back(c);
    }
    return cards;
}

// ---- Outlines from the corner indices
// -------------------------------------------------------------- Where a read index sits on its
// card, in rank-to-pip distances d (measured on 1,750 indices of 18 train designs of the scene
// generator, medians; 10th-90th percentiles in brackets): its middle lies 0.66 d (0.48-0.86) right
// of the card's left side and 1.42 d (1.15-1.71) below its top, as the index reads. The card's
// height is 4.9-11.2 d and its width 3.6-7.5 d, depending on the design.
namespace {

constexpr float kInsetAcross = 0.66f, kInsetDown = 1.42f;

struct CornerFrame {
    cv::Point2f corner, down, right;  // the card's top-left corner as the index reads; its axes
    float d = 0;
};

CornerFrame frameOf(const IndexReading& r) {
    CornerFrame f;
    const float n = std::max(1e-6f, std::hypot(r.up.x, r.up.y));
    f.down = -r.up * (1.f / n);
    f.right = {f.down.y, -f.down.x};
    f.d = r.scale;
    f.corner = r.centre - f.right * (kInsetAcross * f.d) - f.down * (kInsetDown * f.d);
    return f;
}

// The card's far side along `along` from `origin`: between lo and hi (pixels), the line across the
// card (points origin + along t + across s, s in [s0, s1]) where the colour steps along `along`
// hold over most of its length (the median of 11 points: a pip or a glyph steps at one or two of
// them, a card's side at all). Of the lines with at least 70% of the best one's step the farthest
// wins (a court card's picture frame is drawn inside its side). Returns -1 when nothing steps by
// `minStep` grey levels.
float farSide(const cv::Mat& bgr, cv::Point2f origin, cv::Point2f along, cv::Point2f across,
              float lo, float hi, float s0, float s1, float delta, float minStep) {
    std::vector<float> prof;
    for (float t = lo; t <= hi; t += 1.f) {
        float steps[11];
        for (int k = 0; k < 11; ++k) {
            const cv::Point2f p = origin + along * t + across * (s0 + (s1 - s0) * float(k) / 10.f);
            const cv::Vec3f a = detail::sampleBgr(bgr, p - along * delta),
                            b = detail::sampleBgr(bgr, p + along * delta);
            steps[k] =
                (std::abs(a[0] - b[0]) + std::abs(a[1] - b[1]) + std::abs(a[2] - b[2])) / 3.f;
        }
        std::nth_element(steps, steps + 5, steps + 11);
        prof.push_back(steps[5]);
    }
    if (prof.empty()) return -1;
    const float best = *std::max_element(prof.begin(), prof.end());
    if (best < minStep) return -1;
    for (std::size_t i = prof.size(); i-- > 0;) {
        const bool peak =
            (i == 0 || prof[i] >= prof[i - 1]) && (i + 1 == prof.size() || prof[i] >= prof[i + 1]);
        if (peak && prof[i] >= 0.7f * best) return lo + float(i);
    }
    return -1;
}

bool inPicture(const Quad& q, const cv::Mat& bgr) {
    for (const auto& p : q)
        if (p.x < -2.f || p.y < -2.f || p.x > float(bgr.cols) + 2.f || p.y > float(bgr.rows) + 2.f)
            return false;
    return true;
}

}  // namespace

std::optional<Quad> outlineFromIndices(const cv::Mat& bgr,
                                       const std::vector<IndexReading>& indices) {
    if (indices.empty() || bgr.empty() || bgr.type() != CV_8UC3) return std::nullopt;
    // two corners half a turn apart: the card runs from one's top-left corner to the other's
    for (std::size_t i = 0; i < indices.size(); ++i)
        for (std::size_t j = i + 1; j < indices.size(); ++j) {
            if (!oppositeCorners(indices[i], indices[j])) continue;
            const CornerFrame a = frameOf(indices[i]), b = frameOf(indices[j]);
            cv::Point2f down = a.down - b.down, right = a.right - b.right;
            down *= 1.f / std::max(1e-6f, std::hypot(down.x, down.y));
            right *= 1.f / std::max(1e-6f, std::hypot(right.x, right.y));
            const cv::Point2f v = b.corner - a.corner;  // = h down + w right
            const float det = down.x * right.y - down.y * right.x;
            if (std::abs(det) < 0.3f) continue;
            const float h = (v.x * right.y - v.y * right.x) / det,
                        w = (down.x * v.y - down.y * v.x) / det;
            const float dd = std::max(a.d, b.d);
            if (h < 4.f * dd || h > 13.f * dd || w < 3.f * dd || w > 9.f * dd || h / w < 1.1f ||
                h / w > 2.2f)
                continue;
            const Quad q =
                orderCorners({a.corner, a.corner + right * w, b.corner, a.corner + down * h});
            if (inPicture(q, bgr)) return q;
        }
    // one corner: its card's far sides found in the picture (the surest corner first)
    std::vector<const IndexReading*> bySureness;
    for (const auto& r : indices) bySureness.push_back(&r);
    std::stable_sort(
        bySureness.begin(), bySureness.end(),
        [](const IndexReading* x, const IndexReading* y) { return x->confidence > y->confidence; });
    for (const IndexReading* r : bySureness) {
        const CornerFrame f = frameOf(*r);
        if (f.d <= 1.f) continue;
        const float delta = std::max(1.f, 0.15f * f.d), minStep = 12.f;
        const float h = farSide(bgr, f.corner, f.down, f.right, 4.f * f.d, 12.5f * f.d, 0.3f * f.d,
                                3.0f * f.d, delta, minStep);
        const float w = farSide(bgr, f.corner, f.right, f.down, 3.f * f.d, 9.f * f.d, 0.3f * f.d,
                                4.0f * f.d, delta, minStep);
        if (h <= 0 || w <= 0 || h / w < 1.1f || h / w > 2.2f) continue;
        const Quad q = orderCorners({f.corner, f.corner + f.right * w,
                                     f.corner + f.right * w + f.down * h, f.corner + f.down * h});
        if (inPicture(q, bgr)) return q;
    }
    return std::nullopt;
}

}  // namespace nertz::vision
