// Back matcher; see back_matcher.hpp.
#include "nertz/vision/back_matcher.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <limits>
#include <utility>

#include "nertz/scoring/error.hpp"

namespace nertz::vision {

void BackMatcher::add(std::string name, BackSignature signature) {
    if (name.empty()) throw scoring::InputError("deck", "a deck needs a name");
    for (const auto& d : decks_)
        if (d.name == name)
            throw scoring::InputError("deck", "deck '" + name + "' is listed twice");
    if (signature.views() == 0)
        throw scoring::InputError("deck", "deck '" + name + "' has no whole-card back view");
    decks_.push_back({std::move(name), std::move(signature)});
}

float BackMatcher::distanceTo(const BackDescriptor& probe, int deck) const {
    return distanceTo(probe, deck, false);
}

const BackDescriptor* BackMatcher::nearestDescriptor(const BackDescriptor& probe, int deck,
                                                     bool asSeenOnly, bool moving,
                                                     float& distance) const {
    const BackDescriptor* at = nullptr;
    distance = std::numeric_limits<float>::max();
    forEachCompared(probe, deck, asSeenOnly, moving, [&](const BackDescriptor& e) {
        const float x = backDistance(probe, e);
        if (x < distance) {
            distance = x;
            at = &e;
        }
    });
    return at;
}

float BackMatcher::distanceTo(const BackDescriptor& probe, int deck, bool asSeenOnly,
                              bool moving) const {
    float best = 0.f;
    nearestDescriptor(probe, deck, asSeenOnly, moving, best);
    return best;
}

BackMatcher::PairLook BackMatcher::pairRatio(const BackDescriptor& probe, int a, int b,
                                              bool moving) const {
    PairLook look;
    const int n = int(decks_.size());
    if (a < 0 || b < 0 || a >= n || b >= n || a == b) return look;
    // the other deck's descriptor of the same region and copy nearest to `e`
    auto counterpart = [&](const BackDescriptor& e, int deck) {
        const BackDescriptor* at = nullptr;
        float d = std::numeric_limits<float>::max();
        for (const auto& o : decks_[std::size_t(deck)].signature.descriptors) {
            if (o.blur != e.blur || o.region.x0 != e.region.x0 || o.region.x1 != e.region.x1)
                continue;
            const float x = backDistance(e, o);
            if (x < d) {
                d = x;
                at = &o;
            }
        }
        return at;
    };
    float da = 0.f, db = 0.f;
    const BackDescriptor* na = nearestDescriptor(probe, a, false, moving, da);
    const BackDescriptor* nb = nearestDescriptor(probe, b, false, moving, db);
    if (!na || !nb) return look;
    std::array<float, kBackTerms> apart{};
    int pairs = 0;
    for (const auto& [x, y] :
         {std::pair{na, counterpart(*na, b)}, std::pair{counterpart(*nb, a), nb}}) {
        if (!x || !y) continue;
        const auto t = backTerms(*x, *y);
        for (std::size_t k = 0; k < apart.size(); ++k) apart[k] += t[k];
        ++pairs;
    }
    if (pairs == 0) return look;
    const auto ta = backTerms(probe, *na), tb = backTerms(probe, *nb);
    float sa = 0.f, sb = 0.f, d = 0.f;
    for (std::size_t k = 0; k < apart.size(); ++k) {
        apart[k] /= float(pairs);
        const float u = kBackTermWeights[k] * apart[k];
        d += u;
        sa += u * ta[k];
        sb += u * tb[k];
    }
    look.apart = d;
    if (sa + sb > 1e-9f) look.ratio = sb > 1e-9f ? sa / sb : 1e6f;
    return look;
}

BackMatch BackMatcher::match(const BackDescriptor& probe, bool moving) const {
    BackMatch m;
    if (decks_.empty()) return m;
    int best = -1, second = -1;
    float d1 = std::numeric_limits<float>::max(), d2 = std::numeric_limits<float>::max();
    for (int i = 0; i < int(decks_.size()); ++i) {
        const float d = distanceTo(probe, i, false, moving);
        if (d < d1) {
            d2 = d1;
            second = best;
            d1 = d;
            best = i;
        } else if (d < d2) {
            d2 = d;
            second = i;
        }
    }
    d2 = std::min(d2, options_.maxDistance * 1.5f);
    m.distance = d1;
    m.runnerUp = d2;
    m.nearest = best;
    m.second = second;
    // ratio test: confidence 1 when the best is at most half the runner-up's distance
    const float ratio = d2 > 1e-6f ? d1 / d2 : 1.f;
    m.confidence = std::clamp((1.f - ratio) / 0.5f, 0.f, 1.f);
    if (d1 > options_.maxDistance)
        m.confidence *= std::max(0.f, 1.f - (d1 - options_.maxDistance) / options_.maxDistance);
    m.deck = (d1 <= options_.maxDistance && m.confidence >= options_.minConfidence) ? best : -1;
    return m;
}

std::vector<ClosenessWarning> BackMatcher::closeTo(const BackSignature& signature) const {
    std::vector<ClosenessWarning> out;
    for (int i = 0; i < int(decks_.size()); ++i) {
        float d = std::numeric_limits<float>::max();
        // views as seen on both sides: the blurred enrolment copies of two decks are closer to
        // each other than the decks' cards (a warning asks for different decks, not sharper views)
        for (const auto& probe : signature.descriptors)
            if (probe.region.whole() && probe.blur == 0.f)
                d = std::min(d, distanceTo(probe, i, true));
        if (d < options_.tooClose) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.3f", d);
            out.push_back(
                {decks_[std::size_t(i)].name, d,
                 "back is too close to deck '" + decks_[std::size_t(i)].name + "' (distance " +
                     buf + ", below " + std::to_string(options_.tooClose).substr(0, 4) +
                     "): their cards may be confused; use decks with more different backs"});
        }
    }
    std::sort(out.begin(), out.end(),
              [](const auto& a, const auto& b) { return a.distance < b.distance; });
    return out;
}

}  // namespace nertz::vision
