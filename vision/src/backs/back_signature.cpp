// Back signatures; see back_signature.hpp.
#include "nertz/vision/back_signature.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace nertz::vision {

namespace {

constexpr float kPi = 3.14159265f;

// Where softAdd puts a weight: bin `i` gets (1 - f) of it, bin i + 1 (when there is one) f.
struct SoftBin {
    int i;
    float f;
};

inline SoftBin softBin(int n, float pos) {
    pos = std::clamp(pos - 0.5f, 0.f, float(n - 1));
    const int i = std::min(int(pos), n - 1);
    return {i, pos - float(i)};
}

inline void softAdd(float* h, int n, SoftBin b, float w) {
    h[b.i] += w * (1.f - b.f);
    if (b.i + 1 < n) h[b.i + 1] += w * b.f;
}

// Adds `w` to a 1-D histogram of `n` bins at continuous position `pos` (bin units), split between
// two bins.
inline void softAdd(float* h, int n, float pos, float w) {
    softAdd(h, n, softBin(n, pos), w);
}

void normalise(std::vector<float>& h) {
    float s = 0.f;
    for (float v : h) s += v;
    if (s <= 1e-9f) {
        std::fill(h.begin(), h.end(), 1.f / float(h.size()));
        return;
    }
    for (float& v : h) v /= s;
}

float l1(const std::vector<float>& a, const std::vector<float>& b) {
    float d = 0.f;
    const std::size_t n = std::min(a.size(), b.size());
    for (std::size_t i = 0; i < n; ++i) d += std::abs(a[i] - b[i]);
    return d;
}

// Smooths a kChromaBins^2 histogram with a [1 2 1] kernel in both directions (tolerance to casts).
void smoothChroma(std::vector<float>& h) {
    const int n = BackDescriptor::kChromaBins;
    std::vector<float> t(h.size(), 0.f);
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            float s = 0.f, w = 0.f;
            for (int dx = -1; dx <= 1; ++dx) {
                const int xx = x + dx;
                if (xx < 0 || xx >= n) continue;
                const float k = dx == 0 ? 2.f : 1.f;
                s += k * h[std::size_t(y * n + xx)];
                w += k;
            }
            t[std::size_t(y * n + x)] = s / w;
        }
    for (int y = 0; y < n; ++y)
        for (int x = 0; x < n; ++x) {
            float s = 0.f, w = 0.f;
            for (int dy = -1; dy <= 1; ++dy) {
                const int yy = y + dy;
                if (yy < 0 || yy >= n) continue;
                const float k = dy == 0 ? 2.f : 1.f;
                s += k * t[std::size_t(yy * n + x)];
                w += k;
            }
            h[std::size_t(y * n + x)] = s / w;
        }
    normalise(h);
}

// Per-channel gains (B, G, R) that make the card's margin grey: the bright half of the pixels of a
// thin frame 2-5% inside the outline (corners left out: they are rounded) gives a reference white
// as each channel's 80th percentile; each gain is the reference's mean over that channel's value.
// Gains of up to kBalanceFull (as |log|) apply in full, fading to none at kBalanceOff.
cv::Vec3f marginGains(const cv::Mat& rect, const cv::Mat& shows) {
    const int w = rect.cols, h = rect.rows;
    const int b0 = int(std::lround(0.022 * h)), b1 = int(std::lround(0.055 * h));  // rows 2..4
    const int s0 = int(std::lround(0.03 * w)), s1 = int(std::lround(0.0625 * w));  // cols 2..3
    const int cx = int(std::lround(0.125 * w)), cy = int(std::lround(0.09 * h));   // corners
    std::vector<cv::Vec3f> px;
    auto take = [&](int y0, int y1, int x0, int x1) {
        for (int y = std::max(0, y0); y < std::min(h, y1); ++y) {
            const cv::Vec3b* p = rect.ptr<cv::Vec3b>(y);
            const uchar* m = shows.empty() ? nullptr : shows.ptr<uchar>(y);
            for (int x = std::max(0, x0); x < std::min(w, x1); ++x)
                if (!m || m[x]) px.emplace_back(float(p[x][0]), float(p[x][1]), float(p[x][2]));
        }
    };
    take(b0, b1, cx, w - cx);
    take(h - b1, h - b0, cx, w - cx);
    take(cy, h - cy, s0, s1);
    take(cy, h - cy, w - s1, w - s0);
    if (px.size() < 8) return {1.f, 1.f, 1.f};
    std::vector<float> sums(px.size());
    for (std::size_t i = 0; i < px.size(); ++i) sums[i] = px[i][0] + px[i][1] + px[i][2];
    std::vector<float> sorted = sums;
    std::nth_element(sorted.begin(), sorted.begin() + std::ptrdiff_t(sorted.size() / 2),
                     sorted.end());
    const float median = sorted[sorted.size() / 2];
    cv::Vec3f ref;
    for (int k = 0; k < 3; ++k) {
        std::vector<float> v;
        for (std::size_t i = 0; i < px.size(); ++i)
            if (sums[i] >= median) v.push_back(px[i][k]);
        const auto at = v.begin() + std::ptrdiff_t(std::lround(0.8 * double(v.size() - 1)));
        std::nth_element(v.begin(), at, v.end());
        ref[k] = std::max(1.f, *at);
    }
    const float grey = (ref[0] + ref[1] + ref[2]) / 3.f;
    float dev = 0.f;  // the largest gain, as |log|
    for (int k = 0; k < 3; ++k) dev = std::max(dev, std::abs(std::log(grey / ref[k])));
    // a margin that is clearly coloured is not a white margin under a cast (a coloured design, or
    // not a card at all): balanced less, down to not at all
    const float weight = std::clamp((kBalanceOff - dev) / (kBalanceOff - kBalanceFull), 0.f, 1.f);
    cv::Vec3f gains;
    for (int k = 0; k < 3; ++k) gains[k] = std::pow(grey / ref[k], weight);
    return gains;
}

// What radialSpectrum adds each frequency of a W x H transform to, u = 0..W/2 of each row: its
// band (bin and share, as softAdd splits it) and whether it counts twice; frequencies outside the
// bands are left out. The same for every card of a size, so it is worked out once a size (a
// thread).
struct SpectrumTable {
    int W = 0, H = 0;
    struct Entry {
        int u, v;
        SoftBin bin;
        bool twice;
    };
    std::vector<Entry> entries;
    cv::Mat window;  // the Hann window of the patch (before padding)
};

const SpectrumTable& spectrumTable(cv::Size patch) {
    thread_local std::vector<SpectrumTable> tables;
    const int W = (patch.width + 1) & ~1, H = (patch.height + 1) & ~1;
    for (const auto& t : tables)
        if (t.window.size() == patch) return t;  // W and H follow from the patch's size
    SpectrumTable t;
    t.W = W;
    t.H = H;
    cv::createHanningWindow(t.window, patch, CV_32F);
    const int nb = BackDescriptor::kSpectrumBands;
    const float perBand = (kSpectrumLog2Hi - kSpectrumLog2Lo) / float(nb);
    for (int v = 0; v < H; ++v) {
        const float fv = float(std::min(v, H - v)) / float(H);
        // a real patch's spectrum is symmetric: u = 0..W/2 once, the inner columns count twice
        for (int u = 0; u <= W / 2; ++u) {
            const float fu = float(u) / float(W);
            const float lr = 0.5f * std::log2(std::max(fu * fu + fv * fv, 1e-9f));
            if (lr < kSpectrumLog2Lo - 0.5f * perBand || lr > kSpectrumLog2Hi + 0.5f * perBand)
                continue;
            t.entries.push_back(
                {u, v, softBin(nb, (lr - kSpectrumLog2Lo) / perBand), !(u == 0 || u == W / 2)});
        }
    }
    if (tables.size() >= 8) tables.erase(tables.begin());
    tables.push_back(std::move(t));
    return tables.back();
}

// Radial power spectrum of a grey patch (see BackDescriptor::spectrum): the patch blurred by
// kSpectrumBlur (so that a card seen soft and one enrolled sharp, and the noise and JPEG blocks of
// a picture, weigh less), less its mean, under a Hann window, zero-padded to an even size; each
// frequency's power goes to the band of its radius (cycles per pixel, each axis its own length),
// split between two bands. Frequencies outside 2^kSpectrumLog2Lo .. 2^kSpectrumLog2Hi are left out:
// below is the card's coarse layout (BackDescriptor::layout), above is mostly blur and noise.
std::vector<float> radialSpectrum(const cv::Mat& grayRoi) {
    const int nb = BackDescriptor::kSpectrumBands;
    std::vector<float> bands(std::size_t(nb), 0.f);
    const SpectrumTable& table = spectrumTable(grayRoi.size());
    cv::Mat p;
    cv::GaussianBlur(grayRoi, p, cv::Size(0, 0), kSpectrumBlur);
    p -= cv::mean(p)[0];
    p = p.mul(table.window);
    const int W = table.W, H = table.H;
    cv::Mat padded;
    cv::copyMakeBorder(p, padded, 0, H - p.rows, 0, W - p.cols, cv::BORDER_CONSTANT, 0);
    cv::Mat F;
    cv::dft(padded, F, cv::DFT_COMPLEX_OUTPUT);
    for (const auto& e : table.entries) {
        const cv::Vec2f& z = F.at<cv::Vec2f>(e.v, e.u);
        const float power = z[0] * z[0] + z[1] * z[1];
        softAdd(bands.data(), nb, e.bin, e.twice ? 2.f * power : power);
    }
    normalise(bands);
    return bands;
}

// --- byte stream ---
void putF(std::vector<std::uint8_t>& out, float v) {
    std::uint8_t b[4];
    std::memcpy(b, &v, 4);
    out.insert(out.end(), b, b + 4);
}
void putU16(std::vector<std::uint8_t>& out, std::size_t v) {
    out.push_back(std::uint8_t(v & 0xff));
    out.push_back(std::uint8_t((v >> 8) & 0xff));
}

class Reader {
  public:
    explicit Reader(const std::vector<std::uint8_t>& b) : b_(b) {}
    std::uint8_t u8() {
        need(1);
        return b_[pos_++];
    }
    std::size_t u16() {
        need(2);
        const std::size_t v = std::size_t(b_[pos_]) | (std::size_t(b_[pos_ + 1]) << 8);
        pos_ += 2;
        return v;
    }
    float f() {
        need(4);
        float v;
        std::memcpy(&v, b_.data() + pos_, 4);
        pos_ += 4;
        if (!std::isfinite(v))
            throw SignatureError("back signature: a value is not a finite number");
        return v;
    }
    std::vector<float> vec(std::size_t expect, bool mayBeEmpty = false) {
        const std::size_t n = u16();
        if (n != expect && !(mayBeEmpty && n == 0))
            throw SignatureError("back signature: a histogram has " + std::to_string(n) +
                                 " bins, expected " + std::to_string(expect));
        std::vector<float> v(n);
        for (auto& x : v) x = f();
        return v;
    }
    bool done() const { return pos_ == b_.size(); }

  private:
    void need(std::size_t n) const {
        if (pos_ + n > b_.size()) throw SignatureError("back signature: truncated");
    }
    const std::vector<std::uint8_t>& b_;
    std::size_t pos_ = 0;
};

}  // namespace

float quadArea(const Quad& q) {
    float a = 0.f;
    for (int i = 0; i < 4; ++i) a += q[i].x * q[(i + 1) % 4].y - q[(i + 1) % 4].x * q[i].y;
    return std::abs(a) * 0.5f;
}

cv::Point2f quadCentre(const Quad& q) {
    return (q[0] + q[1] + q[2] + q[3]) * 0.25f;
}

cv::Size2f quadSides(const Quad& q) {
    const float a = float(cv::norm(q[1] - q[0]) + cv::norm(q[3] - q[2])) * 0.5f;
    const float b = float(cv::norm(q[2] - q[1]) + cv::norm(q[0] - q[3])) * 0.5f;
    return {std::min(a, b), std::max(a, b)};  // width = short sides, height = long sides
}

namespace {

// The homography that rectifyCard warps `quad` by.
cv::Mat cardHomography(const Quad& quad) {
    const float top = float(cv::norm(quad[1] - quad[0]) + cv::norm(quad[2] - quad[3]));
    const float side = float(cv::norm(quad[2] - quad[1]) + cv::norm(quad[3] - quad[0]));
    if (quadArea(quad) < 16.f || top < 4.f || side < 4.f)
        throw SignatureError("back signature: card outline is degenerate");
    std::array<cv::Point2f, 4> src;
    if (top > side) {  // landscape: start at the top-right so the first edge is a short one
        src = {quad[1], quad[2], quad[3], quad[0]};
    } else {
        src = {quad[0], quad[1], quad[2], quad[3]};
    }
    const std::array<cv::Point2f, 4> dst{cv::Point2f(0, 0), cv::Point2f(kBackWidth, 0),
                                         cv::Point2f(kBackWidth, kBackHeight),
                                         cv::Point2f(0, kBackHeight)};
    return cv::getPerspectiveTransform(src.data(), dst.data());
}

}  // namespace

cv::Mat rectifiedShows(const Quad& quad, const std::vector<cv::Point2f>& shows) {
    cv::Mat mask = cv::Mat::zeros(kBackHeight, kBackWidth, CV_8UC1);
    if (shows.size() < 3) return mask;
    std::vector<cv::Point2f> r;
    cv::perspectiveTransform(shows, r, cardHomography(quad));
    std::vector<cv::Point> poly;
    for (const auto& p : r) poly.emplace_back(int(std::lround(p.x)), int(std::lround(p.y)));
    cv::fillPoly(mask, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(255));
    // the outline of what shows is found at the finder's working size: keep off its edge, where the
    // card lying across (or its shadow) may still be
    cv::erode(mask, mask, cv::getStructuringElement(cv::MORPH_ELLIPSE, cv::Size(2 * kShowsInset + 1, 2 * kShowsInset + 1)));
    return mask;
}

cv::Mat rectifiedCardMask(const cv::Mat& cardProbability, cv::Size picture, const Quad& quad,
                          int threshold) {
    if (cardProbability.empty()) return {};
    if (cardProbability.type() != CV_8UC1 || picture.width <= 0 || picture.height <= 0)
        throw SignatureError("back signature: the card probability must be 8-bit, of a picture of some size");
    const double sx = double(cardProbability.cols) / picture.width,
                 sy = double(cardProbability.rows) / picture.height;
    const cv::Mat toMask = (cv::Mat_<double>(3, 3) << sx, 0, 0, 0, sy, 0, 0, 0, 1);
    // rectified pixel -> picture pixel -> probability pixel
    const cv::Mat h = toMask * cardHomography(quad).inv();
    cv::Mat out;
    cv::warpPerspective(cardProbability, out, h, cv::Size(kBackWidth, kBackHeight),
                        cv::INTER_LINEAR | cv::WARP_INVERSE_MAP, cv::BORDER_CONSTANT, cv::Scalar(0));
    cv::threshold(out, out, threshold, 255, cv::THRESH_BINARY);
    return out;
}

cv::Rect cardInterior() {
    const int x = int(std::lround(0.06 * kBackWidth)), y = int(std::lround(0.07 * kBackHeight));
    return {x, y, kBackWidth - 2 * x, kBackHeight - 2 * y};
}

float hiddenShare(const cv::Mat& cardProbability, cv::Size picture, const Quad& quad) {
    const cv::Mat seen = rectifiedCardMask(cardProbability, picture, quad, kSureNoCard);
    if (seen.empty()) return 0.f;
    const cv::Rect inner = cardInterior();
    return 1.f - float(cv::countNonZero(seen(inner))) / float(inner.area());
}

std::vector<cv::Point2f> uncoveredPart(const std::vector<cv::Point2f>& outline,
                                       const std::vector<std::vector<cv::Point2f>>& onTop) {
    if (outline.size() < 3) return {};
    // raster of the outline's box (a pixel of margin)
    const cv::Rect box = cv::boundingRect(outline);
    const cv::Point2f o(float(box.x) - 1, float(box.y) - 1);
    cv::Mat mask = cv::Mat::zeros(box.height + 2, box.width + 2, CV_8U);
    auto local = [&](const std::vector<cv::Point2f>& poly) {
        std::vector<cv::Point> p;
        for (const auto& v : poly) p.emplace_back(int(std::lround(v.x - o.x)), int(std::lround(v.y - o.y)));
        return std::vector<std::vector<cv::Point>>{p};
    };
    cv::fillPoly(mask, local(outline), cv::Scalar(255));
    for (const auto& top : onTop) cv::fillPoly(mask, local(top), cv::Scalar(0));
    std::vector<std::vector<cv::Point>> parts;
    cv::findContours(mask, parts, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_SIMPLE);
    std::vector<cv::Point2f> out;
    double best = 0;
    for (const auto& part : parts)
        if (const double a = cv::contourArea(part); a > best) {
            best = a;
            std::vector<cv::Point> simple;
            cv::approxPolyDP(part, simple, 1.0, true);
            out.clear();
            for (const auto& v : simple) out.emplace_back(float(v.x) + o.x, float(v.y) + o.y);
        }
    return out.size() >= 3 ? out : std::vector<cv::Point2f>{};
}

cv::Mat rectifyCard(const cv::Mat& bgr, const Quad& quad) {
    if (bgr.empty() || bgr.type() != CV_8UC3)
        throw SignatureError("back signature: picture must be 8-bit BGR");
    const cv::Mat h = cardHomography(quad);
    // Shrinking a lot: blur first so the fine pattern averages instead of aliasing.
    const float scale = std::sqrt(quadArea(quad) / float(kBackWidth * kBackHeight));
    cv::Mat out;
    if (scale > 2.f) {
        const cv::Rect box = cv::boundingRect(std::vector<cv::Point2f>(quad.begin(), quad.end())) &
                             cv::Rect(0, 0, bgr.cols, bgr.rows);
        if (box.area() <= 0)
            throw SignatureError("back signature: card outline is outside the picture");
        cv::Mat roi;
        cv::GaussianBlur(bgr(box), roi, cv::Size(0, 0), 0.45 * scale);
        const cv::Mat shift = (cv::Mat_<double>(3, 3) << 1, 0, box.x, 0, 1, box.y, 0, 0, 1);
        cv::warpPerspective(roi, out, h * shift, cv::Size(kBackWidth, kBackHeight),
                            cv::INTER_LINEAR, cv::BORDER_REPLICATE);
    } else {
        cv::warpPerspective(bgr, out, h, cv::Size(kBackWidth, kBackHeight), cv::INTER_LINEAR,
                            cv::BORDER_REPLICATE);
    }
    return out;
}

BackDescriptor describeBack(const cv::Mat& rect, BackRegion region, const cv::Mat& shows) {
    if (rect.empty() || rect.type() != CV_8UC3)
        throw SignatureError("back signature: rectified card must be 8-bit BGR");
    if (!shows.empty() && (shows.size() != rect.size() || shows.type() != CV_8UC1 || !region.whole()))
        throw SignatureError("back signature: the mask of what shows must be 8-bit, the card's size, for a whole card");
    BackDescriptor d;
    d.region = region;
    const int w = rect.cols, h = rect.rows;
    // inset from the outline: 7% of the long sides, 6% across, but a strip keeps the card's edge
    // except for a thin 3% against a slightly loose outline
    const int my = int(std::lround(0.07 * h));
    int xa = int(std::lround(region.x0 * w)), xb = int(std::lround(region.x1 * w));
    const int outer = std::max(1, int(std::lround(0.03 * w))),
              inner = std::max(1, int(std::lround(0.06 * w)));
    if (region.whole()) {
        xa = inner, xb = w - inner;
    } else {
        xa += region.x0 <= 0.f ? outer : 0;
        xb -= region.x1 >= 1.f ? outer : 0;
    }
    xb = std::max(xb, xa + 2);
    const cv::Rect roi(std::clamp(xa, 0, w - 2), my, std::min(xb, w) - std::clamp(xa, 0, w - 2),
                       h - 2 * my);

    cv::Mat f;
    rect.convertTo(f, CV_32FC3);
    if (region.whole()) {
        // white balance on the card's margin (strips are not balanced: see BACKS.md)
        // (each product rounded to float once, as cv::multiply by a scalar gives it)
        const cv::Vec3f g = marginGains(rect, shows);
        for (int y = 0; y < f.rows; ++y) {
            cv::Vec3f* p = f.ptr<cv::Vec3f>(y);
            for (int x = 0; x < f.cols; ++x)
                for (int k = 0; k < 3; ++k) p[x][k] = std::min(p[x][k] * g[k], 255.f);
        }
    }
    cv::Mat gray;
    cv::cvtColor(f, gray, cv::COLOR_BGR2GRAY);
    const float meanGray = std::max(4.f, float(shows.empty() ? cv::mean(gray(roi))[0] : cv::mean(gray(roi), shows(roi))[0]));

    d.chroma.assign(std::size_t(BackDescriptor::kChromaBins * BackDescriptor::kChromaBins), 0.f);
    d.tone.assign(BackDescriptor::kToneBins, 0.f);
    const int nc = BackDescriptor::kChromaBins;
    std::vector<float> layoutSum(
        std::size_t(BackDescriptor::kLayoutRows * BackDescriptor::kLayoutCols * 3), 0.f);
    std::vector<float> layoutN(
        std::size_t(BackDescriptor::kLayoutRows * BackDescriptor::kLayoutCols), 0.f);
    float* tone = d.tone.data();
    for (int y = roi.y; y < roi.y + roi.height; ++y) {
        const cv::Vec3f* p = f.ptr<cv::Vec3f>(y);
        const float* g = gray.ptr<float>(y);
        const uchar* m = shows.empty() ? nullptr : shows.ptr<uchar>(y);
        const int cy = std::min(BackDescriptor::kLayoutRows - 1,
                                (y - roi.y) * BackDescriptor::kLayoutRows / roi.height);
        // the layout cell's sums, held here while the row runs through it (the same additions in
        // the same order as into layoutSum itself)
        std::size_t cell = std::size_t(-1);
        float sumT = 0.f, sumR = 0.f, sumG = 0.f, sumN = 0.f;
        auto leaveCell = [&] {
            if (cell == std::size_t(-1)) return;
            layoutSum[cell * 3] = sumT;
            layoutSum[cell * 3 + 1] = sumR;
            layoutSum[cell * 3 + 2] = sumG;
            layoutN[cell] = sumN;
        };
        for (int x = roi.x; x < roi.x + roi.width; ++x) {
            if (m && !m[x]) continue;
            const float s = p[x][0] + p[x][1] + p[x][2];
            const float wgt = std::min(1.f, s / 120.f) + 0.05f;
            const float r = s > 1.f ? p[x][2] / s : 1.f / 3.f,
                        gg = s > 1.f ? p[x][1] / s : 1.f / 3.f;
            // 2-D soft bin (bilinear)
            const float px = std::clamp(r * nc - 0.5f, 0.f, float(nc - 1)),
                        py = std::clamp(gg * nc - 0.5f, 0.f, float(nc - 1));
            const int ix = std::min(int(px), nc - 1), iy = std::min(int(py), nc - 1);
            const float fx = px - float(ix), fy = py - float(iy);
            const int ix1 = std::min(ix + 1, nc - 1), iy1 = std::min(iy + 1, nc - 1);
            d.chroma[std::size_t(iy * nc + ix)] += wgt * (1 - fx) * (1 - fy);
            d.chroma[std::size_t(iy * nc + ix1)] += wgt * fx * (1 - fy);
            d.chroma[std::size_t(iy1 * nc + ix)] += wgt * (1 - fx) * fy;
            d.chroma[std::size_t(iy1 * nc + ix1)] += wgt * fx * fy;
            const float t = g[x] / meanGray;
            softAdd(tone, BackDescriptor::kToneBins, t / 2.5f * float(BackDescriptor::kToneBins),
                    1.f);
            if (region.whole()) {
                const int cx = std::min(BackDescriptor::kLayoutCols - 1,
                                        (x - roi.x) * BackDescriptor::kLayoutCols / roi.width);
                const std::size_t c = std::size_t(cy * BackDescriptor::kLayoutCols + cx);
                if (c != cell) {
                    leaveCell();
                    cell = c;
                    sumT = layoutSum[c * 3];
                    sumR = layoutSum[c * 3 + 1];
                    sumG = layoutSum[c * 3 + 2];
                    sumN = layoutN[c];
                }
                sumT += t;
                sumR += r;
                sumG += gg;
                sumN += 1.f;
            }
        }
        leaveCell();
    }
    smoothChroma(d.chroma);
    normalise(d.tone);

    // gradients at two scales
    cv::Mat gx, gy;
    cv::Sobel(gray, gx, CV_32F, 1, 0, 3);
    cv::Sobel(gray, gy, CV_32F, 0, 1, 3);
    d.orient.assign(BackDescriptor::kOrientBins, 0.f);
    float* orient = d.orient.data();
    double fineSum = 0.0;
    {
        // magnitudes and angles (0..2 pi) of the whole box at once: OpenCV's vectorised arctangent,
        // within 0.3 degrees (an orientation bin is 22.5)
        cv::Mat mag, ang;
        cv::cartToPolar(gx(roi), gy(roi), mag, ang);
        for (int y = 0; y < roi.height; ++y) {
            const float* ay = gy.ptr<float>(roi.y + y) + roi.x;
            const float* ax = gx.ptr<float>(roi.y + y) + roi.x;
            const float* m = mag.ptr<float>(y);
            const float* an = ang.ptr<float>(y);
            const uchar* k = shows.empty() ? nullptr : shows.ptr<uchar>(roi.y + y) + roi.x;
            for (int x = 0; x < roi.width; ++x) {
                if (k && !k[x]) continue;
                fineSum += m[x];
                // modulo 180 degrees; a gradient straight along -x is 180, as atan2 gives it
                float a = ay[x] == 0.f && ax[x] < 0.f ? kPi : an[x];
                if (a > kPi) a -= kPi;
                softAdd(orient, BackDescriptor::kOrientBins,
                        a / kPi * float(BackDescriptor::kOrientBins), m[x]);
            }
        }
    }
    normalise(d.orient);
    cv::Mat coarse;
    cv::GaussianBlur(gray, coarse, cv::Size(0, 0), 2.0);
    cv::Sobel(coarse, gx, CV_32F, 1, 0, 3);
    cv::Sobel(coarse, gy, CV_32F, 0, 1, 3);
    cv::Mat mag;
    cv::magnitude(gx, gy, mag);
    const double n = std::max(1, shows.empty() ? roi.area() : cv::countNonZero(shows(roi)));
    const double coarseSum = shows.empty() ? cv::sum(mag(roi))[0] : cv::mean(mag(roi), shows(roi))[0] * n;
    d.texture = float(std::log(fineSum / n / meanGray + 1e-3));
    d.fine = float(fineSum / std::max(1e-6, fineSum + coarseSum * 2.0));

    if (region.whole() && shows.empty()) {
        d.spectrum = radialSpectrum(gray(roi));
        d.layout = layoutSum;
        for (std::size_t c = 0; c < layoutN.size(); ++c)
            for (int k = 0; k < 3; ++k)
                d.layout[c * 3 + std::size_t(k)] /= std::max(1.f, layoutN[c]);
    }
    return d;
}

float sceneWhite(const cv::Mat& bgr) {
    if (bgr.empty()) return 1.f;
    cv::Mat pic = bgr;
    if (pic.depth() != CV_8U) pic.convertTo(pic, CV_8U, pic.depth() == CV_16U ? 1.0 / 257.0 : 1.0);
    if (pic.channels() != 3 && pic.channels() != 4) {  // grey (or grey and alpha): its first channel
        cv::extractChannel(pic, pic, 0);
        cv::cvtColor(pic, pic, cv::COLOR_GRAY2BGR);
    }
    // the grey of 2 x 2 pixels every `step` pixels each way: about kSceneWhiteWidth across (a
    // copy shrunk so costs a millisecond a 1280 x 720 frame; this a tenth of that)
    const int step = std::max(1, pic.cols / kSceneWhiteWidth), ch = pic.channels();
    int hist[256] = {};
    long total = 0;
    for (int y = 0; y < pic.rows; y += step) {
        const uchar* r0 = pic.ptr<uchar>(y);
        const uchar* r1 = pic.ptr<uchar>(std::min(y + 1, pic.rows - 1));
        for (int x = 0; x < pic.cols; x += step) {
            const int x1 = std::min(x + 1, pic.cols - 1);
            int sum = 0;
            for (const uchar* p : {r0 + x * ch, r0 + x1 * ch, r1 + x * ch, r1 + x1 * ch})
                sum += 29 * p[0] + 150 * p[1] + 77 * p[2];  // BT.601 weights of 256
            ++hist[std::min(255, (sum + 512) >> 10)];
            ++total;
        }
    }
    const long above = total - long(std::ceil(0.99 * double(total)));
    long seen = 0;
    for (int v = 255; v > 0; --v) {
        seen += hist[v];
        if (seen > above) return float(v);
    }
    return 1.f;
}

float cardLightness(const cv::Mat& rect, BackRegion region, const cv::Mat& shows) {
    if (rect.empty() || rect.type() != CV_8UC3)
        throw SignatureError("back signature: rectified card must be 8-bit BGR");
    cv::Rect roi = cardInterior();
    if (!region.whole()) {
        const int xa = std::clamp(int(std::lround(region.x0 * rect.cols)), 0, rect.cols - 1),
                  xb = std::clamp(int(std::lround(region.x1 * rect.cols)), xa + 1, rect.cols);
        roi = cv::Rect(xa, roi.y, xb - xa, roi.height);
    }
    roi &= cv::Rect(0, 0, rect.cols, rect.rows);
    cv::Mat gray;
    cv::cvtColor(rect(roi), gray, cv::COLOR_BGR2GRAY);
    if (!shows.empty() && shows.size() == rect.size() && cv::countNonZero(shows(roi)) > 0)
        return float(cv::mean(gray, shows(roi))[0]);
    return float(cv::mean(gray)[0]);
}

BackSignature makeBackSignature(const cv::Mat& bgr, const Quad& quad) {
    const cv::Rect frame(0, 0, bgr.cols, bgr.rows);
    int inside = 0;
    for (const auto& p : quad) inside += frame.contains(cv::Point(int(p.x), int(p.y))) ? 1 : 0;
    if (inside < 3)
        throw SignatureError("back signature: card outline is mostly outside the picture");
    const cv::Mat rect = rectifyCard(bgr, quad);
    BackSignature s;
    s.lightLo = s.lightHi = std::max(kLeastLightness, cardLightness(rect) / sceneWhite(bgr));
    s.descriptors.push_back(describeBack(rect));
    for (float sigma : kEnrolmentBlurs) {
        cv::Mat blurred;
        cv::GaussianBlur(rect, blurred, cv::Size(0, 0), sigma);
        s.descriptors.push_back(describeBack(blurred));
        s.descriptors.back().blur = sigma;
    }
    // smeared by motion (a card passing through the view), four ways across the card
    for (float smear : kEnrolmentSmears) {
        const int len = std::max(3, int(std::lround(smear * float(rect.cols)))) | 1;
        const double c = (len - 1) / 2.0;
        for (int k = 0; k < 4; ++k) {
            cv::Mat line = cv::Mat::zeros(len, len, CV_32F);
            const double a = double(k) * CV_PI / 4.0;
            cv::line(line, cv::Point2d(c - c * std::cos(a), c - c * std::sin(a)),
                     cv::Point2d(c + c * std::cos(a), c + c * std::sin(a)), cv::Scalar(1.0), 1,
                     cv::LINE_AA);
            line /= cv::sum(line)[0];
            cv::Mat smeared;
            cv::filter2D(rect, smeared, -1, line, cv::Point(-1, -1), 0, cv::BORDER_REPLICATE);
            s.descriptors.push_back(describeBack(smeared));
            s.descriptors.back().blur = float(len) / std::sqrt(12.f);  // the smear's spread
        }
    }
    // shrunk as a card further from the camera shows (resampled, softened, JPEG-coded)
    const cv::Size2f sides = quadSides(quad);
    const float longSide = std::max(sides.width, sides.height);
    const cv::Rect box =
        cv::boundingRect(std::vector<cv::Point2f>(quad.begin(), quad.end())) & frame;
    for (float side : kEnrolmentShrunkSides) {
        const double f = side / longSide;
        const cv::Size shrunk(int(std::lround(box.width * f)), int(std::lround(box.height * f)));
        if (f > kEnrolmentShrinkAtMost || shrunk.width < 8 || shrunk.height < 8) continue;
        cv::Mat small;
        cv::resize(bgr(box), small, shrunk, 0, 0, cv::INTER_AREA);
        cv::GaussianBlur(small, small, cv::Size(0, 0), kEnrolmentShrunkSoften);
        std::vector<uchar> jpeg;
        cv::imencode(".jpg", small, jpeg, {cv::IMWRITE_JPEG_QUALITY, kEnrolmentShrunkJpeg});
        small = cv::imdecode(jpeg, cv::IMREAD_COLOR);
        if (small.empty()) continue;
        Quad q;
        for (std::size_t k = 0; k < 4; ++k)
            q[k] =
                cv::Point2f((quad[k].x - float(box.x)) * float(shrunk.width) / float(box.width),
                            (quad[k].y - float(box.y)) * float(shrunk.height) / float(box.height));
        s.descriptors.push_back(describeBack(rectifyCard(small, q)));
        s.descriptors.back().blur = kEnrolmentShrunkSpread;
    }
    for (float wdt : {0.12f, 0.25f}) {
        s.descriptors.push_back(describeBack(rect, {0.f, wdt}));
        s.descriptors.push_back(describeBack(rect, {1.f - wdt, 1.f}));
    }
    return s;
}

std::array<float, kBackTerms> backTerms(const BackDescriptor& a, const BackDescriptor& b) {
    std::array<float, kBackTerms> t{l1(a.chroma, b.chroma), l1(a.tone, b.tone),
                                    l1(a.orient, b.orient), std::abs(a.texture - b.texture),
                                    std::abs(a.fine - b.fine), 0.f, 0.f};
    if (!a.layout.empty() && a.layout.size() == b.layout.size()) {
        const std::size_t cells = a.layout.size() / 3;
        float same = 0.f, turned = 0.f;
        for (std::size_t c = 0; c < cells; ++c) {
            const std::size_t r = cells - 1 - c;  // 180-degree turn reverses the cell order
            for (int k = 0; k < 3; ++k) {
                const float scale = k == 0 ? 0.5f : 3.f;
                same += scale * std::abs(a.layout[c * 3 + std::size_t(k)] -
                                         b.layout[c * 3 + std::size_t(k)]);
                turned += scale * std::abs(a.layout[c * 3 + std::size_t(k)] -
                                           b.layout[r * 3 + std::size_t(k)]);
            }
        }
        t[5] = std::min(same, turned) / float(cells);
    }
    if (!a.spectrum.empty() && a.spectrum.size() == b.spectrum.size())
        t[6] = l1(a.spectrum, b.spectrum);
    return t;
}

float backDistance(const BackDescriptor& a, const BackDescriptor& b) {
    // summed in the terms' order (a missing term adds an exact 0)
    const std::array<float, kBackTerms> t = backTerms(a, b);
    float d = 0.f;
    for (int k = 0; k < kBackTerms; ++k) d += kBackTermWeights[std::size_t(k)] * t[std::size_t(k)];
    return d;
}

std::vector<std::uint8_t> BackSignature::toBytes() const {
    std::vector<std::uint8_t> out{'N', 'B', 'S', kVersion};
    putU16(out, descriptors.size());
    for (const auto& d : descriptors) {
        putF(out, d.region.x0);
        putF(out, d.region.x1);
        putF(out, d.blur);
        for (const auto* v : {&d.chroma, &d.tone, &d.orient, &d.layout, &d.spectrum}) {
            putU16(out, v->size());
            for (float x : *v) putF(out, x);
        }
        putF(out, d.texture);
        putF(out, d.fine);
    }
    putF(out, lightLo);
    putF(out, lightHi);
    return out;
}

BackSignature BackSignature::fromBytes(const std::vector<std::uint8_t>& bytes) {
    if (bytes.size() < 4 || bytes[0] != 'N' || bytes[1] != 'B' || bytes[2] != 'S')
        throw SignatureError("back signature: not a nertzref back signature (bad magic)");
    if (bytes[3] != kVersion && bytes[3] != 3)
        throw SignatureError("back signature: version " + std::to_string(int(bytes[3])) +
                              " is not supported (expected 3 or " + std::to_string(int(kVersion)) +
                             "); enrol the deck again");
    Reader r(bytes);
    for (int i = 0; i < 4; ++i) r.u8();
    BackSignature s;
    const std::size_t n = r.u16();
    if (n == 0) throw SignatureError("back signature: no descriptors");
    for (std::size_t i = 0; i < n; ++i) {
        BackDescriptor d;
        d.region.x0 = r.f();
        d.region.x1 = r.f();
        if (!(d.region.x0 >= 0.f && d.region.x1 <= 1.f && d.region.x0 < d.region.x1))
            throw SignatureError("back signature: a region is out of range");
        d.blur = r.f();
        if (!(d.blur >= 0.f && d.blur <= 10.f))
            throw SignatureError("back signature: a blur is out of range");
        d.chroma = r.vec(std::size_t(BackDescriptor::kChromaBins * BackDescriptor::kChromaBins));
        d.tone = r.vec(BackDescriptor::kToneBins);
        d.orient = r.vec(BackDescriptor::kOrientBins);
        d.layout =
            r.vec(std::size_t(BackDescriptor::kLayoutRows * BackDescriptor::kLayoutCols * 3), true);
        d.spectrum = r.vec(std::size_t(BackDescriptor::kSpectrumBands), true);
        if (d.layout.empty() != d.spectrum.empty() || d.layout.empty() != !d.region.whole())
            throw SignatureError("back signature: a whole card needs its layout and spectrum");
        d.texture = r.f();
        d.fine = r.f();
        s.descriptors.push_back(std::move(d));
    }
    if (bytes[3] >= 4) {
        s.lightLo = r.f();
        s.lightHi = r.f();
        if (!(s.lightLo >= 0.f && s.lightLo <= s.lightHi && s.lightHi <= 10.f && (s.lightLo > 0.f) == (s.lightHi > 0.f)))
            throw SignatureError("back signature: the lightness range is out of range");
    }
    if (!r.done()) throw SignatureError("back signature: trailing bytes");
    return s;
}

void BackSignature::merge(const BackSignature& other) {
    if (descriptors.empty()) {  // the first view
        lightLo = other.lightLo;
        lightHi = other.lightHi;
    } else {
        const bool known = lightHi > 0.f && other.lightHi > 0.f;
        lightLo = known ? std::min(lightLo, other.lightLo) : 0.f;
        lightHi = known ? std::max(lightHi, other.lightHi) : 0.f;
    }
    descriptors.insert(descriptors.end(), other.descriptors.begin(), other.descriptors.end());
}

int BackSignature::views() const noexcept {
    return int(std::count_if(descriptors.begin(), descriptors.end(), [](const BackDescriptor& d) {
        return d.region.whole() && d.blur == 0.f;
    }));
}

}  // namespace nertz::vision
