// Scene generation: decks, layouts on the table plane, camera view, compositing, light and noise.
#include "nertz/synth/scene.hpp"

#include <opencv2/calib3d.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "background.hpp"
#include "nertz/scoring/error.hpp"

namespace nertz::synth {
namespace fs = std::filesystem;

namespace {

constexpr double kPi = 3.14159265358979323846;

// A card laid on the table plane (fronto-parallel view coordinates, pixels).
struct Placement {
    int deck = 0;
    int face = 0;  // Card::index() within the deck's design
    bool faceUp = true;
    cv::Point2d centre;
    double angle = 0;   // radians, rotation of the card's up direction
    double height = 0;  // card height on the plane
};

struct DeckArt {
    SceneDeck info;
    const CardDesign* design = nullptr;
    cv::Mat back;  // BGRA, possibly recoloured
};

// How a back looks at a glance: a 16x24 Lab thumbnail composited on white. Two backs whose
// thumbnails differ by less than kSameLook (mean absolute Lab difference, either way up) are the
// same artwork in the same colour (shared backs such as gnome-paris / gnome-guyenne-classic, a
// design and its 4-colour variant, a hue turn of a grey back): no one at a table can tell those
// decks apart, so a backs scene never deals them to two players. Distinct designs measure 4 or
// more, the same design in another colour 5 or more.
constexpr double kSameLook = 2.5;

// A loose layout ("loose" scenes) keeps every card showing at least this share of itself, measured
// on the table plane with cards of this width / height (standard playing cards are 2.5 x 3.5).
constexpr double kLooseShow = 1.0 / 3.0;
constexpr double kLooseAspect = 2.5 / 3.5;

cv::Mat backLook(const cv::Mat& bgra) {
    cv::Mat bgr(bgra.size(), CV_8UC3);
    for (int y = 0; y < bgra.rows; ++y)
        for (int x = 0; x < bgra.cols; ++x) {
            const cv::Vec4b p = bgra.at<cv::Vec4b>(y, x);
            const int a = p[3];
            bgr.at<cv::Vec3b>(y, x) = {uchar((p[0] * a + 255 * (255 - a)) / 255), uchar((p[1] * a + 255 * (255 - a)) / 255),
                                       uchar((p[2] * a + 255 * (255 - a)) / 255)};
        }
    cv::Mat small, lab;
    cv::resize(bgr, small, cv::Size(16, 24), 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, lab, cv::COLOR_BGR2Lab);
    lab.convertTo(lab, CV_32F);
    return lab;
}

double lookDistance(const cv::Mat& a, const cv::Mat& b) {
    cv::Mat turned;
    cv::flip(b, turned, -1);
    return std::min(cv::norm(a, b, cv::NORM_L1), cv::norm(a, turned, cv::NORM_L1)) / double(a.total() * 3);
}

// Builds layouts; keeps every (deck, card) at most once, as real decks do.
class Layout {
public:
    // `options`: the layout's own (SceneOptions::sameBackPairs, ribbonShiftLo / Hi); it must
    // outlive the layout.
    Layout(cv::RNG& rng, const std::vector<DeckArt>& decks, double cardHeight,
           const SceneOptions& options)
        : rng_(rng), decks_(decks), cardHeight_(cardHeight), options_(options) {}

    std::vector<Placement> cards;

    double uni(double a, double b) { return rng_.uniform(a, b); }
    int uniInt(int a, int bExclusive) { return rng_.uniform(a, bExclusive); }
    double cardH() { return cardHeight_ * uni(0.93, 1.07); }

    // A not yet used card of `deck`, preferring `wanted` (index) when free; -1 when the deck is empty.
    int take(int deck, int wanted = -1) {
        auto& used = used_[deck];
        if (used.size() >= 52) return -1;
        if (wanted >= 0 && !used.count(wanted)) {
            used.insert(wanted);
            return wanted;
        }
        int f = uniInt(0, 52);
        while (used.count(f)) f = (f + 1) % 52;
        used.insert(f);
        return f;
    }
    int randomDeck() { return uniInt(0, int(decks_.size())); }

    void add(int deck, int face, bool up, cv::Point2d c, double angle, double h) {
        if (face < 0) return;
        cards.push_back({deck, face, up, c, angle, h});
    }

    // SceneOptions::sameBackPairs: with that chance, one of the cards dealt since `first`, for the
    // next card to lie near (its deck, place and angle copied: `cards` may grow); none otherwise.
    // Nothing is drawn when the option is 0, so the scenes of a seed stay as they were.
    std::optional<Placement> ownDeckCard(std::size_t first) {
        if (options_.sameBackPairs <= 0 || cards.size() <= first || uni(0, 1) >= options_.sameBackPairs)
            return std::nullopt;
        return cards[first + std::size_t(uniInt(0, int(cards.size() - first)))];
    }
    // A point `lo`..`hi` card heights from `c`, in any direction.
    cv::Point2d around(cv::Point2d c, double lo, double hi) {
        const double dir = uni(0, 2 * kPi), reach = uni(lo, hi) * cardHeight_;
        return c + cv::Point2d(std::cos(dir), std::sin(dir)) * reach;
    }

    // Loose cards anywhere in `area`, optionally kept apart.
    void scatter(const cv::Rect2d& area, int n, bool faceUp, bool separated) {
        std::vector<cv::Point2d> placed;
        const std::size_t first = cards.size();
        for (int i = 0; i < n; ++i) {
            // a face-down card laid partly over one of its own deck (sameBackPairs)
            if (const auto under = faceUp ? std::nullopt : ownDeckCard(first)) {
                const cv::Point2d c = around(under->centre, 0.25, 0.8);
                const double angle =
                    uni(0, 1) < 0.5 ? under->angle + uni(-0.25, 0.25) : uni(0, 2 * kPi);
                placed.push_back(c);
                add(under->deck, take(under->deck), false, c, angle, cardH());
                continue;
            }
            cv::Point2d c;
            for (int attempt = 0; attempt < 25; ++attempt) {
                c = {uni(area.x, area.x + area.width), uni(area.y, area.y + area.height)};
                const bool clear = std::all_of(placed.begin(), placed.end(), [&](const cv::Point2d& p) {
                    return cv::norm(p - c) > cardHeight_ * 1.05;
                });
                if (!separated || clear) break;
            }
            placed.push_back(c);
            const int d = randomDeck();
            add(d, take(d), faceUp, c, uni(0, 2 * kPi), cardH());
        }
    }

    // Squared lake piles on a loose grid: each pile one suit, ranks up from the ace; the top card
    // readable, the cards under it peeking out by a few pixels. `truePiles`: the lake a table can
    // really hold. Every pile starts at an ace and each deck has one ace a suit, so a suit has at
    // most as many piles as there are decks (`piles` is at most four times the decks): the piles'
    // suits are drawn from the decks' aces. Each card is taken from a deck that still holds it
    // (the deck drawn, else the next one that does), so that every pile is one suit rising by one.
    // Without it (mixed scenes, and lake scenes before 2026-12-02) a card its deck had given
    // already was replaced by a random one of that deck, and a fifth of the piles showed another
    // suit or rank under the top, or another top; lake scenes from 2026-12-02 to 2026-12-03 had
    // the cards right but drew suits freely, so that most held more piles of a suit than decks.
    void lake(const cv::Rect2d& area, int piles, bool truePiles = false) {
        // the decks' aces, shuffled: pile p takes the suit of the p-th
        std::vector<int> aces;
        if (truePiles) {
            for (int d = 0; d < int(decks_.size()); ++d)
                for (int s = 0; s < 4; ++s) aces.push_back(s);
            piles = std::min(piles, int(aces.size()));
            for (int i = int(aces.size()) - 1; i > 0; --i) std::swap(aces[std::size_t(i)], aces[std::size_t(uniInt(0, i + 1))]);
        }
        const int cols = std::max(1, int(std::ceil(std::sqrt(piles * area.width / std::max(1.0, area.height)))));
        const int rows = (piles + cols - 1) / cols;
        const double cw = area.width / cols, ch = area.height / rows;
        const double baseAngle = uni(0, 2 * kPi);
        const bool aligned = uni(0, 1) < 0.6;
        for (int p = 0; p < piles; ++p) {
            const cv::Point2d c(area.x + (p % cols + 0.5) * cw + uni(-0.12, 0.12) * cw,
                                area.y + (p / cols + 0.5) * ch + uni(-0.12, 0.12) * ch);
            const int suit = truePiles ? aces[std::size_t(p)] : uniInt(0, 4);
            const int top = uniInt(1, 14);
            const int shown = std::min(top, uniInt(1, 4));
            for (int k = top - shown + 1; k <= top; ++k) {
                int d = randomDeck();
                const int wanted = suit * 13 + k - 1;
                const double jitter = k == top ? 0.04 : 0.07;
                if (truePiles) {
                    const int n = int(decks_.size());
                    int held = -1;
                    for (int i = 0; i < n && held < 0; ++i)
                        if (!used_[(d + i) % n].count(wanted)) held = (d + i) % n;
                    if (held < 0) continue;  // cannot happen with a suit's piles no more than the decks
                    d = held;
                }
                add(d, take(d, wanted), true,
                    c + cv::Point2d(uni(-jitter, jitter), uni(-jitter, jitter)) * cardHeight_,
                    (aligned ? baseAngle : uni(0, 2 * kPi)) + uni(-0.15, 0.15), cardH());
            }
        }
    }

    // A fan or a spread of one deck's cards: each next card shifted along the card's width (and
    // turned a little in an arc fan), so that only the corner indices show.
    // `angle` < 0: a random direction. `laid`: the cards to lay instead, bottom first (their deck
    // and face, taken already; `n` is their number), as a pile check's fan (pile).
    void fan(cv::Point2d centre, int n, bool faceUp, bool mixedDecks, double angle = -1,
             const std::vector<std::pair<int, int>>* laid = nullptr) {
        const int deck = randomDeck();
        if (angle < 0) angle = uni(0, 2 * kPi);
        const bool arc = faceUp && uni(0, 1) < 0.5;
        const double h = cardH();
        // shift between neighbours at the cards' top edge, in card heights (a card is ~0.7 wide):
        // face-up fans mostly show the whole corner index, ribbons show a strip of back; a pile
        // fanned for a check shows every index under the top (at 0.09-0.11 a fifth or more of it
        // is covered on 43% of the cards: the pile scenes' first draws, models/training/SYNTH.md)
        const double shift = laid     ? uni(0.12, 0.24)
                             : faceUp ? uni(0.09, 0.22)
                                      : uni(options_.ribbonShiftLo, options_.ribbonShiftHi);
        const double radius = h * uni(0.6, 1.2);
        const double step = h * shift;
        const double turn = arc ? shift * h / (radius + h / 2) : uni(-0.01, 0.01);
        const cv::Point2d along(std::cos(angle), std::sin(angle));
        // consecutive cards of one suit in a player's fan, random ones in a ribbon
        const int suit = uniInt(0, 4);
        const int first = uniInt(0, std::max(1, 14 - n));
        for (int i = 0; i < n; ++i) {
            const int d = mixedDecks ? randomDeck() : deck;
            const double off = (i - (n - 1) / 2.0);
            cv::Point2d c;
            double a;
            if (arc) {
                // rotate about a pivot below the cards' bottom edge
                a = angle + off * turn;
                const cv::Point2d pivot = centre + cv::Point2d(-std::sin(angle), std::cos(angle)) * radius;
                c = pivot + cv::Point2d(std::sin(a), -std::cos(a)) * radius;
            } else {
                a = angle + off * turn;
                c = centre + along * (off * step) + cv::Point2d(uni(-0.01, 0.01), uni(-0.01, 0.01)) * h;
            }
            if (laid) {
                add((*laid)[std::size_t(i)].first, (*laid)[std::size_t(i)].second, faceUp, c, a, h);
                continue;
            }
            const int wanted = faceUp && !mixedDecks && uni(0, 1) < 0.7 ? suit * 13 + (first + i) % 13 : -1;
            add(d, take(d, wanted), faceUp, c, a, h);
        }
    }

    // A lake pile fanned out face up for a pile check (SceneKind::Pile; SPEC, "Pile check"): A, 2,
    // 3, ... up to a top of 2..K in one suit, each card from one of the players' decks (every
    // player builds on the lake's piles), laid bottom first as a fan (fan: straight or arc, any
    // direction) so that the corner index of every card under another shows. In half the piles
    // one fault a table can hold (ScenePile::fault): two neighbouring cards above the ace swapped
    // (needs 3 cards), a card above the ace of another suit, a rank between the ace and the top
    // left out (needs 3 cards), or a card laid again on itself from another deck.
    ScenePile pile(cv::Point2d centre) {
        const int suit = uniInt(0, 4), top = uniInt(2, 14);
        std::vector<std::pair<int, int>> cardsUp;  // (suit, rank), bottom first
        for (int r = 1; r <= top; ++r) cardsUp.emplace_back(suit, r);
        const CardDesign& design = *decks_[0].design;
        ScenePile truth;
        truth.top = design.faces[std::size_t(suit * 13 + top - 1)].name;
        std::size_t repeated = 0;  // the position of a card laid again, when the fault is "repeat"
        if (uni(0, 1) < 0.5) {
            std::vector<std::string> faults;
            for (const char* f : {"swap", "suit", "missing", "repeat"})
                if (top >= 3 || (std::string(f) != "swap" && std::string(f) != "missing")) faults.emplace_back(f);
            truth.fault = faults[std::size_t(uniInt(0, int(faults.size())))];
            if (truth.fault == "swap") {
                const int k = uniInt(1, top - 1);
                std::swap(cardsUp[std::size_t(k)], cardsUp[std::size_t(k + 1)]);
                truth.at = k + 1;
            } else if (truth.fault == "suit") {
                const int k = uniInt(1, top);
                cardsUp[std::size_t(k)].first = (suit + uniInt(1, 4)) % 4;
                truth.at = k + 1;
            } else if (truth.fault == "missing") {
                const int k = uniInt(1, top - 1);
                cardsUp.erase(cardsUp.begin() + k);
                truth.at = k + 1;
            } else {
                const int k = uniInt(0, top);
                cardsUp.insert(cardsUp.begin() + k + 1, cardsUp[std::size_t(k)]);
                repeated = std::size_t(k + 1);
                truth.at = k + 2;
            }
        }
        const int n = int(decks_.size());
        std::vector<std::pair<int, int>> laid;  // (deck, face), bottom first
        for (std::size_t i = 0; i < cardsUp.size(); ++i) {
            // a card laid again comes from another deck than the one under it (a deck holds each
            // card once; pile scenes have two decks or more)
            const int d = i == repeated && i > 0 ? (laid[i - 1].first + uniInt(1, std::max(2, n))) % n : randomDeck();
            laid.emplace_back(d, take(d, cardsUp[i].first * 13 + cardsUp[i].second - 1));
        }
        fan(centre, int(laid.size()), true, false, -1, &laid);
        return truth;
    }

    // Face-down cards laid out loosely, as a table spreads the gathered lake to sort it: each card
    // goes anywhere in `area` at any angle, on top of what lies there, but only where every card
    // (itself and those under it) still shows at least `minShow` of itself; a card that finds no
    // such place in 40 tries is not dealt (so a crowded area ends with fewer than `n`). Shares are
    // measured on a raster of the plane with a card about 40 px long.
    void loose(const cv::Rect2d& area, int n, double minShow) {
        const double s = 40.0 / cardHeight_;
        const cv::Size grid(std::max(1, int(std::ceil((area.width + 2 * cardHeight_) * s))),
                            std::max(1, int(std::ceil((area.height + 2 * cardHeight_) * s))));
        cv::Mat ids(grid, CV_16U, cv::Scalar(0));  // 0: table, k: the k-th card dealt here
        std::vector<int> full;                     // each card's area on the raster
        auto corners = [&](cv::Point2d c, double angle, double h) {
            const double w = h * kLooseAspect;
            const cv::Point2d up(std::sin(angle), -std::cos(angle)), right(std::cos(angle), std::sin(angle));
            std::vector<cv::Point> q;
            for (const auto& [a, b] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}) {
                const cv::Point2d p = c + right * (a * w / 2) + up * (b * h / 2);
                q.emplace_back(int(std::lround((p.x - area.x + cardHeight_) * s)), int(std::lround((p.y - area.y + cardHeight_) * s)));
            }
            return q;
        };
        const std::size_t first = cards.size();
        for (int i = 0; i < n; ++i) {
            // near a card of the same deck dealt before (sameBackPairs)
            const std::optional<Placement> near = ownDeckCard(first);
            const int d = near ? near->deck : randomDeck();
            for (int attempt = 0; attempt < 40; ++attempt) {
                const cv::Point2d c = near ? around(near->centre, 0.3, 0.9)
                                           : cv::Point2d(uni(area.x, area.x + area.width),
                                                         uni(area.y, area.y + area.height));
                const double angle = uni(0, 2 * kPi), h = cardH();
                cv::Mat next = ids.clone();
                const auto q = corners(c, angle, h);
                cv::fillConvexPoly(next, q, cv::Scalar(double(full.size() + 1)));
                std::vector<int> shown(full.size() + 2, 0);
                for (int y = 0; y < next.rows; ++y)
                    for (const std::uint16_t* p = next.ptr<std::uint16_t>(y), *e = p + next.cols; p != e; ++p) ++shown[*p];
                const int mine = shown[full.size() + 1];
                bool ok = mine > 0;
                for (std::size_t k = 0; ok && k < full.size(); ++k) ok = shown[k + 1] >= minShow * full[k];
                if (!ok) continue;
                const int face = take(d);
                if (face < 0) break;
                ids = next;
                full.push_back(mine);
                add(d, face, false, c, angle, h);
                break;
            }
        }
    }

    // A squared or loose batch of face-down cards dealt onto one spot.
    void batch(cv::Point2d centre, int n) {
        const double angle = uni(0, 2 * kPi);
        const double spread = uni(0.0, 0.15);
        for (int i = 0; i < n; ++i) {
            const int d = randomDeck();
            add(d, take(d), false, centre + cv::Point2d(uni(-spread, spread), uni(-spread, spread)) * cardHeight_,
                angle + uni(-0.3, 0.3) * (spread * 4 + 0.1), cardH());
        }
    }

private:
    cv::RNG& rng_;
    const std::vector<DeckArt>& decks_;
    double cardHeight_;
    const SceneOptions& options_;
    std::map<int, std::set<int>> used_;
};

// Shrinks and moves `cards` (all of one layout) about their middle so that their outlines on the
// plane lie within `area`: a pile check's fan is the thing in view (SceneKind::Pile), and a long
// fan of large cards would run out of the picture.
void fitInto(std::vector<Placement>& cards, const std::vector<DeckArt>& decks, const cv::Rect2d& area) {
    if (cards.empty()) return;
    double x0 = 1e30, y0 = 1e30, x1 = -1e30, y1 = -1e30;
    for (const Placement& p : cards) {
        const cv::Mat& art = decks[std::size_t(p.deck)].design->faces[std::size_t(p.face)].image;
        const double w = p.height * art.cols / std::max(1, art.rows);
        const cv::Point2d right(std::cos(p.angle), std::sin(p.angle)), down(-std::sin(p.angle), std::cos(p.angle));
        for (const auto& [a, b] : {std::pair{-1, -1}, {1, -1}, {1, 1}, {-1, 1}}) {
            const cv::Point2d q = p.centre + right * (a * w / 2) + down * (b * p.height / 2);
            x0 = std::min(x0, q.x), x1 = std::max(x1, q.x), y0 = std::min(y0, q.y), y1 = std::max(y1, q.y);
        }
    }
    const double s = std::min({1.0, area.width / std::max(1e-6, x1 - x0), area.height / std::max(1e-6, y1 - y0)});
    const cv::Point2d from((x0 + x1) / 2, (y0 + y1) / 2), to(area.x + area.width / 2, area.y + area.height / 2);
    for (Placement& p : cards) {
        p.centre = to + (p.centre - from) * s;
        p.height *= s;
    }
}

cv::Point2f apply(const cv::Matx33d& m, cv::Point2d p) {
    const cv::Vec3d v = m * cv::Vec3d(p.x, p.y, 1.0);
    return {float(v[0] / v[2]), float(v[1] / v[2])};
}

// Homography from the fronto-parallel table view to a camera turned by `tilt` about an axis in the
// image plane at angle `axis` (a pure camera rotation: H = K R K^-1).
cv::Matx33d viewHomography(cv::Size size, double tilt, double axis, double focal) {
    const cv::Matx33d k(focal, 0, size.width / 2.0, 0, focal, size.height / 2.0, 0, 0, 1);
    const cv::Vec3d ax(std::cos(axis), std::sin(axis), 0);
    cv::Matx33d r;
    cv::Rodrigues(ax * tilt, r);
    return k * r * k.inv();
}

// SceneOptions::prefilterCards: artwork shrunk below this is blurred by this sigma over the shrink
// (artwork pixels) before it is warped (rectifyCard prefilters its own shrinking the same way).
constexpr double kPrefilterBelow = 0.8, kPrefilterSigma = 0.45;

// Blends `src` (BGRA) into `dst` (BGR) through its alpha; writes `id` into `ids` where alpha > 50%.
void composite(cv::Mat& dst, cv::Mat& ids, const cv::Mat& src, const cv::Matx33d& cardToImage,
               int id, double shadowStrength, cv::Point2d shadowOffset, double shadowBlur,
               bool prefilter) {
    const std::vector<cv::Point2d> corners{{0, 0}, {double(src.cols), 0}, {double(src.cols), double(src.rows)}, {0, double(src.rows)}};
    std::vector<cv::Point2f> quad;
    for (const auto& c : corners) quad.push_back(apply(cardToImage, c));
    const int pad = int(std::ceil(std::abs(shadowOffset.x) + std::abs(shadowOffset.y) + 3 * shadowBlur)) + 2;
    const cv::Rect roi = (cv::boundingRect(quad) + cv::Size(2 * pad, 2 * pad) - cv::Point(pad, pad)) & cv::Rect(0, 0, dst.cols, dst.rows);
    if (roi.area() <= 0) return;
    const cv::Matx33d shift(1, 0, -roi.x, 0, 1, -roi.y, 0, 0, 1);
    cv::Mat warped;
    const cv::Mat* from = &src;
    cv::Mat soft;
    if (prefilter) {
        // the card's mean shrink: its area in the picture over the artwork's (SceneOptions)
        const double shrink = std::sqrt(cv::contourArea(quad) / double(src.cols * src.rows));
        if (shrink < kPrefilterBelow) {
            cv::GaussianBlur(src, soft, cv::Size(0, 0), kPrefilterSigma / shrink);
            from = &soft;
        }
    }
    cv::warpPerspective(*from, warped, shift * cardToImage, roi.size(), cv::INTER_LINEAR,
                        cv::BORDER_CONSTANT, cv::Scalar::all(0));
    std::vector<cv::Mat> ch;
    cv::split(warped, ch);
    cv::Mat alpha;
    ch[3].convertTo(alpha, CV_32F, 1.0 / 255.0);
    cv::Mat region = dst(roi);
    cv::Mat regionF;
    region.convertTo(regionF, CV_32FC3);
    if (shadowStrength > 0) {
        cv::Mat shadow;
        const cv::Matx23d move(1, 0, shadowOffset.x, 0, 1, shadowOffset.y);
        cv::warpAffine(alpha, shadow, move, alpha.size());
        if (shadowBlur > 0.3) cv::GaussianBlur(shadow, shadow, {0, 0}, shadowBlur);
        cv::Mat keep = 1.0 - shadow * shadowStrength;
        cv::Mat keep3;
        cv::merge(std::vector<cv::Mat>{keep, keep, keep}, keep3);
        cv::multiply(regionF, keep3, regionF);
    }
    cv::Mat colour, alpha3;
    cv::merge(std::vector<cv::Mat>{ch[0], ch[1], ch[2]}, colour);
    colour.convertTo(colour, CV_32FC3);
    cv::merge(std::vector<cv::Mat>{alpha, alpha, alpha}, alpha3);
    regionF = regionF.mul(cv::Scalar::all(1.0) - alpha3) + colour.mul(alpha3);
    regionF.convertTo(region, CV_8UC3);
    ids(roi).setTo(id, ch[3] > 127);
}

// A hand reaching in from an image border: palm and fingers in a skin colour, softly shaded.
// `realLook`: skin as a camera sees it rather than one flat colour: light falling across the hand,
// blotchy and fine skin texture, and a soft shadow on what lies below
// (a plain back and a flat hand look alike to the back segmenter otherwise).
void drawHand(cv::RNG& rng, cv::Mat& img, cv::Mat& ids, double scale, bool realLook) {
    const int side = rng.uniform(0, 4);
    const cv::Size s = img.size();
    const double t = rng.uniform(0.15, 0.85);
    cv::Point2d edge, inward;
    switch (side) {
        case 0: edge = {t * s.width, 0}; inward = {0, 1}; break;
        case 1: edge = {double(s.width), t * s.height}; inward = {-1, 0}; break;
        case 2: edge = {t * s.width, double(s.height)}; inward = {0, -1}; break;
        default: edge = {0, t * s.height}; inward = {1, 0}; break;
    }
    const double turn = rng.uniform(-0.6, 0.6);
    inward = {inward.x * std::cos(turn) - inward.y * std::sin(turn), inward.x * std::sin(turn) + inward.y * std::cos(turn)};
    const cv::Point2d across(-inward.y, inward.x);
    const double palmW = scale * rng.uniform(0.8, 1.1), reach = scale * rng.uniform(0.6, 1.4);
    cv::Mat mask(s, CV_8U, cv::Scalar(0));
    const cv::Point2d palm = edge + inward * reach;
    // forearm
    cv::line(mask, cv::Point(edge - inward * scale), cv::Point(palm), 255, int(palmW * 0.8), cv::LINE_AA);
    cv::ellipse(mask, cv::RotatedRect(cv::Point2f(palm), cv::Size2f(float(palmW), float(palmW * 1.1)),
                                      float(std::atan2(inward.y, inward.x) * 180 / kPi)), 255, cv::FILLED, cv::LINE_AA);
    const int fingers = rng.uniform(2, 6);
    for (int f = 0; f < fingers; ++f) {
        const double o = (f - (fingers - 1) / 2.0) / 4.0;
        const cv::Point2d base = palm + across * (o * palmW) + inward * (palmW * 0.4);
        const double len = palmW * rng.uniform(0.5, 0.95);
        const double bend = rng.uniform(-0.25, 0.25) + o * 0.5;
        const cv::Point2d dir(inward.x * std::cos(bend) - inward.y * std::sin(bend), inward.x * std::sin(bend) + inward.y * std::cos(bend));
        cv::line(mask, cv::Point(base), cv::Point(base + dir * len), 255, std::max(3, int(palmW * 0.2)), cv::LINE_AA);
    }
    cv::Mat skin(1, 1, CV_8UC3, cv::Scalar(rng.uniform(6.0, 16.0), rng.uniform(60.0, 150.0), rng.uniform(110.0, 235.0)));
    cv::cvtColor(skin, skin, cv::COLOR_HSV2BGR);
    const cv::Vec3b c = skin.at<cv::Vec3b>(0);
    cv::Mat shade;
    cv::GaussianBlur(mask, shade, {0, 0}, std::max(1.0, scale * 0.08));
    // realLook: a light factor per pixel (gradient x blotches x grain), and a shadow
    cv::Mat light;
    if (realLook) {
        light = cv::Mat(s, CV_32F, cv::Scalar(1.0));
        const double angle = rng.uniform(0.0, 2 * kPi), strength = rng.uniform(0.15, 0.45);
        const cv::Point2d dir(std::cos(angle), std::sin(angle));
        cv::Mat blotch(std::max(2, int(s.height / std::max(4.0, scale * 0.25))),
                       std::max(2, int(s.width / std::max(4.0, scale * 0.25))), CV_32F);
        rng.fill(blotch, cv::RNG::NORMAL, 0.0, rng.uniform(0.04, 0.12));
        cv::resize(blotch, blotch, s, 0, 0, cv::INTER_CUBIC);
        cv::Mat grain(s, CV_32F);
        rng.fill(grain, cv::RNG::NORMAL, 0.0, rng.uniform(0.01, 0.05));
        cv::GaussianBlur(grain, grain, {0, 0}, 0.7);
        for (int y = 0; y < s.height; ++y)
            for (int x = 0; x < s.width; ++x) {
                const double along = ((x - palm.x) * dir.x + (y - palm.y) * dir.y) / std::max(1.0, palmW);
                light.at<float>(y, x) = float((1.0 + strength * std::clamp(along, -1.5, 1.5) / 1.5) *
                                              (1.0 + blotch.at<float>(y, x) + grain.at<float>(y, x)));
            }
        // the hand's shadow on the table or cards below, offset away from the light
        cv::Mat shadow;
        const cv::Point2d off = -dir * (palmW * rng.uniform(0.05, 0.2));
        const cv::Matx23d shift(1, 0, off.x, 0, 1, off.y);
        cv::warpAffine(mask, shadow, shift, s);
        cv::GaussianBlur(shadow, shadow, {0, 0}, std::max(1.0, palmW * rng.uniform(0.04, 0.12)));
        const double depth = rng.uniform(0.2, 0.5);
        for (int y = 0; y < s.height; ++y)
            for (int x = 0; x < s.width; ++x) {
                const uchar sh = shadow.at<uchar>(y, x);
                if (!sh) continue;
                cv::Vec3b& p = img.at<cv::Vec3b>(y, x);
                for (int k = 0; k < 3; ++k) p[k] = cv::saturate_cast<uchar>(p[k] * (1.0 - depth * sh / 255.0));
            }
    }
    for (int y = 0; y < s.height; ++y) {
        for (int x = 0; x < s.width; ++x) {
            const uchar m = mask.at<uchar>(y, x);
            if (!m) continue;
            double g = 0.6 + 0.4 * shade.at<uchar>(y, x) / 255.0;
            if (realLook) g *= light.at<float>(y, x);
            const double a = m / 255.0;
            cv::Vec3b& p = img.at<cv::Vec3b>(y, x);
            for (int k = 0; k < 3; ++k) p[k] = cv::saturate_cast<uchar>(p[k] * (1 - a) + c[k] * g * a);
            if (m > 127) ids.at<int>(y, x) = -2;
        }
    }
}

// Uneven light, colour cast, glare, blur and sensor noise.
void degrade(cv::RNG& rng, cv::Mat& img) {
    const cv::Size s = img.size();
    cv::Mat gain(3, 3, CV_32F);
    rng.fill(gain, cv::RNG::UNIFORM, rng.uniform(0.45, 0.9), 1.15);
    cv::resize(gain, gain, s, 0, 0, cv::INTER_CUBIC);
    cv::Mat f;
    img.convertTo(f, CV_32FC3);
    std::vector<cv::Mat> ch;
    cv::split(f, ch);
    for (int c = 0; c < 3; ++c) ch[std::size_t(c)] = ch[std::size_t(c)].mul(gain) * rng.uniform(0.88, 1.1);
    // glare: bright soft ellipses
    const int glare = rng.uniform(0, 4) == 0 ? rng.uniform(1, 3) : 0;
    for (int g = 0; g < glare; ++g) {
        // drawn at 1/8 scale: a glare spot is smooth, and a full-size blur of this radius is slow
        const cv::Size small(std::max(8, s.width / 8), std::max(8, s.height / 8));
        cv::Mat spot(small, CV_32F, cv::Scalar(0));
        const double r = std::min(small.width, small.height) * rng.uniform(0.03, 0.15) + 1.0;
        cv::ellipse(spot, cv::Point(rng.uniform(0, small.width), rng.uniform(0, small.height)),
                    cv::Size(int(r), int(r * rng.uniform(0.4, 1.0)) + 1), rng.uniform(0.0, 180.0), 0, 360, cv::Scalar(1.0), cv::FILLED);
        cv::GaussianBlur(spot, spot, {0, 0}, r * 0.5);
        cv::resize(spot, spot, s, 0, 0, cv::INTER_LINEAR);
        const double amp = rng.uniform(80.0, 220.0);
        for (auto& c : ch) c += spot * amp;
    }
    cv::merge(ch, f);
    // blur: defocus or motion
    const int blur = rng.uniform(0, 3);
    if (blur == 1) {
        cv::GaussianBlur(f, f, {0, 0}, rng.uniform(0.4, 1.8));
    } else if (blur == 2 && rng.uniform(0, 2) == 0) {
        const int len = rng.uniform(3, 9);
        cv::Mat k(len, len, CV_32F, cv::Scalar(0));
        const double a = rng.uniform(0.0, kPi);
        cv::line(k, cv::Point2d(len / 2.0, len / 2.0) - cv::Point2d(std::cos(a), std::sin(a)) * (len / 2.0),
                 cv::Point2d(len / 2.0, len / 2.0) + cv::Point2d(std::cos(a), std::sin(a)) * (len / 2.0), cv::Scalar(1.0));
        k /= cv::sum(k)[0];
        cv::filter2D(f, f, -1, k);
    }
    cv::Mat noise(s, CV_32FC3);
    rng.fill(noise, cv::RNG::NORMAL, 0.0, rng.uniform(0.5, 7.0));
    f += noise;
    f.convertTo(img, CV_8UC3);
}

}  // namespace

SceneKind parseSceneKind(const std::string& text) {
    static const std::map<std::string, SceneKind> kinds{{"faces", SceneKind::Faces}, {"backs", SceneKind::Backs},
                                                        {"mixed", SceneKind::Mixed}, {"lake", SceneKind::Lake},
                                                        {"fan", SceneKind::Fan},     {"ribbon", SceneKind::Ribbon},
                                                        {"loose", SceneKind::Loose}, {"pile", SceneKind::Pile}};
    const auto it = kinds.find(text);
    if (it == kinds.end())
        throw scoring::InputError("kind", "'" + text + "' is not one of faces, backs, mixed, lake, fan, ribbon, loose, pile");
    return it->second;
}

std::string sceneKindName(SceneKind kind) {
    switch (kind) {
        case SceneKind::Faces: return "faces";
        case SceneKind::Backs: return "backs";
        case SceneKind::Mixed: return "mixed";
        case SceneKind::Lake: return "lake";
        case SceneKind::Fan: return "fan";
        case SceneKind::Ribbon: return "ribbon";
        case SceneKind::Loose: return "loose";
        case SceneKind::Pile: return "pile";
    }
    return "mixed";
}

SceneGenerator::SceneGenerator(const std::vector<CardDesign>& designs, SceneOptions options)
    : designs_(&designs), options_(std::move(options)) {
    if (designs.empty()) throw scoring::InputError("designs", "no card designs to draw scenes with");
    if (options_.size.width < 64 || options_.size.height < 64 || options_.size.width > 8192 || options_.size.height > 8192)
        throw scoring::InputError("size", "scene size must be between 64x64 and 8192x8192");
    if (!options_.photoBackgrounds.empty()) {
        if (!fs::is_directory(options_.photoBackgrounds))
            throw scoring::InputError("backgrounds", "not a folder: " + options_.photoBackgrounds.string());
        for (const auto& e : fs::directory_iterator(options_.photoBackgrounds)) {
            auto ext = e.path().extension().string();
            std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
            if (ext == ".jpg" || ext == ".jpeg" || ext == ".png") photos_.push_back(e.path());
        }
        std::sort(photos_.begin(), photos_.end());
    }
}

Scene SceneGenerator::generate(std::uint64_t seed) const {
    // splitmix64 so that neighbouring seeds give unrelated scenes
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    cv::RNG rng(z ^ (z >> 31));
    const auto& designs = *designs_;

    cv::Size size = options_.size;
    if (options_.randomSize) {
        static constexpr int kSizes[][2] = {{640, 480}, {800, 600}, {960, 720}, {1024, 768}, {1280, 720}, {1280, 960}, {1600, 900}, {1920, 1080}};
        const auto& s = kSizes[rng.uniform(0, 8)];
        size = {s[0], s[1]};
        if (rng.uniform(0, 5) == 0) std::swap(size.width, size.height);  // a phone held upright
    }
    SceneKind kind = options_.kind;

    // decks: one per player; a same-design pair in two colours is common
    const bool backsMatter = kind == SceneKind::Backs || kind == SceneKind::Ribbon || kind == SceneKind::Mixed || kind == SceneKind::Loose;
    // a lake: 2-8 players, as tables play (a lake of one deck holds at most four piles)
    // (a pile check's pile, likewise: the lake's piles hold every player's cards)
    const int nDecks = backsMatter                                             ? rng.uniform(2, 7)
                       : kind == SceneKind::Lake || kind == SceneKind::Pile ? rng.uniform(2, 9)
                                                                             : rng.uniform(1, 5);
    std::vector<DeckArt> decks;
    const int firstDesign = rng.uniform(0, int(designs.size()));
    const bool colourGame = designs[std::size_t(firstDesign)].kind == scoring::DeckKind::NertzColour;
    // in scenes of face-down cards the decks of one table always look different (see kSameLook)
    const bool distinctLooks = kind == SceneKind::Backs || kind == SceneKind::Ribbon || kind == SceneKind::Loose;
    std::vector<cv::Mat> looks;
    for (int d = 0; d < nDecks; ++d) {
        DeckArt art;
        for (int attempt = 0;; ++attempt) {
            art = DeckArt{};
            art.info.id = d;
            double hue = 0;
            if (d > 0 && rng.uniform(0.0, 1.0) < 0.35) {
                const DeckArt& twin = decks[std::size_t(rng.uniform(0, d))];
                art.design = twin.design;
                hue = rng.uniform(90.0, 270.0);
                art.back = recolourBack(twin.back, hue);
                art.info.design = twin.info.design;
                art.info.back = twin.info.back + "@hue" + std::to_string(int(std::lround(hue)));
            } else {
                int di = d == 0 ? firstDesign : rng.uniform(0, int(designs.size()));
                if (colourGame) {
                    di = firstDesign;
                } else {
                    for (int tries = 0; tries < 8 && designs[std::size_t(di)].kind != scoring::DeckKind::Standard; ++tries)
                        di = rng.uniform(0, int(designs.size()));
                }
                art.design = &designs[std::size_t(di)];
                const BackArt& b = art.design->backs[std::size_t(rng.uniform(0, int(art.design->backs.size())))];
                art.back = b.image;
                art.info.design = art.design->name;
                art.info.back = art.design->name + "/" + b.id;
            }
            // the draw only happens when plain backs are asked for: the scenes of a seed stay as they were
            if (options_.plainBacks > 0 && rng.uniform(0.0, 1.0) < options_.plainBacks) {
                const bool dark = rng.uniform(0.0, 1.0) < 0.7;
                const cv::Vec3b c = dark ? cv::Vec3b(uchar(rng.uniform(5, 60)), uchar(rng.uniform(5, 60)), uchar(rng.uniform(5, 60)))
                                         : cv::Vec3b(uchar(rng.uniform(20, 230)), uchar(rng.uniform(20, 230)), uchar(rng.uniform(20, 230)));
                art.back = plainBack(art.back, c);
                art.info.back += plainBackModifier(c);
            }
            // likewise: the draw only happens when fine backs are asked for; a colour twin keeps
            // its twin's pattern (fine or not)
            if (options_.fineBacks > 0 && rng.uniform(0.0, 1.0) < options_.fineBacks && hue == 0) {
                const int times = rng.uniform(3, 6);
                art.back = fineBack(art.back, times);
                art.info.back += "@fine" + std::to_string(times);
            }
            if (!distinctLooks) break;
            const cv::Mat look = backLook(art.back);
            const bool same = std::any_of(looks.begin(), looks.end(), [&](const cv::Mat& l) { return lookDistance(l, look) < kSameLook; });
            if (!same || attempt >= 40) {
                looks.push_back(look);
                break;
            }
        }
        decks.push_back(std::move(art));
    }

    // camera: tilt from vertical, rotation about the view axis comes from the layout angles
    const double tilt = rng.uniform(0.0, options_.maxTiltDegrees) * kPi / 180.0 * (rng.uniform(0, 4) == 0 ? 0.2 : 1.0);
    const double focal = std::hypot(size.width, size.height) * rng.uniform(0.7, 1.3);
    const cv::Matx33d view = viewHomography(size, tilt, rng.uniform(0.0, 2 * kPi), focal);
    const cv::Matx33d toPlane = view.inv();
    // the table area the camera sees, on the plane
    std::vector<cv::Point2f> seen;
    for (const cv::Point2d c : {cv::Point2d(0, 0), cv::Point2d(size.width, 0), cv::Point2d(size.width, size.height), cv::Point2d(0, size.height)})
        seen.push_back(apply(toPlane, c));
    cv::Rect2d area = cv::boundingRect(seen);
    // keep the layout inside the middle of what is seen; sizes on the plane are image sizes divided
    // by the view's local scale there (a tilted view shrinks the plane away from its axis)
    const cv::Point2d mid = apply(toPlane, cv::Point2d(size.width / 2.0, size.height / 2.0));
    const cv::Point2d ex = cv::Point2d(apply(view, mid + cv::Point2d(1, 0))) - cv::Point2d(apply(view, mid));
    const cv::Point2d ey = cv::Point2d(apply(view, mid + cv::Point2d(0, 1))) - cv::Point2d(apply(view, mid));
    const double localScale = std::sqrt(std::max(1e-6, std::abs(ex.x * ey.y - ex.y * ey.x)));
    area = cv::Rect2d(mid.x - size.width * 0.425 / localScale, mid.y - size.height * 0.425 / localScale, size.width * 0.85 / localScale,
                      size.height * 0.85 / localScale);

    const double shortSide = std::min(size.width, size.height);
    double cardHeight = shortSide * rng.uniform(0.16, 0.4) / localScale;
    // a loose sort holds more, smaller cards (the camera framed on 10-60 of them)
    if (kind == SceneKind::Loose) cardHeight = shortSide * rng.uniform(0.12, 0.24) / localScale;
    // asked for: cards of another size (close-ups, as a phone held over a few cards sees them);
    // drawn only then, so a seed's scenes stay as they were without it
    if (options_.cardSizeHi > 0)
        cardHeight = shortSide * rng.uniform(options_.cardSizeLo, options_.cardSizeHi) / localScale;
    int piles = 0;
    if (kind == SceneKind::Lake) {
        // as large as the pile grid allows, like a camera framed on the lake
        // up to four a deck (a suit's piles start at its decks' aces), at most 30
        piles = rng.uniform(std::min(4, 2 * nDecks), std::min(30, 4 * nDecks) + 1);
        const double aw = area.width * 0.84, ah = area.height * 0.84;
        const int cols = std::max(1, int(std::ceil(std::sqrt(piles * aw / std::max(1.0, ah)))));
        const int rows = (piles + cols - 1) / cols;
        cardHeight = std::min(aw / cols / 0.75, ah / rows) * rng.uniform(0.6, 0.85);
    }
    Layout layout(rng, decks, cardHeight, options_);
    auto sub = [&](double fx, double fy, double fw, double fh) {
        return cv::Rect2d(area.x + fx * area.width, area.y + fy * area.height, fw * area.width, fh * area.height);
    };
    auto centreIn = [&](const cv::Rect2d& r) { return cv::Point2d(r.x + r.width / 2, r.y + r.height / 2); };
    std::optional<ScenePile> pile;
    switch (kind) {
        case SceneKind::Faces:
            layout.scatter(sub(0.1, 0.1, 0.8, 0.8), rng.uniform(3, 18), true, rng.uniform(0, 2) == 0);
            break;
        case SceneKind::Backs: {
            if (options_.cardSizeHi > 0.3) {
                // close-ups: a few face-down cards, some face-up ones beside them (a phone held
                // over a few cards of the table), now and then a small batch
                layout.scatter(sub(0.05, 0.05, 0.9, 0.9), rng.uniform(1, 6), false, rng.uniform(0, 2) == 0);
                layout.scatter(sub(0.05, 0.05, 0.9, 0.9), rng.uniform(0, 4), true, true);
                if (rng.uniform(0, 3) == 0)
                    layout.batch({area.x + rng.uniform(0.3, 0.7) * area.width, area.y + rng.uniform(0.3, 0.7) * area.height}, rng.uniform(2, 4));
                break;
            }
            layout.scatter(sub(0.1, 0.1, 0.8, 0.8), rng.uniform(2, 12), false, rng.uniform(0, 2) == 0);
            const int batches = rng.uniform(0, 3);
            for (int b = 0; b < batches; ++b)
                layout.batch({area.x + rng.uniform(0.2, 0.8) * area.width, area.y + rng.uniform(0.2, 0.8) * area.height}, rng.uniform(2, 8));
            break;
        }
        case SceneKind::Loose: layout.loose(sub(0.1, 0.1, 0.8, 0.8), rng.uniform(10, 61), kLooseShow); break;
        case SceneKind::Lake: layout.lake(sub(0.08, 0.08, 0.84, 0.84), piles, true); break;
        case SceneKind::Pile:
            // the fan alone in the middle of the view, at the usual card size where it fits
            pile = layout.pile(centreIn(area));
            fitInto(layout.cards, decks, sub(0.05, 0.05, 0.9, 0.9));
            break;
        case SceneKind::Fan: {
            const int fans = rng.uniform(1, 4);
            for (int f = 0; f < fans; ++f)
                layout.fan(centreIn(sub(0.15 + 0.7 * f / fans, rng.uniform(0.2, 0.5), 0.7 / fans, 0.3)), rng.uniform(3, 12), true, false);
            break;
        }
        case SceneKind::Ribbon: {
            // parallel ribbons side by side, as cards are spread out row by row for sorting
            const int ribbons = rng.uniform(1, 4);
            const double angle = rng.uniform(0.0, 2 * kPi);
            const cv::Point2d across(-std::sin(angle), std::cos(angle));
            const cv::Point2d centre = centreIn(area);
            for (int f = 0; f < ribbons; ++f)
                layout.fan(centre + across * ((f - (ribbons - 1) / 2.0) * cardHeight * 1.15), rng.uniform(6, 22), false, true, angle);
            break;
        }
        case SceneKind::Mixed: {
            // left part: a few lake piles; right part: fans, ribbons or loose cards
            layout.lake(sub(0.05, 0.05, 0.45, 0.5), rng.uniform(1, 7));
            layout.fan(centreIn(sub(0.5, 0.05, 0.5, 0.45)), rng.uniform(3, 9), true, false);
            layout.fan(centreIn(sub(0.05, 0.55, 0.5, 0.4)), rng.uniform(5, 14), false, true);
            layout.scatter(sub(0.55, 0.55, 0.4, 0.4), rng.uniform(1, 5), rng.uniform(0, 2) == 0, false);
            break;
        }
    }

    // table: textured on the plane, seen through the camera
    Scene scene;
    scene.pile = pile;
    {
        // near the horizon the seen area runs far out; texture only a few image sizes around the
        // middle (the rest reflects) so that the near table keeps its detail
        const double reach = 2.5 * std::max(size.width, size.height) / localScale;
        const cv::Rect planeBox = cv::boundingRect(seen) & cv::Rect(int(mid.x - reach), int(mid.y - reach), int(2 * reach), int(2 * reach));
        const double s = std::min(1.0, std::sqrt(1.5e6 / std::max(1.0, double(planeBox.area()))));
        const cv::Size tex(std::max(8, int(planeBox.width * s)), std::max(8, int(planeBox.height * s)));
        // the draw only happens when plain cloths are asked for: the scenes of a seed stay as they were
        const cv::Mat table = options_.plainTables > 0 && rng.uniform(0.0, 1.0) < options_.plainTables
                                  ? plainCloth(rng, tex)
                                  : makeTable(rng, tex, photos_, options_.photoBackgroundShare);
        const cv::Matx33d texToPlane(1 / s, 0, planeBox.x, 0, 1 / s, planeBox.y, 0, 0, 1);
        cv::warpPerspective(table, scene.image, view * texToPlane, size, cv::INTER_LINEAR, cv::BORDER_REFLECT);
    }
    cv::Mat ids(size, CV_32S, cv::Scalar(-1));

    // cards, bottom to top
    const double shadowStrength = rng.uniform(0.1, 0.45);
    const cv::Point2d shadowDir(rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0));
    std::vector<cv::Matx33d> cardToImage;
    for (std::size_t i = 0; i < layout.cards.size(); ++i) {
        const Placement& p = layout.cards[i];
        const DeckArt& deck = decks[std::size_t(p.deck)];
        const FaceArt& face = deck.design->faces[std::size_t(p.face)];
        const cv::Mat& art = p.faceUp ? face.image : deck.back;
        const double scale = p.height / art.rows;
        const double ca = std::cos(p.angle) * scale, sa = std::sin(p.angle) * scale;
        // card pixel -> plane: centre the card, scale, rotate, move
        const cv::Matx33d toPlaneM(ca, -sa, p.centre.x - (ca * art.cols - sa * art.rows) / 2, sa, ca,
                                   p.centre.y - (sa * art.cols + ca * art.rows) / 2, 0, 0, 1);
        const cv::Matx33d m = view * toPlaneM;
        cardToImage.push_back(m);
        composite(scene.image, ids, art, m, int(i), shadowStrength, shadowDir * (shortSide * 0.006),
                  shortSide * 0.006, options_.prefilterCards);

        SceneCard c;
        c.faceUp = p.faceUp;
        c.face = face.name;
        c.deckId = p.deck;
        c.design = deck.info.design;
        c.back = deck.info.back;
        for (const cv::Point2d q : {cv::Point2d(0, 0), cv::Point2d(art.cols, 0), cv::Point2d(art.cols, art.rows), cv::Point2d(0, art.rows)})
            c.quad.push_back(apply(m, q));
        scene.cards.push_back(std::move(c));
    }

    // hands over the table
    const int hands = rng.uniform(0, 10) < 3 ? rng.uniform(1, 3) : 0;
    for (int h = 0; h < hands; ++h) {
        const double handScale = cardHeight * rng.uniform(0.6, 1.0);
        // the draw only happens when real-looking hands are asked for: the scenes of a seed stay as they were
        const bool realLook = options_.realHands > 0 && rng.uniform(0.0, 1.0) < options_.realHands;
        drawHand(rng, scene.image, ids, handScale, realLook);
    }

    // visibility from the final id map
    const cv::Rect frame(0, 0, size.width, size.height);
    for (std::size_t i = 0; i < scene.cards.size(); ++i) {
        SceneCard& c = scene.cards[i];
        const double area = cv::contourArea(c.quad);
        const cv::Rect bb = cv::boundingRect(c.quad) & frame;
        const int visible = bb.area() > 0 ? cv::countNonZero(ids(bb) == int(i)) : 0;
        c.visibleFraction = area > 1 ? std::min(1.0, visible / area) : 0.0;
        if (!c.faceUp) continue;
        const DeckArt& deck = decks[std::size_t(layout.cards[i].deck)];
        const FaceArt& face = deck.design->faces[std::size_t(layout.cards[i].face)];
        for (const IndexRegion& r : face.indices) {
            SceneIndex si;
            si.corner = r.corner;
            for (const cv::Point2d q : {cv::Point2d(r.box.x, r.box.y), cv::Point2d(r.box.x + r.box.width, r.box.y),
                                        cv::Point2d(r.box.x + r.box.width, r.box.y + r.box.height), cv::Point2d(r.box.x, r.box.y + r.box.height)})
                si.quad.push_back(apply(cardToImage[i], q));
            // the bottom-right index is printed upside down: start its quad at the glyph's own top-left
            if (r.corner == "bottom_right") std::rotate(si.quad.begin(), si.quad.begin() + 2, si.quad.end());
            float x0 = si.quad[0].x, x1 = x0, y0 = si.quad[0].y, y1 = y0;
            for (const auto& q : si.quad) {
                x0 = std::min(x0, q.x), x1 = std::max(x1, q.x), y0 = std::min(y0, q.y), y1 = std::max(y1, q.y);
            }
            const cv::Rect2f full(x0, y0, x1 - x0, y1 - y0);
            si.box = full & cv::Rect2f(0, 0, float(size.width), float(size.height));
            std::vector<cv::Point> poly;
            for (const auto& q : si.quad) poly.emplace_back(int(std::lround(q.x)), int(std::lround(q.y)));
            const cv::Rect pb = cv::boundingRect(poly) & frame;
            const double polyArea = std::max(1.0, cv::contourArea(si.quad));
            if (pb.area() > 0) {
                cv::Mat mask(pb.size(), CV_8U, cv::Scalar(0));
                std::vector<cv::Point> local;
                for (const auto& q : poly) local.push_back(q - pb.tl());
                cv::fillConvexPoly(mask, local, 255);
                const cv::Mat mine = (ids(pb) == int(i)) & mask;
                si.visibleFraction = std::min(1.0, cv::countNonZero(mine) / std::max(1.0, double(cv::countNonZero(mask))) *
                                                       std::min(1.0, cv::countNonZero(mask) / polyArea));
            }
            si.visible = si.visibleFraction >= 0.8 && si.box.area() >= 0.9 * full.area() && si.box.width >= 3 && si.box.height >= 3;
            c.indices.push_back(std::move(si));
        }
    }

    degrade(rng, scene.image);
    if (options_.pepperNoise > 0 && rng.uniform(0.0, 1.0) < options_.pepperNoise) {
        cv::Mat u(scene.image.size(), CV_32F);
        rng.fill(u, cv::RNG::UNIFORM, 0.0, 1.0);
        const double p = rng.uniform(0.002, 0.02);
        scene.image.setTo(cv::Scalar::all(0), u < p / 2);
        scene.image.setTo(cv::Scalar::all(255), u > 1 - p / 2);
    }
    scene.jpegQuality = rng.uniform(40, 96);
    for (const auto& d : decks) scene.decks.push_back(d.info);

    if (options_.stretchSquare) {
        const cv::Size sq(640, 640);
        const float fx = float(sq.width) / size.width, fy = float(sq.height) / size.height;
        cv::resize(scene.image, scene.image, sq, 0, 0, cv::INTER_AREA);
        cv::resize(ids, ids, sq, 0, 0, cv::INTER_NEAREST);
        for (auto& c : scene.cards) {
            for (auto& q : c.quad) q = {q.x * fx, q.y * fy};
            for (auto& si : c.indices) {
                for (auto& q : si.quad) q = {q.x * fx, q.y * fy};
                si.box = cv::Rect2f(si.box.x * fx, si.box.y * fy, si.box.width * fx, si.box.height * fy);
            }
        }
    }
    scene.ids = ids;
    return scene;
}

}  // namespace nertz::synth
