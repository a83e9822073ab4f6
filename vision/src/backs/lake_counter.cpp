// Counting face-down cards by deck; see lake_counter.hpp.
#include "nertz/vision/lake_counter.hpp"

#include <algorithm>
#include <chrono>
#include <limits>

namespace nertz::vision {

int DeckCount::total() const {
    int t = unknown;
    for (const auto& [name, n] : counts) t += n;
    return t;
}

namespace {

// A card read: what attributeCard gives, and what it was read by (the card's description and the
// matcher's answer) for a second look (settleBySceneCards). `described` is false for an outline no
// description can be made of.
struct Reading {
    CountedCard card;
    BackDescriptor probe;
    BackMatch match;
    bool described = false;
};

Reading readCard(const cv::Mat& bgr, const Quad& quad, const BackRegion& region,
                 const BackMatcher& matcher, const std::vector<cv::Point2f>& shows,
                 bool moving = false) {
    Reading r;
    CountedCard& c = r.card;
    c.quad = quad;
    c.strip = !region.whole();
    c.shows = shows;
    c.deckName = "unknown";
    try {
        r.probe = describeBack(rectifyCard(bgr, quad), region, shows.empty() ? cv::Mat() : rectifiedShows(quad, shows));
        r.described = true;
        const BackMatch& m = r.match = matcher.match(r.probe, moving);
        c.deck = m.deck;
        c.confidence = m.confidence;
        c.distance = m.distance;
        c.runnerUp = m.runnerUp;
        c.nearest = m.nearest;
        if (m.deck >= 0)
            c.deckName = matcher.decks()[std::size_t(m.deck)].name;
        else if (m.nearest >= 0 && m.distance <= matcher.options().maxDistance)
            c.likely = matcher.decks()[std::size_t(m.nearest)].name;
    } catch (const SignatureError&) {
        // a degenerate outline: the card stays unknown, with zero confidence
    }
    return r;
}

}  // namespace

CountedCard attributeCard(const cv::Mat& bgr, const Quad& quad, const BackRegion& region,
                          const BackMatcher& matcher, const std::vector<cv::Point2f>& shows,
                          bool moving) {
    return readCard(bgr, quad, region, matcher, shows, moving).card;
}

namespace {

// A card left unknown between two decks (a narrow strip, a card mostly covered) read again beside
// the scene's own whole cards of those decks: each is described over the same part of the card as
// the unknown one (the strip at either long edge, or what shows of it either way up), and the
// unknown card goes to the deck whose cards are nearer when the other's are clearly farther.
// `reads[i]` was read from `found[i]`.
void settleBySceneCards(const cv::Mat& bgr, const BackMatcher& matcher, const std::vector<BackCandidate>& found,
                        std::vector<Reading>& reads) {
    constexpr std::size_t kPerDeck = 4;
    constexpr float kExemplarConfidence = 0.6f;
    const std::size_t decks = matcher.decks().size();
    if (decks < 2) return;
    // the scene's most confident whole cards of each deck, rectified
    std::vector<std::vector<std::pair<float, std::size_t>>> best(decks);
    for (std::size_t i = 0; i < reads.size(); ++i) {
        const CountedCard& c = reads[i].card;
        if (c.deck < 0 || c.strip || !c.shows.empty() || c.confidence < kExemplarConfidence) continue;
        best[std::size_t(c.deck)].push_back({c.confidence, i});
    }
    std::vector<std::vector<cv::Mat>> exemplars(decks);
    for (std::size_t d = 0; d < decks; ++d) {
        auto& b = best[d];
        std::sort(b.begin(), b.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
        for (std::size_t k = 0; k < b.size() && k < kPerDeck; ++k) {
            try {
                exemplars[d].push_back(rectifyCard(bgr, reads[b[k].second].card.quad));
            } catch (const SignatureError&) {
            }
        }
    }
    for (std::size_t i = 0; i < reads.size(); ++i) {
        Reading& r = reads[i];
        CountedCard& c = r.card;
        if (c.deck >= 0 || !r.described) continue;
        // the two decks the card lies between
        const int a = r.match.nearest, b = r.match.second;
        if (a < 0 || b < 0 || exemplars[std::size_t(a)].empty() || exemplars[std::size_t(b)].empty()) continue;
        // the same part of the scene's cards, either way up
        const BackRegion region = found[i].region;
        const cv::Mat shows = c.shows.empty() ? cv::Mat() : rectifiedShows(c.quad, c.shows);
        cv::Mat turned;
        if (!shows.empty()) cv::flip(shows, turned, -1);
        const BackRegion mirrored{1.f - region.x1, 1.f - region.x0};
        auto nearest = [&](int d) {
            float m = std::numeric_limits<float>::max();
            for (const auto& ex : exemplars[std::size_t(d)]) {
                if (!shows.empty()) {
                    m = std::min(m, backDistance(r.probe, describeBack(ex, region, shows)));
                    m = std::min(m, backDistance(r.probe, describeBack(ex, region, turned)));
                } else {
                    m = std::min(m, backDistance(r.probe, describeBack(ex, region)));
                    if (!region.whole()) m = std::min(m, backDistance(r.probe, describeBack(ex, mirrored)));
                }
            }
            return m;
        };
        const float da = nearest(a), db = nearest(b);
        const float lo = std::min(da, db), hi = std::max(da, db);
        if (hi <= 1e-6f || lo > matcher.options().sceneRatio * hi) continue;
        const int win = da < db ? a : b;
        c.deck = win;
        c.deckName = matcher.decks()[std::size_t(win)].name;
        c.likely.clear();
        c.confidence = std::clamp((1.f - lo / hi) / 0.5f, 0.f, 1.f);
        c.distance = win == a ? r.match.distance : matcher.distanceTo(r.probe, win);
    }
}

}  // namespace

DeckCount countBacks(const cv::Mat& bgr, const BackMatcher& matcher,
                     const BackFinderOptions& options) {
    const auto t0 = std::chrono::steady_clock::now();
    DeckCount out;
    for (const auto& d : matcher.decks()) out.counts[d.name] = 0;
    const auto found = findBackCards(bgr, options);
    std::vector<Reading> reads;
    for (const auto& cand : found) reads.push_back(readCard(bgr, cand.quad, cand.region, matcher, cand.shows));
    if (matcher.options().sceneExemplars) settleBySceneCards(bgr, matcher, found, reads);
    std::vector<CountedCard> cards;
    for (auto& r : reads) cards.push_back(std::move(r.card));
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
