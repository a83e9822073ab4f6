// Loading rendered card artwork, the procedural NERTZ colour deck, and back recolouring.
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "nertz/scoring/error.hpp"
#include "nertz/synth/card_art.hpp"

namespace nertz::synth {
namespace fs = std::filesystem;
namespace sc = nertz::scoring;

namespace {

const char* kRenderHint = "render the card art with models/training/render_card_art.sh (needs gnome-cards-data, "
                          "kdegames-card-data-kf5, librsvg2-bin: scripts/setup.sh)";

cv::Mat readBgra(const fs::path& file) {
    cv::Mat img = cv::imread(file.string(), cv::IMREAD_UNCHANGED);
    if (img.empty()) throw sc::InputError("cardart", "cannot read image " + file.string());
    if (img.depth() != CV_8U) img.convertTo(img, CV_8U, 1.0 / 257.0);
    if (img.channels() == 1) cv::cvtColor(img, img, cv::COLOR_GRAY2BGRA);
    if (img.channels() == 3) cv::cvtColor(img, img, cv::COLOR_BGR2BGRA);
    return img;
}

// A white card with rounded corners as BGRA: alpha 0 outside the corners, a thin grey outline.
cv::Mat blankCard(int w, int h, const cv::Scalar& paper) {
    cv::Mat card(h, w, CV_8UC4, cv::Scalar(0, 0, 0, 0));
    const int r = w / 16;
    cv::Mat shape(h, w, CV_8U, cv::Scalar(0));
    cv::rectangle(shape, cv::Rect(r, 0, w - 2 * r, h), 255, cv::FILLED);
    cv::rectangle(shape, cv::Rect(0, r, w, h - 2 * r), 255, cv::FILLED);
    for (const cv::Point c : {cv::Point(r, r), cv::Point(w - 1 - r, r), cv::Point(r, h - 1 - r), cv::Point(w - 1 - r, h - 1 - r)})
        cv::circle(shape, c, r, 255, cv::FILLED, cv::LINE_AA);
    card.setTo(cv::Scalar(paper[0], paper[1], paper[2], 255), shape);
    std::vector<std::vector<cv::Point>> contours;
    cv::findContours(shape, contours, cv::RETR_EXTERNAL, cv::CHAIN_APPROX_NONE);
    cv::drawContours(card, contours, -1, cv::Scalar(150, 150, 150, 255), 2, cv::LINE_AA);
    return card;
}

}  // namespace

bool printsNoIndex(const std::string& design, const scoring::Card& card) {
    // gnome-guyenne-classic (aisleriot's guyenne-classic.svgz): the court cards are full-height
    // portraits in a frame, with a large suit sign in the king's and jack's corner and no rank
    // letter; the queens have nothing in the corner. Its ace to ten are gnome-paris's pictures.
    return design == "gnome-guyenne-classic" && card.rank >= 11;  // jack, queen, king
}

fs::path defaultCardArtDir() {
    if (const char* env = std::getenv("NERTZ_CARDART"); env && *env) return env;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return fs::path(xdg) / "nertzref" / "cardart";
    const char* home = std::getenv("HOME");
    return fs::path(home && *home ? home : ".") / ".cache" / "nertzref" / "cardart";
}

CardDesign loadDesign(const fs::path& designDir) {
    CardDesign d;
    d.name = designDir.filename().string();
    d.package = d.name.rfind("gnome-", 0) == 0 ? "gnome-cards-data"
                : d.name.rfind("kde-", 0) == 0 ? "kdegames-card-data-kf5"
                                               : "local";
    d.faces.resize(sc::kDeckSize);
    const sc::Suit* suits = sc::suitsOf(sc::DeckKind::Standard);
    for (int s = 0; s < sc::kSuitsPerDeck; ++s) {
        for (int r = sc::kAce; r <= sc::kKing; ++r) {
            FaceArt f;
            f.card = sc::Card{r, suits[s]};
            f.name = f.card.name();
            const fs::path file = designDir / "faces" / (f.name + ".png");
            if (!fs::exists(file))
                throw sc::InputError("cardart", "design " + d.name + " lacks " + file.string() + "; " + kRenderHint);
            f.image = readBgra(file);
            // a face that prints no index gets no box: it is not searched, and borrows none below
            if (!printsNoIndex(d.name, f.card)) f.indices = findIndexRegions(f.image);
            d.faces[std::size_t(f.card.index())] = std::move(f);
        }
    }
    // faces whose index was not found borrow the design's typical box (median of the others)
    for (const std::string corner : {"top_left", "bottom_right"}) {
        std::vector<float> xs, ys, ws, hs;
        for (const auto& f : d.faces)
            for (const auto& r : f.indices)
                if (r.corner == corner) {
                    xs.push_back(r.box.x / float(f.image.cols));
                    ys.push_back(r.box.y / float(f.image.rows));
                    ws.push_back(r.box.width / float(f.image.cols));
                    hs.push_back(r.box.height / float(f.image.rows));
                }
        if (xs.size() < 8) continue;
        auto median = [](std::vector<float> v) {
            std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(v.size() / 2), v.end());
            return v[v.size() / 2];
        };
        const float mx = median(xs), my = median(ys), mw = median(ws), mh = median(hs);
        for (auto& f : d.faces) {
            if (printsNoIndex(d.name, f.card)) continue;
            const bool has = std::any_of(f.indices.begin(), f.indices.end(), [&](const IndexRegion& r) { return r.corner == corner; });
            // a box far off the design's usual place is a misreading (e.g. a court card's frame)
            std::erase_if(f.indices, [&](const IndexRegion& r) {
                return r.corner == corner && (std::abs(r.box.y / float(f.image.rows) - my) > 0.06f ||
                                              std::abs(r.box.height / float(f.image.rows) - mh) > 0.25f * mh);
            });
            const bool kept = std::any_of(f.indices.begin(), f.indices.end(), [&](const IndexRegion& r) { return r.corner == corner; });
            if (!has || !kept)
                f.indices.push_back({cv::Rect2f(mx * float(f.image.cols), my * float(f.image.rows), mw * float(f.image.cols),
                                                mh * float(f.image.rows)),
                                     corner});
        }
    }
    std::vector<fs::path> backFiles;
    if (fs::is_directory(designDir / "backs"))
        for (const auto& e : fs::directory_iterator(designDir / "backs"))
            if (e.path().extension() == ".png") backFiles.push_back(e.path());
    std::sort(backFiles.begin(), backFiles.end());
    for (const auto& file : backFiles) d.backs.push_back({file.stem().string(), readBgra(file)});
    if (d.backs.empty()) throw sc::InputError("cardart", "design " + d.name + " has no backs; " + kRenderHint);
    return d;
}

std::vector<CardDesign> loadCardArt(const fs::path& cacheDir, const std::vector<std::string>& only) {
    if (!fs::is_directory(cacheDir))
        throw sc::InputError("cardart", "no card-art cache at " + cacheDir.string() + "; " + kRenderHint);
    std::vector<fs::path> dirs;
    for (const auto& e : fs::directory_iterator(cacheDir)) {
        if (!e.is_directory() || !fs::exists(e.path() / "source.txt")) continue;
        const std::string name = e.path().filename().string();
        if (!only.empty() && std::find(only.begin(), only.end(), name) == only.end()) continue;
        dirs.push_back(e.path());
    }
    std::sort(dirs.begin(), dirs.end());
    if (dirs.empty()) throw sc::InputError("cardart", "no designs in " + cacheDir.string() + "; " + kRenderHint);
    std::vector<CardDesign> out;
    out.reserve(dirs.size());
    for (const auto& d : dirs) out.push_back(loadDesign(d));
    return out;
}

CardDesign makeNertzColourDesign() {
    CardDesign d;
    d.name = "nertz-colour";
    d.package = "procedural";
    d.kind = sc::DeckKind::NertzColour;
    const int w = 250, h = 350;
    const sc::Suit* suits = sc::suitsOf(sc::DeckKind::NertzColour);
    // ink per colour suit (BGR); white cards print a pale numeral with a dark outline
    const cv::Scalar inks[4] = {{170, 70, 20}, {40, 40, 210}, {20, 190, 235}, {245, 245, 245}};
    d.faces.resize(sc::kDeckSize);
    for (int s = 0; s < 4; ++s) {
        for (int r = 1; r <= 13; ++r) {
            FaceArt f;
            f.card = sc::Card{r, suits[s]};
            f.name = f.card.name();
            f.image = blankCard(w, h, cv::Scalar(250, 250, 250));
            const std::string text = std::to_string(r);
            const bool white = s == 3;
            auto draw = [&](const std::string& t, cv::Point org, double scale, int thick) {
                if (white) cv::putText(f.image, t, org, cv::FONT_HERSHEY_DUPLEX, scale, cv::Scalar(60, 60, 60, 255), thick + 4, cv::LINE_AA);
                cv::putText(f.image, t, org, cv::FONT_HERSHEY_DUPLEX, scale, inks[s] + cv::Scalar(0, 0, 0, 255), thick, cv::LINE_AA);
            };
            // corner index: numeral with a colour disc under it, top-left and (rotated) bottom-right
            int base = 0;
            const double scale = 1.15;
            const cv::Size ts = cv::getTextSize(text, cv::FONT_HERSHEY_DUPLEX, scale, 3, &base);
            const cv::Point org(14, 16 + ts.height);
            draw(text, org, scale, 3);
            const int pipR = 11;
            const cv::Point pip(14 + ts.width / 2, org.y + 8 + pipR);
            cv::circle(f.image, pip, pipR, white ? cv::Scalar(60, 60, 60, 255) : inks[s] + cv::Scalar(0, 0, 0, 255), cv::FILLED, cv::LINE_AA);
            if (white) cv::circle(f.image, pip, pipR - 3, inks[s] + cv::Scalar(0, 0, 0, 255), cv::FILLED, cv::LINE_AA);
            const cv::Rect tl(cv::Point(10, 12), cv::Point(std::max(14 + ts.width, pip.x + pipR) + 4, pip.y + pipR + 4));
            // big centre numeral
            const cv::Size big = cv::getTextSize(text, cv::FONT_HERSHEY_DUPLEX, 3.2, 8, &base);
            draw(text, cv::Point((w - big.width) / 2, (h + big.height) / 2), 3.2, 8);
            // bottom-right index: draw the top-left one rotated by 180 degrees
            cv::Mat rot;
            cv::rotate(f.image(tl), rot, cv::ROTATE_180);
            const cv::Rect br(w - tl.x - tl.width, h - tl.y - tl.height, tl.width, tl.height);
            rot.copyTo(f.image(br));
            f.indices = {{cv::Rect2f(tl), "top_left"}, {cv::Rect2f(br), "bottom_right"}};
            d.faces[std::size_t(f.card.index())] = std::move(f);
        }
    }
    cv::Mat back = blankCard(w, h, cv::Scalar(250, 250, 250));
    cv::Mat pattern(h, w, CV_8UC4, cv::Scalar(40, 110, 30, 255));
    for (int k = -h; k < w + h; k += 18) {
        cv::line(pattern, {k, 0}, {k + h, h}, cv::Scalar(70, 160, 60, 255), 5, cv::LINE_AA);
        cv::line(pattern, {k, h}, {k + h, 0}, cv::Scalar(30, 80, 20, 255), 3, cv::LINE_AA);
    }
    cv::putText(pattern, "NERTZ", {38, h / 2 + 22}, cv::FONT_HERSHEY_TRIPLEX, 1.9, cv::Scalar(240, 240, 240, 255), 4, cv::LINE_AA);
    const cv::Rect inner(14, 14, w - 28, h - 28);
    pattern(inner).copyTo(back(inner));
    d.backs.push_back({"back", back});
    return d;
}

void writeIndexSheet(const CardDesign& design, const fs::path& file) {
    if (!cv::imwrite(file.string(), indexSheet(design))) throw sc::InputError("index-sheets", "cannot write " + file.string());
}

namespace {

// Three colour planes and an alpha plane as one BGRA picture.
cv::Mat withAlpha(std::vector<cv::Mat> bgr, const cv::Mat& alpha) {
    bgr.push_back(alpha);
    cv::Mat out;
    cv::merge(bgr, out);
    return out;
}

}  // namespace

cv::Mat recolourBack(const cv::Mat& back, double hueDegrees) {
    CV_Assert(back.type() == CV_8UC4);
    std::vector<cv::Mat> ch;
    cv::split(back, ch);
    cv::Mat bgr, hsv;
    cv::merge(std::vector<cv::Mat>{ch[0], ch[1], ch[2]}, bgr);
    cv::cvtColor(bgr, hsv, cv::COLOR_BGR2HSV_FULL);
    std::vector<cv::Mat> hsvCh;
    cv::split(hsv, hsvCh);
    const int shift = int(std::lround(hueDegrees / 360.0 * 256.0)) & 255;
    cv::Mat lut(1, 256, CV_8U);
    for (int i = 0; i < 256; ++i) lut.at<uchar>(i) = uchar((i + shift) & 255);
    cv::LUT(hsvCh[0], lut, hsvCh[0]);
    cv::merge(hsvCh, hsv);
    cv::cvtColor(hsv, bgr, cv::COLOR_HSV2BGR_FULL);
    std::vector<cv::Mat> out;
    cv::split(bgr, out);
    return withAlpha(std::move(out), ch[3]);
}

cv::Mat plainBack(const cv::Mat& back, cv::Vec3b bgr) {
    CV_Assert(back.type() == CV_8UC4);
    cv::RNG grainRng(0x9e3779b9u ^ (std::uint64_t(bgr[0]) << 16 | std::uint64_t(bgr[1]) << 8 | bgr[2]));
    cv::Mat grain(back.size(), CV_32F);
    grainRng.fill(grain, cv::RNG::NORMAL, 0.0, 3.0);
    cv::GaussianBlur(grain, grain, {0, 0}, 1.2);
    std::vector<cv::Mat> ch(3);
    for (int c = 0; c < 3; ++c) {
        cv::Mat f = grain + double(bgr[c]);
        f.convertTo(ch[std::size_t(c)], CV_8U);
    }
    std::vector<cv::Mat> a;
    cv::split(back, a);
    return withAlpha(std::move(ch), a[3]);
}

std::string plainBackModifier(cv::Vec3b bgr) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "%02x%02x%02x", bgr[2], bgr[1], bgr[0]);
    return std::string("@plain") + hex;
}

cv::Mat fineBack(const cv::Mat& back, int times) {
    CV_Assert(back.type() == CV_8UC4 && times >= 2 && times <= 8);
    const cv::Rect middle(int(std::lround(0.08 * back.cols)), int(std::lround(0.06 * back.rows)),
                          back.cols - 2 * int(std::lround(0.08 * back.cols)),
                          back.rows - 2 * int(std::lround(0.06 * back.rows)));
    cv::Mat out = back.clone();
    if (middle.width < 2 * times || middle.height < 2 * times) return out;
    cv::Mat tile;
    cv::resize(back(middle), tile,
               cv::Size(std::max(1, middle.width / times), std::max(1, middle.height / times)), 0,
               0, cv::INTER_AREA);
    cv::Mat tiled;
    cv::repeat(tile, times + 1, times + 1, tiled);
    std::vector<cv::Mat> src, dst;
    cv::split(tiled(cv::Rect(0, 0, middle.width, middle.height)), src);
    cv::split(out, dst);
    for (int c = 0; c < 3; ++c)
        src[std::size_t(c)].copyTo(dst[std::size_t(c)](middle));  // alpha kept
    cv::merge(dst, out);
    return out;
}

cv::Mat applyBackModifiers(cv::Mat base, const std::string& modifiers) {
    std::size_t at = 0;
    while (at < modifiers.size()) {
        if (modifiers[at] != '@') throw sc::InputError("back", "bad back modifiers '" + modifiers + "'");
        const std::size_t next = std::min(modifiers.find('@', at + 1), modifiers.size());
        const std::string m = modifiers.substr(at + 1, next - at - 1);
        try {
            if (m.rfind("hue", 0) == 0) {
                base = recolourBack(base, std::stod(m.substr(3)));
            } else if (m.rfind("plain", 0) == 0 && m.size() == 11) {
                const unsigned long rgb = std::stoul(m.substr(5), nullptr, 16);
                base = plainBack(base, cv::Vec3b(uchar(rgb & 255), uchar((rgb >> 8) & 255), uchar((rgb >> 16) & 255)));
            } else if (m.rfind("fine", 0) == 0 && m.size() == 5 && m[4] >= '2' && m[4] <= '8') {
                base = fineBack(base, m[4] - '0');
            } else {
                throw sc::InputError("back", "unknown back modifier '@" + m + "'");
            }
        } catch (const std::logic_error&) {  // stod / stoul
            throw sc::InputError("back", "bad back modifier '@" + m + "'");
        }
        at = next;
    }
    return base;
}

}  // namespace nertz::synth
