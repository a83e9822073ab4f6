// Writing scenes as YOLO labels, per-image JSON records and index crops.
#include "nertz/synth/dataset.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "nertz/scoring/error.hpp"

namespace nertz::synth {
namespace fs = std::filesystem;

namespace {

std::string num(double v, int decimals = 6) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string quoted(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

std::string pointsJson(const std::vector<cv::Point2f>& pts) {
    std::string out = "[";
    for (std::size_t i = 0; i < pts.size(); ++i) out += (i ? ", [" : "[") + num(pts[i].x, 2) + ", " + num(pts[i].y, 2) + "]";
    return out + "]";
}

void writeFile(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary);
    out << text;
    if (!out) throw scoring::InputError("out", "cannot write " + file.string());
}

}  // namespace

const std::vector<std::string>& yoloClassNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> n{"10C", "10D", "10H", "10S"};
        for (const char* r : {"2", "3", "4", "5", "6", "7", "8", "9", "A"})
            for (const char* s : {"C", "D", "H", "S"}) n.push_back(std::string(r) + s);
        n.push_back("BACK");
        n.push_back("BLACK JOKER");
        for (const char* r : {"J", "K", "Q"})
            for (const char* s : {"C", "D", "H", "S"}) n.push_back(std::string(r) + s);
        n.push_back("RED JOKER");
        return n;
    }();
    return names;
}

int yoloClassOf(const std::string& name) {
    const auto& names = yoloClassNames();
    const auto it = std::find(names.begin(), names.end(), name);
    return it == names.end() ? -1 : int(it - names.begin());
}

std::string yoloLabels(const Scene& scene) {
    const double w = scene.image.cols, h = scene.image.rows;
    const int back = yoloClassOf("BACK");
    std::ostringstream out;
    const std::vector<cv::Point2f> frame{{0, 0}, {float(w), 0}, {float(w), float(h)}, {0, float(h)}};
    for (const SceneCard& c : scene.cards) {
        if (c.faceUp) {
            const int cls = yoloClassOf(c.face);
            if (cls < 0) continue;
            for (const SceneIndex& i : c.indices) {
                if (!i.visible) continue;
                out << cls << ' ' << num((i.box.x + i.box.width / 2) / w) << ' ' << num((i.box.y + i.box.height / 2) / h) << ' '
                    << num(i.box.width / w) << ' ' << num(i.box.height / h) << '\n';
            }
        } else if (c.visibleFraction >= 0.1) {
            std::vector<cv::Point2f> clipped;
            if (cv::intersectConvexConvex(c.quad, frame, clipped, true) <= 0 || clipped.size() < 3) continue;
            // closed like the real set's polygons: the first point again at the end
            clipped.push_back(clipped.front());
            out << back;
            for (const auto& p : clipped)
                out << ' ' << num(std::clamp(p.x / w, 0.0, 1.0)) << ' ' << num(std::clamp(p.y / h, 0.0, 1.0));
            out << '\n';
        }
    }
    return out.str();
}

std::string sceneJson(const Scene& scene, const std::string& name, std::uint64_t seed) {
    std::ostringstream o;
    o << "{\n  \"image\": " << quoted("images/" + name + ".jpg") << ",\n  \"seed\": " << seed << ",\n  \"width\": " << scene.image.cols
      << ", \"height\": " << scene.image.rows << ", \"jpeg_quality\": " << scene.jpegQuality << ",\n";
    // a pile scene's pile: what it is meant to be and the fault put in it (others have no such key)
    if (scene.pile)
        o << "  \"pile\": {\"top\": " << quoted(scene.pile->top) << ", \"fault\": " << quoted(scene.pile->fault)
          << ", \"at\": " << scene.pile->at << "},\n";
    o << "  \"decks\": [";
    for (std::size_t i = 0; i < scene.decks.size(); ++i)
        o << (i ? ",\n" : "\n") << "    {\"id\": " << scene.decks[i].id << ", \"design\": " << quoted(scene.decks[i].design)
          << ", \"back\": " << quoted(scene.decks[i].back) << "}";
    o << "\n  ],\n  \"cards\": [";
    for (std::size_t i = 0; i < scene.cards.size(); ++i) {
        const SceneCard& c = scene.cards[i];
        o << (i ? ",\n" : "\n") << "    {\"face\": " << quoted(c.face) << ", \"side\": " << (c.faceUp ? "\"face\"" : "\"back\"")
          << ", \"deck\": " << c.deckId << ", \"design\": " << quoted(c.design) << ", \"back\": " << quoted(c.back)
          << ", \"visible_fraction\": " << num(c.visibleFraction, 3) << ",\n     \"quad\": " << pointsJson(c.quad) << ",\n     \"indices\": [";
        for (std::size_t k = 0; k < c.indices.size(); ++k) {
            const SceneIndex& s = c.indices[k];
            o << (k ? ", " : "") << "{\"corner\": " << quoted(s.corner) << ", \"visible\": " << (s.visible ? "true" : "false")
              << ", \"visible_fraction\": " << num(s.visibleFraction, 3) << ", \"box\": [" << num(s.box.x, 2) << ", " << num(s.box.y, 2)
              << ", " << num(s.box.width, 2) << ", " << num(s.box.height, 2) << "], \"quad\": " << pointsJson(s.quad) << "}";
        }
        o << "]}";
    }
    o << "\n  ]\n}\n";
    return o.str();
}

cv::Mat indexCrop(const cv::Mat& image, const std::vector<cv::Point2f>& quad, cv::Size size) {
    // a 15% margin around the index, as a detector's box would be
    const float m = 0.15f;
    const std::vector<cv::Point2f> dst{{size.width * m / (1 + 2 * m), size.height * m / (1 + 2 * m)},
                                       {size.width * (1 + m) / (1 + 2 * m), size.height * m / (1 + 2 * m)},
                                       {size.width * (1 + m) / (1 + 2 * m), size.height * (1 + m) / (1 + 2 * m)},
                                       {size.width * m / (1 + 2 * m), size.height * (1 + m) / (1 + 2 * m)}};
    cv::Mat out;
    cv::warpPerspective(image, out, cv::getPerspectiveTransform(quad, dst), size, cv::INTER_AREA, cv::BORDER_REPLICATE);
    return out;
}

cv::Mat previewImage(const Scene& scene, const cv::Mat& image) {
    cv::Mat out = image.clone();
    for (const SceneCard& c : scene.cards) {
        std::vector<cv::Point> q;
        for (const auto& p : c.quad) q.emplace_back(int(std::lround(p.x)), int(std::lround(p.y)));
        cv::polylines(out, q, true, c.faceUp ? cv::Scalar(255, 120, 0) : cv::Scalar(0, 140, 255), 1, cv::LINE_AA);
        for (const SceneIndex& s : c.indices) {
            cv::rectangle(out, cv::Rect(s.box), s.visible ? cv::Scalar(0, 220, 0) : cv::Scalar(0, 0, 230), 1);
            if (s.visible)
                cv::putText(out, c.face, cv::Point(int(s.box.x), int(s.box.y) - 2), cv::FONT_HERSHEY_SIMPLEX, 0.4, cv::Scalar(0, 255, 0), 1,
                            cv::LINE_AA);
        }
    }
    return out;
}

void writeDataset(const fs::path& dir, const SceneGenerator& generator, const DatasetOptions& options,
                  const std::function<void(int, int)>& progress) {
    if (options.scenes < 0) throw scoring::InputError("scenes", "must not be negative");
    std::error_code ec;
    for (const char* sub : {"images", "labels", "cards"}) fs::create_directories(dir / sub, ec);
    if (ec || !fs::is_directory(dir / "images")) throw scoring::InputError("out", "cannot create " + dir.string());
    std::string classes;
    for (const auto& n : yoloClassNames()) classes += n + "\n";
    writeFile(dir / "classes.txt", classes);
    for (int i = 0; i < options.scenes; ++i) {
        const std::uint64_t seed = options.seed * 1000003ull + std::uint64_t(i);
        char name[64];
        std::snprintf(name, sizeof name, "synth_%llu_%06d", static_cast<unsigned long long>(options.seed), i);
        const Scene scene = generator.generate(seed);
        std::vector<uchar> jpg;
        cv::imencode(".jpg", scene.image, jpg, {cv::IMWRITE_JPEG_QUALITY, scene.jpegQuality});
        writeFile(dir / "images" / (std::string(name) + ".jpg"), std::string(jpg.begin(), jpg.end()));
        writeFile(dir / "labels" / (std::string(name) + ".txt"), yoloLabels(scene));
        writeFile(dir / "cards" / (std::string(name) + ".json"), sceneJson(scene, name, seed));
        if (options.crops) {
            // crops come from the coded image, as a detector would see it
            const cv::Mat coded = cv::imdecode(jpg, cv::IMREAD_COLOR);
            int k = 0;
            for (const SceneCard& c : scene.cards) {
                if (!c.faceUp) continue;
                for (const SceneIndex& s : c.indices) {
                    if (!s.visible) continue;
                    const fs::path classDir = dir / "crops" / c.face;
                    fs::create_directories(classDir);
                    cv::imwrite((classDir / (std::string(name) + "_" + std::to_string(k++) + ".png")).string(),
                                indexCrop(coded, s.quad, options.cropSize));
                }
            }
        }
        if (options.masks) {
            fs::create_directories(dir / "masks");
            cv::Mat m;
            scene.ids.convertTo(m, CV_16U, 1.0, 2.0);  // card i -> i + 2 (hand -> 0, table -> 1: swapped)
            m.setTo(1, scene.ids == -2);
            m.setTo(0, scene.ids == -1);
            std::vector<uchar> png;
            cv::imencode(".png", m, png);
            writeFile(dir / "masks" / (std::string(name) + ".png"), std::string(png.begin(), png.end()));
        }
        if (options.previews) {
            fs::create_directories(dir / "previews");
            cv::imwrite((dir / "previews" / (std::string(name) + ".png")).string(), previewImage(scene, cv::imdecode(jpg, cv::IMREAD_COLOR)));
        }
        if (progress) progress(i + 1, options.scenes);
    }
}

}  // namespace nertz::synth
