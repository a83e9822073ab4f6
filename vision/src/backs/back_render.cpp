// Rendered back pictures; see back_render.hpp.
#include "nertz/vision/back_render.hpp"

#include <algorithm>
#include <cmath>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace nertz::vision {

namespace {

constexpr double kPi = 3.14159265358979323846;

// A plain table: a base colour with a soft light gradient and fine grain.
cv::Mat plainTable(cv::RNG& rng, cv::Size size) {
    cv::Mat hsv(1, 1, CV_8UC3,
                cv::Scalar(rng.uniform(0, 180), rng.uniform(20, 160), rng.uniform(60, 200)));
    cv::Mat one;
    cv::cvtColor(hsv, one, cv::COLOR_HSV2BGR);
    cv::Mat table(
        size, CV_32FC3,
        cv::Scalar(one.at<cv::Vec3b>(0)[0], one.at<cv::Vec3b>(0)[1], one.at<cv::Vec3b>(0)[2]));
    cv::Mat gain(2, 2, CV_32F);
    rng.fill(gain, cv::RNG::UNIFORM, 0.75, 1.1);
    cv::resize(gain, gain, size, 0, 0, cv::INTER_LINEAR);
    std::vector<cv::Mat> ch;
    cv::split(table, ch);
    for (auto& c : ch) c = c.mul(gain);
    cv::merge(ch, table);
    cv::Mat grain(size, CV_32FC3);
    rng.fill(grain, cv::RNG::NORMAL, 0, 6);
    cv::GaussianBlur(grain, grain, cv::Size(0, 0), 1.5);
    table += grain;
    cv::Mat out;
    table.convertTo(out, CV_8UC3);
    return out;
}

void addNoise(cv::RNG& rng, cv::Mat& img, double sigma) {
    cv::Mat n(img.size(), CV_16SC3);
    rng.fill(n, cv::RNG::NORMAL, 0, sigma);
    cv::Mat s;
    img.convertTo(s, CV_16SC3);
    s += n;
    s.convertTo(img, CV_8UC3);
}

// The corners of a card of height `h` centred at `c`, turned by `a` radians.
Quad cardPose(cv::Point2f c, float h, float aspect, float a) {
    const float w = h / aspect;
    const cv::Point2f u(std::cos(a), std::sin(a)), v(-std::sin(a), std::cos(a));
    return {c - u * (w / 2) - v * (h / 2), c + u * (w / 2) - v * (h / 2),
            c + u * (w / 2) + v * (h / 2), c - u * (w / 2) + v * (h / 2)};
}

// A hand reaching from the bottom edge to `tip`: a palm, a forearm and a few fingers in skin tone.
void drawHand(cv::RNG& rng, cv::Mat& img, cv::Point2f tip, float scale) {
    cv::Mat hsv(1, 1, CV_8UC3,
                cv::Scalar(rng.uniform(5, 20), rng.uniform(70, 140), rng.uniform(120, 230)));
    cv::Mat one;
    cv::cvtColor(hsv, one, cv::COLOR_HSV2BGR);
    const cv::Scalar skin(one.at<cv::Vec3b>(0)[0], one.at<cv::Vec3b>(0)[1],
                          one.at<cv::Vec3b>(0)[2]);
    const cv::Point2f palm = tip + cv::Point2f(0, scale * 0.5f);
    cv::line(img, palm, cv::Point2f(palm.x + scale * 0.3f, float(img.rows + scale)), skin,
             int(scale * 0.7f), cv::LINE_AA);
    cv::ellipse(img, cv::RotatedRect(palm, cv::Size2f(scale * 0.9f, scale * 1.0f), 0.f), skin,
                cv::FILLED, cv::LINE_AA);
    for (int f = 0; f < 4; ++f) {
        const cv::Point2f base = palm + cv::Point2f((f - 1.5f) * scale * 0.2f, -scale * 0.3f);
        cv::line(img, base, base + cv::Point2f((f - 1.5f) * scale * 0.08f, -scale * 0.55f), skin,
                 std::max(3, int(scale * 0.15f)), cv::LINE_AA);
    }
}

}  // namespace

void drawCard(cv::Mat& dst, const cv::Mat& back, const Quad& quad) {
    CV_Assert(back.type() == CV_8UC4 && dst.type() == CV_8UC3);
    const std::array<cv::Point2f, 4> src{cv::Point2f(0, 0), cv::Point2f(float(back.cols), 0),
                                         cv::Point2f(float(back.cols), float(back.rows)),
                                         cv::Point2f(0, float(back.rows))};
    const cv::Rect roi = cv::boundingRect(std::vector<cv::Point2f>(quad.begin(), quad.end())) &
                         cv::Rect(0, 0, dst.cols, dst.rows);
    if (roi.area() <= 0) return;
    std::array<cv::Point2f, 4> q;
    for (int i = 0; i < 4; ++i)
        q[std::size_t(i)] = quad[std::size_t(i)] - cv::Point2f(float(roi.x), float(roi.y));
    const cv::Mat h = cv::getPerspectiveTransform(src.data(), q.data());
    cv::Mat warped;
    cv::warpPerspective(back, warped, h, roi.size(), cv::INTER_AREA, cv::BORDER_CONSTANT,
                        cv::Scalar::all(0));
    cv::Mat region = dst(roi);
    for (int y = 0; y < roi.height; ++y) {
        const cv::Vec4b* s = warped.ptr<cv::Vec4b>(y);
        cv::Vec3b* d = region.ptr<cv::Vec3b>(y);
        for (int x = 0; x < roi.width; ++x) {
            const int a = s[x][3];
            if (a == 0) continue;
            for (int k = 0; k < 3; ++k)
                d[x][k] = cv::saturate_cast<uchar>((s[x][k] * a + d[x][k] * (255 - a)) / 255);
        }
    }
}

RenderedView renderEnrolmentView(const cv::Mat& back, std::uint64_t seed, cv::Size size) {
    cv::RNG rng(seed * 2654435761u + 17);
    RenderedView v;
    v.image = plainTable(rng, size);
    const float h = float(size.height) * float(rng.uniform(0.55, 0.75));
    const float aspect = float(back.rows) / float(back.cols);
    v.quad = cardPose(
        {size.width * 0.5f + float(rng.uniform(-0.05, 0.05)) * size.width, size.height * 0.5f}, h,
        aspect, float(rng.uniform(-0.25, 0.25)));
    // a phone held a little off vertical: corners moved by up to 3% of the card
    for (auto& p : v.quad)
        p += cv::Point2f(float(rng.uniform(-0.03, 0.03)) * h, float(rng.uniform(-0.03, 0.03)) * h);
    drawCard(v.image, back, v.quad);
    cv::GaussianBlur(v.image, v.image, cv::Size(0, 0), rng.uniform(0.3, 0.9));
    addNoise(rng, v.image, 3.0);
    std::vector<uchar> jpg;
    cv::imencode(".jpg", v.image, jpg, {cv::IMWRITE_JPEG_QUALITY, 85});
    v.image = cv::imdecode(jpg, cv::IMREAD_COLOR);
    return v;
}

namespace {

// A camera's flicker and sensor noise on a finished frame.
void cameraLook(cv::RNG& rng, cv::Mat& frame, float noise) {
    frame.convertTo(frame, CV_8UC3, rng.uniform(0.985, 1.015));
    addNoise(rng, frame, noise);
}

DealClip renderThroughClip(const std::vector<cv::Mat>& backs, cv::RNG& rng,
                           const DealClipOptions& o) {
    DealClip clip;
    const cv::Mat table = plainTable(rng, o.size);
    const float h = float(o.size.height) * float(rng.uniform(0.28, 0.4));
    // one path for the clip: across the longer side, either way, a little aslant
    const bool across = o.size.width >= o.size.height;
    const float sign = rng.uniform(0, 2) == 0 ? 1.f : -1.f;
    const cv::Point2f mid(o.size.width * float(rng.uniform(0.4, 0.6)),
                          o.size.height * float(rng.uniform(0.4, 0.6)));
    cv::Point2f dir = across ? cv::Point2f(sign, float(rng.uniform(-0.15, 0.15)))
                             : cv::Point2f(float(rng.uniform(-0.15, 0.15)), sign);
    dir *= 1.f / std::hypot(dir.x, dir.y);
    // from just outside one edge to just outside the other (the card's half diagonal beyond)
    const float half =
        0.5f * float(across ? o.size.width : o.size.height) / std::abs(across ? dir.x : dir.y) +
        h * 0.75f;
    const cv::Point2f entry = mid - dir * half, exit = mid + dir * half;
    const int cross = std::max(2, o.crossFrames);
    const float exposure = std::clamp(o.exposure, 0.f, 1.f);
    const float smearPx = float(cv::norm(exit - entry)) / float(cross) * exposure;
    struct Flight {
        int deck, start;
        float angle, spin, offset;
    };
    std::vector<Flight> flights;
    for (int i = 0; i < o.cards; ++i) {
        const int deck = rng.uniform(0, int(backs.size()));
        clip.decks.push_back(deck);
        flights.push_back({deck, i * o.framesPerCard, float(rng.uniform(-0.35, 0.35)),
                           float(rng.uniform(-0.02, 0.02)), float(rng.uniform(-0.06, 0.06)) * h});
    }
    // now and then a hand reaches in from the bottom edge and back, carrying nothing
    std::vector<int> reaches;
    if (o.hands)
        for (int t = 7; t < o.cards * o.framesPerCard; t += 25 + rng.uniform(0, 20))
            reaches.push_back(t);
    const int total =
        (o.cards - 1) * o.framesPerCard + cross + 4;  // the last one gone, the view at rest
    const cv::Point2f across90(-dir.y, dir.x);
    // the exposure: each card drawn at instants of it 2 px apart (at least seven), averaged
    const int instants = std::clamp(int(std::ceil(smearPx / 2.f)) + 1, 7, 48);
    cv::Mat f, acc;
    for (int t = 0; t < total; ++t) {
        if (o.stopAfterFrames >= 0 && t >= o.stopAfterFrames) break;
        acc = cv::Mat::zeros(o.size, CV_32FC3);
        for (int sub = 0; sub < instants; ++sub) {
            table.copyTo(f);
            const float when = float(t) + (float(sub) / float(instants - 1) - 0.5f) * exposure;
            for (const Flight& fl : flights) {
                const float u = (when - float(fl.start)) / float(cross);
                if (u < 0.f || u > 1.f) continue;
                const cv::Point2f c = entry + (exit - entry) * u + across90 * fl.offset;
                const cv::Mat& back = backs[std::size_t(fl.deck)];
                drawCard(f, back,
                         cardPose(c, h, float(back.rows) / float(back.cols),
                                  fl.angle + fl.spin * (when - float(fl.start))));
            }
            for (int r : reaches) {
                const int k = t - r;
                if (k < 0 || k > 3) continue;
                const float reach =
                    (k < 2 ? float(k + 1) : float(4 - k)) / 2.f;  // in, in, out, out
                const cv::Point2f tip(
                    o.size.width * (0.2f + 0.6f * float((r * 7919) % 100) / 100.f),
                    float(o.size.height) * (1.f - 0.35f * reach));
                cv::RNG skin(std::uint64_t(r) * 104729u + 3);
                drawHand(skin, f, tip, h * 0.8f);
            }
            cv::accumulate(f, acc);
        }
        cv::Mat frame;
        acc.convertTo(frame, CV_8UC3, 1.0 / instants);
        cameraLook(rng, frame, o.noise);
        clip.frames.push_back(frame);
    }
    return clip;
}

}  // namespace

DealClip renderDealClip(const std::vector<cv::Mat>& backs, std::uint64_t seed,
                        const DealClipOptions& o) {
    CV_Assert(!backs.empty());
    cv::RNG rng(seed * 6364136223846793005ull + 1442695040888963407ull);
    if (o.through) return renderThroughClip(backs, rng, o);
    DealClip clip;
    cv::Mat table = plainTable(rng, o.size);
    const float h = float(o.size.height) * float(rng.uniform(0.28, 0.4));
    const cv::Point2f spot(o.size.width * float(rng.uniform(0.4, 0.6)),
                           o.size.height * float(rng.uniform(0.45, 0.55)));
    const float baseAngle = float(rng.uniform(-0.4, 0.4));
    const int moving = std::min(2, o.framesPerCard - 1);
    for (int i = 0; i < o.cards; ++i) {
        if (o.emptyPasses > 0.f && rng.uniform(0.f, 1.f) < o.emptyPasses) {
            // a hand over the pile and away again, nothing laid
            const cv::Point2f over = spot + cv::Point2f(float(rng.uniform(-0.2, 0.2)) * h,
                                                        float(rng.uniform(0.0, 0.4)) * h);
            const std::uint64_t skinSeed = std::uint64_t(rng.next());
            for (int f = 0; f < o.framesPerCard; ++f) {
                if (o.stopAfterFrames >= 0 && int(clip.frames.size()) >= o.stopAfterFrames) return clip;
                cv::Mat frame = table.clone();
                if (f < moving) {  // one hand, in and out
                    cv::RNG skin(skinSeed);
                    const float reach = float(f + 1) / float(moving);
                    const cv::Point2f tip(over.x, float(o.size.height) + (over.y - float(o.size.height)) * reach);
                    drawHand(skin, frame, tip, h * 0.8f);
                }
                cameraLook(rng, frame, o.noise);
                clip.frames.push_back(frame);
            }
        }
        const int deck = rng.uniform(0, int(backs.size()));
        clip.decks.push_back(deck);
        const cv::Mat& back = backs[std::size_t(deck)];
        const float aspect = float(back.rows) / float(back.cols);
        const cv::Point2f rest = spot + cv::Point2f(float(rng.uniform(-0.08, 0.08)) * h,
                                                    float(rng.uniform(-0.08, 0.08)) * h);
        const float angle = baseAngle + float(rng.uniform(-0.2, 0.2));
        const cv::Point2f from(rest.x + float(rng.uniform(-0.3, 0.3)) * h,
                               float(o.size.height) + h * 0.6f);
        for (int f = 0; f < o.framesPerCard; ++f) {
            if (o.stopAfterFrames >= 0 && int(clip.frames.size()) >= o.stopAfterFrames) return clip;
            cv::Mat frame = table.clone();
            if (f < moving) {
                const float t = float(f + 1) / float(moving + 1);
                const cv::Point2f c = from + (rest - from) * t;
                drawCard(frame, back, cardPose(c, h, aspect, angle + (1 - t) * 0.3f));
                if (o.hands) drawHand(rng, frame, c + cv::Point2f(0, h * 0.25f), h * 0.8f);
            } else {
                if (f == moving)
                    drawCard(table, back, cardPose(rest, h, aspect, angle));  // it lands
                frame = table.clone();
            }
            cameraLook(rng, frame, o.noise);  // light flicker and sensor noise
            clip.frames.push_back(frame);
        }
    }
    return clip;
}

}  // namespace nertz::vision
