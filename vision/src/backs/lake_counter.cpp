// Counting face-down cards by deck; see lake_counter.hpp.
#include "nertz/vision/lake_counter.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>

#include <opencv2/imgproc.hpp>

namespace nertz::vision {

int DeckCount::total() const {
    int t = unknown;
    for (const auto& [name, n] : counts) t += n;
    return t;
}

bool DeckCount::mostlyUnknown() const {
    return unknown >= kManyUnknown && 2 * unknown > total();
}

int DeckCount::narrowUnknown() const {
    return static_cast<int>(std::count_if(cards.begin(), cards.end(), [](const CountedCard& c) {
        return c.deck < 0 && c.strip && c.stripShare < kNarrowStrip;
    }));
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
    cv::Mat showsMask;  // the mask of the rectified card it was described over (empty: all of it)
};

// A card's reading leaves out what the back segmenter is sure is no face-down card (probability
// under kSureNoCard / 255: a hand, a face-up card lying on it) where that hides at least
// kSegmenterHides of the card's interior and leaves at least kSegmenterLeaves of it. Chosen on the
// train-design sets (BACKS.md, "A hand on a card"): under 0.5 instead of 0.2 lost two cards of
// `ba_tr_21` to a segmenter unsure of a borderless design; hides 0.03 / 0.10 read the same.
constexpr float kSegmenterHides = 0.05f;
constexpr float kSegmenterLeaves = 0.3f;
// ... except where what the segmenter hides is described (backDistance) within kHiddenLikeShown of
// what it leaves, each part at least kHiddenPartRead of the interior once both are kept off their
// common edge: then it is the card's own back that the segmenter is unsure of (a faint pattern on
// a light table), and all of the card is read. On the train-design sets 1 of 830 masked readings
// (`ba_tr_21`, `lo_tr_11`) has its parts within 0.2 of each other, most over 0.5 (a hand, the
// table under an outline fitted too large); BACKS.md, "The segmenter unsure of a faint card".
constexpr float kHiddenLikeShown = 0.2f;
constexpr float kHiddenPartRead = 0.03f;

// What of a whole card is described: the polygon `shows` (rectified; empty: all of the card), less
// what the segmenter sees as no face-down card (a hand, a face-up card on it) where that hides at
// least kSegmenterHides of the card's interior and leaves at least kSegmenterLeaves of it, unless
// what it hides is described within kHiddenLikeShown of what it leaves. `rectified`:
// rectifyCard(bgr, quad). `hidden`: the share of the interior left out so (0 when nothing is).
// `shown`: the description of the card over the returned mask where that was made on the way.
cv::Mat showsMaskOf(const cv::Mat& bgr, const cv::Mat& rectified, const Quad& quad,
                    const std::vector<cv::Point2f>& shows, const cv::Mat& cardProbability,
                    float& hidden, std::optional<BackDescriptor>& shown) {
    hidden = 0.f;
    shown.reset();
    cv::Mat mask = shows.empty() ? cv::Mat() : rectifiedShows(quad, shows);
    if (cardProbability.empty()) return mask;
    const cv::Mat seen = rectifiedCardMask(cardProbability, bgr.size(), quad, kSureNoCard);
    const cv::Rect inner = cardInterior();  // what the description reads
    const cv::Mat before = mask.empty() ? cv::Mat(kBackHeight, kBackWidth, CV_8UC1, cv::Scalar(255)) : mask;
    cv::Mat after;
    cv::bitwise_and(before, seen, after);
    const double had = cv::countNonZero(before(inner)), has = cv::countNonZero(after(inner));
    const double area = double(inner.area());
    hidden = float((had - has) / area);
    if (had - has < kSegmenterHides * area || has < kSegmenterLeaves * area) return mask;
    // keep off the edge of what is hidden, as off a card lying across
    const cv::Mat inset = cv::getStructuringElement(
        cv::MORPH_ELLIPSE, cv::Size(2 * kShowsInset + 1, 2 * kShowsInset + 1));
    cv::erode(after, after, inset);
    // what it hides looks like what it leaves: a card the segmenter is unsure of (a faint pattern
    // on a light table), not a hand or the table on it: read all of it
    cv::Mat hiddenPart;
    cv::bitwise_not(seen, hiddenPart);
    cv::bitwise_and(before, hiddenPart, hiddenPart);
    cv::erode(hiddenPart, hiddenPart, inset);
    if (cv::countNonZero(hiddenPart(inner)) >= kHiddenPartRead * area &&
        cv::countNonZero(after(inner)) >= kHiddenPartRead * area) {
        shown = describeBack(rectified, {}, after);
        if (backDistance(*shown, describeBack(rectified, {}, hiddenPart)) < kHiddenLikeShown) {
            shown.reset();
            hidden = 0.f;
            return mask;
        }
    }
    return after;
}

Reading readCard(const cv::Mat& bgr, const Quad& quad, const BackRegion& region,
                 const BackMatcher& matcher, const std::vector<cv::Point2f>& shows,
                 bool moving = false, const cv::Mat& cardProbability = {}) {
    Reading r;
    CountedCard& c = r.card;
    c.quad = quad;
    c.strip = !region.whole();
    if (c.strip) c.stripShare = region.x1 - region.x0;
    c.shows = shows;
    c.deckName = "unknown";
    try {
        const cv::Mat rectified = rectifyCard(bgr, quad);
        std::optional<BackDescriptor> shown;
        r.showsMask = region.whole() ? showsMaskOf(bgr, rectified, quad, shows, cardProbability,
                                                   c.hidden, shown)
                                     : cv::Mat();
        r.probe = shown ? std::move(*shown) : describeBack(rectified, region, r.showsMask);
        r.described = true;
        c.grey = cardLightness(rectified, region, r.showsMask);
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
    // a deck's exemplars rectified when a card first needs them (most frames need none), and each
    // one's whole-card description, the same for every whole unknown card: made once when needed
    std::vector<std::vector<cv::Mat>> exemplars(decks);
    std::vector<std::vector<std::optional<BackDescriptor>>> whole(decks);
    std::vector<bool> rectified(decks, false);
    auto exemplarsOf = [&](std::size_t d) -> const std::vector<cv::Mat>& {
        if (!rectified[d]) {
            rectified[d] = true;
            auto& b = best[d];
            std::sort(b.begin(), b.end(),
                      [](const auto& x, const auto& y) { return x.first > y.first; });
            for (std::size_t k = 0; k < b.size() && k < kPerDeck; ++k) {
                try {
                    exemplars[d].push_back(rectifyCard(bgr, reads[b[k].second].card.quad));
                } catch (const SignatureError&) {
                }
            }
            whole[d].resize(exemplars[d].size());
        }
        return exemplars[d];
    };
    auto wholeOf = [&](std::size_t d, std::size_t k) -> const BackDescriptor& {
        std::optional<BackDescriptor>& w = whole[d][k];
        if (!w) w = describeBack(exemplars[d][k], {});
        return *w;
    };
    for (std::size_t i = 0; i < reads.size(); ++i) {
        Reading& r = reads[i];
        CountedCard& c = r.card;
        if (c.deck >= 0 || !r.described) continue;
        // the two decks the card lies between
        const int a = r.match.nearest, b = r.match.second;
        if (a < 0 || b < 0 || exemplarsOf(std::size_t(a)).empty() ||
            exemplarsOf(std::size_t(b)).empty())
            continue;
        // the same part of the scene's cards, either way up
        const BackRegion region = found[i].region;
        const cv::Mat& shows = r.showsMask;
        cv::Mat turned;
        if (!shows.empty()) cv::flip(shows, turned, -1);
        const BackRegion mirrored{1.f - region.x1, 1.f - region.x0};
        auto nearest = [&](int d) {
            float m = std::numeric_limits<float>::max();
            const auto& exs = exemplars[std::size_t(d)];
            for (std::size_t k = 0; k < exs.size(); ++k) {
                const cv::Mat& ex = exs[k];
                if (!shows.empty()) {
                    m = std::min(m, backDistance(r.probe, describeBack(ex, region, shows)));
                    m = std::min(m, backDistance(r.probe, describeBack(ex, region, turned)));
                } else if (region.whole()) {
                    m = std::min(m, backDistance(r.probe, wholeOf(std::size_t(d), k)));
                } else {
                    m = std::min(m, backDistance(r.probe, describeBack(ex, region)));
                    m = std::min(m, backDistance(r.probe, describeBack(ex, mirrored)));
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

// A card given to its deck with this confidence is a back, not asked about (faceUpCards); with one
// deck enrolled it must also lie within kSureDistance of the matcher's maxDistance of it (the
// confidence is then a ratio to 1.5 x maxDistance: anything within 0.75 has confidence 1). Face-up
// pieces are given to decks too, some surely (a red pip matches a red back). On the train-design
// mixed tables (`synth --kind mixed --seed 13`, mean |error| 8.39 without faces): asking about
// unknown cards only left 3.6 cards a scene out (error 5.97); asking also about those under 0.5 /
// 0.8 / 0.95 / 0.99 confidence left 5.2 / 7.0 / 8.0 / 8.1 out (error 5.47 / 5.28 / 5.00 / 5.00);
// the distance rule for every matcher 8.6 (error 4.81), but then most cards of a frame are asked
// about and the faces are read far more often (a 24-card loose frame of four enrolled decks: 80 ms
// against 47); asking about every card, in the whole picture, 9.6 (error 4.67), with backs'
// patterns costing the reading 3 times the time (BACKS.md, "Face-up cards left out").
constexpr float kSureOfItsDeck = 0.95f;
constexpr float kSureDistance = 0.5f;
// A face-up card read without its outline is taken to be at least this many times its index box
// (its long side): a card's long side is 4.0-4.4 times its index box's at the median and 2.2 (held-
// out synthetic faces) to 3.4 (phone photos) at the 5th percentile (BACKS.md).
constexpr double kCardPerIndex = 2.5;

}  // namespace

std::vector<CountedCard> attributeCards(const cv::Mat& bgr, const std::vector<BackCandidate>& found,
                                        const BackMatcher& matcher, const cv::Mat& cardProbability) {
    std::vector<Reading> reads;
    for (const auto& cand : found)
        reads.push_back(readCard(bgr, cand.quad, cand.region, matcher, cand.shows, false, cardProbability));
    if (matcher.options().sceneExemplars) settleBySceneCards(bgr, matcher, found, reads);
    std::vector<CountedCard> cards;
    for (auto& r : reads) cards.push_back(std::move(r.card));
    return cards;
}

void settleBetweenTwoDecks(const cv::Mat& bgr, const std::vector<BackCandidate>& found,
                           std::vector<CountedCard>& cards, const BackMatcher& matcher,
                           const cv::Mat& cardProbability) {
    const MatcherOptions& o = matcher.options();
    if (!o.pairLook || matcher.decks().size() < 2) return;
    for (std::size_t i = 0; i < cards.size() && i < found.size(); ++i) {
        CountedCard& c = cards[i];
        if (c.deck >= 0 || c.nearest < 0 || c.distance > o.maxDistance) continue;
        // read again: the card's description and its two nearest decks
        const BackCandidate& f = found[i];
        const Reading r =
            readCard(bgr, f.quad, f.region, matcher, f.shows, false, cardProbability);
        const BackMatch& m = r.match;
        if (!r.described || r.card.deck >= 0 || m.nearest < 0 || m.second < 0 ||
            m.distance > o.maxDistance)
            continue;
        const BackMatcher::PairLook look = matcher.pairRatio(r.probe, m.nearest, m.second);
        const float confidence = std::clamp((1.f - look.ratio) / 0.5f, 0.f, 1.f);
        if (look.apart < o.tooClose || confidence < o.pairConfidence) continue;
        c.deck = m.nearest;
        c.deckName = matcher.decks()[std::size_t(c.deck)].name;
        c.likely.clear();
        c.confidence = confidence;
    }
}

namespace {

// Whether card `c` is one the lightness check reads: given to a deck of known lightness, its grey
// read, and a gate set for its kind.
bool lightnessKnown(const CountedCard& c, const BackMatcher& matcher) {
    const MatcherOptions& o = matcher.options();
    return c.deck >= 0 && c.grey >= 0.f && (c.strip ? o.stripLighterBy : o.lighterBy) > 0.f &&
           matcher.decks()[std::size_t(c.deck)].signature.lightHi > 0.f;  // 0: a version 3 signature
}

}  // namespace

void unknownWhereLightnessDiffers(float white, std::vector<CountedCard>& cards,
                                  const BackMatcher& matcher) {
    const MatcherOptions& o = matcher.options();
    if (!(white > 0.f)) return;
    for (CountedCard& c : cards) {
        if (!lightnessKnown(c, matcher)) continue;
        const float by = c.strip ? o.stripLighterBy : o.lighterBy;
        const BackSignature& sig = matcher.decks()[std::size_t(c.deck)].signature;
        if ((c.grey / white + kLightnessFloor) / (sig.lightHi + kLightnessFloor) <= by) continue;
        c.likely = c.deckName;
        c.deck = -1;
        c.deckName = "unknown";
        c.lighterThanDeck = true;
    }
}

void unknownWhereLightnessDiffers(const cv::Mat& bgr, std::vector<CountedCard>& cards,
                                  const BackMatcher& matcher) {
    // the picture's white only when a card needs it
    if (std::any_of(cards.begin(), cards.end(),
                    [&](const CountedCard& c) { return lightnessKnown(c, matcher); })) {
        // (a picture with nothing near white gives no measure of how light its cards lie)
        const float white = sceneWhite(bgr);
        if (white >= matcher.options().leastWhite) unknownWhereLightnessDiffers(white, cards, matcher);
    }
}

namespace {

// Calls f(i, j) for each row of `found`: its cards are found[i .. j) (BackCandidate::row; a row's
// cards are consecutive).
template <typename F>
void eachRow(const std::vector<BackCandidate>& found, F&& f) {
    for (std::size_t i = 0; i < found.size();) {
        if (!found[i].inRow) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < found.size() && found[j].inRow && found[j].row == found[i].row) ++j;
        f(i, j);
        i = j;
    }
}

template <typename Poly>
double longSide(const Poly& poly) {
    double m = 0;
    for (std::size_t k = 0; k < poly.size(); ++k)
        m = std::max(m, double(cv::norm(poly[k] - poly[(k + 1) % poly.size()])));
    return m;
}

// A card the face reader read face up with an index of at least `minConfidence`.
bool readFaceUp(const DetectedCard& f, float minConfidence) {
    float surest = 0.f;
    for (const auto& ix : f.indices) surest = std::max(surest, ix.confidence);
    return f.side == Side::Face && surest >= minConfidence;
}

std::vector<cv::Point2f> hullOf(const Quad& q) {
    std::vector<cv::Point2f> hull;
    cv::convexHull(std::vector<cv::Point2f>(q.begin(), q.end()), hull);
    return hull;
}

// The hull of what a found card shows (its outline where `shows` is empty).
std::vector<cv::Point2f> shownHull(const BackCandidate& c) {
    if (c.shows.empty()) return hullOf(c.quad);
    std::vector<cv::Point2f> hull;
    cv::convexHull(c.shows, hull);
    return hull;
}

// Whether at least `share` of the convex `hull` lies inside the convex `outline`.
bool mostlyInside(const std::vector<cv::Point2f>& hull, const std::vector<cv::Point2f>& outline, double share) {
    const double area = cv::contourArea(hull);
    std::vector<cv::Point2f> both;
    return area > 0 && cv::intersectConvexConvex(hull, outline, both) >= share * area;
}

// The face-up cards the face reader outlined without reading an index of them surely that a card of
// `asked` not taken for face up (`up`) lies mostly on (half its shown hull): their boxes, a fifth of
// their size larger each way, within a picture of `size`.
std::vector<cv::Rect> unreadFaceUpUnder(const std::vector<BackCandidate>& asked, const std::vector<bool>& up,
                                        const Detection& faces, cv::Size size) {
    std::vector<cv::Rect> out;
    for (const auto& f : faces.cards) {
        if (f.side != Side::Face || !f.quad || readFaceUp(f, 0.9f)) continue;
        const std::vector<cv::Point2f> o = hullOf(*f.quad);
        bool under = false;
        for (std::size_t i = 0; i < asked.size() && !under; ++i)
            under = !up[i] && mostlyInside(shownHull(asked[i]), o, 0.5);
        if (!under) continue;
        cv::Rect box = cv::boundingRect(o);
        const int mx = box.width / 5, my = box.height / 5;
        box = cv::Rect(box.x - mx, box.y - my, box.width + 2 * mx, box.height + 2 * my) & cv::Rect(0, 0, size.width, size.height);
        if (!box.empty()) out.push_back(box);
    }
    return out;
}

}  // namespace

double faceUpCardSide(const Detection& faces, float minConfidence) {
    std::vector<double> sides, fromIndices;
    for (const auto& f : faces.cards) {
        if (!readFaceUp(f, minConfidence)) continue;
        if (f.quad) {
            sides.push_back(longSide(hullOf(*f.quad)));
        } else {
            // no outline found: at least kCardPerIndex of its index box
            float index = 0.f;
            for (const auto& ix : f.indices) index = std::max(index, std::max(ix.box.width, ix.box.height));
            fromIndices.push_back(kCardPerIndex * double(index));
        }
    }
    if (sides.empty()) sides = std::move(fromIndices);
    if (sides.empty()) return 0;
    std::nth_element(sides.begin(), sides.begin() + std::ptrdiff_t(sides.size() / 2), sides.end());
    return sides[sides.size() / 2];
}

std::vector<bool> faceUpCards(const std::vector<BackCandidate>& found, const Detection& faces,
                              float inside, float minSize, float minConfidence) {
    // the face-up cards' outlines and read corners, in the picture's pixels
    std::vector<std::vector<cv::Point2f>> outlines;
    std::vector<cv::Point2f> corners;
    for (const auto& f : faces.cards) {
        if (!readFaceUp(f, minConfidence)) continue;
        if (f.quad) outlines.push_back(hullOf(*f.quad));
        for (const auto& ix : f.indices) corners.push_back(ix.centre);
    }
    // the size of a card here
    const double cardSide = faceUpCardSide(faces, minConfidence);
    std::vector<bool> out(found.size(), false);
    for (std::size_t i = 0; i < found.size(); ++i) {
        const auto& c = found[i];
        if (longSide(c.quad) < double(minSize) * cardSide) {
            out[i] = true;
            continue;
        }
        std::vector<cv::Point2f> shows = c.shows;
        if (shows.empty()) shows.assign(c.quad.begin(), c.quad.end());
        for (const auto& p : corners)
            if (cv::pointPolygonTest(shows, p, false) >= 0) out[i] = true;
        if (out[i] || outlines.empty()) continue;
        const std::vector<cv::Point2f> hull = shownHull(c);
        for (const auto& o : outlines)
            if (mostlyInside(hull, o, double(inside))) {
                out[i] = true;
                break;
            }
    }
    return out;
}

std::vector<bool> rowsSmallerThanFaceUp(const std::vector<BackCandidate>& found,
                                        const Detection& faces, float minSize) {
    std::vector<bool> out(found.size(), false);
    const double side = faceUpCardSide(faces);
    if (side <= 0 || minSize <= 0.f) return out;
    eachRow(found, [&](std::size_t i, std::size_t j) {
        int small = 0;
        for (std::size_t k = i; k < j; ++k)
            small += longSide(found[k].quad) < double(minSize) * side ? 1 : 0;
        if (2 * small > int(j - i))
            for (std::size_t k = i; k < j; ++k) out[k] = true;
    });
    return out;
}

std::vector<Quad> leaveOutFaceUp(std::vector<BackCandidate>& found, const Detection& faces) {
    const std::vector<bool> up = faceUpCards(found, faces);
    std::vector<Quad> out;
    std::vector<BackCandidate> backs;
    for (std::size_t i = 0; i < found.size(); ++i)
        if (up[i])
            out.push_back(found[i].quad);
        else
            backs.push_back(std::move(found[i]));
    found = std::move(backs);
    return out;
}

namespace {

// The overlap of two convex quadrilaterals over the smaller's area.
float overlapOfSmaller(const Quad& a, const Quad& b) {
    const std::vector<cv::Point2f> pa(a.begin(), a.end()), pb(b.begin(), b.end());
    std::vector<cv::Point2f> common;
    const float inter = cv::intersectConvexConvex(pa, pb, common, true);
    const float smaller = std::min(quadArea(a), quadArea(b));
    return smaller > 0.f ? inter / smaller : 1.f;
}

// A card of `sides` (width along u, height along v) centred at `c`, corners in order.
Quad cardAt(cv::Point2f c, cv::Point2f u, cv::Point2f v, float alongU, float alongV) {
    const cv::Point2f a = u * (alongU * 0.5f), b = v * (alongV * 0.5f);
    return {c - a - b, c + a - b, c + a + b, c - a + b};
}

}  // namespace

void refitUnknownCards(const cv::Mat& bgr, const BackMatcher& matcher,
                       std::vector<BackCandidate>& found, std::vector<CountedCard>& cards,
                       const std::vector<Quad>& faceUp, const cv::Mat& cardProbability) {
    const RefitOptions& o = matcher.options().refit;
    // the scene's card: the median sides of its surely attributed whole cards
    std::vector<float> shorts, longs;
    for (const auto& c : cards)
        if (c.deck >= 0 && c.confidence >= kSureOfItsDeck && !c.strip && c.shows.empty()) {
            const cv::Size2f s = quadSides(c.quad);
            shorts.push_back(s.width);
            longs.push_back(s.height);
        }
    if (int(shorts.size()) < o.minSceneCards) return;
    auto median = [](std::vector<float>& v) {
        std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    const float S = median(shorts), L = median(longs);
    const cv::Rect picture(0, 0, bgr.cols, bgr.rows);
    std::vector<BackCandidate> addFound;
    std::vector<CountedCard> addCards;
    for (std::size_t i = 0; i < cards.size(); ++i) {
        if (cards[i].deck >= 0 || found[i].inRow || !found[i].region.whole()) continue;
        const Quad& q = found[i].quad;
        // the unknown outline's frame: u along its first side, v along the next
        cv::Point2f u = (q[1] - q[0]) + (q[2] - q[3]), v = (q[2] - q[1]) + (q[3] - q[0]);
        const float lu = float(cv::norm(u)) * 0.5f, lv = float(cv::norm(v)) * 0.5f;
        if (lu < 1.f || lv < 1.f) continue;
        u /= 2.f * lu;
        v /= 2.f * lv;
        const cv::Point2f c = quadCentre(q);
        // card-sized guesses: the card's long side along v (turn 0) or along u (turn 1); where the
        // outline is longer than the card, at either end of it, else at its middle and shifted; a
        // covered card also centred on what shows of it, and shifted
        std::optional<cv::Point2f> showsMid;
        if (o.showsShift > 0.f && found[i].shows.size() >= 3) {
            const cv::Moments m = cv::moments(found[i].shows);
            if (m.m00 > 0) showsMid = cv::Point2f(float(m.m10 / m.m00), float(m.m01 / m.m00));
        }
        std::vector<Quad> guesses;
        bool twoFit = false;
        for (int turn = 0; turn < 2; ++turn) {
            const float eu = turn == 0 ? S : L, ev = turn == 0 ? L : S;
            const bool longU = lu > eu * o.longer, longV = lv > ev * o.longer;
            twoFit = twoFit || longU || longV;
            std::vector<float> du{0.f}, dv{0.f};
            if (longU)
                du = {-(lu - eu) * 0.5f, (lu - eu) * 0.5f};
            else
                du.insert(du.end(), {-o.shift * eu, o.shift * eu});
            if (longV)
                dv = {-(lv - ev) * 0.5f, (lv - ev) * 0.5f};
            else
                dv.insert(dv.end(), {-o.shift * ev, o.shift * ev});
            for (float a : du)
                for (float b : dv) {
                    if (a != 0.f && b != 0.f && !longU && !longV) continue;
                    guesses.push_back(cardAt(c + u * a + v * b, u, v, eu, ev));
                }
            if (showsMid) {
                const float su = o.showsShift * eu, sv = o.showsShift * ev;
                for (const cv::Point2f d : {cv::Point2f(0, 0), u * su, -u * su, v * sv, -v * sv})
                    guesses.push_back(cardAt(*showsMid + d, u, v, eu, ev));
            }
        }
        // a guess read over what shows of it: neither another card found nor `onTop` lie across it
        auto read = [&](const Quad& h, const Quad* onTop,
                        std::vector<cv::Point2f>& shows) -> std::optional<Reading> {
            const std::vector<cv::Point2f> hp(h.begin(), h.end());
            const cv::Rect box = cv::boundingRect(hp);
            if ((box & picture).area() < 0.9 * box.area()) return std::nullopt;
            std::vector<std::vector<cv::Point2f>> across;
            for (std::size_t j = 0; j < found.size(); ++j) {
                if (j == i) continue;
                const float ov = overlapOfSmaller(h, found[j].quad);
                if (ov > o.maxOverlap && cards[j].deck >= 0) return std::nullopt;  // a card counted
                if (ov > 0.02f) across.emplace_back(found[j].quad.begin(), found[j].quad.end());
            }
            for (const Quad& f : faceUp) {
                const float ov = overlapOfSmaller(h, f);
                if (ov > o.maxOverlap) return std::nullopt;  // a face-up card
                if (ov > 0.02f) across.emplace_back(f.begin(), f.end());
            }
            if (onTop) across.emplace_back(onTop->begin(), onTop->end());
            shows.clear();
            if (!across.empty()) {
                shows = uncoveredPart(hp, across);
                if (shows.size() < 3 || cv::contourArea(shows) < o.minShows * quadArea(h))
                    return std::nullopt;
            }
            return readCard(bgr, h, {}, matcher, shows, false, cardProbability);
        };
        auto given = [&](const std::optional<Reading>& r) {
            return r && r->card.deck >= 0 && r->card.confidence >= o.confidence;
        };
        std::optional<Reading> best;
        std::vector<cv::Point2f> bestShows, shows;
        for (const Quad& h : guesses) {
            std::optional<Reading> r = read(h, nullptr, shows);
            if (given(r) && (!best || r->card.distance < best->card.distance)) {
                best = std::move(r);
                bestShows = shows;
            }
        }
        if (!best) continue;
        cards[i] = best->card;
        found[i].quad = best->card.quad;
        found[i].shows = bestShows;
        if (!twoFit) continue;
        // an outline longer than a card: a second card beside the first, read without it
        std::optional<Reading> second;
        std::vector<cv::Point2f> secondShows;
        for (const Quad& h : guesses) {
            if (overlapOfSmaller(h, best->card.quad) > o.maxOverlap) continue;
            std::optional<Reading> r = read(h, &best->card.quad, shows);
            if (given(r) && (!second || r->card.distance < second->card.distance)) {
                second = std::move(r);
                secondShows = shows;
            }
        }
        if (!second) continue;
        BackCandidate b = found[i];
        b.quad = second->card.quad;
        b.shows = secondShows;
        addFound.push_back(std::move(b));
        addCards.push_back(second->card);
    }
    for (std::size_t k = 0; k < addFound.size(); ++k) {
        found.push_back(std::move(addFound[k]));
        cards.push_back(std::move(addCards[k]));
    }
}

DeckCount countBacks(const cv::Mat& bgr, const BackMatcher& matcher,
                     const BackFinderOptions& options, Detector* faceReader) {
    const auto t0 = std::chrono::steady_clock::now();
    DeckCount out;
    for (const auto& d : matcher.decks()) out.counts[d.name] = 0;
    cv::Mat cardProbability;
    BackFinderOptions finder = options;
    finder.ifKnownPieces = true;
    auto found = findBackCards(bgr, finder, &out.explained, &cardProbability);
    std::vector<CountedCard> cards = attributeCards(bgr, found, matcher, cardProbability);
    // A row whose strips mostly look like no deck at all is not cards (a hand, a glare, a shadow,
    // a face-up card's pips, a keyboard: MatcherOptions::rowLikeNoDeck): it is left out and listed
    // (rowsLeftOut). A loose card-shaped outline always stays, as unknown if it matches nothing.
    // A half-shown piece found only from card pixels no middle took is a card where it is read as
    // an enrolled deck's; read as none, it is more often no card, or not one card, than a card
    // (BACKS.md, "Half-shown cards kept where they are read"): left out.
    std::vector<bool> keep(cards.size());
    for (std::size_t i = 0; i < cards.size(); ++i) keep[i] = !(found[i].ifKnown && cards[i].deck < 0);
    eachRow(found, [&](std::size_t i, std::size_t j) {
        int far = 0;
        for (std::size_t k = i; k < j; ++k)
            far += cards[k].distance > matcher.options().rowLikeNoDeck * matcher.options().maxDistance
                       ? 1
                       : 0;
        if (2 * far > int(j - i))
            for (std::size_t k = i; k < j; ++k) {
                keep[k] = false;
                out.rowsLeftOut.push_back(found[k].quad);
            }
    });
    // Cards given to no deck, or not surely, may be face-up cards or pieces of their print (a red
    // pip can match a red back): the faces are read where no card was surely given to a deck
    // (those are painted over, so that a back's pattern costs no reading time, and no back sure of
    // its deck is left out), and the cards asked about that are face up are left out.
    const bool oneDeck = matcher.decks().size() < 2;
    auto sure = [&](std::size_t i) {
        return cards[i].deck >= 0 && cards[i].confidence >= kSureOfItsDeck &&
               (!oneDeck || cards[i].distance <= kSureDistance * matcher.options().maxDistance);
    };
    std::vector<std::size_t> unknown;
    for (std::size_t i = 0; i < cards.size(); ++i)
        if (keep[i] && !sure(i)) unknown.push_back(i);
    // rows are checked against the face-up cards' size even where all their cards are sure
    bool rowKept = false;
    if (matcher.options().rowUnderFaceUp > 0.f)
        for (std::size_t i = 0; i < cards.size(); ++i) rowKept = rowKept || (keep[i] && found[i].inRow);
    if (faceReader && (!unknown.empty() || rowKept)) {
        cv::Mat rest = bgr.clone();
        const cv::Scalar fill = cv::mean(bgr);
        for (std::size_t i = 0; i < cards.size(); ++i) {
            if (!keep[i] || !sure(i)) continue;
            std::vector<cv::Point> poly;
            if (found[i].shows.empty())
                for (const auto& p : found[i].quad) poly.emplace_back(cvRound(p.x), cvRound(p.y));
            else
                for (const auto& p : found[i].shows) poly.emplace_back(cvRound(p.x), cvRound(p.y));
            cv::fillPoly(rest, std::vector<std::vector<cv::Point>>{poly}, fill);
        }
        Detection faces = faceReader->detect(rest);
        std::vector<BackCandidate> asked;
        for (std::size_t i : unknown) asked.push_back(found[i]);
        std::vector<bool> up = faceUpCards(asked, faces);
        // an asked card on a face-up card the reader outlined but read nothing of: the picture is
        // read again at a still picture's other scales (an index the reader misses at one size it
        // often reads at another; the demo's gnome-anglo king of diamonds, as a row of strips)
        const std::vector<cv::Rect> unread = unreadFaceUpUnder(asked, up, faces, rest.size());
        static const std::vector<double> stillScales = DetectorOptions::stillPicture().extraScales;
        for (const cv::Rect& r : unread) faces = faceReader->readAgainAt(rest, std::move(faces), stillScales, r);
        if (!unread.empty()) up = faceUpCards(asked, faces);
        out.facesMs = faces.ms;
        for (std::size_t k = 0; k < unknown.size(); ++k)
            if (up[k]) {
                keep[unknown[k]] = false;
                out.faceUp.push_back(found[unknown[k]].quad);
            }
        // rows of cards far smaller than the face-up cards: the print of a face, a cloth's knit
        if (matcher.options().rowUnderFaceUp > 0.f) {
            std::vector<std::size_t> kept;
            std::vector<BackCandidate> keptFound;
            for (std::size_t i = 0; i < found.size(); ++i)
                if (keep[i]) {
                    kept.push_back(i);
                    keptFound.push_back(found[i]);
                }
            const std::vector<bool> small =
                rowsSmallerThanFaceUp(keptFound, faces, matcher.options().rowUnderFaceUp);
            for (std::size_t k = 0; k < kept.size(); ++k)
                if (small[k]) {
                    keep[kept[k]] = false;
                    out.rowsLeftOut.push_back(found[kept[k]].quad);
                }
        }
    }
    // the cards kept, alone in `found` and `cards` from here on
    {
        std::vector<BackCandidate> keptFound;
        std::vector<CountedCard> keptCards;
        for (std::size_t i = 0; i < cards.size(); ++i)
            if (keep[i]) {
                keptFound.push_back(std::move(found[i]));
                keptCards.push_back(std::move(cards[i]));
            }
        found = std::move(keptFound);
        cards = std::move(keptCards);
    }
    // what is still unknown (not a face-up card either) fitted again
    if (matcher.options().refit.on)
        refitUnknownCards(bgr, matcher, found, cards, out.faceUp, cardProbability);
    // last, what is still unknown between two decks, by what tells those two apart (after the
    // refit, which puts a wrong outline right: most unknown loose cards are such)
    settleBetweenTwoDecks(bgr, found, cards, matcher, cardProbability);
    unknownWhereLightnessDiffers(bgr, cards, matcher);
    for (std::size_t i = 0; i < cards.size(); ++i) {
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
