// Grouping index readings to cards; see detector.hpp.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "nertz/vision/detector.hpp"

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

std::vector<DetectedCard> groupIndices(std::vector<IndexReading> indices, const std::vector<CardOutline>& outlines) {
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
                if (!first) first = indices[i].face;
                else if (!(*first == indices[i].face)) several = true;
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
    for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = i + 1; j < n; ++j) {
            if (!(indices[i].face == indices[j].face)) continue;
            bool sameQuad = quadOf[i] >= 0 && quadOf[i] == quadOf[j];
            float reach = 9.f * std::max(indices[i].scale, indices[j].scale);
            cv::Point2f d = indices[i].centre - indices[j].centre;
            if (sameQuad || std::hypot(d.x, d.y) < reach || oppositeCorners(indices[i], indices[j]))
                parent[find(i)] = find(j);
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

}  // namespace nertz::vision
