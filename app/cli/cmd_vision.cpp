// nertzref-cli detect / eval: cards in pictures, and card-level scoring on labelled folders.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "nertz/io/json.hpp"
#include "nertz/scoring/error.hpp"
#include "nertz/vision.hpp"
#include "vision_cli.hpp"

namespace nertz::cli {
namespace {

using nlohmann::json;

struct VisionOptions {
    std::vector<std::string> images;
    std::string dir;
    std::string modelDir;
    bool json = false;
    float minConfidence = vision::DetectorOptions{}.minConfidence;
    float gateThreshold = vision::DetectorOptions{}.gateThreshold;
    int workSize = vision::DetectorOptions{}.workMaxSide;
    int workMinSize = vision::DetectorOptions{}.workMinSide;
    int limit = 0;
    bool noIndexOutlines = false;
    bool noEdgeOutlines = false;
    bool noInkSuits = false;
    bool noColumnSuits = false;
    float pairConfidence = vision::DetectorOptions{}.pairConfidence;
    bool asGiven = false;
    float aspectExtras = vision::DetectorOptions{}.aspectExtraConfidence;
    bool noExtraScales = false;
    std::vector<double> extraScales = vision::DetectorOptions::stillPicture().extraScales;
    float smallIndices = vision::DetectorOptions::stillPicture().smallIndexHeight;
    float recut = vision::DetectorOptions::stillPicture().recutConfidence;
    float recutShift = vision::DetectorOptions{}.recutShift;
    float recutZoom = vision::DetectorOptions{}.recutZoom;
    float recutTurn = vision::DetectorOptions{}.recutTurn;
    int recutAgree = vision::DetectorOptions{}.recutAgree;
    float outlineCorners = vision::DetectorOptions::stillPicture().outlineCornerConfidence;
};

std::unique_ptr<vision::Detector> makeDetector(const VisionOptions& o) {
    vision::DetectorOptions opts;
    opts.modelDir = o.modelDir;
    opts.minConfidence = o.minConfidence;
    opts.gateThreshold = o.gateThreshold;
    opts.workMaxSide = o.workSize;
    opts.workMinSide = o.workMinSize;
    opts.outlinesFromIndices = !o.noIndexOutlines;
    opts.edgeOutlines = !o.noEdgeOutlines && vision::DetectorOptions::stillPicture().edgeOutlines;
    opts.suitFromInk = !o.noInkSuits;
    opts.blackSuitFromIndexColumn = !o.noColumnSuits;
    opts.pairConfidence = o.pairConfidence;
    opts.squareAspects = !o.asGiven;
    opts.aspectExtraConfidence = o.aspectExtras;
    if (!o.noExtraScales) opts.extraScales = o.extraScales;
    opts.smallIndexHeight = o.smallIndices;
    opts.recutConfidence = o.recut;
    opts.recutShift = o.recutShift;
    opts.recutZoom = o.recutZoom;
    opts.recutTurn = o.recutTurn;
    opts.recutAgree = o.recutAgree;
    opts.outlineCornerConfidence = o.outlineCorners;
    try {
        return std::make_unique<vision::Detector>(opts);
    } catch (const vision::ModelError& e) {
        throw scoring::InputError("--models", e.what());
    }
}

json toJson(const std::string& name, const vision::Detection& d) {
    json cards = json::array();
    for (const auto& c : d.cards) {
        json jc;
        if (c.quad) {
            jc["quad"] = quadJson(*c.quad);
        } else {
            jc["quad"] = nullptr;
        }
        jc["side"] = c.side == vision::Side::Face ? "face" : "back";
        jc["face"] = c.face ? json(c.face->name()) : json(nullptr);
        jc["confidence"] = std::round(double(c.confidence) * 1000) / 1000;
        jc["indices"] = json::array();
        for (const auto& i : c.indices)
            jc["indices"].push_back({{"box",
                                      {std::round(i.box.x), std::round(i.box.y),
                                       std::round(i.box.width), std::round(i.box.height)}},
                                     {"face", i.face.name()},
                                     {"confidence", std::round(double(i.confidence) * 1000) / 1000}});
        cards.push_back(jc);
    }
    return {{"image", name},
            {"width", d.width},
            {"height", d.height},
            {"ms", std::round(d.ms * 10) / 10},
            {"cards", cards}};
}

double percentile(std::vector<double> v, double q) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    double pos = q * (v.size() - 1);
    std::size_t i = std::size_t(pos);
    return i + 1 < v.size() ? v[i] + (v[i + 1] - v[i]) * (pos - i) : v[i];
}

void runDetect(const VisionOptions& o) {
    auto detector = makeDetector(o);
    int failures = 0;
    for (const std::string& path : o.images) {
        vision::Detection d;
        try {
            d = detector->detect(vision::loadImage(path));
        } catch (const vision::ImageError& e) {
            std::cerr << "nertzref-cli: " << e.what() << "\n";
            ++failures;
            continue;
        }
        if (o.json) {
            std::cout << io::dumpJson(toJson(path, d)) << "\n";
        } else {
            int faces = 0;
            for (const auto& c : d.cards) faces += c.face ? 1 : 0;
            std::cout << path << ": " << d.width << "x" << d.height << ", " << d.cards.size()
                      << " cards (" << faces << " read), " << std::fixed << std::setprecision(1)
                      << d.ms << " ms\n";
            for (const auto& c : d.cards) {
                std::cout << "  " << (c.face ? c.face->name() : std::string("?")) << "  "
                          << (c.side == vision::Side::Face ? "face" : "back") << "  conf "
                          << std::setprecision(2) << c.confidence << "  corners read "
                          << c.indices.size() << (c.quad ? "  outline" : "") << "\n";
            }
        }
        std::cout.flush();
    }
    if (failures)
        throw scoring::InputError("IMAGE", std::to_string(failures) + " of " +
                                               std::to_string(o.images.size()) +
                                               " pictures could not be read");
}

// One labelled card of a picture of a synthetic set (cards/NAME.json beside images/NAME.*): its
// outline, and the design and face of a face-up card with a corner index in view (to split recall
// by design; design empty where the file names none).
struct LabelledCard {
    vision::LabelledOutline outline;
    std::string design, face;
    bool indexInView = false;
};

// The labelled cards of a picture of a synthetic set, or nothing when the picture has none (the
// real photos).
std::optional<std::vector<LabelledCard>> labelledCards(const std::string& imagePath) {
    const std::filesystem::path image(imagePath);
    const std::filesystem::path file =
        image.parent_path().parent_path() / "cards" / (image.stem().string() + ".json");
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
    const io::Json j = io::readJsonFile(file.string());  // names the file when it can't be read
    std::vector<LabelledCard> out;
    try {
        for (const auto& c : j.at("cards")) {
            LabelledCard card;
            vision::LabelledOutline& o = card.outline;
            for (std::size_t k = 0; k < 4; ++k)
                o.quad[k] = {c.at("quad").at(k).at(0).get<float>(),
                             c.at("quad").at(k).at(1).get<float>()};
            o.faceUp = c.at("side").get<std::string>() == "face";
            if (c.contains("indices"))
                for (const auto& i : c.at("indices"))
                    card.indexInView = card.indexInView || i.value("visible", false);
            o.counts = o.faceUp && card.indexInView && c.at("visible_fraction").get<double>() >= 0.5;
            card.design = c.value("design", std::string());
            card.face = c.value("face", std::string());
            out.push_back(std::move(card));
        }
    } catch (const std::exception& e) {
        throw scoring::InputError("DIR", file.string() + ": not a scene file of 'nertzref-cli synth' (" +
                                             io::withoutJsonTag(e.what()) + ")");
    }
    return out;
}

// Face-up cards with a corner index in view, per design, and those whose face was reported (a
// synthetic scene may deal a face twice, from two decks: both count as read when it is reported).
struct DesignRecall {
    long cards = 0, read = 0;
    double recall() const { return cards ? double(read) / double(cards) : 1.0; }
};

void runEval(const VisionOptions& o) {
    std::vector<vision::LabelledImage> items;
    try {
        items = vision::loadLabelledFolder(o.dir);
    } catch (const std::exception& e) {
        throw scoring::InputError("DIR", e.what());
    }
    if (o.limit > 0 && int(items.size()) > o.limit) items.resize(o.limit);
    auto detector = makeDetector(o);
    std::map<std::string, vision::CardScore> scores;  // "" = all pictures
    std::map<std::string, long> confusions;
    std::map<scoring::Suit, vision::CardScore> bySuit;  // all pictures
    std::vector<double> ms;
    std::size_t done = 0;
    // one deck a picture (the real-cards README): a face reported as two or more cards is one card
    // counted twice (its two corners not grouped) or a misreading repeated
    long extraCards = 0, picturesWithExtra = 0;
    // cards read only by two unsure corners taken together (DetectorOptions::pairConfidence), and
    // how many of those are right
    long pairedCards = 0, pairedRight = 0;
    vision::OutlineScore outlines;
    bool anyOutlineLabels = false;
    std::map<std::string, DesignRecall> byDesign;  // synthetic sets only
    for (const auto& item : items) {
        std::set<scoring::Card> predicted;
        try {
            vision::Detection d = detector->detect(vision::loadImage(item.imagePath));
            ms.push_back(d.ms);
            long reported = 0;
            for (const auto& c : d.cards)
                if (c.face) {
                    predicted.insert(*c.face);
                    ++reported;
                    if (!c.indices.empty() &&
                        std::all_of(c.indices.begin(), c.indices.end(),
                                    [](const vision::IndexReading& r) { return r.paired; })) {
                        ++pairedCards;
                        pairedRight += item.truth.count(*c.face) ? 1 : 0;
                    }
                }
            extraCards += reported - long(predicted.size());
            if (const auto labelled = labelledCards(item.imagePath)) {
                anyOutlineLabels = true;
                std::vector<vision::LabelledOutline> truth;
                std::set<std::string> names;
                for (const auto& c : predicted) names.insert(c.name());
                for (const auto& c : *labelled) {
                    truth.push_back(c.outline);
                    if (!c.outline.faceUp || !c.indexInView || c.design.empty()) continue;
                    DesignRecall& r = byDesign[c.design];
                    ++r.cards;
                    r.read += names.count(c.face) ? 1 : 0;
                }
                std::vector<vision::Quad> quads;
                for (const auto& c : d.cards)
                    if (c.quad) quads.push_back(*c.quad);
                vision::scoreOutlines(truth, quads, outlines);
            }
            picturesWithExtra += reported > long(predicted.size()) ? 1 : 0;
        } catch (const vision::ImageError& e) {
            std::cerr << "nertzref-cli: " << e.what() << " (counted as no cards found)\n";
        }
        vision::scoreImage(item.truth, predicted, scores[""], confusions);
        vision::scoreBySuit(item.truth, predicted, bySuit);
        if (!item.group.empty()) {
            std::map<std::string, long> ignore;
            vision::scoreImage(item.truth, predicted, scores[item.group], ignore);
        }
        if (++done % 25 == 0) std::cerr << "eval: " << done << "/" << items.size() << " pictures\n";
    }
    std::vector<std::pair<std::string, long>> top(confusions.begin(), confusions.end());
    std::stable_sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.second > b.second; });
    if (top.size() > 20) top.resize(20);
    auto scoreJson = [](const vision::CardScore& s) {
        return json{{"tp", s.truePositives},  {"fp", s.falsePositives},
                    {"fn", s.falseNegatives}, {"precision", s.precision()},
                    {"recall", s.recall()},   {"f1", s.f1()}};
    };
    if (o.json) {
        json j{{"dir", o.dir},
               {"images", items.size()},
               {"all", scoreJson(scores[""])},
               {"ms_median", percentile(ms, 0.5)},
               {"ms_p95", percentile(ms, 0.95)},
               {"extra_same_face_cards", extraCards},
               {"pictures_with_extra", picturesWithExtra},
               {"paired_cards", {{"cards", pairedCards}, {"right", pairedRight}}}};
        if (anyOutlineLabels)
            j["outlines"] = {{"cards", outlines.cards},       {"outlined", outlines.outlined},
                             {"recall", outlines.recall()},   {"reported", outlines.reported},
                             {"on_a_card", outlines.onACard}, {"precision", outlines.precision()}};
        json groups = json::object();
        for (auto& [g, s] : scores)
            if (!g.empty()) groups[g] = scoreJson(s);
        j["groups"] = groups;
        json suits = json::object();
        for (auto& [suit, s] : bySuit)
            suits[std::string(1, scoring::suitLetter(suit))] = scoreJson(s);
        j["suits"] = suits;
        if (!byDesign.empty()) {
            json designs = json::object();
            for (const auto& [name, r] : byDesign)
                designs[name] = {{"cards", r.cards}, {"read", r.read}, {"recall", r.recall()}};
            j["designs"] = designs;
        }
        j["confusions"] = json::array();
        for (auto& [k, v] : top) j["confusions"].push_back({{"what", k}, {"count", v}});
        std::cout << io::dumpJson(j) << "\n";
        return;
    }
    std::cout << std::fixed << std::setprecision(3);
    auto line = [&](const std::string& name, const vision::CardScore& s) {
        std::cout << std::left << std::setw(18) << name << std::right << " precision "
                  << s.precision() << "  recall " << s.recall() << "  F1 " << s.f1() << "   (tp "
                  << s.truePositives << ", fp " << s.falsePositives << ", fn " << s.falseNegatives
                  << ")\n";
    };
    std::cout << o.dir << ": " << items.size() << " pictures, card level\n";
    for (auto& [g, s] : scores)
        if (!g.empty()) line(g, s);
    line("all", scores[""]);
    for (auto& [suit, s] : bySuit) line(std::string("  suit ") + scoring::suitLetter(suit), s);
    if (anyOutlineLabels)
        std::cout << "outlines (IoU >= 0.7): face-up cards half showing with an index in view "
                  << outlines.cards << ", outlined " << outlines.outlined << " (recall "
                  << outlines.recall() << "); outlines reported " << outlines.reported
                  << ", on a card " << outlines.onACard << " (precision " << outlines.precision()
                  << ")\n";
    if (!byDesign.empty()) {
        std::vector<std::pair<std::string, DesignRecall>> worst(byDesign.begin(), byDesign.end());
        std::stable_sort(worst.begin(), worst.end(),
                         [](auto& a, auto& b) { return a.second.recall() < b.second.recall(); });
        std::cout << "recall by design, worst first (face-up cards with an index in view, read):";
        for (const auto& [name, r] : worst)
            std::cout << "  " << name << " " << r.recall() << " (" << r.read << "/" << r.cards << ")";
        std::cout << "\n";
    }
    if (!anyOutlineLabels)  // (a synthetic scene deals several decks)
        std::cout << "same face reported as two or more cards (one deck a picture): " << extraCards
                  << " extra cards in " << picturesWithExtra << " pictures\n";
    std::cout << "read only by two unsure corners taken together: " << pairedCards << " cards, "
              << pairedRight << " of them labelled\n";
    std::cout << std::setprecision(1) << "time per picture: median " << percentile(ms, 0.5)
              << " ms, 95th percentile " << percentile(ms, 0.95) << " ms\n";
    std::cout << "top confusions:";
    if (top.empty()) std::cout << " none";
    for (auto& [k, v] : top) std::cout << "  " << k << " x" << v;
    std::cout << "\n";
}

// The detector's settings, the same for detect and eval.
void addDetectorOptions(CLI::App* cmd, VisionOptions& o) {
    cmd->add_option("--min-confidence", o.minConfidence,
                    "report corner indices read at least this sure (0..1)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--gate", o.gateThreshold,
                    "pre-filter: read only patches it rates at least this likely an index (0..1)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--work-size", o.workSize,
                    "larger pictures are shrunk to this longest side before detection (pixels)")
        ->check(CLI::Range(160, 4096));
    cmd->add_flag("--no-index-outlines", o.noIndexOutlines,
                  "outline only cards whose whole edge stands out from the table, not read cards "
                  "from where their corner indices sit (the detector before 2026-11-23, night)");
    cmd->add_flag("--no-edge-outlines", o.noEdgeOutlines,
                  "outline face-up cards by the brightness threshold only, not also by their edges "
                  "(light cards on a light table; the detector before 2026-12-02)");
    cmd->add_option("--outline-corners", o.outlineCorners,
                    "a face-up outline where no index was read is read at its two index corners, "
                    "taken where both read one face at least this sure each (1: never; the detector "
                    "before 2026-12-03)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_flag(
        "--no-ink-suits", o.noInkSuits,
        "read suits from the index alone, not also from the pip's ink colour (red: hearts "
        "or diamonds; black: clubs or spades; a lit key's glow: no card; the detector before "
        "2026-11-24)");
    cmd->add_flag(
        "--no-column-suits", o.noColumnSuits,
        "read a black index's suit (clubs or spades) from its patch stretched over all of "
        "it only, not again stretched over the index's own column (the detector before "
        "2026-11-24, seventh session)");
    cmd->add_option("--pair-confidence", o.pairConfidence,
                    "two unsure readings of one face, each at least this sure, at a card's "
                    "opposite corners are reported together (1: never; the detector before "
                    "2026-11-24, eighth session)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--small-indices", o.smallIndices,
                    "a picture whose corner indices read under this many pixels high (the median, "
                    "at the working size; or none read) is read again enlarged 2 times (0: read "
                    "once, as a live camera frame is)")
        ->check(CLI::Range(0.0, 1000.0));
    cmd->add_option("--recut", o.recut,
                    "an unsure reading at least this sure where no sure index lies is read again "
                    "from its patch cut 8 ways more (moved, zoomed, turned a little), and taken "
                    "where --recut-agree of them read its face surely (1: never, as a live camera "
                    "frame is read)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--recut-agree", o.recutAgree,
                    "--recut: how many of the 8 cuts must read the face surely")
        ->check(CLI::Range(1, 8));
    cmd->add_option("--recut-shift", o.recutShift, "--recut: the move, a share of the index's span")
        ->check(CLI::Range(0.0, 0.5));
    cmd->add_option("--recut-zoom", o.recutZoom, "--recut: the zoom, a share of the index's span")
        ->check(CLI::Range(0.0, 0.5));
    cmd->add_option("--recut-turn", o.recutTurn, "--recut: the turn, degrees")
        ->check(CLI::Range(0.0, 45.0));
    cmd->add_flag(
        "--as-given", o.asGiven,
        "read a square picture only as given, not also restored to the common camera "
        "aspects (4:3, 16:9, either way; exports squash pictures to a square), keeping the "
        "surest reading (the detector before 2026-11-24, late)");
    cmd->add_option("--aspect-extras", o.aspectExtras,
                    "a square picture read at those aspects also gets the indices another aspect "
                    "reads at least this surely where the kept one read none (1: never; the "
                    "detector before 2026-11-24, ninth session)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_flag("--no-extra-scales", o.noExtraScales,
                  "read a picture (a square one: its kept aspect) at its working size only, not "
                  "also at 1.25 and 0.75 times it adding the indices those read surely (0.9; "
                  "square: 0.95) where it read none (the detector before 2026-11-24, ninth "
                  "session)");
    cmd->add_option("--extra-scales", o.extraScales,
                    "the multiples of the working scale a picture is also read at "
                    "(comma-separated)")
        ->delimiter(',')
        ->check(CLI::Range(0.25, 4.0));
    cmd->add_option(
           "--work-min-size", o.workMinSize,
           "smaller pictures are enlarged to this longest side before detection (pixels; 0: never)")
        ->check(CLI::Range(0, 4096));
}

}  // namespace

void addVisionCommands(CLI::App& app, Context&) {
    auto opts = std::make_shared<VisionOptions>();
    auto* detect = app.add_subcommand("detect", "find cards in pictures and read their faces");
    detect->add_option("IMAGE", opts->images, "picture files")->required();
    detect->add_flag("--json", opts->json, "one JSON object per picture, one per line");
    detect->add_option("--models", opts->modelDir,
                       "folder holding the model files (default: $NERTZ_MODEL_DIR, else the source "
                       "tree's models/)");
    addDetectorOptions(detect, *opts);
    detect->callback([opts] { runDetect(*opts); });

    auto* eval = app.add_subcommand(
        "eval", "card-level precision/recall over a labelled folder (real-cards layout)");
    eval->add_option("DIR", opts->dir,
                     "folder with classes.txt, images/, labels/ (or groups of them)")
        ->required();
    eval->add_flag("--json", opts->json, "one JSON object");
    eval->add_option("--models", opts->modelDir, "folder holding the model files");
    addDetectorOptions(eval, *opts);
    eval->add_option("--limit", opts->limit, "score only the first N pictures");
    eval->callback([opts] { runEval(*opts); });
}

}  // namespace nertz::cli
