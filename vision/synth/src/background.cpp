// Procedural table surfaces: wood grain, woven cloth and felt, white laminate; photo crops.
#include "background.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>

namespace nertz::synth {
namespace {

// Smooth random field in [0,1] of `size`, with about `cells` random values across the width.
cv::Mat smoothNoise(cv::RNG& rng, cv::Size size, int cellsX, int cellsY) {
    cv::Mat small(std::max(2, cellsY), std::max(2, cellsX), CV_32F);
    rng.fill(small, cv::RNG::UNIFORM, 0.0, 1.0);
    cv::Mat big;
    cv::resize(small, big, size, 0, 0, cv::INTER_CUBIC);
    return big;
}

cv::Mat hsvColour(double h, double s, double v) {
    cv::Mat px(1, 1, CV_8UC3, cv::Scalar(h / 2.0, s * 255.0, v * 255.0));
    cv::cvtColor(px, px, cv::COLOR_HSV2BGR);
    return px;
}

cv::Mat wood(cv::RNG& rng, cv::Size size) {
    const cv::Vec3b base = hsvColour(rng.uniform(15.0, 35.0), rng.uniform(0.35, 0.75), rng.uniform(0.35, 0.85)).at<cv::Vec3b>(0);
    const cv::Vec3b dark = cv::Vec3b(uchar(base[0] * 0.55), uchar(base[1] * 0.55), uchar(base[2] * 0.6));
    const int plank = std::max(40, int(size.height * rng.uniform(0.12, 0.35)));
    const double freq = rng.uniform(0.05, 0.2);
    const cv::Mat warp = smoothNoise(rng, size, std::max(3, size.width / 300), std::max(4, size.height / 25));
    const cv::Mat fine = smoothNoise(rng, size, std::max(8, size.width / 6), std::max(8, size.height / 3));
    cv::Mat out(size, CV_8UC3);
    for (int y = 0; y < size.height; ++y) {
        const int plankIndex = y / plank;
        const double phase = plankIndex * 17.3;
        for (int x = 0; x < size.width; ++x) {
            const double t = (y + warp.at<float>(y, x) * 40.0) * freq + phase;
            double g = 0.5 + 0.5 * std::sin(t);
            g = std::pow(g, 3.0) * 0.6 + fine.at<float>(y, x) * 0.4;
            if (y % plank < 2) g = 1.2;  // seam between planks
            cv::Vec3b& p = out.at<cv::Vec3b>(y, x);
            for (int c = 0; c < 3; ++c) p[c] = cv::saturate_cast<uchar>(base[c] * (1.0 - g * 0.6) + dark[c] * g * 0.6);
        }
    }
    return out;
}

cv::Mat cloth(cv::RNG& rng, cv::Size size) {
    static constexpr double kHues[] = {120, 140, 210, 230, 0, 350, 30, 270, 0};
    const double hue = kHues[rng.uniform(0, 9)];
    const bool grey = rng.uniform(0.0, 1.0) < 0.25;
    const cv::Vec3b base = hsvColour(hue, grey ? 0.05 : rng.uniform(0.3, 0.8), rng.uniform(0.2, 0.7)).at<cv::Vec3b>(0);
    cv::Mat noise(size, CV_32F);
    rng.fill(noise, cv::RNG::NORMAL, 0.0, 1.0);
    cv::GaussianBlur(noise, noise, {0, 0}, rng.uniform(0.6, 1.5));
    const cv::Mat mottled = smoothNoise(rng, size, std::max(4, size.width / 80), std::max(4, size.height / 80));
    const double weave = rng.uniform(0.0, 1.0) < 0.5 ? rng.uniform(2.5, 6.0) : 0.0;
    cv::Mat out(size, CV_8UC3);
    for (int y = 0; y < size.height; ++y) {
        for (int x = 0; x < size.width; ++x) {
            double g = 1.0 + noise.at<float>(y, x) * 0.12 + (mottled.at<float>(y, x) - 0.5) * 0.15;
            if (weave > 0) g += 0.05 * std::sin(x * 6.283 / weave) * std::sin(y * 6.283 / weave);
            cv::Vec3b& p = out.at<cv::Vec3b>(y, x);
            for (int c = 0; c < 3; ++c) p[c] = cv::saturate_cast<uchar>(base[c] * g);
        }
    }
    return out;
}

cv::Mat whiteTable(cv::RNG& rng, cv::Size size) {
    const double v = rng.uniform(200.0, 245.0);
    const cv::Scalar tint(v * rng.uniform(0.93, 1.0), v * rng.uniform(0.96, 1.0), v * rng.uniform(0.96, 1.02));
    cv::Mat out(size, CV_8UC3, tint);
    cv::Mat noise(size, CV_8UC3);
    rng.fill(noise, cv::RNG::NORMAL, 0.0, 3.0);
    cv::Mat speckle = smoothNoise(rng, size, std::max(4, size.width / 40), std::max(4, size.height / 40));
    cv::Mat speckle3;
    cv::cvtColor(speckle * 14.0, speckle3, cv::COLOR_GRAY2BGR);
    speckle3.convertTo(speckle3, CV_8UC3);
    cv::subtract(out, speckle3, out);
    cv::add(out, noise, out);
    return out;
}

cv::Mat photo(cv::RNG& rng, cv::Size size, const std::filesystem::path& file) {
    cv::Mat img = cv::imread(file.string(), cv::IMREAD_COLOR);
    if (img.empty()) return {};
    const double scale = std::max(double(size.width) / img.cols, double(size.height) / img.rows) * rng.uniform(1.0, 1.6);
    cv::resize(img, img, {}, scale, scale, cv::INTER_AREA);
    const int x = rng.uniform(0, img.cols - size.width + 1), y = rng.uniform(0, img.rows - size.height + 1);
    return img(cv::Rect(x, y, size.width, size.height)).clone();
}

}  // namespace

cv::Mat plainCloth(cv::RNG& rng, cv::Size size) {
    const bool felt = rng.uniform(0.0, 1.0) < 0.5;  // green felt, else any colour
    const cv::Vec3b base = felt ? hsvColour(rng.uniform(95.0, 150.0), rng.uniform(0.4, 0.9), rng.uniform(0.2, 0.6)).at<cv::Vec3b>(0)
                                : hsvColour(rng.uniform(0.0, 360.0), rng.uniform(0.0, 0.8), rng.uniform(0.1, 0.9)).at<cv::Vec3b>(0);
    cv::Mat img(size, CV_8UC3, cv::Scalar(base[0], base[1], base[2]));
    cv::Mat grain(size, CV_8UC3);
    const int amp = rng.uniform(2, 14);
    rng.fill(grain, cv::RNG::UNIFORM, 0, amp);
    img += grain;
    img -= cv::Scalar::all(amp / 2);
    return img;
}

cv::Mat makeTable(cv::RNG& rng, cv::Size size, const std::vector<std::filesystem::path>& photos, double photoShare) {
    int kind = 0;
    if (photoShare >= 0.0 && !photos.empty()) {
        kind = rng.uniform(0.0, 1.0) < photoShare ? 3 : rng.uniform(0, 3);
    } else {
        kind = rng.uniform(0, photos.empty() ? 3 : 4);
    }
    if (kind == 3) {
        cv::Mat p = photo(rng, size, photos[std::size_t(rng.uniform(0, int(photos.size())))]);
        if (!p.empty()) return p;
    }
    if (kind == 0) return wood(rng, size);
    if (kind == 1) return cloth(rng, size);
    return whiteTable(rng, size);
}

}  // namespace nertz::synth
