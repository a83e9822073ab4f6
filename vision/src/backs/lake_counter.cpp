// Counting face-down cards by deck; see lake_counter.hpp.
#include "nertz/vision/lake_counter.hpp"

#include <chrono>

namespace nertz::vision {

int DeckCount::total() const {
    int t = unknown;
    for (const auto& [name, n] : counts) t += n;
    return t;
}

CountedCard attributeCard(const cv::Mat& bgr, const Quad& quad, const BackRegion& region, const BackMatcher& matcher) {
    CountedCard c;
    c.quad = quad;
    c.strip = !region.whole();
    c.deckName = "unknown";
    try {
        const cv::Mat rect = rectifyCard(bgr, quad);
        const BackMatch m = matcher.match(describeBack(rect, region));
        c.deck = m.deck;
        c.confidence = m.confidence;
        c.distance = m.distance;
        c.runnerUp = m.runnerUp;
        if (m.deck >= 0) c.deckName = matcher.decks()[std::size_t(m.deck)].name;
    } catch (const SignatureError&) {
        // a degenerate outline: the card stays unknown, with zero confidence
    }
    return c;
}

DeckCount countBacks(const cv::Mat& bgr, const BackMatcher& matcher, const BackFinderOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    DeckCount out;
    for (const auto& d : matcher.decks()) out.counts[d.name] = 0;
    for (const auto& cand : findBackCards(bgr, options)) {
        CountedCard c = attributeCard(bgr, cand.quad, cand.region, matcher);
        if (c.deck >= 0)
            ++out.counts[c.deckName];
        else
            ++out.unknown;
        out.cards.push_back(std::move(c));
    }
    out.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace nertz::vision
