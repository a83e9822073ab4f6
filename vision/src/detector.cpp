// The detection pipeline; see detector.hpp.
#include "nertz/vision/detector.hpp"

#include <algorithm>
#include <map>
#include <chrono>
#include <cmath>
#include <mutex>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <opencv2/imgproc.hpp>

#include "nertz/vision/back_signature.hpp"
#include "nertz/vision/image_io.hpp"
#include "nertz/vision/pip_colour.hpp"
#include "median.hpp"
#include "scaled_size.hpp"

namespace nertz::vision {

namespace {

// A frame allocates and frees large buffers every time (the working copy, ink masks, patches, the
// reader's batches: 0.2-6 MB each). glibc maps a block over its mmap threshold afresh each time
// (the threshold starts at 128 KB and rises only to the largest block freed so far) and gives the
// heap's top back beyond its trim threshold, so each frame paid page faults on fresh pages, and
// the live path's time hung on which buffer happened to be the largest: the patches cut for the
// gate at half resolution saved 4 ms a frame and cost 5 ms in faults (models/MODEL.md, "The gate
// from half-resolution patches"). Once per process, blocks up to 32 MB (glibc's most) come from
// the heap, and up to 128 MB of it is kept. (Any larger picture is still mapped and given back.)
void keepFrameBuffers() {
#if defined(__GLIBC__)
    static std::once_flag once;
    std::call_once(once, [] {
        mallopt(M_MMAP_THRESHOLD, 32 << 20);
        mallopt(M_TRIM_THRESHOLD, 128 << 20);
    });
#endif
}

}  // namespace

Detector::Detector(DetectorOptions options)
    : options_(std::move(options)), reader_(resolveModelDir(options_.modelDir)) {
    keepFrameBuffers();
    // OpenCV builds its Lab tables on a process's first Lab conversion (80-150 ms here): done while
    // loading, so that the first picture's time is its own
    if (options_.suitFromInk) colourless(cv::Mat(1, 1, CV_8UC3, cv::Scalar::all(0)));
}

namespace {

// A reading's probability of clubs and of spades (over every rank; classes 0-12 and 39-51).
std::pair<float, float> clubsAndSpades(const PatchReading& r) {
    float c = 0.f, s = 0.f;
    for (int k = 0; k < 13; ++k) {
        c += r.faces[std::size_t(k)];
        s += r.faces[std::size_t(39 + k)];
    }
    return {c, s};
}

// A black reading's split between clubs and spades taken from another reading of the same patch
// (`other`); the index's and the rank's probabilities stay r's own. The face read is chosen again.
void splitBlackSuits(PatchReading& r, const PatchReading& other) {
    const auto [c, s] = clubsAndSpades(other);
    if (!(c + s > 0.f)) return;
    for (int k = 0; k < 13; ++k) {
        const float both = r.faces[std::size_t(k)] + r.faces[std::size_t(39 + k)];
        r.faces[std::size_t(k)] = both * c / (c + s);
        r.faces[std::size_t(39 + k)] = both * s / (c + s);
    }
    chooseFace(r);
}

// The mean of the (up to) 5 largest confidences: how surely a reading reads.
float surest5(std::vector<float> c) {
    if (c.empty()) return 0.f;
    const std::size_t n = std::min<std::size_t>(5, c.size());
    std::partial_sort(c.begin(), c.begin() + std::ptrdiff_t(n), c.end(), std::greater<>());
    float sum = 0.f;
    for (std::size_t i = 0; i < n; ++i) sum += c[i];
    return sum / float(n);
}

// The probability of a reading's likeliest face (whether or not "not an index" is likelier).
float likeliestFace(const PatchReading& r) {
    return *std::max_element(r.faces.begin(), r.faces.end());
}

// A reading of the picture stretched by (fx, fy), brought back to the picture's pixels.
void unstretch(Detection& d, float fx, float fy, cv::Size size) {
    auto back = [&](cv::Point2f p) { return cv::Point2f(p.x / fx, p.y / fy); };
    for (DetectedCard& card : d.cards) {
        if (card.quad)
            for (cv::Point2f& p : *card.quad) p = back(p);
        for (IndexReading& r : card.indices) {
            r.centre = back(r.centre);
            const cv::Point2f along(r.up.x * r.scale / fx, r.up.y * r.scale / fy);
            const float len = std::hypot(along.x, along.y);
            r.scale = len;
            r.up = along * (1.f / std::max(len, 1e-6f));
            r.box = cv::Rect2f(r.box.x / fx, r.box.y / fy, r.box.width / fx, r.box.height / fy) &
                    cv::Rect2f(0.f, 0.f, float(size.width), float(size.height));
        }
    }
    d.width = size.width;
    d.height = size.height;
    d.stretchX = fx;
    d.stretchY = fy;
}

// True when r lies where a reading of `kept` already lies (closer than 0.8 of the larger
// rank-to-pip distance): one reading a place.
bool clashes(const IndexReading& r, const std::vector<IndexReading>& kept) {
    for (const IndexReading& k : kept) {
        const cv::Point2f dd = k.centre - r.centre;
        if (std::hypot(dd.x, dd.y) < 0.8f * std::max(r.scale, k.scale)) return true;
    }
    return false;
}

// Readings of the picture not kept (a square picture's other aspects, a still picture's other
// scales: DetectorOptions::aspectExtraConfidence, extraScaleConfidence): the indices read at least
// `minConfidence` surely where the kept reading has no index are added to it, with their cards. An
// index of a face the kept reading has a card of nearby (within the reach groupIndices gives one
// card's corners, or at its opposite corner) joins that card; one inside an outline the kept
// reading found no index in makes it that face's card; the others are new cards, outlined as read
// at their aspect (or from their indices).
void addSureCardsOfOtherReadings(const cv::Mat& bgr, Detection& best,
                                 const std::vector<Detection>& others, float minConfidence,
                                 const DetectorOptions& o) {
    std::vector<IndexReading> places;  // every index kept so far
    for (const DetectedCard& c : best.cards)
        places.insert(places.end(), c.indices.begin(), c.indices.end());
    auto sameCard = [](const DetectedCard& k, const IndexReading& r) {
        for (const IndexReading& ki : k.indices)
            if (cornersOfOneCard(ki, r)) return true;
        return false;
    };
    // an aspect stretched across the kept one (wide against tall) distorts the glyphs by both
    // stretches at once (up to 16/9 x 4/3): its readings are not taken
    auto wide = [](const Detection& d) { return d.stretchX > d.stretchY * 1.01f; };
    auto tall = [](const Detection& d) { return d.stretchY > d.stretchX * 1.01f; };
    for (const Detection& d : others) {
        if ((wide(best) && tall(d)) || (tall(best) && wide(d))) continue;
        for (const DetectedCard& card : d.cards) {
            std::vector<IndexReading> sure;
            for (const IndexReading& r : card.indices)
                if (!r.paired && r.confidence >= minConfidence && !clashes(r, places))
                    sure.push_back(r);
            if (sure.empty()) continue;
            places.insert(places.end(), sure.begin(), sure.end());
            DetectedCard* into = nullptr;
            for (DetectedCard& k : best.cards)
                if (sameCard(k, sure.front()) ||
                    (!k.face && k.quad && quadContains(*k.quad, sure.front().centre)))
                    into = &k;
            if (!into) {
                best.cards.emplace_back();
                into = &best.cards.back();
                into->quad = card.quad;
                if (!into->quad && o.findOutlines && o.outlinesFromIndices)
                    into->quad = outlineFromIndices(bgr, sure);
            }
            into->face = sure.front().face;
            into->side = Side::Face;
            for (const IndexReading& r : sure) {
                into->confidence = std::max(into->confidence, r.confidence);
                into->indices.push_back(r);
            }
        }
    }
}

// Candidate c (working pixels; `inv` takes it to the picture's) read as `face`, as an index reading
// in the picture.
IndexReading readingOf(const IndexCandidate& c, float inv, scoring::Card face, float confidence) {
    const cv::Point2f a = c.a * inv, b = c.b * inv;
    IndexReading r;
    r.centre = (a + b) * 0.5f;
    r.scale = std::hypot(b.x - a.x, b.y - a.y);
    r.up = (a - b) * (1.f / std::max(r.scale, 1e-3f));
    r.face = face;
    r.confidence = confidence;
    return r;
}

// r with its box: the patch's span shrunk to the index, within the picture.
IndexReading withBox(IndexReading r, const ProposalParams& params, cv::Size picture) {
    const cv::Point2f down = -r.up, right(-down.y, down.x);
    const float hw = 0.5f * 0.8f * params.spanWidth * r.scale,
                hh = 0.5f * 0.8f * params.spanHeight * r.scale;
    std::vector<cv::Point2f> corners;
    for (float sx : {-1.f, 1.f})
        for (float sy : {-1.f, 1.f})
            corners.push_back(r.centre + right * (sx * hw) + down * (sy * hh));
    r.box = cv::boundingRect(corners) & cv::Rect(cv::Point(0, 0), picture);
    return r;
}

}  // namespace

DetectorOptions DetectorOptions::stillPicture() {
    DetectorOptions o;
    o.extraScales = {1.25, 0.75};  // chosen on train-design faces (MODEL.md, "Other scales")
    o.smallIndexHeight =
        40.f;  // chosen on train-design scenes (MODEL.md, "Small indices read again")
    o.recutConfidence = 0.3f;
    o.outlineCornerConfidence = 0.5f;
    o.edgeOutlines = true;  // light cards on a light table: the lake's unread piles
    return o;
}

DetectorOptions DetectorOptions::readOnce() {
    DetectorOptions o;
    o.squareAspects = false;
    // face up or not needs no suit: a club read surely as a spade is a sure index all the same
    o.blackSuitFromIndexColumn = false;
    // a face-up card is one read surely (countBacks: an index at 0.9 or more); unsure pairs are
    // not asked for there
    o.pairConfidence = 1.f;
    // the asked cards' own back patterns raise most of the candidates, and a gate at 0.3 passes a
    // tenth of them to the reader; at 0.5 a quarter as many, and the train-design mixed tables'
    // face-up cards are left out the same (models/training/BACKS.md, "The face-up test cheaper")
    o.gateThreshold = 0.5f;
    // a frame of backs reads no index: no face-up card to outline
    o.outlinesWithoutIndices = false;
    return o;
}

double Detector::workScale(cv::Size size) const {
    const int side = std::max(size.width, size.height);
    if (side > options_.workMaxSide) return double(options_.workMaxSide) / side;
    if (options_.workMinSide > 0 && side < options_.workMinSide)
        return double(options_.workMinSide) / side;
    return 1.0;
}

Detection Detector::read(const cv::Mat& bgr, std::vector<Detection>& notKept) {
    Detection d = detectAsGiven(bgr, 1.0);
    if (options_.smallIndexHeight <= 0.f || options_.smallIndexEnlarge <= 1.f) return d;
    const double s = workScale(bgr.size());
    if (s > 1.0) return d;  // enlarged already (a small picture)
    std::vector<double> heights;
    for (const DetectedCard& c : d.cards)
        for (const IndexReading& r : c.indices) heights.push_back(double(r.box.height) * s);
    const double h = heights.empty() ? 0.0 : detail::medianOf(std::move(heights));
    if (h >= options_.smallIndexHeight) return d;
    Detection again = detectAsGiven(bgr, options_.smallIndexEnlarge);
    again.enlarged = options_.smallIndexEnlarge;
    notKept.push_back(std::move(d));
    return again;
}

Detection Detector::detect(const cv::Mat& image) {
    const auto t0 = std::chrono::steady_clock::now();
    const cv::Mat bgr = toBgr8(image);
    const bool square = std::abs(bgr.cols - bgr.rows) <= std::max(bgr.cols, bgr.rows) / 50;
    // a square picture is read at five aspects instead of again enlarged (its stretched copies
    // are enlargements already)
    const bool aspects = options_.squareAspects && square;
    // the aspect is chosen by how surely the indices read before a black suit is read again
    // (blackSuitFromIndexColumn), which would otherwise sway the choice by the clubs alone
    float bestScore = 0.f;
    std::vector<Detection> others;  // the readings not kept, in the picture's pixels
    Detection best = aspects ? detectAsGiven(bgr, 1.0, &bestScore) : read(bgr, others);
    cv::Mat kept = bgr;  // the picture as the kept reading read it (a square one: stretched)
    // what the other readings read surely is added at this sureness (1: nothing)
    float extraConfidence = options_.extraScales.empty() ? 1.f : options_.extraScaleConfidence;
    if (aspects) {
        for (auto [fx, fy] : {std::pair{4.f / 3.f, 1.f}, std::pair{16.f / 9.f, 1.f},
                              std::pair{1.f, 4.f / 3.f}, std::pair{1.f, 16.f / 9.f}}) {
            // no larger than the working size the reading would shrink it to anyway
            const float k =
                std::min(1.f, float(options_.workMaxSide) / (float(bgr.cols) * std::max(fx, fy)));
            fx *= k;
            fy *= k;
            if (!detail::keepsPixels(bgr.size(), fx, fy)) continue;
            cv::Mat stretched;
            cv::resize(bgr, stretched, cv::Size(), fx, fy,
                       k < 1.f ? cv::INTER_AREA : cv::INTER_CUBIC);
            float score = 0.f;
            Detection d = detectAsGiven(stretched, 1.0, &score);
            unstretch(d, fx, fy, bgr.size());
            if (score > bestScore) {
                std::swap(best, d);
                bestScore = score;
                kept = stretched;
            }
            others.push_back(std::move(d));
        }
        // the other scales of a square picture are of its kept aspect, held to the aspects'
        // sureness (at extraScaleConfidence the real photos read more false cards: phone 404
        // right / 23 false against 403 / 21; MODEL.md, "Other scales")
        extraConfidence = options_.aspectExtraConfidence;
    }
    if (extraConfidence < 1.f) {
        for (double scale : options_.extraScales) {
            others.push_back(detectAsGiven(kept, scale));
            unstretch(others.back(), best.stretchX, best.stretchY, bgr.size());
        }
        addSureCardsOfOtherReadings(bgr, best, others, extraConfidence, options_);
    }
    best.ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return best;
}

Detection Detector::readAgainAt(const cv::Mat& image, Detection first, const std::vector<double>& scales,
                                cv::Rect region) {
    const auto t0 = std::chrono::steady_clock::now();
    const cv::Mat bgr = toBgr8(image);
    const cv::Rect whole(0, 0, bgr.cols, bgr.rows);
    region = region.empty() ? whole : region & whole;
    if (region.empty()) return first;
    const cv::Mat part = bgr(region);
    // the part read at the whole picture's working scale (not its own) times each scale
    const double k = workScale(bgr.size()) / workScale(part.size());
    const cv::Point2f at(float(region.x), float(region.y));
    std::vector<Detection> others;
    for (double scale : scales) {
        Detection d = detectAsGiven(part, scale * k);
        for (DetectedCard& card : d.cards) {
            if (card.quad)
                for (cv::Point2f& p : *card.quad) p += at;
            for (IndexReading& r : card.indices) {
                r.centre += at;
                r.box.x += at.x;
                r.box.y += at.y;
            }
        }
        d.width = bgr.cols;
        d.height = bgr.rows;
        others.push_back(std::move(d));
    }
    addSureCardsOfOtherReadings(bgr, first, others, options_.extraScaleConfidence, options_);
    first.ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    return first;
}

void Detector::readBlackSuitsByColumn(std::vector<PatchReading>& readings,
                                      const std::vector<cv::Mat>& patches, float atLeast) {
    std::vector<std::size_t> black;
    std::vector<cv::Mat> again;
    for (std::size_t i = 0; i < readings.size(); ++i) {
        const auto [c, s] = clubsAndSpades(readings[i]);
        // gate-dropped readings have no faces: no black face of these can be reported
        if (c + s < atLeast) continue;
        black.push_back(i);
        again.push_back(patches[i]);
    }
    const int w = params_.patchWidth;
    const std::vector<PatchReading> column = reader_.read(again, 0.f, cv::Range(w / 4, w - w / 4));
    for (std::size_t k = 0; k < black.size(); ++k) splitBlackSuits(readings[black[k]], column[k]);
}

void Detector::readOutlineCorners(const cv::Mat& bgr, const ProposalPyramid& pyr, float inv,
                                  bool colourlessPicture, std::vector<DetectedCard>& cards) {
    struct Cut {
        std::size_t card;
        int corner;
        IndexCandidate c;
    };
    std::vector<Cut> cuts;
    const float toWork = 1.f / inv;
    for (std::size_t k = 0; k < cards.size(); ++k) {
        const DetectedCard& card = cards[k];
        if (card.face || !card.quad || card.side != Side::Face) continue;
        // the outline as found, and as the card around it where it is a design's printed frame
        // (an inner outline around the pips: the indices lie outside it)
        for (const float grow : {1.f, 1.1f, 1.25f}) {
            Quad q = *card.quad;
            const cv::Point2f centre = quadCentre(q);
            for (auto& pt : q) pt = centre + (pt - centre) * grow;
            for (int i = 0; i < 4; ++i) {
                const cv::Point2f p = q[std::size_t(i)] * toWork;
                const cv::Point2f e1 = q[std::size_t((i + 1) % 4)] * toWork - p;
                const cv::Point2f e2 = q[std::size_t((i + 3) % 4)] * toWork - p;
                const float n1 = float(cv::norm(e1)), n2 = float(cv::norm(e2));
                const float w = std::min(n1, n2), len = std::max(n1, n2);
                // a card's sides, not a square or a strip (a merged region, a wrong fit)
                if (!(w >= 8.f) || len < 1.15f * w || len > 2.f * w) continue;
                const cv::Point2f across = (n1 < n2 ? e1 : e2) * (1.f / w);
                const cv::Point2f down = (n1 < n2 ? e2 : e1) * (1.f / len);
                // an index corner: down runs a quarter turn clockwise of across (y down), as from a
                // card's top left corner
                if (down.dot(cv::Point2f(-across.y, across.x)) <= 0.f) continue;
                // where the index lies on the scene generator's cards (its middle 0.064 of the
                // card's length in from the long side and 0.145 down, rank to pip about 0.105:
                // the medians over 20 designs), and where groupIndices' frame puts it (0.66 and
                // 1.42 rank-to-pip distances, a card 6.5 to 9.5 of them long: larger indices)
                const cv::Point2f mid = p + across * (0.064f * len) + down * (0.145f * len);
                for (const float d : {0.095f * len, 0.105f * len, 0.115f * len})
                    cuts.push_back(
                        {k, i, {mid - down * (0.5f * d), mid + down * (0.5f * d), false}});
                for (const float perD : {6.5f, 8.f, 9.5f}) {
                    const float d = len / perD;
                    const cv::Point2f m = p + across * (0.66f * d) + down * (1.42f * d);
                    cuts.push_back({k, i, {m - down * (0.5f * d), m + down * (0.5f * d), false}});
                }
            }
        }
    }
    if (cuts.empty()) return;
    std::vector<cv::Mat> patches;
    patches.reserve(cuts.size());
    for (const Cut& c : cuts) patches.push_back(cutIndexPatch(pyr, c.c, params_));
    std::vector<PatchReading> read = reader_.read(patches, 0.f);
    // each corner's surest reading of its cuts
    struct Corner {
        std::size_t cut = 0;
        std::optional<scoring::Card> face;
        float confidence = 0.f;
    };
    std::map<std::pair<std::size_t, int>, Corner> corners;
    for (std::size_t j = 0; j < cuts.size(); ++j) {
        PatchReading& r = read[j];
        if (!colourlessPicture) {
            const cv::Point2f a = cuts[j].c.a * inv, b = cuts[j].c.b * inv;
            conditionOnInk(r, pipInk(bgr, b, std::hypot(b.x - a.x, b.y - a.y)));
        }
    }
    // a black index's suit read again by its own column, as detectAsGiven's are
    if (options_.blackSuitFromIndexColumn)
        readBlackSuitsByColumn(read, patches, options_.outlineCornerConfidence);
    for (std::size_t j = 0; j < cuts.size(); ++j) {
        const PatchReading& r = read[j];
        Corner& c = corners[{cuts[j].card, cuts[j].corner}];
        if (r.face && r.confidence > c.confidence) c = {j, r.face, r.confidence};
    }
    for (std::size_t k = 0; k < cards.size(); ++k) {
        std::vector<const Corner*> mine;
        for (auto it = corners.lower_bound({k, 0}); it != corners.end() && it->first.first == k; ++it)
            mine.push_back(&it->second);
        if (mine.empty()) continue;
        // the face read surest at a corner, and whether the others agree with it
        std::sort(mine.begin(), mine.end(),
                  [](const Corner* a, const Corner* b) { return a->confidence > b->confidence; });
        const Corner& best = *mine[0];
        if (!best.face) continue;
        const float pair = options_.outlineCornerConfidence;
        std::vector<const Corner*> agree{&best};
        bool contradicted = false;
        for (std::size_t m = 1; m < mine.size(); ++m) {
            if (!mine[m]->face || mine[m]->confidence < pair) continue;
            if (*mine[m]->face == *best.face)
                agree.push_back(mine[m]);
            else
                contradicted = true;
        }
        if (contradicted) continue;
        float p = 0.f;
        if (agree.size() >= 2 && agree[1]->confidence >= pair)
            p = 1.f - (1.f - agree[0]->confidence) * (1.f - agree[1]->confidence);
        else if (best.confidence >= options_.outlineCornerAlone)
            p = best.confidence;
        if (p < options_.minConfidence) continue;
        DetectedCard& card = cards[k];
        card.face = best.face;
        card.confidence = p;
        for (const Corner* c : agree)
            card.indices.push_back(withBox(readingOf(cuts[c->cut].c, inv, *c->face, c->confidence),
                                           params_, bgr.size()));
    }
}

void Detector::readUnsureAgain(const cv::Mat& bgr, const ProposalPyramid& pyr,
                               const std::vector<IndexCandidate>& cands, float inv,
                               bool colourlessPicture, std::vector<PatchReading>& readings,
                               std::vector<cv::Mat>& patches) {
    // the places read surely: an unsure reading there is not asked about
    std::vector<std::size_t> unsure;
    std::vector<cv::Point2f> sureAt;
    std::vector<float> sureSpan;
    for (std::size_t i = 0; i < readings.size(); ++i) {
        const PatchReading& r = readings[i];
        if (!r.passedGate) continue;
        if (r.face && r.confidence >= options_.minConfidence) {
            sureAt.push_back((cands[i].a + cands[i].b) * 0.5f);
            sureSpan.push_back(cv::norm(cands[i].b - cands[i].a));
        } else if (likeliestFace(r) >= options_.recutConfidence) {
            unsure.push_back(i);
        }
    }
    std::erase_if(unsure, [&](std::size_t i) {
        const cv::Point2f at = (cands[i].a + cands[i].b) * 0.5f;
        const float span = float(cv::norm(cands[i].b - cands[i].a));
        for (std::size_t k = 0; k < sureAt.size(); ++k)
            if (cv::norm(at - sureAt[k]) < 0.8 * std::max(double(span), double(sureSpan[k])))
                return true;
        return false;
    });
    std::sort(unsure.begin(), unsure.end(), [&](auto a, auto b) {
        return likeliestFace(readings[a]) > likeliestFace(readings[b]);
    });
    if (unsure.size() > std::size_t(options_.recutMost)) unsure.resize(std::size_t(options_.recutMost));
    if (unsure.empty()) return;
    // each unsure pair cut again: moved along and across itself by recutShift of its span, its
    // span recutZoom larger and smaller, turned by recutTurn degrees either way
    std::vector<cv::Mat> cuts;
    const float sh = options_.recutShift, z = options_.recutZoom;
    const float t = options_.recutTurn * float(CV_PI / 180.0);
    for (std::size_t i : unsure) {
        const IndexCandidate& c = cands[i];
        const cv::Point2f d = c.b - c.a, n(-d.y, d.x), m = (c.a + c.b) * 0.5f;
        auto moved = [&](cv::Point2f by) { return IndexCandidate{c.a + by, c.b + by, c.invert}; };
        auto scaled = [&](float k) {
            return IndexCandidate{m + (c.a - m) * k, m + (c.b - m) * k, c.invert};
        };
        auto turned = [&](float angle) {
            const float cs = std::cos(angle), sn = std::sin(angle);
            auto turn = [&](cv::Point2f v) {
                return cv::Point2f(cs * v.x - sn * v.y, sn * v.x + cs * v.y);
            };
            return IndexCandidate{m + turn(c.a - m), m + turn(c.b - m), c.invert};
        };
        for (const IndexCandidate& v :
             {moved(d * sh), moved(d * -sh), moved(n * sh), moved(n * -sh), scaled(1.f + z),
              scaled(1.f - z), turned(t), turned(-t)})
            cuts.push_back(cutIndexPatch(pyr, v, params_));
    }
    constexpr std::size_t kVariants = 8;
    const std::vector<PatchReading> again = reader_.read(cuts, 0.f);
    for (std::size_t k = 0; k < unsure.size(); ++k) {
        const std::size_t i = unsure[k];
        PipInk ink = PipInk::Unknown;
        if (!colourlessPicture) {
            const cv::Point2f a = cands[i].a * inv, b = cands[i].b * inv;
            ink = pipInk(bgr, b, std::hypot(b.x - a.x, b.y - a.y));
        }
        const int face = int(std::max_element(readings[i].faces.begin(), readings[i].faces.end()) -
                             readings[i].faces.begin());
        int agree = 0;
        std::size_t surest = 0;
        float best = 0.f;
        for (std::size_t v = 0; v < kVariants; ++v) {
            PatchReading r = again[k * kVariants + v];
            conditionOnInk(r, ink);
            if (r.face && *r.face == cardOfClass(face) && r.confidence >= options_.minConfidence) {
                ++agree;
                if (r.confidence > best) {
                    best = r.confidence;
                    surest = v;
                }
            }
        }
        if (agree < options_.recutAgree) continue;
        // taken as the surest of them read it, from that cut (a black suit is read again from it)
        readings[i] = again[k * kVariants + surest];
        conditionOnInk(readings[i], ink);
        patches[i] = cuts[k * kVariants + surest];
    }
}

std::vector<std::optional<IndexReading>> Detector::readAt(const cv::Mat& image,
                                                          const std::vector<IndexPlace>& places,
                                                          int agree) {
    std::vector<std::optional<IndexReading>> out(places.size());
    if (places.empty()) return out;
    const cv::Mat bgr = toBgr8(image);
    // a place to look at: a size under the picture's, a way up, its middle on the picture or near
    // it (else nothing is read there)
    const float side = float(std::max(bgr.cols, bgr.rows));
    auto usable = [&](const IndexPlace& p) {
        return p.scale > 0.f && p.scale < side && std::isfinite(p.up.x) && std::isfinite(p.up.y) &&
               cv::norm(p.up) > 1e-6 && p.centre.x > -side && p.centre.x < 2.f * side &&
               p.centre.y > -side && p.centre.y < 2.f * side;  // (false for NaN)
    };
    // the part of the picture around the places, at the working scale, enlarged where the indices
    // are smaller than the proposals' smallest pairs are cut from (as small indices are read again
    // enlarged: smallIndexHeight)
    std::vector<float> scales;
    cv::Rect2f around;
    for (const IndexPlace& p : places) {
        if (!usable(p)) continue;
        scales.push_back(p.scale);
        const cv::Rect2f r(p.centre.x - 3.f * p.scale, p.centre.y - 3.f * p.scale, 6.f * p.scale,
                           6.f * p.scale);
        around = around.area() > 0.f ? (around | r) : r;
    }
    if (scales.empty()) return out;
    const cv::Rect region = cv::Rect(around) & cv::Rect(0, 0, bgr.cols, bgr.rows);
    if (region.width < 4 || region.height < 4) return out;
    double scale = workScale(bgr.size());
    const double smallest = 10.0;  // rank-to-pip, working pixels
    if (double(detail::medianOf(scales)) * scale < smallest)
        scale = std::min(3.0, smallest / double(detail::medianOf(scales)));
    // and no larger than 4096 pixels a side, however far apart the places lie (memory stays bounded)
    scale = std::min(scale, 4096.0 / std::max(region.width, region.height));
    cv::Mat work;
    cv::resize(bgr(region), work, cv::Size(), scale, scale, scale < 1.0 ? cv::INTER_AREA : cv::INTER_CUBIC);
    cv::Mat gray;
    cv::cvtColor(work, gray, cv::COLOR_BGR2GRAY);
    const ProposalPyramid pyr = buildPyramid(gray, params_);
    const cv::Point2f origin(float(region.x), float(region.y));
    const float s = float(scale), inv = float(1.0 / scale);
    auto toWork = [&](cv::Point2f p) { return (p - origin) * s; };
    std::vector<IndexCandidate> cands;
    std::vector<std::size_t> of;  // the place of each cut
    for (std::size_t k = 0; k < places.size(); ++k) {
        const IndexPlace& p = places[k];
        if (!usable(p)) continue;
        const float n = float(cv::norm(p.up));
        const cv::Point2f up = p.up * (1.f / n), across(-up.y, up.x);
        for (const float zoom : {0.9f, 1.f, 1.1f})
            for (const float along : {-0.2f, 0.f, 0.2f})
                for (const float side : {-0.2f, 0.f, 0.2f}) {
                    const cv::Point2f m = p.centre + up * (along * p.scale) + across * (side * p.scale);
                    const cv::Point2f half = up * (0.5f * zoom * p.scale);
                    cands.push_back({toWork(m + half), toWork(m - half), false});
                    of.push_back(k);
                }
    }
    if (cands.empty()) return out;
    std::vector<cv::Mat> patches = cutIndexPatches(pyr, cands, params_);
    for (std::size_t j = 0; j < cands.size(); ++j) {
        const IndexPlace& p = places[of[j]];
        if (!(p.halfWidth > 0.f)) continue;
        cv::Mat& patch = patches[j];
        const float span = float(cv::norm(cands[j].b - cands[j].a)) * inv;  // picture pixels
        // the columns kept: those whose middle lies within halfWidth of the patch's middle
        const float perColumn = params_.spanWidth * span / float(patch.cols);
        const int off = std::max(0, int(std::ceil(0.5f * float(patch.cols) - 0.5f - p.halfWidth / perColumn)));
        if (off == 0 || 2 * off >= patch.cols) continue;
        const cv::Range keep(off, patch.cols - off);
        double lo = 0, paper = 0;
        cv::minMaxLoc(patch.colRange(keep), &lo, &paper);
        patch.colRange(0, keep.start).setTo(cv::Scalar(paper));
        patch.colRange(keep.end, patch.cols).setTo(cv::Scalar(paper));
    }
    std::vector<PatchReading> read = reader_.read(patches, 0.f);
    if (options_.suitFromInk && !colourless(bgr))
        for (std::size_t j = 0; j < cands.size(); ++j) {
            const cv::Point2f a = cands[j].a * inv + origin, b = cands[j].b * inv + origin;
            conditionOnInk(read[j], pipInk(bgr, b, std::hypot(b.x - a.x, b.y - a.y)));
        }
    if (options_.blackSuitFromIndexColumn) readBlackSuitsByColumn(read, patches, options_.minConfidence);
    for (std::size_t k = 0; k < places.size(); ++k) {
        std::map<int, int> votes;
        std::map<int, std::size_t> surest;
        for (std::size_t j = 0; j < cands.size(); ++j) {
            if (of[j] != k || !read[j].face || read[j].confidence < options_.minConfidence) continue;
            const int face = read[j].face->index();
            ++votes[face];
            if (!surest.count(face) || read[j].confidence > read[surest[face]].confidence) surest[face] = j;
        }
        int best = -1, most = 0, second = 0;
        for (const auto& [face, n] : votes) {
            if (n > most) second = most, most = n, best = face;
            else second = std::max(second, n);
        }
        // read by `agree` cuts or more, and by more than twice as many as any other face (a tight
        // fan's 3H read 3H by 4 cuts, 9H by 5)
        if (best < 0 || most < agree || 2 * second >= most) continue;
        // where the cuts that read it put it, on average
        const std::size_t j = surest[best];
        IndexReading r = readingOf(cands[j], inv, *read[j].face, read[j].confidence);
        cv::Point2f centre(0, 0), up(0, 0);
        float size = 0.f;
        for (std::size_t i = 0; i < cands.size(); ++i) {
            if (of[i] != k || !read[i].face || read[i].face->index() != best || read[i].confidence < options_.minConfidence) continue;
            const IndexReading c = readingOf(cands[i], inv, *read[i].face, read[i].confidence);
            centre += c.centre;
            up += c.up;
            size += c.scale;
        }
        r.centre = centre * (1.f / float(most)) + origin;
        r.up = up * (1.f / std::max(float(cv::norm(up)), 1e-6f));
        r.scale = size / float(most);
        out[k] = withBox(r, params_, bgr.size());
    }
    return out;
}

std::vector<PatchReading> Detector::readCandidates(const ProposalPyramid& pyr,
                                                   const std::vector<IndexCandidate>& cands,
                                                   std::vector<cv::Mat>& patches) {
    // The gate reads every candidate at half resolution; only what it passes is cut in full and
    // read (a frame's ~2,500 candidates, ~400 passed: the full cut and its normalising were a
    // quarter of the live path's time).
    std::vector<float> gate;
    if (options_.gateThreshold > 0.f)
        gate = reader_.gateHalf(cutIndexPatches(pyr, cands, halfPatchParams(params_)));
    if (gate.empty()) {  // no gate, or not one computed here: full patches through read()
        patches = cutIndexPatches(pyr, cands, params_);
        return reader_.read(patches, options_.gateThreshold);
    }
    std::vector<std::size_t> passed;
    std::vector<IndexCandidate> passedCands;
    for (std::size_t i = 0; i < cands.size(); ++i)
        if (gate[i] >= options_.gateThreshold) {
            passed.push_back(i);
            passedCands.push_back(cands[i]);
        }
    std::vector<cv::Mat> cut = cutIndexPatches(pyr, passedCands, params_);
    const std::vector<PatchReading> read = reader_.read(cut, 0.f);
    std::vector<PatchReading> readings(cands.size());
    patches.assign(cands.size(), cv::Mat());
    for (std::size_t k = 0; k < passed.size(); ++k) {
        readings[passed[k]] = read[k];
        patches[passed[k]] = std::move(cut[k]);
    }
    return readings;
}

Detection Detector::detectAsGiven(const cv::Mat& bgr, double enlarge, float* surest) {
    Detection result;
    result.width = bgr.cols;
    result.height = bgr.rows;

    // 1. working copy: gray, longest side between workMinSide and workMaxSide
    const double scale = workScale(bgr.size()) * enlarge;
    // a picture that keeps no pixel one way at the working size (a 1 x 4000 strip) shows no card
    if (!detail::keepsPixels(bgr.size(), scale, scale)) {
        if (surest) *surest = 0.f;
        return result;
    }
    cv::Mat work = bgr;
    if (scale < 1.0)
        cv::resize(bgr, work, cv::Size(), scale, scale, cv::INTER_AREA);
    else if (scale > 1.0)
        cv::resize(bgr, work, cv::Size(), scale, scale, cv::INTER_CUBIC);
    cv::Mat gray;
    cv::cvtColor(work, gray, cv::COLOR_BGR2GRAY);

    // 2. index candidates -> patches -> classifier
    ProposalPyramid pyr = buildPyramid(gray, params_);
    std::vector<IndexCandidate> cands = proposeIndexCandidates(pyr, params_);
    std::vector<cv::Mat> patches;
    std::vector<PatchReading> readings = readCandidates(pyr, cands, patches);
    const float inv = float(1.0 / scale);
    const bool colourlessPicture = !options_.suitFromInk || colourless(bgr);
    if (!colourlessPicture) {
        // the pip's ink in the picture as given (the working copy may be enlarged)
        for (std::size_t i = 0; i < readings.size(); ++i) {
            PatchReading& r = readings[i];
            if (!r.passedGate) continue;
            float index = 0.f;
            for (float p : r.faces) index += p;
            if (index < options_.minConfidence) continue;  // no face of it can reach minConfidence
            const cv::Point2f a = cands[i].a * inv, b = cands[i].b * inv;
            conditionOnInk(r, pipInk(bgr, b, std::hypot(b.x - a.x, b.y - a.y)));
        }
    }

    // 2a. unsure readings where no sure one lies read again from re-cut patches, the mean of all
    // taken where it is sure (DetectorOptions::recutConfidence)
    // (what they read is not counted in how surely this reading reads: `surest`)
    std::vector<float> firstRead;
    for (const PatchReading& r : readings) firstRead.push_back(r.face ? r.confidence : 0.f);
    if (options_.recutConfidence < options_.minConfidence)
        readUnsureAgain(bgr, pyr, cands, inv, colourlessPicture, readings, patches);

    // 2b. a black index's suit read again from its patch stretched by the middle half of it, the
    // index's own column, not by what lies beside it (a court card's art, the table): on the
    // labelled webcam photos a deck's small clubs read as spades otherwise (models/MODEL.md,
    // "Clubs read as spades")
    std::vector<float> asRead;  // each reading's confidence before that
    for (const PatchReading& r : readings) asRead.push_back(r.confidence);
    if (options_.blackSuitFromIndexColumn)
        readBlackSuitsByColumn(readings, patches, options_.minConfidence);

    // 3. confident readings, best first; one per place (non-maximum suppression)
    // the readings with a face read at least lo and under hi sure, surest first
    auto surestFirst = [&](float lo, float hi) {
        std::vector<std::size_t> order;
        for (std::size_t i = 0; i < readings.size(); ++i)
            if (readings[i].face && readings[i].confidence >= lo && readings[i].confidence < hi)
                order.push_back(i);
        std::sort(order.begin(), order.end(),
                  [&](auto a, auto b) { return readings[a].confidence > readings[b].confidence; });
        return order;
    };
    // candidate i as a reading in the picture as given (its box: boxed, once it is kept)
    auto indexReading = [&](std::size_t i) {
        return readingOf(cands[i], inv, *readings[i].face, readings[i].confidence);
    };
    auto boxed = [&](const IndexReading& r) { return withBox(r, params_, bgr.size()); };
    std::vector<IndexReading> found;
    std::vector<float> foundAsRead;
    for (std::size_t i : surestFirst(options_.minConfidence, 2.f)) {
        const IndexReading r = indexReading(i);
        if (clashes(r, found)) continue;
        found.push_back(boxed(r));
        if (firstRead[i] >= options_.minConfidence) foundAsRead.push_back(asRead[i]);
    }
    if (surest) *surest = surest5(foundAsRead);

    // 3b. unsure readings, one per place not taken above; two of one face at a card's opposite
    // corners are reported together
    if (options_.pairConfidence < options_.minConfidence) {
        std::vector<IndexReading> weak;
        for (std::size_t i : surestFirst(options_.pairConfidence, options_.minConfidence)) {
            const IndexReading r = indexReading(i);
            if (!clashes(r, found) && !clashes(r, weak)) weak.push_back(r);
        }
        for (const IndexReading& r : pairedCorners(weak)) found.push_back(boxed(r));
    }

    // 4. card outlines, then indices grouped to cards
    std::vector<CardOutline> outlines;
    if (options_.findOutlines && (options_.outlinesWithoutIndices || !found.empty())) {
        outlines = findCardOutlines(work, options_.edgeOutlines);
        if (options_.edgeOutlines) {
            const std::vector<CardOutline> more = findCardOutlinesByEdges(work, outlines);
            outlines.insert(outlines.end(), more.begin(), more.end());
        }
        for (CardOutline& o : outlines)
            for (cv::Point2f& p : o.quad) p *= inv;
    }
    result.cards = groupIndices(std::move(found), outlines);
    if (options_.outlineCornerConfidence < 1.f)
        readOutlineCorners(bgr, pyr, inv, colourlessPicture, result.cards);
    if (options_.findOutlines && options_.outlinesFromIndices) {
        std::vector<double> readAreas;
        for (DetectedCard& c : result.cards) {
            if (c.face && !c.quad) c.quad = outlineFromIndices(bgr, c.indices);
            if (c.face && c.quad) readAreas.push_back(quadArea(*c.quad));
        }
        // An outline with no index in it, far smaller than the read cards (a key of a keyboard, a
        // phone's button: four-sided and bright, but a quarter of a card) is not a card.
        if (readAreas.size() >= 2) {
            const double cardArea = detail::medianOf(std::move(readAreas));
            std::erase_if(result.cards, [&](const DetectedCard& c) {
                return !c.face && c.quad && quadArea(*c.quad) < 0.4 * cardArea;
            });
        }
    }
    return result;  // detect() times the whole of its readings
}

}  // namespace nertz::vision
