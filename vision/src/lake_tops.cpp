// The lake's pile tops; see lake_tops.hpp.
#include "nertz/vision/lake_tops.hpp"

#include <algorithm>

#include "nertz/vision/back_signature.hpp"

namespace nertz::vision {

namespace {

// How far apart (in the larger card's long side) two readings of one suit may lie and still be one
// pile: a card under the top peeks out by a few pixels, a neighbouring pile lies a card away.
constexpr float kSamePile = 0.6f;

}  // namespace

std::vector<scoring::Card> LakeTops::cards() const {
    std::vector<scoring::Card> out;
    out.reserve(tops.size());
    for (const auto& t : tops) out.push_back(t.card);
    return out;
}

LakeTops readLakeTops(const Detection& det) {
    LakeTops r;
    for (const auto& c : det.cards) {
        if (!c.face || c.indices.empty()) continue;
        const LakeTop top{*c.face, c.quad ? quadCentre(*c.quad) : c.indices[0].centre,
                          // (an index's rank-to-pip distance is about an eighth of the card's long side)
                          c.quad ? quadSides(*c.quad).height : c.indices[0].scale * 8.f,
                          c.confidence, c.quad};
        bool merged = false;
        for (auto& t : r.tops) {
            if (t.card.suit != top.card.suit ||
                cv::norm(t.at - top.at) > kSamePile * std::max(t.scale, top.scale))
                continue;
            if (top.card.rank > t.card.rank) t = top;
            merged = true;
        }
        if (!merged) r.tops.push_back(top);
    }
    // outlines of face-up cards that no reading explains
    for (const auto& c : det.cards) {
        if (c.face || !c.quad || c.side != Side::Face) continue;
        const Quad& q = *c.quad;
        const cv::Point2f mid = quadCentre(q);
        const float side = quadSides(q).height;
        const bool explained = std::any_of(r.tops.begin(), r.tops.end(), [&](const LakeTop& t) {
            return quadContains(q, t.at) || (t.quad && quadContains(*t.quad, mid)) ||
                   cv::norm(t.at - mid) < 0.5f * std::max(t.scale, side);
        });
        if (!explained) r.unread.push_back(q);
    }
    return r;
}

}  // namespace nertz::vision
