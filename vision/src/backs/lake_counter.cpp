// Counting face-down cards by deck; see lake_counter.hpp.
#include "nertz/vision/lake_counter.hpp"

#include <chrono>

namespace nertz::vision {

int DeckCount::total() const {
    int t = unknown;
    for (const auto& [name, n] : counts) t += n;
    return t;
}

CountedCard attributeCard(const cv::Mat& bgr, const Quad& quad, const BackRegion& region,
                          const BackMatcher& matcher, const std::vector<cv::Point2f>& shows) {
    CountedCard c;
    c.quad = quad;
    c.strip = !region.whole();
    c.shows = shows;
    c.deckName = "unknown";
    try {
        const cv::Mat rect = rectifyCard(bgr, quad);
        const BackMatch m = matcher.match(
            describeBack(rect, region, shows.empty() ? cv::Mat() : rectifiedShows(quad, shows)));
        c.deck = m.deck;
        c.confidence = m.confidence;
        c.distance = m.distance;
        c.runnerUp = m.runnerUp;
        c.nearest = m.nearest;
        if (m.deck >= 0) c.deckName = matcher.decks()[std::size_t(m.deck)].name;
    } catch (const SignatureError&) {
        // a degenerate outline: the card stays unknown, with zero confidence
    }
    return c;
}

DeckCount countBacks(const cv::Mat& bgr, const BackMatcher& matcher,
                     const BackFinderOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    DeckCount out;
    for (const auto& d : matcher.decks()) out.counts[d.name] = 0;
    const auto found = findBackCards(bgr, options);
    std::vector<CountedCard> cards;
    for (const auto& cand : found)
        cards.push_back(attributeCard(bgr, cand.quad, cand.region, matcher, cand.shows));
    // A row whose strips mostly look like no deck at all is not cards (a hand, a glare, a shadow):
    // it is dropped. A loose card-shaped outline always stays, as unknown if it matches nothing.
    std::vector<bool> keep(cards.size(), true);
    for (std::size_t i = 0; i < found.size();) {
        if (!found[i].inRow) {
            ++i;
            continue;
        }
        std::size_t j = i;
        int far = 0;
        while (j < found.size() && found[j].inRow && found[j].row == found[i].row) {
            far += cards[j].distance > 1.5f * matcher.options().maxDistance ? 1 : 0;
            ++j;
        }
        if (2 * far > int(j - i))
            for (std::size_t k = i; k < j; ++k) keep[k] = false;
        i = j;
    }
    for (std::size_t i = 0; i < cards.size(); ++i) {
        if (!keep[i]) continue;
        if (cards[i].deck >= 0)
            ++out.counts[cards[i].deckName];
        else
            ++out.unknown;
        out.cards.push_back(std::move(cards[i]));
    }
    out.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return out;
}

}  // namespace nertz::vision
