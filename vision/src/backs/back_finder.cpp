// Face-down card finder; see back_finder.hpp.
#include "nertz/vision/back_finder.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <queue>

#include <opencv2/core/hal/intrin.hpp>
#include <opencv2/imgproc.hpp>

#include "../median.hpp"
#include "../sample_bgr.hpp"
#include "../scaled_size.hpp"
#if NERTZ_READER_AVX2
#include "conv1d_avx2.hpp"
#endif

namespace nertz::vision {

namespace {
using detail::sampleBgr;

struct Blob {
    std::vector<cv::Point> contour;
    cv::RotatedRect box;
    double area = 0;
    float shortSide = 0, longSide = 0;
    double fill = 0;   // area / the minimum-area box's area
    float aspect = 0;  // long side / short side of that box
};

// A blob of `contour` (of `area` px) with its minimum-area box grown by `grow` px on every side,
// that box's sides, the blob's fill of it and its aspect.
Blob measuredBlob(std::vector<cv::Point> contour, double area, float grow = 0.f) {
    Blob b;
    b.area = area;
    b.box = cv::minAreaRect(contour);
    b.box.size.width += 2 * grow;
    b.box.size.height += 2 * grow;
    b.shortSide = std::min(b.box.size.width, b.box.size.height);
    b.longSide = std::max(b.box.size.width, b.box.size.height);
    b.contour = std::move(contour);
    b.fill = b.area / std::max(1.0, double(b.shortSide) * b.longSide);
    b.aspect = b.longSide / std::max(1.f, b.shortSide);
    return b;
}

// A piece of card shape: filling more than `minFill` of its box, about a card's aspect.
bool cardShaped(const Blob& b, double minFill) { return b.fill > minFill && b.aspect > 1.15f && b.aspect < 1.8f; }

// Corners of a rotated rectangle in the order of the rectangle's own frame, the first edge being
// along `first` (a unit vector) when given.
Quad frameQuad(cv::Point2f centre, cv::Point2f u, cv::Point2f v, float x0, float x1, float y0,
               float y1, cv::Point2f origin) {
    auto at = [&](float x, float y) { return origin + u * x + v * y; };
    (void)centre;
    return {at(x0, y0), at(x1, y0), at(x1, y1), at(x0, y1)};
}

// Puts a quad's corners in reading order (top-left first, clockwise on screen).
Quad readingOrder(const Quad& q) {
    cv::Point2f c = quadCentre(q);
    std::array<cv::Point2f, 4> s = q;
    std::sort(s.begin(), s.end(), [&](const cv::Point2f& a, const cv::Point2f& b) {
        return std::atan2(a.y - c.y, a.x - c.x) < std::atan2(b.y - c.y, b.x - c.x);
    });
    std::size_t start = 0;
    for (std::size_t i = 1; i < 4; ++i)
        if (s[i].x + s[i].y < s[start].x + s[start].y) start = i;
    Quad out;
    for (std::size_t i = 0; i < 4; ++i) out[i] = s[(start + i) % 4];
    return out;
}

Quad scaled(const Quad& q, float k) {
    Quad o = q;
    for (auto& p : o) p *= k;
    return o;
}

// The unit normal of the side from `a` to `b` of a card whose middle is `centre`, pointing out of it.
cv::Point2f outwardNormal(cv::Point2f a, cv::Point2f b, cv::Point2f centre) {
    cv::Point2f n(-(b - a).y, (b - a).x);
    n *= 1.f / std::max(1e-3f, float(cv::norm(n)));
    return n.dot((a + b) * 0.5f - centre) < 0 ? -n : n;
}

// What lies just outside a side: how many sample points `mask` (8-bit) marks, of those in it.
struct Beyond {
    int marked = 0, seen = 0;
};

// Samples beyond the side from `a` to `b` (its outward unit normal `n`): at `points` places along
// it, from `first` of its length in steps of `step`, each at every distance of `out`, all of it
// times `scale` into `mask`'s pixels. With `own`, a pixel inside that contour is not marked (a
// piece's own mask).
Beyond maskBeyondSide(const cv::Mat& mask, cv::Point2f a, cv::Point2f b, cv::Point2f n, float first,
                      float step, int points, std::initializer_list<float> out, float scale = 1.f,
                      const std::vector<cv::Point>* own = nullptr) {
    Beyond r;
    for (int j = 0; j < points; ++j)
        for (const float d : out) {
            const cv::Point2f p = (a + (b - a) * (first + step * float(j)) + n * d) * scale;
            const cv::Point ip(cvRound(p.x), cvRound(p.y));
            if (ip.x < 0 || ip.y < 0 || ip.x >= mask.cols || ip.y >= mask.rows) continue;
            ++r.seen;
            r.marked += mask.at<uchar>(ip) && (!own || cv::pointPolygonTest(*own, cv::Point2f(ip), false) < 0) ? 1 : 0;
        }
    return r;
}

// One loose card: the blob's four-corner outline if it has one, else its rotated box.
Quad looseQuad(const Blob& b) {
    std::vector<cv::Point> approx;
    cv::approxPolyDP(b.contour, approx, 0.04 * cv::arcLength(b.contour, true), true);
    if (approx.size() == 4 && cv::isContourConvex(approx)) {
        Quad q;
        for (int i = 0; i < 4; ++i) q[std::size_t(i)] = cv::Point2f(approx[std::size_t(i)]);
        return readingOrder(q);
    }
    cv::Point2f p[4];
    b.box.points(p);
    return readingOrder({p[0], p[1], p[2], p[3]});
}

// A cluster of loose cards that touch (not a ribbon row), read as before the edge finder:
// the cards of an overlapping row: the blob is seen in the frame of its rotated box (x along the
// row); vertical card edges make peaks in the horizontal-gradient profile, spaced by the row's
// step. The fully showing card sits at one end; the side whose predicted edges are stronger wins.
std::vector<BackCandidate> clusterCards(const Blob& b, const cv::Mat& gray, const cv::Mat& mask,
                                    float cardWidth) {
    cv::Point2f pts[4];
    b.box.points(pts);
    // long axis u, short axis v
    cv::Point2f e1 = pts[1] - pts[0], e2 = pts[2] - pts[1];
    if (cv::norm(e1) < cv::norm(e2)) std::swap(e1, e2);
    const float len = float(cv::norm(e1)), thick = float(cv::norm(e2));
    cv::Point2f u = e1 * (1.f / len), v = e2 * (1.f / thick);
    const cv::Point2f origin = b.box.center - u * (len / 2) - v * (thick / 2);
    const int lw = std::max(4, int(std::lround(len))), th = std::max(4, int(std::lround(thick)));
    // image -> row frame
    cv::Mat m = (cv::Mat_<double>(2, 3) << u.x, u.y, -(u.x * origin.x + u.y * origin.y), v.x, v.y,
                 -(v.x * origin.x + v.y * origin.y));
    cv::Mat rg, rm;
    cv::warpAffine(gray, rg, m, cv::Size(lw, th), cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    cv::warpAffine(mask, rm, m, cv::Size(lw, th), cv::INTER_NEAREST, cv::BORDER_CONSTANT);
    cv::Mat gx;
    cv::Sobel(rg, gx, CV_32F, 1, 0, 3);
    gx = cv::abs(gx);
    std::vector<float> prof(std::size_t(lw), 0.f);
    const int y0 = int(0.15 * th), y1 = int(0.85 * th);
    for (int x = 0; x < lw; ++x) {
        float s = 0;
        int n = 0;
        for (int y = y0; y < y1; ++y)
            if (rm.at<uchar>(y, x)) {
                s += gx.at<float>(y, x);
                ++n;
            }
        prof[std::size_t(x)] = n > 0 ? s / float(n) : 0.f;
    }
    cv::Mat pm(1, lw, CV_32F, prof.data());
    cv::GaussianBlur(pm, pm, cv::Size(0, 0), 1.2);

    const float wc = std::min(cardWidth, len);
    std::vector<BackCandidate> out;
    const float stackLen = len - wc;
    if (stackLen < 0.04f * thick) {
        BackCandidate c;
        c.quad = frameQuad({}, u, v, 0, len, 0, thick, origin);
        out.push_back(c);
        return out;
    }
    // the step: strongest autocorrelation lag of the profile between 3% of the card height and a
    // card width
    const float mean = std::accumulate(prof.begin(), prof.end(), 0.f) / float(lw);
    const int minLag = std::max(2, int(0.03f * thick)),
              maxLag = std::max(minLag + 1, int(std::min(wc * 0.95f, stackLen + 1)));
    int step = minLag;
    {
        double bestScore = -1e30;
        std::vector<double> ac(std::size_t(maxLag + 1), 0.0);
        for (int lag = minLag; lag <= maxLag; ++lag) {
            double s = 0;
            int n = 0;
            for (int x = 0; x + lag < lw; ++x) {
                s +=
                    double(prof[std::size_t(x)] - mean) * double(prof[std::size_t(x + lag)] - mean);
                ++n;
            }
            ac[std::size_t(lag)] = n > 0 ? s / n : 0;
        }
        // the period is the shortest lag whose autocorrelation peak comes near the strongest one
        // (multiples of the step peak about as high; a back's own fine pattern peaks lower)
        std::vector<int> peaks;
        for (int lag = minLag + 1; lag < maxLag; ++lag)
            if (ac[std::size_t(lag)] > 0 && ac[std::size_t(lag)] >= ac[std::size_t(lag - 1)] &&
                ac[std::size_t(lag)] >= ac[std::size_t(lag + 1)]) {
                peaks.push_back(lag);
                bestScore = std::max(bestScore, ac[std::size_t(lag)]);
            }
        step = maxLag;
        for (int lag : peaks)
            if (ac[std::size_t(lag)] >= 0.6 * bestScore) {
                step = lag;
                break;
            }
    }
    const int n = std::max(1, int(std::lround(stackLen / float(step)))) + 1;
    const float st = stackLen / float(n - 1);
    // which end holds the whole card: compare the profile at the predicted edges
    auto edgeScore = [&](bool fromLeft) {
        float s = 0;
        for (int k = 1; k < n; ++k) {
            const float x = fromLeft ? k * st : len - k * st;
            float best = 0;
            for (int dx = -int(st * 0.25f); dx <= int(st * 0.25f); ++dx) {
                const int xi = int(std::lround(x)) + dx;
                if (xi >= 0 && xi < lw) best = std::max(best, prof[std::size_t(xi)]);
            }
            s += best;
        }
        return s;
    };
    const bool topAtRight = edgeScore(true) >= edgeScore(false);
    for (int k = 0; k < n; ++k) {
        BackCandidate c;
        c.inRow = true;
        const float frac = std::min(1.f, st / wc);
        if (topAtRight) {
            const float x0 = k * st;
            c.quad = frameQuad({}, u, v, x0, x0 + wc, 0, thick, origin);
            c.region = k == n - 1 ? BackRegion{} : BackRegion{0.f, frac};
        } else {
            const float x1 = len - k * st;
            c.quad = frameQuad({}, u, v, x1 - wc, x1, 0, thick, origin);
            c.region = k == n - 1 ? BackRegion{} : BackRegion{1.f - frac, 1.f};
        }
        out.push_back(c);
    }
    return out;
}

// Loose cards that touch or overlap (a batch scene), with the scene's card size known: cards of
// that size are fitted into the blob one after another. Each step tries card-sized rectangles at
// every angle (7.5 degrees apart), position and four sizes (0.82-1.1 of the scene's card, for
// perspective); a rectangle must lie (almost) inside the blob, and the one with image edges along
// its border (weighted most) that covers the most blob not yet covered is a card. It stops when no rectangle adds a quarter of a card. Hands and glare joined to the cards
// hold no card-sized rectangle and are left out; when the cards cover less than `minCover` of the
// blob, nothing is returned (the blob is read as a row instead).
std::vector<BackCandidate> fitCards(const Blob& b, const cv::Mat& mask, const cv::Mat& edges,
                                    float cardLong, float cardAspect, float minCover) {
    std::vector<BackCandidate> out;
    const double edgeW = 3.0;  // card borders along the rectangle's sides weigh most
    const float ds = std::min(1.f, 40.f / std::max(1.f, cardLong));  // fit at ~40 px card length
    const float cl = cardLong * ds, cs = cl / cardAspect;
    const cv::Rect bb = cv::boundingRect(b.contour);
    const int margin = int(std::ceil(cardLong * 0.2f)) + 2;
    const cv::Rect roi = (bb + cv::Size(2 * margin, 2 * margin) - cv::Point(margin, margin)) &
                         cv::Rect(0, 0, mask.cols, mask.rows);
    cv::Mat m = cv::Mat::zeros(roi.size(), CV_8U);
    {
        std::vector<cv::Point> c = b.contour;
        for (auto& p : c) p -= roi.tl();
        cv::drawContours(m, std::vector<std::vector<cv::Point>>{c}, 0, cv::Scalar(255), cv::FILLED);
    }
    cv::Mat e = edges(roi) & m;
    cv::Mat ms, es;
    cv::resize(m, ms, cv::Size(), ds, ds, cv::INTER_AREA);
    cv::resize(e, es, cv::Size(), ds, ds, cv::INTER_AREA);
    cv::threshold(ms, ms, 127, 1, cv::THRESH_BINARY);
    es.convertTo(es, CV_32F, 1.0 / 255.0);
    const int diag = int(std::ceil(std::hypot(ms.cols, ms.rows))) + 2;
    const cv::Point2f c0(ms.cols / 2.f, ms.rows / 2.f), c1(diag / 2.f, diag / 2.f);
    const int w = std::max(3, int(std::lround(cs))), h = std::max(3, int(std::lround(cl)));
    const double cardPx = double(w) * h;
    const int nAng = 24;
    struct View {
        cv::Mat rot;  // roi(ds) -> rotated canvas
        cv::Mat inv;
        cv::Mat m, e, cov;
        cv::Mat im, ie;
    };
    std::vector<View> views(nAng);
    for (int a = 0; a < nAng; ++a) {
        View& v = views[std::size_t(a)];
        v.rot = cv::getRotationMatrix2D(c0, 180.0 * a / nAng, 1.0);
        v.rot.at<double>(0, 2) += c1.x - c0.x;
        v.rot.at<double>(1, 2) += c1.y - c0.y;
        cv::invertAffineTransform(v.rot, v.inv);
        cv::warpAffine(ms, v.m, v.rot, cv::Size(diag, diag), cv::INTER_NEAREST);
        cv::warpAffine(es, v.e, v.rot, cv::Size(diag, diag), cv::INTER_LINEAR);
        v.cov = cv::Mat::zeros(diag, diag, CV_8U);
        cv::integral(v.m, v.im, CV_32S);
        cv::integral(v.e, v.ie, CV_32F);
    }
    const int maxCards = int(std::ceil(cv::countNonZero(ms) / (0.4 * cardPx))) + 1;
    // The best rectangle of each step, found lazily but exactly as a scan over every angle, size
    // and position (first best in that order) finds it: a rectangle's score only falls as cards
    // cover the blob, so the positions are grouped in blocks whose last best score bounds them,
    // and only the blocks whose bound could still win are scored again.
    constexpr int kBlock = 16;
    constexpr std::array<float, 4> kSizes{0.82f, 0.91f, 1.f, 1.1f};
    struct Combo {
        int a, ww, hh, nx, ny;  // positions x, y in [1, nx], [1, ny]
        double px;
    };
    std::vector<Combo> combos;
    for (int a = 0; a < nAng; ++a)
        for (const float k : kSizes) {
            const int ww = std::max(3, int(std::lround(w * k))),
                      hh = std::max(3, int(std::lround(h * k)));
            combos.push_back({a, ww, hh, diag - ww - 2, diag - hh - 2, double(ww) * hh});
        }
    auto rs = [](const cv::Mat& I, int x, int y, int ww, int hh) {
        return double(I.at<int>(y + hh, x + ww) - I.at<int>(y, x + ww) - I.at<int>(y + hh, x) +
                      I.at<int>(y, x));
    };
    auto fs = [](const cv::Mat& I, int x, int y, int ww, int hh) {
        return double(I.at<float>(y + hh, x + ww) - I.at<float>(y, x + ww) -
                      I.at<float>(y + hh, x) + I.at<float>(y, x));
    };
    std::vector<cv::Mat> fresh(views.size());  // integral of the blob not yet covered, per view
    std::vector<int> freshAt(views.size(), -1);
    struct Best {
        double score = 0;  // 0: no rectangle (a rectangle scores at least 0.25)
        long order = 0;    // scan order of its position: angle, size, y, x
        int x = 0, y = 0;
    };
    // scores one block of positions of one combo at the current cover
    auto scoreBlock = [&](int ci, int bx, int by, int iter) {
        const Combo& co = combos[std::size_t(ci)];
        View& v = views[std::size_t(co.a)];
        if (freshAt[std::size_t(co.a)] != iter) {
            cv::integral(v.m & (1 - v.cov), fresh[std::size_t(co.a)], CV_32S);
            freshAt[std::size_t(co.a)] = iter;
        }
        const cv::Mat& ifr = fresh[std::size_t(co.a)];
        Best best;
        const int y1 = std::min(co.ny, 1 + (by + 1) * kBlock - 1),
                  x1 = std::min(co.nx, 1 + (bx + 1) * kBlock - 1);
        for (int y = 1 + by * kBlock; y <= y1; ++y)
            for (int x = 1 + bx * kBlock; x <= x1; ++x) {
                const int ww = co.ww, hh = co.hh;
                const double in = rs(v.im, x, y, ww, hh);
                if (in < 0.9 * co.px) continue;
                const double nw = rs(ifr, x, y, ww, hh) / cardPx;  // in nominal cards
                if (nw < 0.25) continue;
                const int t = 2;
                const double eg = (fs(v.ie, x, y - 1, ww, t) + fs(v.ie, x, y + hh - 1, ww, t) +
                                   fs(v.ie, x - 1, y, t, hh) + fs(v.ie, x + ww - 1, y, t, hh)) /
                                  (2.0 * t * (ww + hh));
                const double sc = nw + edgeW * eg + 0.2 * in / co.px;
                if (sc > best.score) best = {sc, (long(ci) * diag + y) * diag + x, x, y};
            }
        return best;
    };
    struct Entry {
        Best best;
        int ci, bx, by, at;  // block, and the step it was scored at
        bool operator<(
            const Entry& o) const {  // the heap's top: highest score, then first in order
            return best.score < o.best.score ||
                   (best.score == o.best.score && best.order > o.best.order);
        }
    };
    std::priority_queue<Entry> heap;
    for (int ci = 0; ci < int(combos.size()); ++ci) {
        const Combo& co = combos[std::size_t(ci)];
        if (co.nx < 1 || co.ny < 1) continue;
        for (int by = 0; by * kBlock < co.ny; ++by)
            for (int bx = 0; bx * kBlock < co.nx; ++bx) {
                const Best bb = scoreBlock(ci, bx, by, 0);
                if (bb.score > 0) heap.push({bb, ci, bx, by, 0});
            }
    }
    for (int iter = 0; iter < maxCards; ++iter) {
        int ba = -1, bx = 0, by = 0, bw = w, bh = h;
        while (!heap.empty()) {
            Entry top = heap.top();
            heap.pop();
            if (top.at != iter) {  // a bound from an earlier step: score it again
                top.best = scoreBlock(top.ci, top.bx, top.by, iter);
                top.at = iter;
                if (top.best.score > 0) heap.push(top);
                continue;
            }
            const Combo& co = combos[std::size_t(top.ci)];
            ba = co.a;
            bx = top.best.x;
            by = top.best.y;
            bw = co.ww;
            bh = co.hh;
            heap.push(top);  // rescored at the next step
            break;
        }
        if (ba < 0) break;
        // the card's corners in the roi, then in the picture (work scale)
        const View& v = views[std::size_t(ba)];
        std::array<cv::Point2f, 4> rc{cv::Point2f(float(bx), float(by)),
                                      cv::Point2f(float(bx + bw), float(by)),
                                      cv::Point2f(float(bx + bw), float(by + bh)),
                                      cv::Point2f(float(bx), float(by + bh))};
        Quad q;
        std::vector<cv::Point2f> roiPts(4);
        for (std::size_t i = 0; i < 4; ++i) {
            const cv::Point2f p = rc[i];
            roiPts[i] = cv::Point2f(float(v.inv.at<double>(0, 0) * p.x + v.inv.at<double>(0, 1) * p.y +
                                          v.inv.at<double>(0, 2)),
                                    float(v.inv.at<double>(1, 0) * p.x + v.inv.at<double>(1, 1) * p.y +
                                          v.inv.at<double>(1, 2)));
            q[i] = roiPts[i] * (1.f / ds) + cv::Point2f(roi.tl());
        }
        BackCandidate cand;
        cand.quad = readingOrder(q);
        out.push_back(cand);
        // mark it covered in every view
        for (auto& vv : views) {
            std::vector<cv::Point> poly(4);
            for (std::size_t i = 0; i < 4; ++i) {
                const cv::Point2f p = roiPts[i];
                poly[i] = cv::Point(int(std::lround(vv.rot.at<double>(0, 0) * p.x + vv.rot.at<double>(0, 1) * p.y + vv.rot.at<double>(0, 2))),
                                    int(std::lround(vv.rot.at<double>(1, 0) * p.x + vv.rot.at<double>(1, 1) * p.y + vv.rot.at<double>(1, 2))));
            }
            cv::fillConvexPoly(vv.cov, poly, cv::Scalar(1));
        }
    }
    // the cards must explain the blob (a ribbon row, or rows that touch, hold no such fit)
    const View& v0 = views.front();
    const double blobPx = cv::countNonZero(v0.m);
    if (blobPx > 0 && cv::countNonZero(v0.m & v0.cov) < minCover * blobPx) out.clear();
    return out;
}

// The learnt edge finder of ribbon spreads (models/training/train_ribbon_edges.py): a 1-D dilated
// convolutional net over the row seen at the picture's full resolution (the row's thickness, a
// card's height, resampled to kAlong samples along it; kBands bands across, B G R each) that marks
// where one card's visible strip ends and the next card's begins.
namespace ribbonnet {
#include "ribbon_edges_weights.inc"
}  // namespace ribbonnet

// One 1-D convolution (zero padding keeps the length), weights [out][in][k]: with AVX2 and FMA,
// summed tap by tap in registers (conv1d_avx2.cpp: a ribbon frame's convolutions 208 M -> 42 M
// instructions; cv::gemm took 44% of the frame; BACKS.md, "Back counting cheaper with the same
// counts"); else the taps laid out as rows (im2col) and one matrix product.
std::vector<float> conv1d(const std::vector<float>& in, int cin, int len, const float* w,
                          const float* bias, int cout, int k, int dilation, bool relu) {
    std::vector<float> out(std::size_t(cout) * std::size_t(len));
    bool done = false;
#if NERTZ_READER_AVX2
    static const bool hand =
        cv::checkHardwareSupport(CV_CPU_AVX2) && cv::checkHardwareSupport(CV_CPU_FMA3);
    if (hand) {
        detail::conv1dAvx2(in.data(), cin, len, w, cout, k, dilation, out.data());
        done = true;
    }
#endif
    if (!done) {
        const int half = (k - 1) / 2 * dilation;
        cv::Mat cols = cv::Mat::zeros(cin * k, len, CV_32F);
        for (int c = 0; c < cin; ++c) {
            const float* src = in.data() + std::size_t(c) * std::size_t(len);
            for (int t = 0; t < k; ++t) {
                const int off = t * dilation - half;
                const int x0 = std::max(0, -off), x1 = std::min(len, len - off);
                if (x1 > x0)
                    std::copy(src + x0 + off, src + x1 + off, cols.ptr<float>(c * k + t) + x0);
            }
        }
        const cv::Mat weights(cout, cin * k, CV_32F, const_cast<float*>(w));
        cv::Mat prod(cout, len, CV_32F, out.data());  // gemm writes into `out`
        cv::gemm(weights, cols, 1.0, cv::noArray(), 0.0, prod);
        CV_Assert(prod.data == reinterpret_cast<uchar*>(out.data()));
    }
    for (int o = 0; o < cout; ++o) {
        float* dst = out.data() + std::size_t(o) * std::size_t(len);
        for (int x = 0; x < len; ++x)
            dst[x] = relu ? std::max(0.f, dst[x] + bias[o]) : dst[x] + bias[o];
    }
    return out;
}

// The row's rectangle, 0..len along it and 0..thick across (picture px), mapped into `bgr` (8-bit,
// 3 channels) by `frame`, as the net's input: kBands * 3 channels of `n` samples (the twin of
// `features` in the training script).
std::vector<float> ribbonFeatures(const cv::Mat& bgr, const cv::Matx33d& frame, float len,
                                  float thick, int& n) {
    using namespace ribbonnet;
    const float k = kAlong / thick;
    n = int(std::lround(len * k)) + 1;
    const int rows = kBands * 4;
    cv::Mat mx(rows, n, CV_32F), my(rows, n, CV_32F);
    for (int r = 0; r < rows; ++r) {
        const float y = thick * (0.1f + 0.8f * (float(r) + 0.5f) / float(rows));
        float* px = mx.ptr<float>(r);
        float* py = my.ptr<float>(r);
        for (int x = 0; x < n; ++x) {
            const cv::Vec3d p = frame * cv::Vec3d(double(x) / k, double(y), 1.0);
            px[x] = float(p[0] / p[2]);
            py[x] = float(p[1] / p[2]);
        }
    }
    cv::Mat sampled;
    cv::remap(bgr, sampled, mx, my, cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    std::vector<float> f(std::size_t(kBands) * 3 * std::size_t(n), 0.f);
    for (int r = 0; r < rows; ++r) {
        const std::uint8_t* s = sampled.ptr<std::uint8_t>(r);
        const int band = r / 4;
        for (int ch = 0; ch < 3; ++ch) {
            float* dst = f.data() + (std::size_t(band) * 3 + std::size_t(ch)) * std::size_t(n);
            for (int x = 0; x < n; ++x) dst[x] += 0.25f * float(s[3 * x + ch]);
        }
    }
    // minus each channel's mean, over the spread of all + 4
    double sum = 0, sq = 0;
    for (int c = 0; c < kBands * 3; ++c) {
        float* row = f.data() + std::size_t(c) * std::size_t(n);
        double m = 0;
        for (int x = 0; x < n; ++x) m += row[x];
        m /= n;
        for (int x = 0; x < n; ++x) {
            row[x] -= float(m);
            sum += row[x];
            sq += double(row[x]) * row[x];
        }
    }
    const double count = double(f.size()), mean = sum / count;
    const float sd = float(std::sqrt(std::max(0.0, sq / count - mean * mean)));
    for (auto& x : f) x /= sd + 4.f;
    return f;
}

// Edge probability at every sample of the row's features.
std::vector<float> ribbonEdgeProbabilities(const std::vector<float>& features, int n) {
    using namespace ribbonnet;
    std::vector<float> h = features;
    int cin = kBands * 3;
    const float* w = kW;
    const float* b = kB;
    for (int l = 0; l < kLayers; ++l) {
        h = conv1d(h, cin, n, w, b, kWidth, kKernel, kDilation[l], true);
        w += std::size_t(kWidth) * std::size_t(cin) * kKernel;
        b += kWidth;
        cin = kWidth;
    }
    h = conv1d(h, cin, n, w, b, 1, 1, 1, false);
    for (auto& x : h) x = 1.f / (1.f + std::exp(-x));
    return h;
}

// The edges read from the start of the row (sample 0 always one: the bottom card's outer edge) and
// the chain's score: peaks of p (>= 0.2) chained 4-60 samples apart (160 a card's height: strips
// up to about half a card wide; 40 until 2026-11-29, when ribbons spread wider than a quarter of
// a card were cut into extra strips; 80 also took large patterned cards for rows: BACKS.md, "Wide
// ribbon spreads"), scoring sum (p - 0.5) minus 0.3 x |gap change| / gap; no edge in the last
// ~0.78 card widths (the card on top). The twin of `decode` in the training script.
std::vector<int> chainRibbonEdges(const std::vector<float>& p, float& score) {
    constexpr int kGapMin = 4, kGapMax = 60;
    constexpr float kTau = 0.5f, kLambda = 0.3f, kPeak = 0.2f;
    const float endCut = 0.78f * ribbonnet::kAlong / 1.45f;
    const int n = int(p.size());
    std::vector<int> pk;
    for (int i = kGapMin; i + 1 < n && float(i) <= float(n) - endCut; ++i)
        if (p[std::size_t(i)] >= kPeak && p[std::size_t(i)] >= p[std::size_t(i - 1)] &&
            p[std::size_t(i)] > p[std::size_t(i + 1)])
            pk.push_back(i);
    score = 0;
    const int m = int(pk.size());
    if (m == 0) return {0};
    constexpr float kNone = -1e9f;
    // best[i][j]: the best chain whose last two edges are peaks i < j; from[i][j]: the edge before i
    std::vector<float> best(std::size_t(m) * std::size_t(m), kNone);
    std::vector<int> from(std::size_t(m) * std::size_t(m), -1);
    auto at = [m](int i, int j) { return std::size_t(i) * std::size_t(m) + std::size_t(j); };
    auto gain = [&](int j) { return p[std::size_t(pk[std::size_t(j)])] - kTau; };
    float top = kNone;
    int topI = -1, topJ = -1;
    for (int i = 0; i < m; ++i)  // a chain of one edge
        if (pk[std::size_t(i)] <= kGapMax && gain(i) > top) {
            top = gain(i);
            topI = -1;
            topJ = i;
        }
    for (int j = 0; j < m; ++j)
        for (int i = 0; i < j; ++i) {
            const int g = pk[std::size_t(j)] - pk[std::size_t(i)];
            if (g < kGapMin || g > kGapMax) continue;
            float v = pk[std::size_t(i)] <= kGapMax ? gain(i) + gain(j) : kNone;
            int arg = -1;
            for (int h = 0; h < i; ++h) {
                const float s = best[at(h, i)];
                if (s <= kNone) continue;
                const int g0 = pk[std::size_t(i)] - pk[std::size_t(h)];
                const float c = s + gain(j) - kLambda * float(std::abs(g - g0)) / float(g0);
                if (c > v) {
                    v = c;
                    arg = h;
                }
            }
            if (v <= kNone) continue;
            best[at(i, j)] = v;
            from[at(i, j)] = arg;
            if (v > top) {
                top = v;
                topI = i;
                topJ = j;
            }
        }
    // every peak past kGapMax from the row's end, and no pair of them a chain: no edge (pk[-1] was
    // read here before 2026-12-01)
    if (topJ < 0) return {0};
    score = top;
    std::vector<int> edges{pk[std::size_t(topJ)]};
    for (int i = topI, j = topJ; i >= 0;) {
        edges.push_back(pk[std::size_t(i)]);
        const int h = from[at(i, j)];
        j = i;
        i = h;
    }
    edges.push_back(0);
    std::reverse(edges.begin(), edges.end());
    return edges;
}

// How far a row's corner may lie outside its outline's hull, as a share of the row's thickness.
constexpr double kRowReach = 0.2;

// rowCorners before its corners are put in order: the four corners in the hull's order.
std::optional<Quad> rowQuad(const std::vector<cv::Point>& outline) {
    std::vector<cv::Point2f> pts(outline.begin(), outline.end()), h;
    cv::convexHull(pts, h);
    if (h.size() < 4) return std::nullopt;
    const std::vector<cv::Point2f> hullPts = h;
    const double hullArea = cv::contourArea(h);
    auto cross = [](cv::Point2f a, cv::Point2f b) { return double(a.x) * b.y - double(a.y) * b.x; };
    while (h.size() > 4) {
        const std::size_t m = h.size();
        double best = -1;
        std::size_t at = 0;
        cv::Point2f meet;
        for (std::size_t i = 0; i < m; ++i) {
            // cut side i -> i+1: side i-1 -> i and side i+1 -> i+2 extended to meet at p
            const cv::Point2f a = h[(i + m - 1) % m], b = h[i], c = h[(i + 1) % m],
                              d = h[(i + 2) % m];
            const cv::Point2f r = b - a, s = c - d;
            const double den = cross(r, s);
            if (std::abs(den) < 1e-9) continue;
            const double t = cross(c - b, s) / den, u = cross(r, c - b) / den;
            if (t < 0 || u > 0) continue;  // the extensions meet behind a side
            const cv::Point2f p = b + r * float(t);
            const double added = 0.5 * std::abs(cross(c - b, p - b));
            if (best < 0 || added < best) {
                best = added;
                at = i;
                meet = p;
            }
        }
        if (best < 0) return std::nullopt;
        h[at] = meet;
        h.erase(h.begin() + std::ptrdiff_t((at + 1) % m));
    }
    if (cv::contourArea(h) > 1.1 * hullArea) return std::nullopt;
    auto side = [&](std::size_t i) { return cv::norm(h[(i + 1) % 4] - h[i]); };
    // a corner far outside the hull (a row cut by the picture's edge, a card sticking out): no
    // quadrilateral
    const double reach = kRowReach * std::min(side(0) + side(2), side(1) + side(3)) / 2;
    for (const auto& p : h)
        if (-cv::pointPolygonTest(hullPts, p, true) > reach) return std::nullopt;
    return Quad{h[0], h[1], h[2], h[3]};
}

// rowQuad's corners put in order: corners 0-1 and 3-2 the long sides (the short ones with
// `acrossLong`).
Quad rowInOrder(const Quad& h, bool acrossLong) {
    auto side = [&](std::size_t i) { return cv::norm(h[(i + 1) % 4] - h[i]); };
    const std::size_t first = (side(0) + side(2) < side(1) + side(3)) != acrossLong ? 1 : 0;
    Quad q;
    for (std::size_t i = 0; i < 4; ++i) q[i] = h[(i + first) % 4];
    return q;
}

}  // namespace

// (back_finder.hpp) The twin of `row_corners` in models/training/train_ribbon_edges.py.
std::optional<Quad> rowCorners(const std::vector<cv::Point>& outline, bool acrossLong) {
    const auto h = rowQuad(outline);
    if (!h) return std::nullopt;
    return rowInOrder(*h, acrossLong);
}

namespace {

// Whether the part of a row past its last edge, as a share of a whole card's width at the row's
// thickness, is one whole card (the card on top).
bool topIsWhole(float share) {
    return share > 0.6f && share < 1.15f;
}

// The cards of a ribbon spread: the blob (work px; `bgr` is the full picture, `scale` work px per
// picture px) seen in the frame of its four corners in perspective (`corners`: rowQuad's, where
// they were found) or else of its rotated box, x along the row and the cards' long side across
// it, read by the edge finder from either end; the end that reads the better chain holds the bottom
// card, the other the card on top (a whole card); every other card shows a strip, from its edge to
// the next card's. `acrossLong`: the row runs across the box's long side (a row shorter than a card
// is tall). `score`: the chain's score (0 for no edge); `topShare`: the part past the last edge
// over a whole card's width (0 when no edge was read).
std::vector<BackCandidate> ribbonCards(const Blob& b, const cv::Mat& bgr, float scale,
                                       float cardAspect, bool acrossLong,
                                       const std::optional<Quad>& corners, float* score,
                                       float* thickness, float* topShare) {
    *score = 0;
    *topShare = 0;
    // the row's rectangle 0..len x 0..thick (work px) and its map into the picture (picture px)
    float len = 0, thick = 0;
    cv::Matx33d frame;
    if (corners) {
        const Quad c = rowInOrder(*corners, acrossLong);
        len = 0.5f * float(cv::norm(c[1] - c[0]) + cv::norm(c[2] - c[3]));
        thick = 0.5f * float(cv::norm(c[3] - c[0]) + cv::norm(c[2] - c[1]));
        const cv::Point2f rect[4] = {
            {0, 0}, {len / scale, 0}, {len / scale, thick / scale}, {0, thick / scale}};
        const cv::Point2f pic[4] = {c[0] / scale, c[1] / scale, c[2] / scale, c[3] / scale};
        frame = cv::getPerspectiveTransform(rect, pic);
    } else {
        cv::Point2f pts[4];
        b.box.points(pts);
        cv::Point2f e1 = pts[1] - pts[0], e2 = pts[2] - pts[1];
        if ((cv::norm(e1) < cv::norm(e2)) != acrossLong) std::swap(e1, e2);
        len = float(cv::norm(e1));
        thick = float(cv::norm(e2));
        const cv::Point2f u = e1 * (1.f / len), v = e2 * (1.f / thick);
        const cv::Point2f origin = (b.box.center - u * (len / 2) - v * (thick / 2)) / scale;
        frame = cv::Matx33d(u.x, v.x, origin.x, u.y, v.y, origin.y, 0, 0, 1);
    }
    *thickness = thick;
    auto at = [&](float x, float y) {  // work px
        const cv::Vec3d p = frame * cv::Vec3d(double(x / scale), double(y / scale), 1.0);
        return cv::Point2f(float(p[0] / p[2]), float(p[1] / p[2])) * scale;
    };
    auto span = [&](float x0, float x1) {
        return Quad{at(x0, 0), at(x1, 0), at(x1, thick), at(x0, thick)};
    };
    const float wc0 = std::min(thick / cardAspect, len);
    std::vector<BackCandidate> out;
    // (a row shorter than 4% of a card's height past its top card, or cards under 40 px tall in
    // the picture, has no strips to read)
    if (len - wc0 < 0.04f * thick || thick / scale < 40.f) {
        BackCandidate c;
        c.quad = span(0, len);
        out.push_back(c);
        return out;
    }
    int n = 0;
    const auto features = ribbonFeatures(bgr, frame, len / scale, thick / scale, n);
    const auto f = ribbonEdgeProbabilities(features, n);
    float sf = 0, sr = 0;
    const auto fwd = chainRibbonEdges(f, sf);
    const auto rev = chainRibbonEdges(std::vector<float>(f.rbegin(), f.rend()), sr);
    const bool reversed = sr > sf;
    *score = std::max(0.f, std::max(sf, sr));
    // edges in work px along u, from the bottom card's outer edge
    const float k = ribbonnet::kAlong / (thick / scale) / scale;  // samples per work px
    std::vector<float> bounds;
    for (int e : reversed ? rev : fwd) bounds.push_back(float(e) / k);
    const int cards = int(bounds.size());
    const float topWidth = len - bounds.back();
    *topShare = topWidth / wc0;
    const float wc = topIsWhole(*topShare) ? topWidth : wc0;
    bounds.push_back(len);
    for (int i = 0; i < cards; ++i) {
        BackCandidate c;
        c.inRow = true;
        const float x0 = bounds[std::size_t(i)], x1 = bounds[std::size_t(i + 1)];
        const bool top = i == cards - 1;
        const float frac = std::clamp((x1 - x0) / wc, 0.02f, 1.f);
        if (!reversed) {
            c.quad = span(x0, x0 + wc);
            c.region = top ? BackRegion{} : BackRegion{0.f, frac};
        } else {  // the row read from its far end: x measured back from len
            c.quad = span(len - x0 - wc, len - x0);
            c.region = top ? BackRegion{} : BackRegion{1.f - frac, 1.f};
        }
        out.push_back(c);
    }
    return out;
}

// A blob read as a ribbon both ways (along and across its box's long side); the way whose chain
// scores better. Or one way only (`way`: where the row's direction is known). `clear`: it holds
// two cards or more with edges scoring `shortRowScore` an edge (`longRowScore` for a long row at
// least `longRowThick` of the scene's card length `cardLong` thick; 0: not known). `frame`: the
// row's four corners to read it in (nullopt: its rotated box) where the caller found them already
// (null: rowQuad's, with BackFinderOptions::rowCorners). `edgeScore`: the chain's score an edge.
enum class RowWay { Both, Along, Across };
std::vector<BackCandidate> readRibbon(const Blob& b, const cv::Mat& bgr, float scale,
                                      const BackFinderOptions& options, float cardLong, bool& clear,
                                      RowWay way = RowWay::Both, float* topShare = nullptr,
                                      const std::optional<Quad>* frame = nullptr,
                                      float* edgeScore = nullptr) {
    float s1 = 0, s2 = 0, t1 = 0, t2 = 0, w1 = 0, w2 = 0;
    const float cardAspect = options.cardAspect;
    const auto corners =
        frame ? *frame : options.rowCorners ? rowQuad(b.contour) : std::nullopt;
    std::vector<BackCandidate> along, across;
    if (way != RowWay::Across)
        along = ribbonCards(b, bgr, scale, cardAspect, false, corners, &s1, &t1, &w1);
    if (way != RowWay::Along)
        across = ribbonCards(b, bgr, scale, cardAspect, true, corners, &s2, &t2, &w2);
    const bool isAcross = way == RowWay::Across || (way == RowWay::Both && s2 > s1);
    if (topShare) *topShare = isAcross ? w2 : w1;
    auto& cards = isAcross ? across : along;
    // a long row a card's length thick (not the grid of a checkered back) is clear at a lower score
    const bool longRow = int(cards.size()) >= options.longRowCards && cardLong > 0 &&
                         (isAcross ? t2 : t1) >= options.longRowThick * cardLong;
    const float minScore = longRow ? options.longRowScore : options.shortRowScore;
    clear = cards.size() >= 2 && (isAcross ? s2 : s1) >= minScore * float(cards.size() - 1);
    if (edgeScore)
        *edgeScore = cards.size() >= 2 ? (isAcross ? s2 : s1) / float(cards.size() - 1) : 0.f;
    return std::move(cards);
}

// A row's outline may bulge where a neighbouring card or row touches it, and the frame of its four
// corners (rowQuad) then lies askew: the edge finder samples the row at a slant, reads a strip twice
// or misses one. So a row with corners is read in their frame and in its rotated box, and the
// reading whose edges score better each is kept (askew frames score about 0.25 an edge, straight
// ones 0.45). The box's reading replaces an unclear one only when it scores like a straight frame
// (kBoxRowScore an edge): a whole card's printed pattern, unclear in its corners' frame, reads as
// clear strips at about 0.2 in a box a little askew of it.
// Corners within kSameFrame work px of the box's each (a straight row): the box is not read again.
constexpr float kBoxRowScore = 0.3f, kSameFrame = 1.f;
std::vector<BackCandidate> readRow(const Blob& b, const cv::Mat& bgr, float scale,
                                   const BackFinderOptions& options, float cardLong, bool& clear,
                                   RowWay way = RowWay::Both) {
    const std::optional<Quad> corners = options.rowCorners ? rowQuad(b.contour) : std::nullopt;
    float perEdge = 0.f;
    auto cards = readRibbon(b, bgr, scale, options, cardLong, clear, way, nullptr, &corners, &perEdge);
    if (!corners) return cards;
    cv::Point2f boxCorners[4];
    b.box.points(boxCorners);
    float far = 0.f;
    for (const auto& c : *corners) {
        float nearest = std::numeric_limits<float>::max();
        for (const auto& p : boxCorners) nearest = std::min(nearest, float(cv::norm(c - p)));
        far = std::max(far, nearest);
    }
    if (far <= kSameFrame) return cards;
    const std::optional<Quad> box;
    float boxPerEdge = 0.f;
    bool boxClear = false;
    auto inBox = readRibbon(b, bgr, scale, options, cardLong, boxClear, way, nullptr, &box, &boxPerEdge);
    if (boxPerEdge > perEdge && (clear || boxPerEdge >= kBoxRowScore)) {
        clear = boxClear;
        return inBox;
    }
    return cards;
}

// The share of a blob's inside (its contour eroded by 4 px each way, a 9 x 9 square; work px) that
// the segmenter's outline map marks as a card's side (over 0.5): a few per cent on one card, whose
// own border the erosion takes away, most of it on a ribbon row, whose every strip is bounded by a
// side.
double outlineShare(const std::vector<cv::Point>& contour, const cv::Mat& outline) {
    const cv::Rect box = cv::boundingRect(contour) & cv::Rect(0, 0, outline.cols, outline.rows);
    if (box.empty()) return 0.0;
    cv::Mat inside = cv::Mat::zeros(box.size(), CV_8U);
    cv::drawContours(inside, std::vector<std::vector<cv::Point>>{contour}, 0, cv::Scalar(255),
                     cv::FILLED, cv::LINE_8, cv::noArray(), INT_MAX, -box.tl());
    cv::erode(inside, inside, cv::Mat::ones(9, 9, CV_8U));  // a square: separable, cheap
    const int all = cv::countNonZero(inside);
    if (all == 0) return 0.0;
    cv::Mat marked;
    cv::threshold(outline(box), marked, 127, 255, cv::THRESH_BINARY);
    cv::bitwise_and(marked, inside, marked);
    return double(cv::countNonZero(marked)) / all;
}

// A blob the rules by size and fill leave out of the row reader (one no larger than the scene's
// card, whose size may come from this very blob when it is a row alone in the picture; one that
// fills its box too poorly, being seen in perspective or cut by the picture's edge) read as a row
// all the same when the segmenter marks card sides all through it (`outlineRows`). It is one when
// it reads into `rowMinCentres` cards or more with clear edges (the scene's card size not used)
// and the part past its last edge is a whole card; `cards` then holds them.
bool outlinedRow(const Blob& b, const cv::Mat& bgr, const cv::Mat& outline, float scale,
                 const BackFinderOptions& options, std::vector<BackCandidate>& cards) {
    if (!options.learntRows || options.outlineRows <= 0.f || outline.empty() ||
        outlineShare(b.contour, outline) < options.outlineRows)
        return false;
    bool clear = false;
    float top = 0;
    auto read = readRibbon(b, bgr, scale, options, 0.f, clear, RowWay::Both, &top);
    if (!clear || int(read.size()) < options.rowMinCentres || !topIsWhole(top)) return false;
    cards = std::move(read);
    return true;
}

// The whole card of which `b` is the part that shows, others lying across the rest: a rectangle of
// the scene's card size (cardLong x cardLong / aspect) at the piece's angle that holds the piece.
// Along each of the piece's axes the card is as long as the piece or the card side that fits it;
// the extra length goes over the piece's side that meets other cards (`fg` beyond it) rather than
// the table, as the card goes on under them (split evenly when both or neither do). False when no
// card of the scene's size holds the piece.
bool completeCard(const Blob& b, const cv::Mat& fg, float cardLong, float aspect, Quad& quad) {
    const float L = cardLong, S = cardLong / aspect;
    const float w = b.box.size.width, h = b.box.size.height;
    const float th = b.box.angle * float(CV_PI / 180.0);
    const cv::Point2f u(std::cos(th), std::sin(th)), v(-std::sin(th), std::cos(th));
    // which card side lies along u: the one that holds the piece; when both do, the long side
    // along the piece's longer extent
    const float slack = 1.12f;
    const bool longAlongU = w > h ? w <= L * slack : !(h <= L * slack && w <= S * slack);
    const float au = longAlongU ? L : S, av = longAlongU ? S : L;
    if (w > au * slack || h > av * slack) return false;
    // share of card pixels just beyond the piece's side at `at` (along `n`, over the side's length)
    auto coveredBeyond = [&](cv::Point2f mid, cv::Point2f n, cv::Point2f along, float len) {
        int in = 0, all = 0;
        for (int k = -4; k <= 4; ++k) {
            const cv::Point2f p = mid + along * (len * 0.45f * float(k) / 4.f) + n * 3.f;
            const cv::Point ip(int(std::lround(p.x)), int(std::lround(p.y)));
            if (ip.x < 0 || ip.y < 0 || ip.x >= fg.cols || ip.y >= fg.rows) continue;
            ++all;
            in += fg.at<uchar>(ip) ? 1 : 0;
        }
        return all ? float(in) / float(all) : 0.f;
    };
    auto place = [&](float extent, float card, cv::Point2f axis, cv::Point2f other, float otherLen) {
        const float extra = std::max(0.f, card - extent);
        const float lo = coveredBeyond(b.box.center - axis * (extent / 2), -axis, other, otherLen);
        const float hi = coveredBeyond(b.box.center + axis * (extent / 2), axis, other, otherLen);
        const float side = lo > hi + 0.25f ? -1.f : hi > lo + 0.25f ? 1.f : 0.f;
        return std::make_pair(side * extra / 2, std::max(card, extent));  // shift of the middle, length
    };
    const auto [su, lu] = place(w, au, u, v, h);
    const auto [sv, lv] = place(h, av, v, u, w);
    const cv::Point2f c = b.box.center + u * su + v * sv;
    quad = readingOrder({c - u * (lu / 2) - v * (lv / 2), c + u * (lu / 2) - v * (lv / 2),
                         c + u * (lu / 2) + v * (lv / 2), c - u * (lu / 2) + v * (lv / 2)});
    return true;
}

// A blob that is one card seen in perspective: its hull has four clear corners (none under 50
// degrees), it fills that quadrilateral, whose sides are of a card's aspect. `q` gets the
// quadrilateral (reading order), `longSide` its mean long side.
bool fourCorners(const Blob& b, Quad& q, float& longSide) {
    std::vector<cv::Point> hull, corners;
    cv::convexHull(b.contour, hull);
    cv::approxPolyDP(hull, corners, 0.04 * cv::arcLength(hull, true), true);
    // a rounded corner seen at a slant gives a short extra side: the sides on either side of the
    // shortest are carried on to meet
    while (corners.size() > 4 && corners.size() <= 6) {
        const std::size_t n = corners.size();
        std::size_t k = 0;
        for (std::size_t i = 1; i < n; ++i)
            if (cv::norm(corners[(i + 1) % n] - corners[i]) < cv::norm(corners[(k + 1) % n] - corners[k])) k = i;
        const cv::Point2f a0(corners[(k + n - 1) % n]), a1(corners[k]), b0(corners[(k + 1) % n]), b1(corners[(k + 2) % n]);
        const cv::Point2f da = a1 - a0, db = b0 - b1;
        const float den = da.x * db.y - da.y * db.x;
        if (std::abs(den) < 1e-3f) return false;
        const cv::Point2f d = b1 - a0;
        const cv::Point2f meetAt = a0 + da * ((d.x * db.y - d.y * db.x) / den);
        corners[k] = cv::Point(int(std::lround(meetAt.x)), int(std::lround(meetAt.y)));
        corners.erase(corners.begin() + long((k + 1) % n));
    }
    if (corners.size() != 4 || !cv::isContourConvex(corners)) return false;
    if (b.area < 0.9 * cv::contourArea(corners)) return false;
    Quad k;
    for (std::size_t i = 0; i < 4; ++i) k[i] = cv::Point2f(corners[i]);
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Point2f e1 = k[(i + 1) % 4] - k[i], e0 = k[(i + 3) % 4] - k[i];
        const double cosA = e1.dot(e0) / std::max(1e-6, cv::norm(e1) * cv::norm(e0));
        if (std::abs(cosA) > std::cos(50.0 * CV_PI / 180.0)) return false;
    }
    const double s0 = (cv::norm(k[1] - k[0]) + cv::norm(k[3] - k[2])) / 2;
    const double s1 = (cv::norm(k[2] - k[1]) + cv::norm(k[0] - k[3])) / 2;
    const double aspect = std::max(s0, s1) / std::max(1e-6, std::min(s0, s1));
    if (aspect < 1.1 || aspect > 2.2) return false;  // a slant shortens one side
    q = readingOrder(k);
    longSide = float(std::max(s0, s1));
    return true;
}

// A piece that is one card seen whole (BackFinderOptions::wholeCardOutline): its four corners
// (fourCorners), and the outline map (work px) marking under `maxShare` of its inside. False when
// `maxShare` is 0 or there is no outline map.
bool wholeCard(const Blob& b, const cv::Mat& outline, float maxShare) {
    if (maxShare <= 0.f || outline.empty()) return false;
    Quad q;
    float longSide = 0;
    return fourCorners(b, q, longSide) && outlineShare(b.contour, outline) < maxShare;
}

// centrePieces: a piece joined to another as one whole card is at least this share of a card
// (smaller scraps join only as the size rule centreMergeFit lets them).
constexpr double kJoinPieceShare = 0.25;

// A piece that is a whole card seen in perspective (fourCorners) of at least `minShare` of a card's
// area and at most 1.6 of it.
bool quadShaped(const Blob& b, double cardArea, float minShare, Quad& q) {
    Quad k;
    float longSide = 0;
    if (!fourCorners(b, k, longSide)) return false;
    const double area = cv::contourArea(std::vector<cv::Point2f>(k.begin(), k.end()));
    if (area < minShare * cardArea || area > 1.6 * cardArea) return false;
    q = k;
    return true;
}

// BackFinderOptions::wholeAloneShare: a piece that is a whole card alone on the table (work px;
// `fg` the card mask), its four corners in `q`.
bool wholeAlone(const Blob& b, const cv::Mat& fg, double cardArea, const BackFinderOptions& options,
                Quad& q) {
    Quad k;
    float longSide = 0;
    if (!fourCorners(b, k, longSide)) return false;
    const std::vector<cv::Point2f> poly(k.begin(), k.end());
    const double area = cv::contourArea(poly);
    if (area < options.wholeAloneShare * cardArea) return false;
    const cv::Rect box = cv::boundingRect(poly);
    if (box.x < 2 || box.y < 2 || box.br().x > fg.cols - 2 || box.br().y > fg.rows - 2) return false;
    // other cards' pixels (on the mask, off this piece) just beyond each side: 4 and 7 work px out,
    // along its middle 90%, at most a tenth of the points
    const cv::Point2f c = quadCentre(k);
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Point2f a = k[i], e = k[(i + 1) % 4];
        const Beyond o = maskBeyondSide(fg, a, e, outwardNormal(a, e, c), 0.05f, 0.09f, 11,
                                        {4.f, 7.f}, 1.f, &b.contour);
        if (o.seen == 0 || o.marked > o.seen / 10) return false;
    }
    q = readingOrder(k);
    return true;
}

// One piece of the card mask as cards: a piece of more than `maxPieceCards` cards goes to the
// cluster fit (with the segmenter's outline map as its edges), any other is one card, given as the
// rotated box around what shows (what attribution reads). A point of the piece goes to `anchors`
// for each card.
// A piece that is part of a covered card (under `completeBelow` of a card, or not card-shaped) is
// given as its completed card (completeCard) with what shows of it.
void emitPiece(const Blob& b, const cv::Mat& fg, const cv::Mat& outline, float cardLong,
               const BackFinderOptions& options, std::vector<BackCandidate>& out,
               std::vector<cv::Point>& anchors, double wholeArea = 0) {
    const double cardArea = double(cardLong) * cardLong / options.cardAspect;
    // cards fitted into the piece go out in its stead, when there are any
    auto fitted = [&](std::vector<BackCandidate> cards) {
        for (auto& c : cards) {
            out.push_back(std::move(c));
            anchors.push_back(b.contour.front());
        }
        return !cards.empty();
    };
    if (b.area > options.maxPieceCards * cardArea &&
        !wholeCard(b, outline, options.wholeCardOutline) &&
        fitted(fitCards(b, fg, outline, cardLong, options.cardAspect, 0.5f)))
        return;
    BackCandidate c;
    cv::Point2f q[4];
    b.box.points(q);
    c.quad = readingOrder({q[0], q[1], q[2], q[3]});
    // refined outlines start from the piece's own four corners: a card seen at an angle is no
    // rectangle (its box is too long and turned, and does not fill it like a card)
    bool whole = false;
    if (options.refineOutlines) {
        c.quad = looseQuad(b);
        whole = quadShaped(b, wholeArea > 0 ? wholeArea : cardArea, options.completeBelow, c.quad);
    }
    if (!whole && options.refineOutlines && options.wholeAloneShare > 0.f)
        whole = wholeAlone(b, fg, cardArea, options, c.quad);
    if (!whole && options.completeBelow > 0 && (b.area < options.completeBelow * cardArea || !cardShaped(b, options.pieceCardFill)) &&
        completeCard(b, fg, cardLong, options.cardAspect, c.quad)) {
        std::vector<cv::Point> simple;
        cv::approxPolyDP(b.contour, simple, 1.0, true);
        for (const auto& p : simple) c.shows.emplace_back(float(p.x), float(p.y));
    } else if (const double ref = wholeArea > 0 ? wholeArea : cardArea;
               !whole && options.oversizedPieceFit > 0.f &&
               quadArea(c.quad) > options.oversizedPieceFit * ref) {
        // an outline far larger than the scene's whole card: the piece took pixels of the cards
        // beside it; cards of the scene's size fitted into it (BackFinderOptions::oversizedPieceFit)
        auto cards = fitCards(b, fg, outline, cardLong, options.cardAspect, 0.5f);
        // at most as many cards as the piece has cards' worth of pixels, from a quarter up (a card
        // a hand lies across is one card, however far its outline reaches)
        const std::size_t most = std::size_t(std::max(1L, std::lround(b.area / ref + 0.25)));
        if (cards.size() > most) cards.resize(most);
        if (fitted(std::move(cards))) return;
    }
    out.push_back(std::move(c));
    anchors.push_back(b.contour.front());
}

// The cards of a picture from the learnt segmentation: the card mask less the outlines falls
// apart into pieces, each the showing part of one card (a card lying across another cuts it into
// two pieces: counted twice, a known limit). A piece that the outlines cut out of the inside of
// another piece only (a back's own pattern drawn like an edge) is not a card. A piece of more than
// `maxPieceCards` cards' area (outlines the net missed: a squared pile) is filled with card-sized
// rectangles by the cluster fit; any other piece of at least `minPieceShare` of a card is one card,
// given as the rectangle around the part that shows (what attribution should look at).
// The scene's card size comes from card-shaped pieces, else `fallbackCardLong` (the loose cards'
// blobs of the mask); when that is 0 too nothing is returned and `cardLong` stays 0.
std::vector<BackCandidate> segmentPieces(const cv::Mat& fg, const cv::Mat& outline,
                                         const BackFinderOptions& options, float fallbackCardLong,
                                         float& cardLong, std::vector<cv::Point>& anchors) {
    std::vector<BackCandidate> out;
    // cut along straight stretches of outline only: a card's edges are straight, while the blotches
    // a back's pattern can raise in the outline map are not
    cv::Mat cut = cv::Mat::zeros(fg.size(), CV_8U);
    {
        const cv::Mat strong = outline >= 128;
        std::vector<cv::Vec4i> lines;
        cv::HoughLinesP(strong, lines, 1, CV_PI / 180, 12, options.minOutlineLine, 2);
        for (const auto& l : lines)
            cv::line(cut, {l[0], l[1]}, {l[2], l[3]}, cv::Scalar(255), 3);
        cut &= strong | (outline >= 64);
    }
    cv::Mat inner = fg & ~cut;
    cv::morphologyEx(inner, inner, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
    cv::Mat labels, stats, centroids;
    const int n = cv::connectedComponentsWithStats(inner, labels, stats, centroids, 4, CV_32S);
    const float grow = options.outlineHalfWidth;
    const int reach = 7;  // across an outline band (about 5 work px) to what lies beyond it
    struct Piece {
        Blob b;
        bool inside = false;    // only one other piece lies beyond its outline (no table)
        bool enclosed = false;  // no card of its own: a pattern scrap inside a card, or merged
    };
    std::vector<Piece> pieces;
    for (int i = 1; i < n; ++i) {
        if (stats.at<int>(i, cv::CC_STAT_AREA) < 12) continue;
        const cv::Rect bb(stats.at<int>(i, cv::CC_STAT_LEFT), stats.at<int>(i, cv::CC_STAT_TOP),
                          stats.at<int>(i, cv::CC_STAT_WIDTH), stats.at<int>(i, cv::CC_STAT_HEIGHT));
        const cv::Rect roi = (bb + cv::Size(2 * reach, 2 * reach) - cv::Point(reach, reach)) &
                             cv::Rect(0, 0, fg.cols, fg.rows);
        const cv::Mat mine = labels(roi) == i;
        std::vector<std::vector<cv::Point>> cs;
        cv::findContours(mine, cs, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
        if (cs.empty()) continue;
        auto& c = *std::max_element(cs.begin(), cs.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
        for (auto& p : c) p += roi.tl();
        Piece pc;
        const double area = cv::contourArea(c) + grow * cv::arcLength(c, true);
        pc.b = measuredBlob(std::move(c), area, grow);
        // what lies just beyond its outline: the table, other pieces, or one piece only
        cv::Mat ring;
        cv::dilate(mine, ring, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(2 * reach + 1, 2 * reach + 1)));
        ring &= ~mine;
        std::map<int, int> beyond;
        int table = 0, total = 0;
        for (int y = 0; y < ring.rows; ++y) {
            const uchar* r = ring.ptr<uchar>(y);
            const int* l = labels(roi).ptr<int>(y);
            const uchar* f = fg(roi).ptr<uchar>(y);
            for (int x = 0; x < ring.cols; ++x) {
                if (!r[x]) continue;
                ++total;
                if (!f[x]) ++table;
                else if (l[x] > 0) ++beyond[l[x]];
            }
        }
        int most = 0, others = 0;
        for (const auto& [k, v] : beyond) {
            most = std::max(most, v);
            others += v;
        }
        pc.inside = total > 0 && table < 0.05 * total && others > 0 && most > 0.9 * others;
        pieces.push_back(std::move(pc));
    }
    // (a card-shaped scrap of a back's pattern must not set the size: pieces far smaller than the
    // largest are left out)
    double largest = 0;
    for (const auto& p : pieces) largest = std::max(largest, p.b.area);
    const double minArea = std::max(options.minCardFraction * double(fg.cols) * fg.rows, 0.15 * largest);
    std::vector<float> longs;
    for (const auto& p : pieces)
        if (p.b.area >= minArea && cardShaped(p.b, options.pieceCardFill)) longs.push_back(p.b.longSide);
    cardLong = longs.empty() ? fallbackCardLong : detail::medianOf(longs);
    if (cardLong <= 0) return out;
    const double cardArea = double(cardLong) * cardLong / options.cardAspect;
    // A small piece that lies within one card's reach of a larger one (a finger or a card across
    // a card cuts it in two) joins it: together they fit in a card.
    const float cardShort = cardLong / options.cardAspect;
    for (auto& p : pieces) p.enclosed = p.inside && p.b.area < 0.35 * cardArea;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        Piece& p = pieces[i];
        if (p.enclosed || p.b.area >= options.mergeShare * cardArea || p.b.area < options.minPieceShare * cardArea * 0.25)
            continue;
        std::size_t best = pieces.size();
        double bestArea = 0;
        for (std::size_t j = 0; j < pieces.size(); ++j) {
            const Piece& q = pieces[j];
            if (j == i || q.enclosed || q.b.area <= p.b.area) continue;
            if (cv::norm(q.b.box.center - p.b.box.center) > cardLong) continue;
            std::vector<cv::Point> both = p.b.contour;
            both.insert(both.end(), q.b.contour.begin(), q.b.contour.end());
            const cv::RotatedRect r = cv::minAreaRect(both);
            const float lo = std::min(r.size.width, r.size.height) + 2 * grow,
                        hi = std::max(r.size.width, r.size.height) + 2 * grow;
            if (hi <= 1.15f * cardLong && lo <= 1.15f * cardShort && q.b.area > bestArea) {
                best = j;
                bestArea = q.b.area;
            }
        }
        if (best < pieces.size()) p.enclosed = true;  // merged: no card of its own
    }
    for (const auto& p : pieces) {
        if (p.enclosed || p.b.area < options.minPieceShare * cardArea) continue;
        emitPiece(p.b, fg, outline, cardLong, options, out, anchors);
    }
    return out;
}

// Cards as the segmenter's instances (`seg` has centre and offset heads): the middles of the cards
// are the local maxima of the centre map, and every card pixel of `fg` (work size) goes to the
// middle its offset points nearest to. Unlike the outline cuts of segmentPieces, a back's printed
// pattern cannot cut a card in two, and the two showing parts of a card that another lies across
// point at one middle. Returns the cards (rotated boxes around what shows of each) and a pixel of
// each in `anchors`; `cardLong` as in segmentPieces. `claimed`: the share of `fg`'s pixels that
// point at a middle (1 when `fg` is empty), how much of the card mask the instances explain.
std::vector<BackCandidate> centrePieces(const cv::Mat& fg, const BackSegmentation& seg,
                                        const BackFinderOptions& options, float fallbackCardLong,
                                        float& cardLong, std::vector<cv::Point>& anchors,
                                        float& claimed, cv::Mat* labelsOut = nullptr) {
    std::vector<BackCandidate> out;
    const int cardPixels = cv::countNonZero(fg);
    claimed = cardPixels == 0 ? 1.f : 0.f;
    // middles: 3x3 local maxima above the threshold (a flat top gives one)
    cv::Mat peakMax;
    cv::dilate(seg.centre, peakMax, cv::Mat());
    std::vector<cv::Point2f> middles;
    for (int y = 0; y < seg.centre.rows; ++y) {
        const float* c = seg.centre.ptr<float>(y);
        const float* m = peakMax.ptr<float>(y);
        for (int x = 0; x < seg.centre.cols; ++x) {
            if (c[x] < options.centreThreshold || c[x] < m[x]) continue;
            const cv::Point2f p{float(x), float(y)};
            if (std::none_of(middles.begin(), middles.end(), [&](const cv::Point2f& q) { return cv::norm(p - q) < 1.5; }))
                middles.push_back(p);
        }
    }
    cardLong = 0;
    if (middles.empty()) return out;
    // every card pixel: where its offset points (in cells), the nearest middle takes it
    // (the net saw the picture padded to a multiple of 8: resize to that, then crop)
    cv::Mat offset;
    cv::resize(seg.offset, offset,
               cv::Size(int(std::lround(seg.offset.cols * seg.stride)), int(std::lround(seg.offset.rows * seg.stride))), 0, 0,
               cv::INTER_LINEAR);
    offset = offset(cv::Rect(0, 0, std::min(fg.cols, offset.cols), std::min(fg.rows, offset.rows)));
    if (offset.size() != fg.size()) return out;
    cv::Mat label(fg.size(), CV_32S, cv::Scalar(-1));
    const float inv = 1.f / seg.stride;
    // the middles four at a time (the same float operations as one at a time, and the first
    // nearest kept: each group of four that has one nearer than the best so far is gone through in
    // order); padded with middles too far to be anyone's
    const std::size_t nm = middles.size(), n4 = (nm + 3) / 4 * 4;
    std::vector<float> mxs(n4, 1e15f), mys(n4, 1e15f);
    for (std::size_t k = 0; k < nm; ++k) {
        mxs[k] = middles[k].x;
        mys[k] = middles[k].y;
    }
    std::vector<cv::Rect> boxes(nm);  // each middle's pixels' bounding box
    for (int y = 0; y < fg.rows; ++y) {
        const uchar* f = fg.ptr<uchar>(y);
        const cv::Vec2f* o = offset.ptr<cv::Vec2f>(y);
        int* l = label.ptr<int>(y);
        const float v = (float(y) + 0.5f) * inv - 0.5f;
        for (int x = 0; x < fg.cols; ++x) {
            if (!f[x]) continue;
            const float tx = (float(x) + 0.5f) * inv - 0.5f + o[x][0], ty = v + o[x][1];
            float best = options.centreReach * options.centreReach;  // farther: no middle's
            int nearest = -1;
            const cv::v_float32x4 vtx = cv::v_setall_f32(tx), vty = cv::v_setall_f32(ty);
            for (std::size_t k = 0; k < n4; k += 4) {
                const cv::v_float32x4 dx = cv::v_load(&mxs[k]) - vtx,
                                      dy = cv::v_load(&mys[k]) - vty;
                const cv::v_float32x4 d = dx * dx + dy * dy;
                if (!cv::v_check_any(d < cv::v_setall_f32(best))) continue;
                float ds[4];
                cv::v_store(ds, d);
                for (std::size_t j = 0; j < 4; ++j)
                    if (ds[j] < best) {
                        best = ds[j];
                        nearest = int(k + j);
                    }
            }
            if (nearest < 0) continue;
            l[x] = nearest;
            cv::Rect& b = boxes[std::size_t(nearest)];
            b = b.empty() ? cv::Rect(x, y, 1, 1) : (b | cv::Rect(x, y, 1, 1));
        }
    }
    // each middle's pixels: the largest connected part is the card's showing part; card pixels
    // that point at no middle, and the other parts, are left over (a card whose middle was missed)
    if (labelsOut) *labelsOut = label;
    std::vector<Blob> pieces;
    cv::Mat leftover = fg & (label < 0);
    if (cardPixels > 0) claimed = 1.f - float(cv::countNonZero(leftover)) / float(cardPixels);
    for (std::size_t k = 0; k < middles.size(); ++k) {
        // within the box of its pixels and a pixel more (the contours, in the picture's
        // coordinates, and the masks are those of the whole picture there; nothing of this middle
        // lies outside)
        if (boxes[k].empty()) continue;
        const cv::Rect roi =
            (boxes[k] + cv::Size(2, 2) - cv::Point(1, 1)) & cv::Rect(0, 0, fg.cols, fg.rows);
        const cv::Mat mine = label(roi) == int(k);
        std::vector<std::vector<cv::Point>> cs;
        cv::findContours(mine, cs, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE, roi.tl());
        if (cs.empty()) continue;
        std::vector<double> areas;
        for (const auto& c : cs) areas.push_back(cv::contourArea(c));
        const std::size_t big = std::size_t(std::max_element(areas.begin(), areas.end()) - areas.begin());
        cv::Mat part = cv::Mat::zeros(roi.size(), CV_8U);
        cv::drawContours(part, cs, int(big), cv::Scalar(255), cv::FILLED, cv::LINE_8, cv::noArray(),
                         INT_MAX, -roi.tl());
        part &= mine;
        cv::Mat leftHere = leftover(roi);
        leftHere |= mine & ~part;
        const double area = double(cv::countNonZero(part));
        if (area < 12) continue;
        pieces.push_back(measuredBlob(std::move(cs[big]), area));
    }
    const std::size_t centred = pieces.size();
    {
        cv::morphologyEx(leftover, leftover, cv::MORPH_OPEN, cv::getStructuringElement(cv::MORPH_RECT, cv::Size(3, 3)));
        std::vector<std::vector<cv::Point>> cs;
        cv::findContours(leftover, cs, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
        for (auto& c : cs) {
            const double area = cv::contourArea(c);
            if (area < 12) continue;
            pieces.push_back(measuredBlob(std::move(c), area));
        }
    }
    double largest = 0;
    for (std::size_t i = 0; i < centred; ++i) largest = std::max(largest, pieces[i].area);
    const double minArea = std::max(options.minCardFraction * double(fg.cols) * fg.rows, 0.15 * largest);
    std::vector<float> longs;
    std::vector<double> quadAreas;
    for (std::size_t i = 0; i < centred; ++i) {
        if (pieces[i].area < minArea || !cardShaped(pieces[i], options.pieceCardFill)) continue;
        longs.push_back(pieces[i].longSide);
        Quad q;
        float longSide = 0;
        // the area of a whole card: of its four corners when it has them (a card seen at a slant
        // fills less of its box)
        quadAreas.push_back(fourCorners(pieces[i], q, longSide)
                                ? cv::contourArea(std::vector<cv::Point2f>(q.begin(), q.end()))
                                : pieces[i].area);
    }
    const double wholeArea = detail::medianOf(quadAreas);
    cardLong = longs.empty() ? fallbackCardLong : detail::medianOf(longs);
    if (cardLong <= 0) return out;
    const double cardArea = double(cardLong) * cardLong / options.cardAspect;
    // Two middles on one card (one cut by the picture's edge, or a bold motif): a piece that fits in
    // one card together with a larger neighbour joins it, as in segmentPieces.
    const float cardShort = cardLong / options.cardAspect;
    // two pieces (`both`: their outlines together), each a good part of a card, that together
    // are one whole card
    auto oneCardTogether = [&](const std::vector<cv::Point>& both, const Blob& a, const Blob& b) {
        if (std::min(a.area, b.area) < kJoinPieceShare * cardArea) return false;
        std::vector<cv::Point> hull;
        cv::convexHull(both, hull);
        return wholeCard(measuredBlob(hull, a.area + b.area), seg.outline,
                         options.wholeCardOutline);
    };
    std::vector<bool> joined(pieces.size(), false);
    std::vector<std::size_t> bySize(pieces.size());
    std::iota(bySize.begin(), bySize.end(), std::size_t(0));
    std::sort(bySize.begin(), bySize.end(), [&](std::size_t a, std::size_t b) { return pieces[a].area < pieces[b].area; });
    for (std::size_t i : bySize) {
        if (pieces[i].area >= options.centreMergeShare * cardArea) continue;
        std::size_t best = pieces.size();
        for (std::size_t j = 0; j < pieces.size(); ++j) {
            if (j == i || joined[j] || pieces[j].area <= pieces[i].area) continue;
            if (cv::norm(pieces[j].box.center - pieces[i].box.center) > cardLong) continue;
            std::vector<cv::Point> both = pieces[i].contour;
            both.insert(both.end(), pieces[j].contour.begin(), pieces[j].contour.end());
            const cv::RotatedRect r = cv::minAreaRect(both);
            const float lo = std::min(r.size.width, r.size.height), hi = std::max(r.size.width, r.size.height);
            const bool fits =
                hi <= options.centreMergeFit * cardLong && lo <= options.centreMergeFit * cardShort;
            if ((fits || oneCardTogether(both, pieces[i], pieces[j])) &&
                (best == pieces.size() || pieces[j].area > pieces[best].area))
                best = j;
        }
        if (best == pieces.size()) continue;
        std::vector<cv::Point> both = pieces[best].contour;
        both.insert(both.end(), pieces[i].contour.begin(), pieces[i].contour.end());
        std::vector<cv::Point> hull;
        cv::convexHull(both, hull);
        pieces[best] = measuredBlob(std::move(hull), pieces[best].area + pieces[i].area);
        joined[i] = true;
    }
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (joined[i]) continue;
        const Blob& b = pieces[i];
        // a left-over part is a card only when it is a good part of one
        // (or, asked for, a smaller part, kept by countBacks where it is read as a deck's)
        const bool ifKnown = i >= centred && b.area < options.leftoverShare * cardArea;
        const float least = i < centred ? options.minPieceShare
                            : options.ifKnownPieces
                                ? std::min(options.leftoverIfKnownShare, options.leftoverShare)
                                : options.leftoverShare;
        if (b.area < least * cardArea) continue;
        // (one middle for more than 1.6 cards: a squared pile, fitted as in segmentPieces)
        const std::size_t had = out.size();
        emitPiece(b, fg, seg.outline, cardLong, options, out, anchors, wholeArea);
        for (std::size_t k = had; k < out.size(); ++k) out[k].ifKnown = ifKnown;
    }
    return out;
}

// `label` (centrePieces' map: a middle, or -1) with every card pixel of `fg` that no middle took
// given the middle of the nearest pixel that one did; -1 off the cards.
cv::Mat nearestInstance(const cv::Mat& label, const cv::Mat& fg) {
    cv::Mat out = label.clone();
    const cv::Mat none = label < 0;
    if (cv::countNonZero(none) == none.rows * none.cols) return out;
    cv::Mat dist, nearest;
    cv::distanceTransform(none, dist, nearest, cv::DIST_L2, 3, cv::DIST_LABEL_PIXEL);
    // each labelled pixel's own number in `nearest`, to its middle
    std::vector<int> middleOf;
    for (int y = 0; y < label.rows; ++y) {
        const int* l = label.ptr<int>(y);
        const int* k = nearest.ptr<int>(y);
        for (int x = 0; x < label.cols; ++x) {
            if (l[x] < 0) continue;
            if (std::size_t(k[x]) >= middleOf.size()) middleOf.resize(std::size_t(k[x]) + 1, -1);
            middleOf[std::size_t(k[x])] = l[x];
        }
    }
    for (int y = 0; y < label.rows; ++y) {
        const uchar* f = fg.ptr<uchar>(y);
        const int* k = nearest.ptr<int>(y);
        int* o = out.ptr<int>(y);
        for (int x = 0; x < label.cols; ++x)
            o[x] = !f[x]                                 ? -1
                   : o[x] >= 0                           ? o[x]
                   : std::size_t(k[x]) < middleOf.size() ? middleOf[std::size_t(k[x])]
                                                         : -1;
    }
    return out;
}

// A row part is at most kRowThick card lengths thick, and one of its box's sides is within
// kRowSlack of a card's length.
constexpr float kRowThick = 1.15f, kRowSlack = 0.2f;
// A join whose instances (kRowLying of their area) are longer along a side of its box than across
// it, and that side longer than kTwoRows card lengths, is two rows side by side, not one.
constexpr float kTwoRows = 1.5f, kRowLying = 0.8f;

struct RowPart {
    Blob blob;
    std::vector<int> middles;
};

// Ribbon rows that touch one another (or a loose card) make one blob that fills its box poorly,
// and the row reader never sees them. Such a blob is split along its instances: `filled` holds each
// card pixel's middle (centrePieces' map, pixels no middle took given to the nearest that did);
// neighbouring instances are joined, the pair whose union fills its box best first, while that fill
// is at least `minFill` and the union stays a row (kRowThick, kRowSlack). Returns each group of two
// instances or more as a blob (work px) with its middles.
std::vector<RowPart> splitIntoRows(const Blob& b, const cv::Mat& filled, double minFill,
                                   float cardLong) {
    const cv::Rect roi = cv::boundingRect(b.contour) & cv::Rect(0, 0, filled.cols, filled.rows);
    if (roi.empty()) return {};
    cv::Mat inBlob = cv::Mat::zeros(roi.size(), CV_8U);
    cv::drawContours(inBlob, std::vector<std::vector<cv::Point>>{b.contour}, 0, cv::Scalar(255),
                     cv::FILLED, cv::LINE_8, cv::noArray(), INT_MAX, -roi.tl());
    cv::Mat lab = filled(roi).clone();
    lab.setTo(-1, inBlob == 0);
    // the instances in the blob (index: a middle's number here, -1 none), and how long a border
    // each pair shares
    std::vector<int> index, ids;
    std::vector<double> area;
    for (int y = 0; y < lab.rows; ++y) {
        const int* l = lab.ptr<int>(y);
        for (int x = 0; x < lab.cols; ++x) {
            if (l[x] < 0) continue;
            const std::size_t m = std::size_t(l[x]);
            if (m >= index.size()) index.resize(m + 1, -1);
            if (index[m] < 0) {
                index[m] = int(ids.size());
                ids.push_back(l[x]);
                area.push_back(0);
            }
            area[std::size_t(index[m])] += 1;
        }
    }
    const std::size_t n = ids.size();
    if (n < 2) return {};
    std::vector<std::vector<int>> border(n, std::vector<int>(n, 0));
    for (int y = 0; y < lab.rows; ++y) {
        const int* l = lab.ptr<int>(y);
        const int* below = y + 1 < lab.rows ? lab.ptr<int>(y + 1) : nullptr;
        for (int x = 0; x < lab.cols; ++x) {
            if (l[x] < 0) continue;
            const int a = index[std::size_t(l[x])];
            if (x + 1 < lab.cols && l[x + 1] >= 0 && l[x + 1] != l[x]) {
                const int c = index[std::size_t(l[x + 1])];
                ++border[std::size_t(a)][std::size_t(c)];
                ++border[std::size_t(c)][std::size_t(a)];
            }
            if (below && below[x] >= 0 && below[x] != l[x]) {
                const int c = index[std::size_t(below[x])];
                ++border[std::size_t(a)][std::size_t(c)];
                ++border[std::size_t(c)][std::size_t(a)];
            }
        }
    }
    // each instance's hull
    std::vector<std::vector<cv::Point>> hulls(n);
    for (std::size_t k = 0; k < n; ++k) {
        std::vector<std::vector<cv::Point>> cs;
        cv::findContours(lab == ids[k], cs, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE, roi.tl());
        std::vector<cv::Point> all;
        for (const auto& c : cs) all.insert(all.end(), c.begin(), c.end());
        if (!all.empty()) cv::convexHull(all, hulls[k]);
    }
    // a row of cards shifted along their short sides is a card's long side thick (its length, the
    // card's width and more, may be either side of the box); two rows side by side are thicker, and
    // two cards end to end (a card's width by two of its lengths) are no such row
    //
    // Every card of a row shows across the row's whole thickness (a strip, or the top card whole),
    // so what shows of it is longer across the row than along it. Two rows side by side whose
    // strips together are about a card's length long make a box a card's length wide and two long,
    // which the size test above takes for a row running across both; but its instances lie along
    // that long side. A join whose instances lie along a side longer than kTwoRows card lengths is no row.
    const std::vector<std::vector<cv::Point>> own = hulls;  // each instance's hull and area, kept
    const std::vector<double> ownArea = area;
    std::vector<bool> alive(n, true);
    std::vector<std::vector<int>> members(n);  // the instances each group holds
    for (std::size_t k = 0; k < n; ++k) members[k] = {int(k)};
    // (the instances of two groups about to be joined, `a` and `b`)
    auto lieAlong = [&](const std::vector<int>& a, const std::vector<int>& b, cv::Point2f dir) {
        const cv::Point2f other(-dir.y, dir.x);
        double lying = 0, all = 0;
        for (const auto* in : {&a, &b})
            for (int m : *in) {
                const auto& h = own[std::size_t(m)];
                if (h.empty()) continue;
                float lo = std::numeric_limits<float>::max(), hi = -lo, first = lo, last = -lo;
                for (const auto& p : h) {
                    const float t = dir.dot(cv::Point2f(p)), l = other.dot(cv::Point2f(p));
                    lo = std::min(lo, t);
                    hi = std::max(hi, t);
                    first = std::min(first, l);
                    last = std::max(last, l);
                }
                all += ownArea[std::size_t(m)];
                if (hi - lo > last - first) lying += ownArea[std::size_t(m)];
            }
        return all > 0 && lying >= kRowLying * all;
    };
    auto fillOf = [&](const std::vector<cv::Point>& hull, double a, std::size_t i, std::size_t j) {
        const cv::RotatedRect r = cv::minAreaRect(hull);
        const float lo = std::min(r.size.width, r.size.height),
                    hi = std::max(r.size.width, r.size.height);
        if (lo > kRowThick * cardLong) return 0.0;
        if (std::abs(lo - cardLong) > kRowSlack * cardLong &&
            std::abs(hi - cardLong) > kRowSlack * cardLong)
            return 0.0;
        if (hi > kTwoRows * cardLong) {
            cv::Point2f corner[4];
            r.points(corner);
            for (int k = 0; k < 2; ++k) {
                const cv::Point2f side = corner[k + 1] - corner[k];
                const float len = float(cv::norm(side));
                if (len > kTwoRows * cardLong &&
                    lieAlong(members[i], members[j], side * (1.f / len)))
                    return 0.0;
            }
        }
        return a / std::max(1.0, double(lo) * hi);
    };
    constexpr int kMinBorder = 3;
    for (;;) {
        double best = minFill;
        std::size_t ba = n, bb = n;
        std::vector<cv::Point> bestHull;
        for (std::size_t i = 0; i < n; ++i) {
            if (!alive[i]) continue;
            for (std::size_t j = i + 1; j < n; ++j) {
                if (!alive[j] || border[i][j] < kMinBorder || hulls[i].empty() || hulls[j].empty())
                    continue;
                std::vector<cv::Point> both = hulls[i], hull;
                both.insert(both.end(), hulls[j].begin(), hulls[j].end());
                cv::convexHull(both, hull);
                const double f = fillOf(hull, area[i] + area[j], i, j);
                if (f >= best) {
                    best = f;
                    ba = i;
                    bb = j;
                    bestHull = std::move(hull);
                }
            }
        }
        if (ba == n) break;
        // join bb into ba
        alive[bb] = false;
        area[ba] += area[bb];
        hulls[ba] = std::move(bestHull);
        members[ba].insert(members[ba].end(), members[bb].begin(), members[bb].end());
        for (std::size_t k = 0; k < n; ++k) {
            border[ba][k] += border[bb][k];
            border[k][ba] = border[ba][k];
        }
        border[ba][ba] = 0;
    }
    std::vector<RowPart> out;
    for (std::size_t k = 0; k < n; ++k) {
        if (!alive[k] || members[k].size() < 2) continue;
        cv::Mat mine = cv::Mat::zeros(lab.size(), CV_8U);
        RowPart part;
        for (int m : members[k]) {
            mine |= lab == ids[std::size_t(m)];
            part.middles.push_back(ids[std::size_t(m)]);
        }
        std::vector<std::vector<cv::Point>> cs;
        cv::findContours(mine, cs, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE, roi.tl());
        if (cs.empty()) continue;
        std::size_t big = 0;
        for (std::size_t c = 1; c < cs.size(); ++c)
            if (cs[c].size() > cs[big].size()) big = c;
        part.blob = measuredBlob(std::move(cs[big]), double(cv::countNonZero(mine)));
        out.push_back(std::move(part));
    }
    return out;
}

// ---- Outline refinement at the picture's full resolution ----------------------------------------
// The segmenter works at 640 px and sees a card's border to a few pixels at best (its instances are
// cut at a quarter of that), so the outlines it gives sit off by a few picture pixels and degrees,
// enough to mix the table or a neighbour into a card's description. Each side of a loose card's
// outline is looked for again in the full picture: from points along the side, the strong colour
// steps across it (within `reach`) vote for lines; of the well-supported lines the outermost is the
// border (a back's own frame is drawn inside it; a side partly under another card gives points off
// the line), and the sides' lines meet in the new corners. A side with no line keeps its place (or
// follows the opposite side); an outline that comes out other than card-like keeps the old one.

struct SideLine {
    cv::Point2f point, dir;  // a point on the line and its unit direction
    bool found = false;
};

// Of the lines a side's colour steps support, those with this share of the best one's votes are
// "nearly as well supported" (findSide).
constexpr float kLineShare = 0.7f;
// A colour step across a side is a candidate border point where it is a local maximum of at least
// this share of the strongest step at that place (findSide). A back whose pattern steps far more
// than its border against the table (a white lattice on dark red: ~600 against ~200) hides the
// border under it; the enrolment looks again at kEnrolPeakShare (findEnrolmentCard). Lower for the
// count's outlines was worse (0.2: `ba_tr_21` exact 43 against 45 of 190, `lo_tr_11` per deck 5.35
// against 5.14; 0.1: 42, 5.46).
constexpr float kPeakShare = 0.35f;
constexpr float kEnrolPeakShare = 0.1f;

// Where the side from `a` to `b` really is (`outward`: its unit normal away from the card): of the
// lines that the strong colour steps across it (within `reach` px either way, turned up to
// `maxTurnDeg`) support nearly as well as the best (`lineShare` of its votes), the outermost. Not found when no line has five
// points spanning a third of the side.
SideLine findSide(const cv::Mat& bgr, cv::Point2f a, cv::Point2f b, cv::Point2f outward, float reach,
                  float maxTurnDeg, float lineShare, int minPoints = 5, float peakShare = kPeakShare) {
    constexpr int kPoints = 12;
    constexpr float kMinStep = 36.f;   // L1 over B, G, R of a step across 4 px: a card's border
    SideLine line;
    const float len = float(cv::norm(b - a));
    if (len < 8) return line;
    const cv::Point2f dir = (b - a) * (1.f / len);
    const int R = int(std::ceil(reach));
    // candidate border points: every strong local maximum of the colour step across the side
    struct Cand {
        float s, t;  // along the side from a, outward from it
        int sample;
    };
    std::vector<Cand> cands;
    std::vector<cv::Vec3f> prof(std::size_t(2 * R + 5));
    std::vector<float> step(std::size_t(2 * R + 1));
    for (int k = 0; k < kPoints; ++k) {
        const float s = len * (0.08f + 0.84f * float(k) / float(kPoints - 1));
        const cv::Point2f p = a + dir * s;
        for (int t = -R - 2; t <= R + 2; ++t) prof[std::size_t(t + R + 2)] = sampleBgr(bgr, p + outward * float(t));
        float best = 0;
        for (int t = -R; t <= R; ++t) {
            const cv::Vec3f d = prof[std::size_t(t + R + 4)] - prof[std::size_t(t + R)];
            step[std::size_t(t + R)] = std::abs(d[0]) + std::abs(d[1]) + std::abs(d[2]);
            best = std::max(best, step[std::size_t(t + R)]);
        }
        if (best < kMinStep) continue;
        const float floor = std::max(kMinStep, peakShare * best);
        for (int t = -R; t <= R; ++t) {
            const float v = step[std::size_t(t + R)];
            const float before = t > -R ? step[std::size_t(t + R - 1)] : 0.f;
            const float after = t < R ? step[std::size_t(t + R + 1)] : 0.f;
            if (v < floor || v < before || v <= after) continue;
            const float den = before - 2 * v + after;
            const float off = (t > -R && t < R && den < -1e-3f) ? 0.5f * (before - after) / den : 0.f;
            cands.push_back({s, float(t) + off, k});
        }
    }
    if (cands.size() < 5) return line;
    // lines through them by votes: turn (degrees, against the side) x offset (px, outward, at the
    // side's middle); a sample point votes once per line
    constexpr float kTurnStep = 2.f;  // degrees
    const int half = int(maxTurnDeg / kTurnStep);
    const int turns = 2 * half + 1;
    const int offsets = 2 * R + 1;
    std::vector<int> votes(std::size_t(turns * offsets), 0);
    std::vector<int> lastSample(std::size_t(turns * offsets), -1);
    const float mid = len / 2;
    std::vector<float> tans(static_cast<std::size_t>(turns));
    for (int ti = 0; ti < turns; ++ti) tans[std::size_t(ti)] = std::tan(float(ti - half) * kTurnStep * float(CV_PI) / 180.f);
    for (const auto& c : cands)
        for (int ti = 0; ti < turns; ++ti) {
            const float tn = tans[std::size_t(ti)];
            // a line through the side's middle at offset o turned by the angle: t = o + (s - mid) tan
            const float o = c.t - (c.s - mid) * tn;
            const int oi = int(std::floor(o + 0.5f)) + R;
            if (oi < 0 || oi >= offsets) continue;
            const std::size_t cell = std::size_t(ti * offsets + oi);
            if (lastSample[cell] == c.sample) continue;
            lastSample[cell] = c.sample;
            ++votes[cell];
        }
    const int most = *std::max_element(votes.begin(), votes.end());
    if (most < 5) return line;
    // of the lines nearly as well supported as the best, the outermost (a back's own frame, drawn
    // inside its border, is as straight and as long); a line counts where it has at least the votes
    // of its neighbours one offset either way (a border falling between two offsets is one line)
    int pick = -1;
    float pickOut = -1e9f;
    for (int ti = 0; ti < turns; ++ti)
        for (int oi = 0; oi < offsets; ++oi) {
            const int* row = votes.data() + ti * offsets;
            const int v = row[oi];
            if (v < lineShare * float(most) || (oi > 0 && v < row[oi - 1]) || (oi + 1 < offsets && v < row[oi + 1]))
                continue;
            if (float(oi) > pickOut) {
                pickOut = float(oi);
                pick = ti * offsets + oi;
            }
        }
    if (pick < 0) return line;
    const float tn = tans[std::size_t(pick / offsets)];
    const float o = float(pick % offsets - R);
    std::vector<cv::Point2f> in;
    float lo = std::numeric_limits<float>::max(), hi = -lo;
    for (const auto& c : cands)
        if (std::abs(c.t - (o + (c.s - mid) * tn)) <= 1.5f) {
            in.push_back(a + dir * c.s + outward * c.t);
            lo = std::min(lo, c.s);
            hi = std::max(hi, c.s);
        }
    if (int(in.size()) < std::max(5, minPoints) || hi - lo < 0.35f * len) return line;
    cv::Vec4f fit;
    cv::fitLine(in, fit, cv::DIST_HUBER, 0, 0.01, 0.01);
    line.dir = {fit[0], fit[1]};
    line.point = {fit[2], fit[3]};
    if (line.dir.dot(dir) < 0) line.dir = -line.dir;
    line.found = line.dir.dot(dir) >= std::cos((maxTurnDeg + 2.f) * float(CV_PI) / 180.f);
    return line;
}

bool meet(const SideLine& l1, const SideLine& l2, cv::Point2f& at) {
    const float den = l1.dir.x * l2.dir.y - l1.dir.y * l2.dir.x;
    if (std::abs(den) < 0.2f) return false;  // nearly parallel
    const cv::Point2f d = l2.point - l1.point;
    const float s = (d.x * l2.dir.y - d.y * l2.dir.x) / den;
    at = l1.point + l1.dir * s;
    return true;
}

// The card outline `q` (reading order) fitted to the card's sides in the full picture; `q` itself
// when the sides do not give a card-like outline.
Quad refineOutline(const cv::Mat& bgr, const Quad& q, float reach, float maxTurnDeg,
                   const std::array<float, 4>& lineShare, float peakShare = kPeakShare) {
    const cv::Point2f c = quadCentre(q);
    std::array<SideLine, 4> lines;
    int found = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Point2f a = q[i], b = q[(i + 1) % 4];
        lines[i] = findSide(bgr, a, b, outwardNormal(a, b, c), reach, maxTurnDeg, lineShare[i], 5, peakShare);
        found += lines[i].found ? 1 : 0;
    }
    if (found < 2) return q;
    for (std::size_t i = 0; i < 4; ++i) {
        if (lines[i].found) continue;
        const cv::Point2f a = q[i], b = q[(i + 1) % 4];
        const SideLine& opp = lines[(i + 2) % 4];
        if (opp.found) {
            // parallel to the opposite side, as far from it as the old sides were
            const cv::Point2f oa = q[(i + 2) % 4], ob = q[(i + 3) % 4];
            const cv::Point2f n(-opp.dir.y, opp.dir.x);
            const float oldGap = ((a + b) * 0.5f - (oa + ob) * 0.5f).dot(n);
            lines[i] = {opp.point + n * oldGap, opp.dir, true};
        } else {
            lines[i] = {a, (b - a) * (1.f / std::max(1e-3f, float(cv::norm(b - a)))), true};
        }
    }
    Quad out;
    for (std::size_t i = 0; i < 4; ++i)
        if (!meet(lines[(i + 3) % 4], lines[i], out[i])) return q;
    // card-like: convex, each side within 20% of the old one, the middle within a fifth of a side
    std::vector<cv::Point2f> poly(out.begin(), out.end());
    if (!cv::isContourConvex(poly)) return q;
    for (std::size_t i = 0; i < 4; ++i) {
        const float was = float(cv::norm(q[(i + 1) % 4] - q[i])), now = float(cv::norm(out[(i + 1) % 4] - out[i]));
        if (now < 0.8f * was || now > 1.2f * was) return q;
    }
    if (cv::norm(quadCentre(out) - c) > 0.2 * cv::norm(q[1] - q[0])) return q;
    return out;
}


// How clearly a border runs along `q`'s sides where they lie inside `other` (kept 3 px off its
// sides): the colour step across the side averaged over those points, at the side (within 2 px)
// against 5-7 px either side of it. A card's border drawn across another card gives a sharp ridge
// (2 and more); the other card's own pattern, stepping everywhere, about 1. `inside` gets the
// number of points.
float borderAcross(const cv::Mat& bgr, const Quad& q, const Quad& other, int& inside) {
    constexpr int kSpan = 7;
    const std::vector<cv::Point2f> poly(other.begin(), other.end());
    const cv::Point2f c = quadCentre(q);
    std::array<float, 2 * kSpan + 1> mean{};
    inside = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Point2f a = q[i], b = q[(i + 1) % 4];
        const float len = float(cv::norm(b - a));
        if (len < 4) continue;
        const cv::Point2f dir = (b - a) * (1.f / len);
        const cv::Point2f n = outwardNormal(a, b, c);
        const int steps = std::max(2, int(len / 4));
        for (int k = 1; k < steps; ++k) {
            const cv::Point2f p = a + dir * (len * float(k) / float(steps));
            if (cv::pointPolygonTest(poly, p, true) < 3.0) continue;
            ++inside;
            for (int t = -kSpan; t <= kSpan; ++t) {
                if (std::abs(t) > 2 && std::abs(t) < 5) continue;  // neither ridge nor flank
                const cv::Vec3f d = sampleBgr(bgr, p + n * (float(t) + 2.f)) - sampleBgr(bgr, p + n * (float(t) - 2.f));
                mean[std::size_t(t + kSpan)] += std::abs(d[0]) + std::abs(d[1]) + std::abs(d[2]);
            }
        }
    }
    if (inside == 0) return 0.f;
    const float ridge = *std::max_element(mean.begin() + kSpan - 2, mean.begin() + kSpan + 3);
    float flank = 0;
    for (int t = 5; t <= kSpan; ++t) flank += mean[std::size_t(kSpan + t)] + mean[std::size_t(kSpan - t)];
    flank /= float(2 * (kSpan - 4));
    return ridge / std::max(1e-3f, flank);
}

// What shows of each loose card once the cards that lie on it are known: of two overlapping cards,
// the one whose border shows across the other lies on top. A card with cards on it is read by its
// outline less theirs (the largest part left); a card with none keeps what the finder gave.
void showsByOverlap(const cv::Mat& bgr, std::vector<BackCandidate>& cards) {
    const std::size_t n = cards.size();
    std::vector<std::vector<std::size_t>> above(n);
    for (std::size_t i = 0; i < n; ++i) {
        if (cards[i].inRow) continue;
        const cv::Rect bi = cv::boundingRect(std::vector<cv::Point2f>(cards[i].quad.begin(), cards[i].quad.end()));
        for (std::size_t j = i + 1; j < n; ++j) {
            if (cards[j].inRow) continue;
            const cv::Rect bj = cv::boundingRect(std::vector<cv::Point2f>(cards[j].quad.begin(), cards[j].quad.end()));
            if ((bi & bj).area() == 0) continue;
            std::vector<cv::Point2f> meetPoly;
            const float overlap = cv::intersectConvexConvex(std::vector<cv::Point2f>(cards[i].quad.begin(), cards[i].quad.end()),
                                                            std::vector<cv::Point2f>(cards[j].quad.begin(), cards[j].quad.end()), meetPoly);
            if (overlap < 0.02f * float(std::min(bi.area(), bj.area()))) continue;
            int ni = 0, nj = 0;
            const float si = borderAcross(bgr, cards[i].quad, cards[j].quad, ni);
            const float sj = borderAcross(bgr, cards[j].quad, cards[i].quad, nj);
            if (ni < 4 && nj < 4) continue;
            // the card whose border shows across the other lies on it
            if (ni >= 4 && si >= 1.5f && si > 1.5f * sj)
                above[j].push_back(i);
            else if (nj >= 4 && sj >= 1.5f && sj > 1.5f * si)
                above[i].push_back(j);
        }
    }
    for (std::size_t i = 0; i < n; ++i) {
        if (above[i].empty()) continue;
        if (!cards[i].shows.empty()) continue;  // a piece of a covered card: it says what shows
        std::vector<std::vector<cv::Point2f>> onTop;
        for (std::size_t j : above[i]) onTop.emplace_back(cards[j].quad.begin(), cards[j].quad.end());
        auto shows = uncoveredPart({cards[i].quad.begin(), cards[i].quad.end()}, onTop);
        if (!shows.empty()) cards[i].shows = std::move(shows);
    }
}

// Drops the cards of rows (BackCandidate::inRow) whose showing part (`shows`, else the outline;
// picture pixels) the card map (`cardProb`, CV_8U probability x 255 at the working size, `scale` of
// the picture) covers by a mean probability under `minSupport`.
void dropUnsupportedRows(std::vector<BackCandidate>& cards, const cv::Mat& cardProb, float scale,
                         float minSupport) {
    std::vector<std::vector<cv::Point>> poly(1);
    const double least = double(minSupport) * 255.0;
    const cv::Rect whole(0, 0, cardProb.cols, cardProb.rows);
    std::erase_if(cards, [&](const BackCandidate& c) {
        if (!c.inRow) return false;
        poly[0].clear();
        auto add = [&](cv::Point2f p) {
            poly[0].emplace_back(int(std::lround(p.x * scale)), int(std::lround(p.y * scale)));
        };
        if (c.shows.empty())
            for (const auto& p : c.quad) add(p);
        else
            for (const auto& p : c.shows) add(p);
        const cv::Rect box = cv::boundingRect(poly[0]) & whole;
        if (box.empty()) return false;
        cv::Mat mask = cv::Mat::zeros(box.size(), CV_8U);
        cv::fillPoly(mask, poly, cv::Scalar(255), cv::LINE_8, 0, -box.tl());
        if (cv::countNonZero(mask) == 0) return false;  // too small to judge at the working size
        return cv::mean(cardProb(box), mask)[0] < least;
    });
}

// Fills the holes of a binary mask (everything inside an outer contour).
void fillHoles(cv::Mat& mask) {
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(mask.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    cv::drawContours(mask, contours, -1, cv::Scalar(255), cv::FILLED);
}

}  // namespace

cv::Mat tableForeground(const cv::Mat& work) {
    cv::Mat lab;
    cv::cvtColor(work, lab, cv::COLOR_BGR2Lab);
    const int bw = std::max(3, int(0.04 * std::min(work.cols, work.rows)));
    // table samples from a frame along the picture's border
    std::vector<cv::Vec3f> samples;
    for (int y = 0; y < lab.rows; y += 2)
        for (int x = 0; x < lab.cols; x += 2) {
            if (x >= bw && x < lab.cols - bw && y >= bw && y < lab.rows - bw) continue;
            const cv::Vec3b p = lab.at<cv::Vec3b>(y, x);
            samples.emplace_back(p[0] * 0.3f, p[1], p[2]);
        }
    cv::Mat data(int(samples.size()), 3, CV_32F, samples.data());
    const int k = 4;
    cv::Mat labels, centres;
    // cv::kmeans seeds from OpenCV's per-thread generator: a fixed state here makes the mask a
    // function of the picture alone (not of what the thread drew before), and the caller's state is
    // given back.
    const std::uint64_t callerState = cv::theRNG().state;
    cv::theRNG().state = 0x6e65727a;
    cv::kmeans(data, k, labels,
               cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS, 10, 0.5), 2,
               cv::KMEANS_PP_CENTERS, centres);
    cv::theRNG().state = callerState;
    std::vector<int> counts(k, 0);
    for (int i = 0; i < labels.rows; ++i) ++counts[std::size_t(labels.at<int>(i))];
    std::vector<cv::Vec3f> table;
    for (int c = 0; c < k; ++c)
        if (counts[std::size_t(c)] >= 0.12 * labels.rows)
            table.emplace_back(centres.at<float>(c, 0), centres.at<float>(c, 1),
                               centres.at<float>(c, 2));
    cv::Mat dist(lab.size(), CV_8U);
    for (int y = 0; y < lab.rows; ++y) {
        const cv::Vec3b* p = lab.ptr<cv::Vec3b>(y);
        uchar* d = dist.ptr<uchar>(y);
        for (int x = 0; x < lab.cols; ++x) {
            float best = 1e9f;
            for (const auto& t : table) {
                const float dl = p[x][0] * 0.3f - t[0], da = p[x][1] - t[1], db = p[x][2] - t[2];
                best = std::min(best, dl * dl + da * da + db * db);
            }
            d[x] = cv::saturate_cast<uchar>(std::sqrt(best) * 4.f);
        }
    }
    cv::GaussianBlur(dist, dist, cv::Size(5, 5), 0);
    cv::Mat fg;
    const double otsu = cv::threshold(dist, fg, 0, 255, cv::THRESH_BINARY | cv::THRESH_OTSU);
    cv::threshold(dist, fg, std::max(otsu, 4.0 * 12.0), 255, cv::THRESH_BINARY);
    cv::morphologyEx(fg, fg, cv::MORPH_CLOSE,
                     cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(5, 5)));
    cv::morphologyEx(fg, fg, cv::MORPH_OPEN,
                     cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(5, 5)));
    fillHoles(fg);  // light patterns inside a card that match the table
    return fg;
}

namespace {

// `bgr` shrunk to the working size options.workLongSide (never enlarged) into `work`, at `scale`;
// false when it keeps no pixel one way there.
bool toWorkSize(const cv::Mat& bgr, const BackFinderOptions& options, cv::Mat& work, float& scale) {
    scale = std::min(1.f, float(options.workLongSide) / float(std::max(bgr.cols, bgr.rows)));
    if (!detail::keepsPixels(bgr.size(), scale, scale)) return false;
    if (scale < 1.f)
        cv::resize(bgr, work, cv::Size(), scale, scale, cv::INTER_AREA);
    else
        work = bgr;
    return true;
}

// The segmenter the options ask for: theirs, or this thread's; null with learntMask off.
const BackSegmenter* segmenterOf(const BackFinderOptions& options) {
    if (!options.learntMask) return nullptr;
    return options.segmenter ? options.segmenter : BackSegmenter::forThisThread();
}

// findBackCards at the working size options.workLongSide; `claimed` as centrePieces gives it (1
// when the instances are not used).
std::vector<BackCandidate> findAtWorkSize(const cv::Mat& bgr, const BackFinderOptions& options,
                                          float& claimed, cv::Mat* cardProbability = nullptr) {
    std::vector<BackCandidate> out;
    claimed = 1.f;
    float scale = 1.f;
    cv::Mat work;
    // a picture that keeps no pixel one way at the working size (a 1 x 4000 strip) shows no card
    if (!toWorkSize(bgr, options, work, scale)) return out;
    const BackSegmenter* segmenter = segmenterOf(options);
    cv::Mat fg, edges;
    BackSegmentation seg;
    if (segmenter) {
        seg = segmenter->segment(work);
        if (cardProbability) *cardProbability = seg.card;
        cv::threshold(seg.card, fg, 127, 255, cv::THRESH_BINARY);
        fillHoles(fg);
        edges = seg.outline;
    } else {
        fg = tableForeground(work);
    }
    cv::Mat gray;
    cv::cvtColor(work, gray, cv::COLOR_BGR2GRAY);
    cv::GaussianBlur(gray, gray, cv::Size(3, 3), 0);
    if (options.fitClusters && edges.empty()) {
        cv::Canny(gray, edges, 40, 100);
        cv::dilate(edges, edges, cv::Mat());
    }

    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(fg.clone(), contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
    const double minArea = options.minCardFraction * double(work.cols) * work.rows;
    std::vector<Blob> singles, groups;
    for (auto& c : contours) {
        const double area = cv::contourArea(c);
        if (area < minArea) continue;
        Blob b = measuredBlob(std::move(c), area);
        if (b.shortSide < 6) continue;
        if (b.fill > 0.85 && b.aspect > 1.15f && b.aspect < 1.8f)
            singles.push_back(std::move(b));
        else
            groups.push_back(std::move(b));
    }
    // the card's size from the loose cards (median), else from the rows' thickness
    std::vector<float> longs;
    for (const auto& b : singles) longs.push_back(b.longSide);
    const float looseCardLong = detail::medianOf(longs);
    // with no loose card, near card-shaped blobs (a card with a corner of another) give the size
    if (options.fitClusters && longs.empty())
        for (const auto& b : groups)
            if (b.fill > 0.75 && b.aspect > 1.2f && b.aspect < 1.7f) longs.push_back(b.longSide);
    // with the segmenter: the pieces its outlines cut (loose cards, touching or overlapping); the
    // loose cards' size is its fallback for the scene's card size
    float pieceCardLong = 0;
    std::vector<BackCandidate> pieceCards;
    std::vector<cv::Point> pieceAnchors;
    cv::Mat instanceOf;  // each card pixel's middle (centrePieces), -1 none
    if (segmenter && options.pieces && options.centres && seg.hasCentres())
        pieceCards = centrePieces(fg, seg, options, looseCardLong, pieceCardLong, pieceAnchors,
                                  claimed, &instanceOf);
    else if (segmenter && options.pieces)
        pieceCards = segmentPieces(fg, edges, options, looseCardLong, pieceCardLong, pieceAnchors);
    const bool usePieces = pieceCardLong > 0;
    const float cardLong = usePieces ? pieceCardLong : detail::medianOf(longs);
    // the median loose card's area (of 3 or more): a card-shaped blob twice that is two cards side by side
    std::vector<double> areas;
    for (const auto& b : singles) areas.push_back(b.area);
    const double cardArea = detail::medianOf(areas, 3);
    int row = 0;
    // Cards found at work scale go out in frame pixels; the cards of one row share a row number.
    auto emit = [&](std::vector<BackCandidate> cards, bool inRow) {
        for (auto& c : cards) {
            c.quad = scaled(c.quad, 1.f / scale);
            for (auto& p : c.shows) p *= 1.f / scale;
            if (inRow) {
                c.inRow = true;
                c.row = row;
            }
            out.push_back(std::move(c));
        }
        if (inRow) ++row;
    };
    // Pieces: every blob but the rows (blobs that fill their box and are not card-shaped, read by
    // the row reader below) gives the pieces that lie in it.
    if (usePieces) {
        // every blob that fills its box (a group filling clusterFill, or a loose card) numbered
        std::vector<Blob> all;
        std::vector<char> isGroup{0};
        for (auto& b : groups) {
            all.push_back(std::move(b));
            isGroup.push_back(1);
        }
        for (auto& b : singles) {
            all.push_back(std::move(b));
            isGroup.push_back(0);
        }
        groups.clear();
        singles.clear();
        cv::Mat blobOf = cv::Mat::zeros(fg.size(), CV_32S);
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].fill >= options.clusterFill)
                cv::drawContours(blobOf, std::vector<std::vector<cv::Point>>{all[i].contour}, 0,
                                 cv::Scalar(int(i) + 1), cv::FILLED);
        std::vector<int> inBlob(all.size() + 1, 0);
        for (const auto& a : pieceAnchors) ++inBlob[std::size_t(blobOf.at<int>(a))];
        // With centres, a blob holding at most `rowMinCentres - 1` of them is not a ribbon row (a
        // card cut by the picture's edge, two cards side by side): its pieces are its cards.
        const bool centred = seg.hasCentres() && options.centres;
        auto rowByCentres = [&](int blob) {
            return blob > 0 && isGroup[std::size_t(blob)] && (!centred || inBlob[std::size_t(blob)] >= options.rowMinCentres);
        };
        // Learnt rows: a blob that fills its box and holds two middles or more, or is larger than a
        // card, is read as a ribbon spread; it is one when the edge finder chains clear edges in
        // it, or when its middles make it a row anyway (then its pieces are dropped; not when the
        // unclear reading found under half as many cards as there are middles); else its pieces
        // are its cards. ribbon[blob]: 0 not read, 1 a ribbon, 2 read and not one, 3 split
        // into rows.
        std::vector<char> ribbon(all.size() + 1, 0);
        const double oneCard = double(cardLong) * cardLong / options.cardAspect;
        auto readAsRibbon = [&](std::size_t i) {
            const Blob& b = all[i];
            if (b.fill < options.ribbonFill) return;
            if (inBlob[i + 1] < 2 && b.area <= 1.3 * oneCard) {
                std::vector<BackCandidate> cards;
                if (!outlinedRow(b, bgr, edges, scale, options, cards)) return;
                ribbon[i + 1] = 1;
                emit(std::move(cards), true);
                return;
            }
            bool clear = false;
            auto cards = readRow(b, bgr, scale, options, cardLong, clear);
            const bool byCentres = rowByCentres(int(i) + 1);
            // clear edges across one card seen whole (a back printed with stripes or a lattice,
            // larger than the scene's card): not a row
            if (clear && !byCentres && wholeCard(b, edges, options.wholeCardOutline)) clear = false;
            // a card on its own: a blob of a card's shape with four corners that it fills, few card
            // sides marked inside it, read as a row or holding two middles or more: one card whose
            // print the row reader and the centre head cut up (BackFinderOptions::loneCardOutline)
            Quad lone;
            float loneLong = 0.f;
            if (options.loneCardOutline > 0.f && !isGroup[i + 1] && (clear || inBlob[i + 1] >= 2) &&
                outlineShare(b.contour, edges) < options.loneCardOutline && fourCorners(b, lone, loneLong)) {
                BackCandidate c;
                c.quad = lone;
                emit({c}, false);
                ribbon[i + 1] = 1;  // its pieces are no cards of their own
                return;
            }
            // its middles make it a row, unless its unclear reading found too few cards for them
            // (BackFinderOptions::unclearRowMiddles): then its pieces count it better
            const bool rowAnyway =
                byCentres && float(cards.size()) >= options.unclearRowMiddles * float(inBlob[i + 1]);
            ribbon[i + 1] = clear || rowAnyway ? 1 : 2;
            if (ribbon[i + 1] == 1) emit(std::move(cards), true);
        };
        // Rows that touch (splitIntoRows): a blob too thick to be one row, or one filling its box
        // too poorly to be read as one (or read without clear edges), is split along its instances;
        // a part of `rowMinCentres` middles or more read with clear edges into as many cards is a
        // ribbon row, and the pieces of its middles are not cards of their own.
        std::vector<char> inSplitRow;  // by middle
        cv::Mat filled;
        const float splitFill = options.splitRows;
        const bool splitting = options.learntRows && splitFill > 0.f && !instanceOf.empty();
        const float maxThick = kRowThick * cardLong;
        auto tooThick = [&](std::size_t i) {
            return splitting && all[i].shortSide > maxThick && all[i].area >= 2 * oneCard;
        };
        // whether any part of blob i was a row
        auto splitRows = [&](std::size_t i) {
            bool any = false;
            // the blob's pixels that no middle took given the nearest one's (the blob's box only)
            if (filled.empty()) filled = instanceOf.clone();
            const cv::Rect roi =
                cv::boundingRect(all[i].contour) & cv::Rect(0, 0, fg.cols, fg.rows);
            nearestInstance(instanceOf(roi), fg(roi)).copyTo(filled(roi));
            for (auto& part : splitIntoRows(all[i], filled, splitFill, cardLong)) {
                if (int(part.middles.size()) < options.rowMinCentres) continue;
                // the row runs across its card-long thickness (either way when its length is a
                // card's long side too)
                const float lo = part.blob.shortSide, hi = part.blob.longSide;
                const bool loThick = std::abs(lo - cardLong) <= kRowSlack * cardLong,
                           hiThick = std::abs(hi - cardLong) <= kRowSlack * cardLong;
                bool clear = false;
                const RowWay way = loThick == hiThick ? RowWay::Both
                                   : hiThick          ? RowWay::Across
                                                      : RowWay::Along;
                // a split part's outline (the union of its instances' pixels) bulges where a
                // neighbouring row's pixels were given to it: readRow's two frames
                auto cards = readRow(part.blob, bgr, scale, options, cardLong, clear, way);
                if (!clear || int(cards.size()) < options.rowMinCentres) continue;
                emit(std::move(cards), true);
                any = true;
                for (int m : part.middles) {
                    if (inSplitRow.size() <= std::size_t(m))
                        inSplitRow.resize(std::size_t(m) + 1, 0);
                    inSplitRow[std::size_t(m)] = 1;
                }
            }
            return any;
        };
        if (options.learntRows) {
            for (std::size_t i = 0; i < all.size(); ++i) {
                if (tooThick(i) && splitRows(i)) {
                    ribbon[i + 1] = 3;  // split into rows: not a row itself; other pieces kept
                    continue;
                }
                readAsRibbon(i);
            }
        }
        if (splitting) {
            for (std::size_t i = 0; i < all.size(); ++i) {
                const Blob& b = all[i];
                if (!isGroup[i + 1] || ribbon[i + 1] == 1 || tooThick(i) ||
                    rowByCentres(int(i) + 1) || b.area < 2 * oneCard)
                    continue;
                if (splitRows(i)) ribbon[i + 1] = 3;
            }
        }
        auto inARow = [&](cv::Point a) {
            if (filled.empty()) return false;
            const int m = filled.at<int>(a);
            return m >= 0 && std::size_t(m) < inSplitRow.size() && inSplitRow[std::size_t(m)];
        };
        // rows left to the reader below
        auto isRow = [&](int blob) { return rowByCentres(blob) && !ribbon[std::size_t(blob)]; };
        std::vector<BackCandidate> loose;
        for (std::size_t i = 0; i < pieceCards.size(); ++i) {
            const int blob = blobOf.at<int>(pieceAnchors[i]);
            if (!isRow(blob) && ribbon[std::size_t(blob)] != 1 && !inARow(pieceAnchors[i]))
                loose.push_back(pieceCards[i]);
        }
        emit(std::move(loose), false);
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].fill >= options.clusterFill && isRow(int(i) + 1)) groups.push_back(std::move(all[i]));
    }
    for (const auto& b : singles) {
        if (options.fitClusters && cardArea > 0 && b.area > 1.6 * cardArea) {
            auto cards = fitCards(b, fg, edges, cardLong, options.cardAspect, options.clusterCover);
            if (cards.size() >= 2) {
                emit(std::move(cards), false);
                continue;
            }
        }
        // a card-shaped blob may be a short row (a few cards spread less than a card is tall, or
        // a little more): read it as a row both ways; it stays one card unless clear edges show
        BackCandidate single;
        single.quad = looseQuad(b);
        if (!options.learntRows || (cardArea > 0 && b.area <= 1.3 * cardArea)) {
            std::vector<BackCandidate> cards;
            if (segmenter && outlinedRow(b, bgr, edges, scale, options, cards))
                emit(std::move(cards), true);
            else
                emit({single}, false);
            continue;
        }
        bool clear = false;
        auto cards = readRow(b, bgr, scale, options, cardLong, clear);
        if (clear)
            emit(std::move(cards), true);
        else
            emit({single}, false);
    }
    for (const auto& b : groups) {
        // a blob smaller than half a card is a scrap (a hand's shadow, a corner)
        const float cl = cardLong > 0 ? cardLong : b.shortSide;
        if (b.area < 0.3 * cl * cl / options.cardAspect) continue;
        // a ribbon row fills its box; read it both ways, the way with the stronger edges wins.
        // Other blobs are loose cards that touch.
        std::vector<BackCandidate> cards;
        bool clear = false;
        if (segmenter && b.fill < options.rowFill &&
            outlinedRow(b, bgr, edges, scale, options, cards)) {
            emit(std::move(cards), true);
            continue;
        }
        if (options.learntRows && b.fill >= options.rowFill) {
            cards = readRow(b, bgr, scale, options, cardLong, clear);
        } else if (options.fitClusters && cardLong > 0 && b.fill < options.clusterFill &&
                   !(cards = fitCards(b, fg, edges, cardLong, options.cardAspect, options.clusterCover)).empty()) {
            // fitted loose cards (empty when they leave much of the blob unexplained)
            emit(std::move(cards), false);
            continue;
        } else {
            cards = clusterCards(b, gray, fg, std::min(b.shortSide, cl) / options.cardAspect);
        }
        emit(std::move(cards), true);
    }
    if (options.refineOutlines && bgr.type() == CV_8UC3) {
        for (auto& c : out) {
            if (c.inRow) continue;
            // (the shorter of two neighbouring sides: quadSides' means of opposite sides gave
            // `lo_tr_11` 2.47 unknown cards a scene against 2.44)
            const float shortSide = float(std::min(cv::norm(c.quad[1] - c.quad[0]), cv::norm(c.quad[2] - c.quad[1])));
            const float reach = std::max(4.f, options.refineReach * shortSide);
            // a side with other cards beyond it (the card mask 1.2-2 reaches out on 30% of the
            // points or more) takes its best-supported line (BackFinderOptions::contestedLineShare)
            std::array<float, 4> lineShare{kLineShare, kLineShare, kLineShare, kLineShare};
            if (!fg.empty() && options.contestedLineShare > 0.f) {
                const cv::Point2f mid = quadCentre(c.quad);
                for (std::size_t i = 0; i < 4; ++i) {
                    const cv::Point2f a = c.quad[i], e = c.quad[(i + 1) % 4];
                    const Beyond o = maskBeyondSide(fg, a, e, outwardNormal(a, e, mid), 0.1f, 0.1f, 9,
                                                    {1.2f * reach, 2.f * reach}, scale);
                    if (o.seen > 0 && 10 * o.marked >= 3 * o.seen) lineShare[i] = options.contestedLineShare;
                }
            }
            c.quad = refineOutline(bgr, c.quad, reach, options.refineTurn, lineShare);
            c.quad = refineOutline(bgr, c.quad, std::max(3.f, reach / 2), options.refineTurn, lineShare);
        }
        showsByOverlap(bgr, out);
    }
    if (segmenter && options.minRowSupport > 0.f && !out.empty())
        dropUnsupportedRows(out, seg.card, scale, options.minRowSupport);
    return out;
}

}  // namespace

const BackCandidate* enrolmentCard(const std::vector<BackCandidate>& found) {
    const BackCandidate* best = nullptr;
    for (const auto& c : found)
        if (c.region.whole() && (!best || quadArea(c.quad) > quadArea(best->quad))) best = &c;
    return best;
}

std::vector<BackCandidate> findBackCards(const cv::Mat& bgr, const BackFinderOptions& options,
                                         float* explained, cv::Mat* cardProbability) {
    if (explained) *explained = 1.f;
    if (cardProbability) cardProbability->release();
    if (bgr.empty()) return {};
    float claimed = 1.f;
    std::vector<BackCandidate> out = findAtWorkSize(bgr, options, claimed, cardProbability);
    // Cards larger than the segmenter's training scenes showed get no middles, and their mask falls
    // apart into scraps: read the picture again at half the working size, a quarter, ... (not under
    // minWorkLongSide), while the reading kept explains under minClaimed of its mask. The reading
    // at half is kept when its instances explain more of its mask; one still smaller only when they
    // explain minClaimed of it (at a quarter a knitted cloth's loops look like small cards: BACKS.md,
    // "A close-up card enrolled whole").
    // Close-ups (BackFinderOptions::halfBelowClaimed): a first reading whose instances explain
    // under that much of its mask gives way to the reading at half the working size also where that
    // one explains halfMinClaimed of its own (a card larger than the segmenter knows is cut into
    // scraps whose middles do explain much of the mask).
    const bool closeUp = claimed < options.halfBelowClaimed;
    int smaller = std::min(options.workLongSide, std::max(bgr.cols, bgr.rows));
    for (int retry = 0; (claimed < options.minClaimed || (retry == 0 && closeUp)) && options.retryScale > 0.f; ++retry) {
        smaller = int(std::lround(float(smaller) * options.retryScale));
        if (smaller < options.minWorkLongSide) break;
        BackFinderOptions again = options;
        again.workLongSide = smaller;
        float claimedAgain = 1.f;
        cv::Mat probabilityAgain;
        std::vector<BackCandidate> other =
            findAtWorkSize(bgr, again, claimedAgain, cardProbability ? &probabilityAgain : nullptr);
        const bool keep = retry == 0 ? claimedAgain > claimed || (closeUp && claimedAgain >= options.halfMinClaimed)
                                     : claimedAgain > claimed && claimedAgain >= options.minClaimed;
        if (keep) {
            out = std::move(other);
            claimed = claimedAgain;
            if (cardProbability) *cardProbability = probabilityAgain;
        }
    }
    if (explained) *explained = claimed;
    return out;
}

// Of the 12 places along a side findSide looks at, how many must put a colour step on the side's
// line for sidesOnBorders (a card's border on a plain table gives 11-12; a lattice back's crossings
// line up at 5-7 places of a side drawn across it).
constexpr int kBorderPoints = 9;

namespace {

// An enrolment card's outline fitted again to its sides in the full picture, looking also at the
// weaker steps (kEnrolPeakShare), as the finder fits its cards (BackFinderOptions::refineReach,
// refineTurn): twice, the second time within half the reach. Only where the finder's outline has
// at most one side on a border (sidesOnBorders): the weak steps also take in a card's drop shadow,
// 3-4 px outside a card the finder outlined right (the demo's red back), and the side of a deck
// under its top card (BackFinder.TheTopOfADeckIsEnrolledAsItsTopCard: two of eight views from IoU
// 0.95 / 0.97 to 0.94 / 0.93 where outlines with 2-3 sides on borders were fitted again too). And
// kept only where it puts three or more sides on borders (kept wherever the sides did not get
// fewer, one of the twelve views of BackFinder.ACloseUpCardIsEnrolledWhole fell from IoU 0.95 to
// 0.90). `sides`: how many sides of the outline returned lie on borders.
Quad enrolmentOutline(const cv::Mat& bgr, const Quad& q, const BackFinderOptions& options, int& sides) {
    sides = sidesOnBorders(bgr, q);
    if (sides >= 2 || !options.refineOutlines || bgr.type() != CV_8UC3) return q;
    const float shortSide = float(std::min(cv::norm(q[1] - q[0]), cv::norm(q[2] - q[1])));
    const float reach = std::max(4.f, options.refineReach * shortSide);
    const std::array<float, 4> share{kLineShare, kLineShare, kLineShare, kLineShare};
    Quad out = refineOutline(bgr, q, reach, options.refineTurn, share, kEnrolPeakShare);
    out = refineOutline(bgr, out, std::max(3.f, reach / 2), options.refineTurn, share, kEnrolPeakShare);
    const int now = sidesOnBorders(bgr, out);
    if (now < 3) return q;
    sides = now;
    return out;
}

}  // namespace

int sidesOnBorders(const cv::Mat& bgr, const Quad& q) {
    if (bgr.empty() || bgr.type() != CV_8UC3) return 0;
    const cv::Point2f c = quadCentre(q);
    const cv::Size2f sides = quadSides(q);
    const float reach = std::max(4.f, kBorderReach * std::min(sides.width, sides.height));
    int on = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        const cv::Point2f a = q[i], b = q[(i + 1) % 4];
        on += findSide(bgr, a, b, outwardNormal(a, b, c), reach, kBorderTurn, kLineShare, kBorderPoints,
                       kEnrolPeakShare)
                      .found
                  ? 1
                  : 0;
    }
    return on;
}

EnrolmentReading findEnrolmentCard(const cv::Mat& bgr, const BackFinderOptions& options) {
    EnrolmentReading best, fallback;
    if (bgr.empty()) return best;
    const int shortSide = std::min(bgr.cols, bgr.rows);
    int work = std::min(options.workLongSide, std::max(bgr.cols, bgr.rows));
    while (true) {
        BackFinderOptions o = options;
        o.workLongSide = work;
        float claimed = 1.f;
        cv::Mat probability;
        const std::vector<BackCandidate> found = findAtWorkSize(bgr, o, claimed, &probability);
        const BackCandidate* largest = enrolmentCard(found);
        std::optional<BackCandidate> c;
        int sides = 0;  // of c's outline on borders (counted with enrolOnBorders only)
        if (largest) {
            c = *largest;
            if (options.enrolOnBorders) c->quad = enrolmentOutline(bgr, c->quad, options, sides);
        }
        // A card far larger than the segmenter knows gets no middle, and the instances explain
        // little of its mask even at a size where the mask is clean: such a card is taken where all
        // four of its sides lie on borders in the picture (a lattice back's cells have four straight
        // sides too, but they are small). BACKS.md, "A close-up card outlined on its sides".
        const bool large = c && quadSides(c->quad).height > kEnrolKnownSide * double(shortSide);
        const bool onBorders = large && sides == 4;
        if (c && (claimed >= options.minClaimed || onBorders)) {
            // the largest card of the readings that explain their mask (or are so outlined)
            if (!best.card || quadArea(c->quad) > quadArea(best.card->quad)) best = {*c, probability, claimed, work};
            // a card the segmenter's size (its long sides at most kEnrolKnownSide of the
            // picture's short side): no smaller reading needed
            if (quadSides(c->quad).height <= kEnrolKnownSide * double(shortSide)) break;
        } else if (c && (!fallback.card || claimed > fallback.explained)) {
            fallback = {*c, probability, claimed, work};
        }
        work /= 2;
        if (work < kMinEnrolWorkSide) break;
    }
    return best.card ? best : fallback;
}

cv::Mat backCardProbability(const cv::Mat& bgr, const BackFinderOptions& options) {
    if (bgr.empty()) return {};
    const BackSegmenter* segmenter = segmenterOf(options);
    float scale = 1.f;
    cv::Mat work;
    if (!segmenter || !toWorkSize(bgr, options, work, scale)) return {};
    return segmenter->segment(work).card;
}

}  // namespace nertz::vision
