// Card-level scoring of labelled folders; see evaluation.hpp.
#include "nertz/vision/evaluation.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace nertz::vision {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> readClasses(const fs::path& file) {
    std::ifstream in(file);
    if (!in) throw std::runtime_error(file.string() + ": cannot read");
    std::vector<std::string> names;
    std::string line;
    while (std::getline(in, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (!line.empty()) names.push_back(line);
    }
    return names;
}

bool isImage(const fs::path& p) {
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return e == ".jpg" || e == ".jpeg" || e == ".png" || e == ".bmp" || e == ".webp" ||
           e == ".tif" || e == ".tiff";
}

void loadGroup(const fs::path& dir, const std::string& group,
               const std::vector<std::string>& classes, std::vector<LabelledImage>& out) {
    std::vector<fs::path> images;
    for (const auto& e : fs::directory_iterator(dir / "images"))
        if (e.is_regular_file() && isImage(e.path())) images.push_back(e.path());
    std::sort(images.begin(), images.end());
    for (const fs::path& img : images) {
        LabelledImage li{img.string(), group, {}, {}};
        fs::path label = dir / "labels" / (img.stem().string() + ".txt");
        std::ifstream in(label);
        std::string line;
        int lineNo = 0;
        while (in && std::getline(in, line)) {
            ++lineNo;
            std::istringstream ls(line);
            int cls;
            if (!(ls >> cls)) {
                if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // blank line
                // a line that does not start with a class number would otherwise drop its card
                // from the truth unseen
                throw std::runtime_error(label.string() + ":" + std::to_string(lineNo) +
                                         ": not a label line (class x y w h, or class x1 y1 x2 y2 ...)");
            }
            if (cls < 0 || cls >= int(classes.size()))
                throw std::runtime_error(label.string() + ":" + std::to_string(lineNo) +
                                         ": class " + std::to_string(cls) + " not in classes.txt");
            if (classes[cls] == "BACK") {
                std::vector<float> v;
                for (float x; ls >> x;) v.push_back(x);
                std::vector<cv::Point2f> outline;
                if (v.size() == 4) {  // YOLO box: centre x, y, width, height
                    const float x0 = v[0] - v[2] / 2, x1 = v[0] + v[2] / 2;
                    const float y0 = v[1] - v[3] / 2, y1 = v[1] + v[3] / 2;
                    outline = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}};
                } else if (v.size() >= 6 && v.size() % 2 == 0) {
                    for (std::size_t k = 0; k < v.size(); k += 2)
                        outline.emplace_back(v[k], v[k + 1]);
                } else {
                    throw std::runtime_error(label.string() + ":" + std::to_string(lineNo) +
                                             ": a BACK needs a box (4 numbers) or a polygon (3 or "
                                             "more x y pairs), not " +
                                             std::to_string(v.size()) + " numbers");
                }
                li.backs.push_back(std::move(outline));
            } else if (auto card = scoring::parseCard(classes[cls], scoring::DeckKind::Standard))
                li.truth.insert(*card);
            else if (auto colour = scoring::parseCard(classes[cls], scoring::DeckKind::NertzColour))
                li.truth.insert(*colour);
        }
        out.push_back(std::move(li));
    }
}

}  // namespace

std::vector<LabelledImage> loadLabelledFolder(const std::string& dirName) {
    fs::path dir(dirName);
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) throw std::runtime_error(dirName + ": not a folder");
    auto classesFor = [&](const fs::path& d) {
        for (const fs::path& c :
             {d / "classes.txt", d.parent_path() / "classes.txt", dir / "classes.txt"})
            if (fs::is_regular_file(c, ec)) return readClasses(c);
        throw std::runtime_error(d.string() + ": no classes.txt here or in the parent folder");
    };
    std::vector<LabelledImage> out;
    if (fs::is_directory(dir / "images", ec)) {
        loadGroup(dir, "", classesFor(dir), out);
        return out;
    }
    std::vector<fs::path> groups;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_directory() && fs::is_directory(e.path() / "images", ec))
            groups.push_back(e.path());
    std::sort(groups.begin(), groups.end());
    if (groups.empty())
        throw std::runtime_error(dirName + ": no images/ folder, nor groups holding one");
    for (const fs::path& g : groups) loadGroup(g, g.filename().string(), classesFor(g), out);
    return out;
}

void scoreImage(const std::set<scoring::Card>& truth, const std::set<scoring::Card>& predicted,
                CardScore& score, std::map<std::string, long>& confusions) {
    std::vector<scoring::Card> missed, extra;
    for (const auto& c : truth)
        if (predicted.count(c))
            ++score.truePositives;
        else
            missed.push_back(c);
    for (const auto& c : predicted)
        if (!truth.count(c)) extra.push_back(c);
    score.falseNegatives += long(missed.size());
    score.falsePositives += long(extra.size());
    // pair a missed card with a wrong one of the same rank or suit first: the likely misreading
    std::vector<bool> used(extra.size(), false);
    for (const auto& m : missed) {
        int pick = -1;
        for (std::size_t i = 0; i < extra.size() && pick < 0; ++i)
            if (!used[i] && (extra[i].rank == m.rank || extra[i].suit == m.suit)) pick = int(i);
        if (pick >= 0) {
            used[pick] = true;
            ++confusions[m.name() + "->" + extra[pick].name()];
        } else {
            ++confusions["missed:" + m.name()];
        }
    }
    for (std::size_t i = 0; i < extra.size(); ++i)
        if (!used[i]) ++confusions["extra:" + extra[i].name()];
}

void scoreBySuit(const std::set<scoring::Card>& truth, const std::set<scoring::Card>& predicted,
                 std::map<scoring::Suit, CardScore>& bySuit) {
    for (const auto& c : truth) {
        CardScore& s = bySuit[c.suit];
        if (predicted.count(c))
            ++s.truePositives;
        else
            ++s.falseNegatives;
    }
    for (const auto& c : predicted)
        if (!truth.count(c)) ++bySuit[c.suit].falsePositives;
}

double quadIoU(const Quad& a, const Quad& b) {
    const std::vector<cv::Point2f> pa(a.begin(), a.end()), pb(b.begin(), b.end());
    if (!cv::isContourConvex(pa) || !cv::isContourConvex(pb)) return 0.0;
    std::vector<cv::Point2f> inter;
    const float common = cv::intersectConvexConvex(pa, pb, inter, true);
    if (common <= 0.f) return 0.0;
    const double all = cv::contourArea(pa) + cv::contourArea(pb) - double(common);
    return all > 0 ? double(common) / all : 0.0;
}

void scoreOutlines(const std::vector<LabelledOutline>& truth, const std::vector<Quad>& reported,
                   OutlineScore& score) {
    constexpr double kIoU = 0.7;
    for (const auto& t : truth) {
        if (!t.counts) continue;
        ++score.cards;
        score.outlined += std::any_of(reported.begin(), reported.end(),
                                      [&](const Quad& q) { return quadIoU(t.quad, q) >= kIoU; })
                              ? 1
                              : 0;
    }
    for (const auto& q : reported) {
        ++score.reported;
        score.onACard +=
            std::any_of(truth.begin(), truth.end(),
                        [&](const LabelledOutline& t) { return quadIoU(t.quad, q) >= kIoU; })
                ? 1
                : 0;
    }
}

}  // namespace nertz::vision
