// Suit evidence from the colour of a corner index's pip (see pip_colour.hpp).
#include "nertz/vision/pip_colour.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <opencv2/imgproc.hpp>

#include "median.hpp"

namespace nertz::vision {
namespace {

constexpr float kRedChroma = 12.f, kNeutralChroma = 4.f, kMinInkStep = 10.f;
constexpr float kRedHueLo = 10.f, kRedHueHi = 60.f;
// Glow: the light ink's own chroma and hue (not against the ground: a lit key's glow tints it)
constexpr float kGlowChroma = 25.f, kGlowHueLo = 110.f, kGlowHueHi = 340.f;

float hueOf(float a, float b) {
    float hue = std::atan2(b, a) * float(180.0 / CV_PI);
    return hue < 0.f ? hue + 360.f : hue;
}

// Lab of a list of BGR pixels, as one row (pixel k at lab.ptr<cv::Vec3b>(0)[k]). OpenCV builds its
// Lab tables on the first conversion of a process (tens of ms); later ones take ~1.5 us for 300.
cv::Mat labOf(std::vector<cv::Vec3b>& px) {
    cv::Mat lab;
    cv::cvtColor(cv::Mat(1, int(px.size()), CV_8UC3, px.data()), lab, cv::COLOR_BGR2Lab);
    return lab;
}

}  // namespace

bool colourless(const cv::Mat& bgr) {
    CV_Assert(bgr.type() == CV_8UC3);
    std::vector<cv::Vec3b> px;
    px.reserve(std::size_t((bgr.rows + 7) / 8) * std::size_t((bgr.cols + 7) / 8));
    for (int y = 0; y < bgr.rows; y += 8) {
        const cv::Vec3b* row = bgr.ptr<cv::Vec3b>(y);
        for (int x = 0; x < bgr.cols; x += 8) px.push_back(row[x]);
    }
    if (px.empty()) return true;
    const cv::Mat lab = labOf(px);
    const cv::Vec3b* l = lab.ptr<cv::Vec3b>(0);
    std::size_t coloured = 0;
    for (std::size_t k = 0; k < px.size(); ++k) {
        const float a = float(l[k][1]) - 128.f, b = float(l[k][2]) - 128.f;
        if (a * a + b * b > kRedChroma * kRedChroma) ++coloured;
    }
    return coloured < 0.01 * double(px.size());
}

PipInk pipInk(const cv::Mat& bgr, cv::Point2f pip, float d) {
    CV_Assert(bgr.type() == CV_8UC3);
    const float rad = 0.5f * d;
    const int x0 = int(std::floor(pip.x - rad)), x1 = int(std::ceil(pip.x + rad)) + 1;
    const int y0 = int(std::floor(pip.y - rad)), y1 = int(std::ceil(pip.y + rad)) + 1;
    if (!(d > 0.f) || x0 < 0 || y0 < 0 || x1 > bgr.cols || y1 > bgr.rows) return PipInk::Unknown;
    // only the pixels of the centre disc and of the ring are converted to Lab
    const float core = std::max(1.f, 0.12f * d), ringLo = 0.35f * d, ringHi = 0.5f * d;
    const float core2 = core * core, lo2 = ringLo * ringLo, hi2 = ringHi * ringHi;
    std::vector<cv::Vec3b> px, ring;
    for (int y = y0; y < y1; ++y) {
        const cv::Vec3b* row = bgr.ptr<cv::Vec3b>(y);
        const float dy2 = (float(y) - pip.y) * (float(y) - pip.y);
        for (int x = x0; x < x1; ++x) {
            const float r2 = (float(x) - pip.x) * (float(x) - pip.x) + dy2;
            if (r2 <= core2)
                px.push_back(row[x]);
            else if (r2 >= lo2 && r2 <= hi2)
                ring.push_back(row[x]);
        }
    }
    const std::size_t nInk = px.size();
    px.insert(px.end(), ring.begin(), ring.end());
    if (nInk == 0 || px.size() == nInk) return PipInk::Unknown;
    const cv::Mat lab = labOf(px);
    const cv::Vec3b* l = lab.ptr<cv::Vec3b>(0);
    // median Lab of pixels [from, to) of the list, channel by channel
    auto medianLab = [&](std::size_t from, std::size_t to, float out[3]) {
        std::vector<float> v(to - from);
        for (int c = 0; c < 3; ++c) {
            for (std::size_t k = from; k < to; ++k) v[k - from] = float(l[k][c]);
            out[c] = detail::medianOf(v);
        }
    };
    float in[3], pa[3];
    medianLab(0, nInk, in);
    medianLab(nInk, px.size(), pa);
    // OpenCV's 8-bit Lab: L scaled to 0..255 (the step is in those levels), a and b offset by 128
    if (std::abs(in[0] - pa[0]) < kMinInkStep) return PipInk::Unknown;
    if (in[0] > pa[0]) {
        const float a = in[1] - 128.f, b = in[2] - 128.f, hue = hueOf(a, b);
        if (std::hypot(a, b) > kGlowChroma && hue >= kGlowHueLo && hue <= kGlowHueHi)
            return PipInk::Glow;
    }
    const float a = in[1] - pa[1], b = in[2] - pa[2];
    const float chroma = std::hypot(a, b), hue = hueOf(a, b);
    if (chroma > kRedChroma && hue >= kRedHueLo && hue <= kRedHueHi) return PipInk::Red;
    if (chroma < kNeutralChroma) return PipInk::Neutral;
    return PipInk::Unknown;
}

void chooseFace(PatchReading& r) {
    const float index = std::accumulate(r.faces.begin(), r.faces.end(), 0.f);
    const int best = int(std::max_element(r.faces.begin(), r.faces.end()) - r.faces.begin());
    if (r.faces[std::size_t(best)] > 1.f - index) {
        r.face = cardOfClass(best);
        r.confidence = r.faces[std::size_t(best)];
    } else {
        r.face.reset();
        r.confidence = 1.f - index;
    }
}

void conditionOnInk(PatchReading& reading, PipInk ink) {
    if (ink == PipInk::Unknown || !reading.passedGate) return;
    if (ink == PipInk::Glow) {
        reading.faces.fill(0.f);
        reading.face.reset();
        reading.confidence = 1.f;  // "not an index" takes the whole probability
        return;
    }
    // suits in classifier order: clubs, diamonds, hearts, spades
    const bool allowed[4] = {ink == PipInk::Neutral, ink == PipInk::Red, ink == PipInk::Red,
                             ink == PipInk::Neutral};
    const float index = std::accumulate(reading.faces.begin(), reading.faces.end(), 0.f);
    float kept = 0.f;
    for (int c = 0; c < 52; ++c)
        if (allowed[c / 13]) kept += reading.faces[std::size_t(c)];
    if (!(kept > 0.f)) return;
    const float scale = index / kept;
    for (int c = 0; c < 52; ++c)
        reading.faces[std::size_t(c)] =
            allowed[c / 13] ? reading.faces[std::size_t(c)] * scale : 0.f;
    // "not an index" keeps its probability 1 - index (a face of a suit ruled out is not kept)
    chooseFace(reading);
}

}  // namespace nertz::vision
