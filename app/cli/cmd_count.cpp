// backs enroll / count / eval-count: enrol deck backs, count face-down cards by deck in a picture
// or a video, and score counting on a labelled synthetic set.
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <tuple>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "commands.hpp"
#include "vision_cli.hpp"
#include "league_db.hpp"
#include "nertz/db/database.hpp"
#include "nertz/db/players.hpp"
#include "nertz/io/json.hpp"
#include "nertz/scoring/error.hpp"
#include "nertz/scoring/referee.hpp"
#include "nertz/synth/card_art.hpp"
#include "nertz/synth/design_split.hpp"
#include "nertz/vision/back_render.hpp"
#include "nertz/vision/detector.hpp"
#include "nertz/vision/evaluation.hpp"
#include "nertz/vision/image_io.hpp"
#include "nertz/vision/lake_counter.hpp"
#include "nertz/vision/video_io.hpp"
#include "nertz/vision/stream_counter.hpp"

namespace nertz::cli {
namespace fs = std::filesystem;
namespace vi = nertz::vision;
using sc = nertz::scoring::InputError;

namespace {

bool isVideo(const fs::path& p) {
    std::string e = p.extension().string();
    std::transform(e.begin(), e.end(), e.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    return e == ".avi" || e == ".mp4" || e == ".mkv" || e == ".mov" || e == ".webm" || e == ".mjpg";
}

// `path` names a file (`kind`: what it should hold, for the message when it is a folder).
void requireFile(const std::string& path, const std::string& field, const std::string& kind) {
    if (fs::is_directory(path)) throw sc(field, path + ": a folder, not " + kind);
    if (!fs::is_regular_file(path)) throw sc(field, "no such file: " + path);
}

cv::Mat readImage(const std::string& path, const std::string& field) {
    requireFile(path, field, "a picture");
    try {
        return vi::loadImage(path);  // size limits checked before decoding; any pixel format
    } catch (const vi::ImageError& e) {
        throw sc(field, e.what());
    }
}

std::vector<std::uint8_t> readBytes(const std::string& path, const std::string& field) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw sc(field, "cannot read " + path);
    return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), {});
}

// The signature of a deck from pictures of its back: the largest face-down card in each.
// One warning of enrolling `deck`: on stderr, and into the JSON answer's "warnings".
void warnEnrolment(const std::string& deck, const std::string& message, io::Json& warnings) {
    std::cerr << "nertzref-cli: warning: " << deck << ": " << message << "\n";
    warnings.push_back(message);
}

// The card each enrolment picture was read from (its outline, and the share of it the segmenter
// saw covered), for the person enrolling to check.
struct EnrolledView {
    std::string image;
    vi::Quad quad;
    float covered = 0.f;
};

// `warnings`: a picture whose card has something on it (vision::kEnrolHidden or more hidden).
vi::BackSignature enrolFromPictures(const std::vector<std::string>& images,
                                    std::vector<std::string>& warnings,
                                    std::vector<EnrolledView>& views) {
    if (images.empty()) throw sc("IMAGE", "give at least one picture of the deck's back");
    // a few views are enough (each adds ~13 kB to the signature stored with the deck)
    if (images.size() > 5)
        throw sc("IMAGE", "give 1-5 pictures of the deck's back, not " + std::to_string(images.size()));
    vi::BackSignature sig;
    for (const auto& path : images) {
        const cv::Mat img = readImage(path, "IMAGE");
        const vi::EnrolmentReading reading = vi::findEnrolmentCard(img);
        if (!reading.card)
            throw sc("IMAGE",
                     "no card back found in " + path + " (lay one card flat, fully in view)");
        const vi::Quad& quad = reading.card->quad;
        sig.merge(vi::makeBackSignature(img, quad));
        const float hidden = vi::hiddenShare(reading.cardProbability, img.size(), quad);
        views.push_back({path, quad, hidden});
        if (hidden >= vi::kEnrolHidden)
            warnings.push_back(path + ": " + std::to_string(int(std::lround(hidden * 100))) +
                               "% of the card is covered by something that is no card back (a "
                               "finger, a hand, a face-up card): enrol again from a picture of "
                               "the card uncovered");
    }
    return sig;
}

// --back NAME=FILE options -> a matcher.
vi::BackMatcher matcherFromFiles(const std::vector<std::string>& specs) {
    vi::BackMatcher m;
    for (const auto& s : specs) {
        const auto eq = s.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
            throw sc("back", "'" + s + "' is not NAME=FILE");
        const std::string name = s.substr(0, eq), file = s.substr(eq + 1);
        try {
            m.add(name, vi::BackSignature::fromBytes(readBytes(file, "back")));
        } catch (const vi::SignatureError& e) {
            throw sc("back", file + ": " + e.what());
        }
    }
    if (m.decks().empty())
        throw sc("back",
                 "no decks to count: give --back NAME=FILE (a file written by 'backs enroll')");
    return m;
}

// Enrolled decks of the league file with a back signature; `only` (names) restricts them.
vi::BackMatcher matcherFromDb(const Context& ctx, const std::string& only) {
    std::vector<std::string> wanted;
    std::stringstream ss(only);
    for (std::string n; std::getline(ss, n, ',');)
        if (!n.empty()) wanted.push_back(n);
    auto db = openDb(ctx);
    vi::BackMatcher m;
    std::vector<std::string> found;
    for (const auto& d : db::PlayerRepo(*db).decks()) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), d.name) == wanted.end())
            continue;
        if (d.backSignature.empty()) {
            if (!wanted.empty())
                throw sc("decks", "deck '" + d.name +
                                      "' has no back enrolled: nertzref-cli deck enroll --deck " +
                                      d.name + " IMAGE");
            continue;
        }
        try {
            m.add(d.name, vi::BackSignature::fromBytes(d.backSignature));
        } catch (const vi::SignatureError& e) {
            throw sc("decks", "deck '" + d.name + "': " + e.what());
        }
        found.push_back(d.name);
    }
    for (const auto& w : wanted)
        if (std::find(found.begin(), found.end(), w) == found.end())
            throw sc("decks", "no deck called '" + w + "' in " + db->path());
    if (m.decks().empty())
        throw sc("decks",
                 "no deck with an enrolled back in " + db->path() + " (nertzref-cli deck enroll)");
    return m;
}

// An enrolment's "cards": each picture's card, as enrolFromPictures read it.
io::Json enrolledJson(const std::vector<EnrolledView>& views) {
    io::Json out = io::Json::array();
    for (const auto& v : views)
        out.push_back({{"image", v.image},
                       {"quad", quadJson(v.quad)},
                       {"covered", std::round(double(v.covered) * 1000) / 1000}});
    return out;
}

// The face reader for telling face-up cards from backs (vision I, DetectorOptions::readOnce); a
// missing model is a bad --models folder.
std::unique_ptr<vi::Detector> faceReader(const std::string& models) {
    return makeDetector(vi::DetectorOptions::readOnce(), models,
                        " (the face reader tells face-up cards from backs; --no-faces counts without it)");
}

io::Json countJson(const vi::DeckCount& c) {
    io::Json counts = io::Json::object();
    for (const auto& [name, n] : c.counts) counts[name] = n;
    io::Json cards = io::Json::array();
    for (const auto& card : c.cards) {
        io::Json j{{"quad", quadJson(card.quad)},
                   {"deck", card.deckName},
                   {"confidence", std::round(double(card.confidence) * 1000) / 1000}};
        if (!card.likely.empty()) j["likely"] = card.likely;
        if (card.lighterThanDeck) j["lighter_than_deck"] = true;
        if (card.strip) {
            j["strip"] = true;
            j["strip_share"] = std::round(double(card.stripShare) * 1000) / 1000;
        }
        if (!card.shows.empty()) j["shows"] = pointsJson(card.shows);
        if (card.hidden >= 0.01f) j["hidden"] = std::round(double(card.hidden) * 100) / 100;
        if (card.frame >= 0) j["frame"] = card.frame;
        cards.push_back(j);
    }
    return {{"counts", counts},
            {"unknown", c.unknown},
            {"cards", cards},
            {"ms", std::round(c.ms * 10) / 10}};
}

// Counts a video clip frame by frame; a clip that ends with a card in flight, or that cannot be
// read on, keeps the count so far and says so.
io::Json countVideo(const std::string& path, const vi::BackMatcher& matcher, bool spotOnly) {
    cv::VideoCapture cap;
    if (!vi::openVideoFile(cap, path))  // as the app's video source opens a clip
        throw sc("INPUT", path + ": not a video that can be read (truncated, or a format OpenCV cannot decode)");
    vi::StreamOptions options;
    options.through = !spotOnly;
    vi::StreamCounter counter(matcher, options);
    const auto t0 = std::chrono::steady_clock::now();
    cv::Mat frame;
    std::string problem;
    const double declared = cap.get(cv::CAP_PROP_FRAME_COUNT);
    while (true) {
        if (!cap.read(frame) || frame.empty()) break;
        try {
            counter.push(frame);
        } catch (const std::invalid_argument& e) {
            problem = e.what();
            break;
        }
    }
    if (counter.frames() == 0) throw sc("INPUT", "no frame could be read from " + path);
    if (problem.empty() && declared > 0 && counter.frames() < int(declared) - 1)
        problem = "the video stopped after frame " + std::to_string(counter.frames()) + " of " +
                  std::to_string(int(declared));
    if (problem.empty() && !counter.atRest())
        problem = "the clip ended while something was still moving (frame " +
                  std::to_string(counter.frames() - 1) + "): a card in flight is not counted";
    vi::DeckCount c = counter.count();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    c.ms = ms / counter.frames();
    io::Json j = countJson(c);
    j["frames"] = counter.frames();
    j["complete"] = problem.empty();
    if (!problem.empty()) j["message"] = problem + "; the count so far is kept";
    return j;
}

// --- eval-count ---

// The fields eval-count reads of a scene's JSON (written by `synth`), checked before any is used: a
// file from elsewhere, or one cut short, is named with what it lacks (it was an internal error, exit
// 1, "key 'decks' not found").
void checkSceneFile(const io::Json& s, const std::string& file) {
    auto bad = [&](const std::string& what) {
        return sc("DIR", file + ": not a scene file of 'nertzref-cli synth' (" + what + ")");
    };
    if (!s.is_object()) throw bad("not a JSON object");
    if (!s.contains("image") || !s["image"].is_string()) throw bad("no \"image\"");
    if (!s.contains("decks") || !s["decks"].is_array()) throw bad("no \"decks\" list");
    for (std::size_t k = 0; k < s["decks"].size(); ++k) {
        const io::Json& d = s["decks"][k];
        const std::string at = "decks[" + std::to_string(k) + "]";
        if (!d.is_object() || !d.contains("id") || !d["id"].is_number_integer())
            throw bad(at + " has no \"id\"");
        for (const char* key : {"design", "back"})
            if (!d.contains(key) || !d[key].is_string()) throw bad(at + " has no \"" + std::string(key) + "\"");
    }
    if (!s.contains("cards") || !s["cards"].is_array()) throw bad("no \"cards\" list");
    for (std::size_t k = 0; k < s["cards"].size(); ++k) {
        const io::Json& c = s["cards"][k];
        const std::string at = "cards[" + std::to_string(k) + "]";
        if (!c.is_object()) throw bad(at + " is not an object");
        if (!c.contains("side") || !c["side"].is_string()) throw bad(at + " has no \"side\"");
        if (!c.contains("visible_fraction") || !c["visible_fraction"].is_number())
            throw bad(at + " has no \"visible_fraction\"");
        const io::Json q = c.contains("quad") ? c["quad"] : io::Json();
        bool quad = q.is_array() && q.size() == 4;
        for (std::size_t p = 0; quad && p < 4; ++p)
            quad = q[p].is_array() && q[p].size() == 2 && q[p][0].is_number() && q[p][1].is_number();
        if (!quad) throw bad(at + " has no \"quad\" of four [x, y] points");
        if (c["side"] != "back") continue;
        if (!c.contains("deck") || !c["deck"].is_number_integer()) throw bad(at + " has no \"deck\"");
        for (const char* key : {"design", "back"})
            if (!c.contains(key) || !c[key].is_string()) throw bad(at + " has no \"" + std::string(key) + "\"");
    }
}


// How well the count outlines the labelled backs that lie whole (eval-count's outline line): each
// one's best IoU (vision::quadIoU) with a counted card's outline (strips aside); `alone` for those
// with no other labelled card within 3% of their size.
struct OutlineTally {
    std::vector<double> all, alone;
    io::Json json() const {
        auto part = [](const std::vector<double>& v) {
            const auto good = std::count_if(v.begin(), v.end(), [](double x) { return x >= kGoodOutline; });
            return io::Json{{"cards", v.size()}, {"iou_0_8_or_more", good}, {"median_iou", percentile(v, 0.5)}};
        };
        return {{"all", part(all)}, {"alone", part(alone)}};
    }
    static constexpr double kGoodOutline = 0.8;
};

// A card is read with little to spare when its true deck is farther than this share of the
// nearest other deck's distance (confidence 0.5 at the matcher's ratio test).
constexpr double kNarrowMargin = 0.75;

struct Tally {
    int scenes = 0, exact = 0, cards = 0, right = 0;
    // per card: distance to its true deck / distance to the nearest other deck (1 or more: wrong or
    // unsettled); a measure with signal where the cards read wrong are too few to compare
    std::vector<double> margins;
    void add(const Tally& o) {
        scenes += o.scenes, exact += o.exact, cards += o.cards, right += o.right;
        margins.insert(margins.end(), o.margins.begin(), o.margins.end());
    }
    int narrow() const {
        return int(std::count_if(margins.begin(), margins.end(),
                                 [](double m) { return m > kNarrowMargin; }));
    }
    io::Json json() const {
        return {{"scenes", scenes},
                {"exact_scene_accuracy", scenes ? double(exact) / scenes : 0.0},
                {"cards", cards},
                {"attribution_accuracy", cards ? double(right) / cards : 0.0},
                {"margin_p99", percentile(margins, 0.99)},
                {"cards_narrow_margin", narrow()}};
    }
};

// A line of eval-count --dump-terms: `record` (the card's scene, truth, ...) with `probe`'s backTerms
// to each enrolled deck's descriptors that the matcher compares it with as a still card
// (BackMatcher::forEachCompared), and the matcher's distance of it to the true deck.
std::string termsLine(io::Json record, const vi::BackDescriptor& probe,
                      const vi::BackMatcher& matcher) {
    const std::string truth = record.at("truth").get<std::string>();
    io::Json decks = io::Json::array();
    float truthDistance = -1.f;
    for (std::size_t d = 0; d < matcher.decks().size(); ++d) {
        if (matcher.decks()[d].name == truth) truthDistance = matcher.distanceTo(probe, int(d));
        io::Json rows = io::Json::array();
        matcher.forEachCompared(probe, int(d), false, false, [&](const vi::BackDescriptor& e) {
            const auto t = vi::backTerms(probe, e);
            rows.push_back(std::vector<float>(t.begin(), t.end()));
        });
        decks.push_back({{"name", matcher.decks()[d].name}, {"terms", std::move(rows)}});
    }
    record["true_distance"] = truthDistance;
    record["decks"] = std::move(decks);
    return record.dump() + "\n";
}

// The strip along one long edge that shows of a card others lie across (`shows`, picture pixels):
// the columns of the rectified card where most of its length shows, when they run from one edge
// and nothing else shows; nullopt for any other shape.
std::optional<vi::BackRegion> stripThatShows(const vi::Quad& quad,
                                             const std::vector<cv::Point2f>& shows) {
    if (shows.size() < 3) return std::nullopt;
    const cv::Mat m = vi::rectifiedShows(quad, shows);
    std::vector<bool> col(std::size_t(m.cols));
    for (int x = 0; x < m.cols; ++x) col[std::size_t(x)] = cv::countNonZero(m.col(x)) * 2 > m.rows;
    int left = 0, right = 0;
    while (left < m.cols && col[std::size_t(left)]) ++left;
    while (right < m.cols && col[std::size_t(m.cols - 1 - right)]) ++right;
    const int edge = std::max(left, right);
    if (edge < 2 || edge != int(std::count(col.begin(), col.end(), true)) ||
        edge >= m.cols - 2 * vi::kShowsInset)
        return std::nullopt;
    // rectifiedShows keeps kShowsInset off the covering card's edge: give it back
    const float w = std::min(1.f, float(edge + vi::kShowsInset) / float(m.cols));
    return left >= right ? vi::BackRegion{0.f, w} : vi::BackRegion{1.f - w, 1.f};
}

// One deck's back artwork from the card-art cache: "<design>/<back id>@hue<deg>".
cv::Mat backArt(const fs::path& cache, const std::string& back) {
    const auto slash = back.find('/');
    if (slash == std::string::npos) throw sc("back", "'" + back + "' is not <design>/<back id>");
    // a twin of a twin is recoloured twice ("back@hue95@hue132"); a plain back is "@plain<rrggbb>"
    const std::string full = back.substr(slash + 1);
    const std::size_t at = std::min(full.find('@'), full.size());
    const std::string id = full.substr(0, at), modifiers = full.substr(at);
    const std::string design = back.substr(0, slash);
    cv::Mat art;
    if (design == "nertz-colour") {
        const auto d = synth::makeNertzColourDesign();
        for (const auto& b : d.backs)
            if (b.id == id) art = b.image;
    } else {
        art = cv::imread((cache / design / "backs" / (id + ".png")).string(), cv::IMREAD_UNCHANGED);
    }
    if (art.empty() || art.type() != CV_8UC4)
        throw sc("cardart", "no back artwork for " + back + " in " + cache.string());
    return synth::applyBackModifiers(art, modifiers);
}

}  // namespace

void addCountCommands(CLI::App& app, Context& ctx) {
    // backs enroll
    {
        struct Args {
            std::string deck, out;
            std::vector<std::string> images, against;
        };
        auto a = std::make_shared<Args>();
        auto* backs = app.add_subcommand("backs", "deck back signatures without a league file");
        backs->require_subcommand(1);
        auto* enroll = backs->add_subcommand(
            "enroll", "learn a deck's back from 1-5 pictures; write its signature to a file");
        enroll->add_option("--deck", a->deck, "deck name")->required();
        enroll->add_option("--out", a->out, "signature file to write")->required();
        enroll->add_option("--against", a->against,
                           "NAME=FILE of an enrolled deck to check closeness against; repeat")
            ->expected(1)
            ->allow_extra_args(false)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        enroll
            ->add_option("IMAGE", a->images,
                         "pictures of the back (one card flat, or the top of the deck)")
            ->required();
        enroll->callback([a] {
            std::vector<std::string> covered;
            std::vector<EnrolledView> views;
            const vi::BackSignature sig = enrolFromPictures(a->images, covered, views);
            io::Json warnings = io::Json::array();
            for (const auto& w : covered) warnEnrolment(a->deck, w, warnings);
            if (!a->against.empty()) {
                const vi::BackMatcher m = matcherFromFiles(a->against);
                for (const auto& w : m.closeTo(sig)) warnEnrolment(a->deck, w.message, warnings);
            }
            const auto bytes = sig.toBytes();
            std::error_code ec;
            if (fs::is_directory(a->out, ec))
                throw sc("out", a->out + " is a folder; give the signature file's name");
            // written beside the file and renamed over it: an interrupted write leaves the old file
            const std::string tmp = a->out + ".part";
            {
                std::ofstream out(tmp, std::ios::binary);
                if (!out) throw sc("out", "cannot write " + a->out);
                out.write(reinterpret_cast<const char*>(bytes.data()),
                          std::streamsize(bytes.size()));
                if (!out) {
                    fs::remove(tmp, ec);
                    throw sc("out", "cannot write " + a->out);
                }
            }
            fs::rename(tmp, a->out, ec);
            if (ec) {
                fs::remove(tmp, ec);
                throw sc("out", "cannot write " + a->out + " (" + ec.message() + ")");
            }
            std::cout << io::dumpJson(io::Json{{"deck", a->deck},
                                  {"views", sig.views()},
                                  {"bytes", bytes.size()},
                                  {"cards", enrolledJson(views)},
                                  {"warnings", warnings}})
                      << "\n";
        });
    }
    // deck enroll (the league file's deck command group, from cmd_league.cpp)
    CLI::App* deck = nullptr;
    try {
        deck = app.get_subcommand("deck");
    } catch (const CLI::OptionNotFound&) {
        // the league commands are not registered: no `deck enroll`
    }
    if (deck) {
        struct Args {
            std::string deck, owner;
            std::vector<std::string> images;
        };
        auto a = std::make_shared<Args>();
        auto* enroll = deck->add_subcommand(
            "enroll",
            "learn a deck's back from 1-5 pictures and store its signature with the deck");
        enroll->add_option("--deck", a->deck, "deck name (as in deck add)")->required();
        enroll->add_option("--owner", a->owner,
                           "the deck's owner, when two players have decks of that name");
        enroll
            ->add_option("IMAGE", a->images,
                         "pictures of the back (one card flat, or the top of the deck)")
            ->required();
        enroll->callback([a, &ctx] {
            std::vector<std::string> covered;
            std::vector<EnrolledView> views;
            const vi::BackSignature sig = enrolFromPictures(a->images, covered, views);
            auto db = openDb(ctx);
            db::Transaction tx(*db);
            std::vector<db::Deck> all = db::PlayerRepo(*db).decks();
            std::int64_t id = 0;
            int matches = 0;
            vi::BackMatcher others;
            for (const auto& d : all) {
                if (d.name == a->deck && (a->owner.empty() || d.owner == a->owner)) {
                    id = d.id;
                    ++matches;
                } else if (!d.backSignature.empty()) {
                    try {
                        others.add(d.owner + "/" + d.name,
                                   vi::BackSignature::fromBytes(d.backSignature));
                    } catch (const std::exception&) {
                        // an unreadable or repeated signature of another deck: nothing to compare
                        // with
                    }
                }
            }
            if (matches == 0)
                throw sc("deck", "no deck called '" + a->deck + "'" +
                                     (a->owner.empty() ? "" : " of " + a->owner) +
                                     " (deck add first)");
            if (matches > 1)
                throw sc("owner",
                         "several players have a deck called '" + a->deck + "': give --owner");
            db::PlayerRepo(*db).setDeckBack(id, sig.toBytes());
            tx.commit();
            io::Json warnings = io::Json::array();
            for (const auto& w : covered) warnEnrolment(a->deck, w, warnings);
            for (const auto& w : others.closeTo(sig)) warnEnrolment(a->deck, w.message, warnings);
            std::cout << io::dumpJson(io::Json{{"deck", a->deck},
                                  {"views", sig.views()},
                                  {"bytes", sig.toBytes().size()},
                                  {"cards", enrolledJson(views)},
                                  {"warnings", warnings}})
                      << "\n";
        });
    }
    // count
    {
        struct Args {
            std::string input;
            std::vector<std::string> backs;
            std::string decks;
            bool json = false, tableMask = false, spotOnly = false, noFaces = false, closeUps = false;
            std::string models;
        };
        auto a = std::make_shared<Args>();
        auto* cmd =
            app.add_subcommand("count", "count face-down cards by deck in a picture or a video; --json gives each card's "
                                        "outline, deck and confidence (\"unknown\" cards listed, with \"likely\": the "
                                        "nearer deck when the card lies between two, for a person to check)");
        cmd->add_option("INPUT", a->input, "picture or video (.avi .mp4 .mkv .mov .webm)")
            ->required();
        // one NAME=FILE each time (repeat the option), so the input may follow it
        cmd->add_option("--back", a->backs,
                        "NAME=FILE: a deck and its signature file (from 'backs enroll'); repeat; "
                        "without it the league file's enrolled decks are used")
            ->expected(1)
            ->allow_extra_args(false)
            ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
        cmd->add_option("--decks", a->decks,
                        "A,B,...: only these enrolled decks of the league file (--db)");
        cmd->add_flag("--json", a->json, "JSON on stdout");
        cmd->add_flag("--table-mask", a->tableMask,
                      "pictures: tell cards from the table by its colour, not by the learnt "
                      "segmenter (models/back_seg.onnx)");
        cmd->add_flag(
            "--no-faces", a->noFaces,
            "pictures: do not read the cards' faces; face-up cards (the lake's piles, a "
            "card turned over) are then not told from backs but counted as unknown "
            "(by default they are left out: \"face_up\" and \"face_up_cards\" in --json)");
        cmd->add_option("--models", a->models,
                        "model folder of the face reader (default: as detect)");
        cmd->add_flag("--close-ups", a->closeUps,
                      "pictures: a phone held over a few cards, each 0.3-0.7 of the picture's short "
                      "side: a picture the segmenter explains poorly is read again at half size "
                      "(models/training/BACKS.md, \"Close-ups\")");
        cmd->add_flag(
            "--spot-only", a->spotOnly,
            "videos: count only cards dealt onto a spot (counted when the view rests), not "
            "also cards passing through the view (the counter before 2026-11-24)");
        cmd->callback([a, &ctx] {
            if (!a->backs.empty() && !a->decks.empty())
                throw sc("decks", "give --decks (league file) or --back (files), not both");
            if (a->spotOnly && !isVideo(a->input))
                throw sc("spot-only", "applies to videos only, and " + a->input + " is a picture");
            if ((a->noFaces || !a->models.empty()) && isVideo(a->input))
                throw sc(a->noFaces ? "no-faces" : "models",
                         "applies to pictures only (a video's cards are counted as they are dealt, "
                         "without reading faces), and " + a->input + " is a video");
            if (a->closeUps && isVideo(a->input))
                throw sc("close-ups",
                         "applies to pictures only (a video's cards are counted one at a time as "
                         "they are dealt, at the camera's own size), and " + a->input + " is a video");
            const vi::BackMatcher matcher =
                a->backs.empty() ? matcherFromDb(ctx, a->decks) : matcherFromFiles(a->backs);
            io::Json j;
            if (isVideo(a->input)) {
                requireFile(a->input, "INPUT", "a video");
                j = countVideo(a->input, matcher, a->spotOnly);
            } else {
                vi::BackFinderOptions finder;
                finder.learntMask = !a->tableMask;
                if (a->closeUps) finder.halfBelowClaimed = vi::kCloseUpHalfBelow;
                const cv::Mat img = readImage(a->input, "INPUT");
                const std::unique_ptr<vi::Detector> faces =
                    a->noFaces ? nullptr : faceReader(a->models);
                const vi::DeckCount got = vi::countBacks(img, matcher, finder, faces.get());
                j = countJson(got);
                j["explained"] = std::round(double(got.explained) * 1000) / 1000;
                if (got.explained < vi::kFewExplained)
                    j["message"] =
                        "check this count by eye: the back finder's segmenter explains only " +
                        std::to_string(int(std::lround(got.explained * 100))) +
                        "% of what it takes for face-down cards here; the picture is unlike the "
                        "tables it knows (cards far larger or smaller than on a table seen from "
                        "above, or clutter)";
                else if (got.mostlyUnknown())
                    j["message"] = "check this count by eye: " + std::to_string(got.unknown) +
                                   " of the " + std::to_string(got.total()) +
                                   " cards found belong to no enrolled deck (a deck of the table "
                                   "not enrolled, or a picture that is no table of face-down cards)";
                else if (const int narrow = got.narrowUnknown(); narrow > 0)
                    j["message"] = std::to_string(narrow) + " unknown card" + (narrow == 1 ? "" : "s") +
                                   " of a ribbon show" + (narrow == 1 ? "s" : "") + " under an eighth of " +
                                   (narrow == 1 ? "its" : "their") + " back: spread the ribbon wider "
                                   "(a quarter to a half of each card) and count again";
                if (faces) {
                    io::Json up = io::Json::array();
                    for (const auto& q : got.faceUp) up.push_back({{"quad", quadJson(q)}});
                    j["face_up"] = got.faceUp.size();
                    j["face_up_cards"] = up;
                }
                io::Json rows = io::Json::array();
                for (const auto& q : got.rowsLeftOut) rows.push_back({{"quad", quadJson(q)}});
                j["rows_left_out"] = got.rowsLeftOut.size();
                j["rows_left_out_cards"] = rows;
            }
            if (a->json) {
                std::cout << io::dumpJson(j) << "\n";
                return;
            }
            for (const auto& [name, n] : j["counts"].items())
                std::cout << std::left << std::setw(16) << name << n << "\n";
            std::cout << std::left << std::setw(16) << "unknown" << j["unknown"] << "\n";
            if (j.value("rows_left_out", 0) > 0)
                std::cout << "left out: " << j["rows_left_out"]
                          << " strips of rows that are no cards of this table (like no enrolled deck, "
                             "or far smaller than the face-up cards: a hand, a glare, a face-up "
                             "card's print; --json lists them)\n";
            int lighter = 0;
            if (j.contains("cards"))
                for (const auto& c : j["cards"]) lighter += c.value("lighter_than_deck", false) ? 1 : 0;
            if (lighter > 0)
                std::cout << "of the unknown: " << lighter << " far lighter against the picture than the deck "
                          << "they look like (a cloth, a white object; --json names it as \"likely\")\n";
            if (j.contains("message")) std::cout << j["message"].get<std::string>() << "\n";
        });
    }
    // eval-backs: the back finder's outlines on real photos labelled with class BACK
    {
        struct Args {
            std::string dir;
            int limit = 0;
            double iou = 0.5;
            bool json = false, tableMask = false, noFaces = false;
        };
        auto a = std::make_shared<Args>();
        auto* cmd = app.add_subcommand(
            "eval-backs",
            "score the back finder on photos labelled like ../shared/data/real-cards (class BACK "
            "outlines): face-down cards found, missed and found where none lies, per folder");
        cmd->add_option("DIR", a->dir,
                        "labelled folder (classes.txt, images/, labels/), or a folder of such "
                        "groups")
            ->required();
        cmd->add_option("--limit", a->limit, "score only the first N pictures");
        cmd->add_option("--iou", a->iou,
                        "a found card is a labelled one when their outlines overlap by this "
                        "intersection over union")
            ->capture_default_str();
        cmd->add_flag("--table-mask", a->tableMask,
                      "tell cards from the table by its colour, not by the learnt segmenter");
        cmd->add_flag("--no-faces", a->noFaces,
                      "do not read the pictures' faces: face-up cards are not left out");
        cmd->add_flag("--json", a->json, "JSON on stdout");
        cmd->callback([a] {
            if (!(a->iou > 0.0 && a->iou <= 1.0)) throw sc("iou", "must be in (0, 1]");
            const std::unique_ptr<vi::Detector> detector = a->noFaces ? nullptr : faceReader("");
            std::vector<vi::LabelledImage> items;
            try {
                items = vi::loadLabelledFolder(a->dir);
            } catch (const std::exception& e) {
                throw sc("DIR", e.what());
            }
            if (a->limit > 0 && int(items.size()) > a->limit) items.resize(std::size_t(a->limit));
            struct Score {
                long pictures = 0, withBacks = 0, labelled = 0, found = 0, matched = 0;
                long exact = 0;           // pictures with backs where as many were found
                long foundWhereNone = 0;  // found on pictures with no back labelled
                io::Json json() const {
                    return {{"pictures", pictures},
                            {"pictures_with_backs", withBacks},
                            {"labelled", labelled},
                            {"found", found},
                            {"matched", matched},
                            {"recall", labelled ? double(matched) / double(labelled) : 1.0},
                            {"precision", found ? double(matched) / double(found) : 1.0},
                            {"exact_pictures", exact},
                            {"found_on_pictures_without_backs", foundWhereNone}};
                }
            };
            std::map<std::string, Score> scores;  // "" = all pictures
            std::vector<double> ms;
            vi::BackFinderOptions finder;
            finder.learntMask = !a->tableMask;
            for (std::size_t i = 0; i < items.size(); ++i) {
                const auto& item = items[i];
                cv::Mat img;
                try {
                    img = vi::loadImage(item.imagePath);
                } catch (const vi::ImageError& e) {
                    throw sc("DIR", e.what());
                }
                const auto t0 = std::chrono::steady_clock::now();
                auto found = vi::findBackCards(img, finder);
                int facesRead = 0;
                if (detector) {
                    const vi::Detection faces = detector->detect(img);
                    for (const auto& c : faces.cards) facesRead += c.face ? 1 : 0;
                    vi::leaveOutFaceUp(found, faces);
                }
                ms.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                        .count());
                // outlines as masks: IoU of every labelled card with every found one
                auto maskOf = [&](const std::vector<cv::Point>& poly) {
                    cv::Mat m = cv::Mat::zeros(img.size(), CV_8U);
                    cv::fillPoly(m, std::vector<std::vector<cv::Point>>{poly}, cv::Scalar(255));
                    return m;
                };
                std::vector<cv::Mat> truthMasks, foundMasks;
                for (const auto& o : item.backs) {
                    std::vector<cv::Point> poly;
                    for (const auto& p : o)
                        poly.emplace_back(int(std::lround(p.x * float(img.cols))),
                                          int(std::lround(p.y * float(img.rows))));
                    truthMasks.push_back(maskOf(poly));
                }
                for (const auto& c : found) {
                    if (truthMasks.empty()) break;  // nothing to match them to
                    std::vector<cv::Point> poly;
                    for (const auto& p : c.quad)
                        poly.emplace_back(int(std::lround(p.x)), int(std::lround(p.y)));
                    foundMasks.push_back(maskOf(poly));
                }
                std::vector<std::tuple<double, std::size_t, std::size_t>> pairs;
                for (std::size_t t = 0; t < truthMasks.size(); ++t)
                    for (std::size_t f = 0; f < foundMasks.size(); ++f) {
                        const double both = cv::countNonZero(truthMasks[t] & foundMasks[f]);
                        const double any = cv::countNonZero(truthMasks[t] | foundMasks[f]);
                        if (any > 0 && both / any >= a->iou) pairs.emplace_back(both / any, t, f);
                    }
                std::sort(pairs.rbegin(), pairs.rend());  // one to one, best overlap first
                std::vector<char> tUsed(truthMasks.size(), 0), fUsed(foundMasks.size(), 0);
                long matched = 0;
                for (const auto& [iou, t, f] : pairs)
                    if (!tUsed[t] && !fUsed[f]) tUsed[t] = fUsed[f] = 1, ++matched;
                if (std::getenv("NERTZ_EVAL_SCENES")) {
                    long inRows = 0;
                    for (const auto& c : found) inRows += c.inRow ? 1 : 0;
                    std::cerr << item.imagePath << ": labelled " << item.backs.size() << ", found "
                              << found.size() << " (in rows " << inRows << "), matched " << matched
                              << ", faces read " << facesRead << "\n";
                }
                for (const std::string& key : {std::string(), item.group}) {
                    Score& score = scores[key];
                    ++score.pictures;
                    score.labelled += long(item.backs.size());
                    score.found += long(found.size());
                    score.matched += matched;
                    if (item.backs.empty()) {
                        score.foundWhereNone += long(found.size());
                    } else {
                        ++score.withBacks;
                        score.exact += found.size() == item.backs.size() ? 1 : 0;
                    }
                    if (item.group.empty()) break;
                }
                if ((i + 1) % 50 == 0 || i + 1 == items.size())
                    std::cerr << "eval-backs: " << i + 1 << "/" << items.size() << " pictures\n";
            }
            io::Json groups = io::Json::object();
            for (const auto& [name, score] : scores)
                if (!name.empty()) groups[name] = score.json();
            io::Json j{{"dir", a->dir},
                       {"iou", a->iou},
                       {"all", scores[""].json()},
                       {"groups", groups},
                       {"ms_median", percentile(ms, 0.5)},
                       {"ms_p95", percentile(ms, 0.95)}};
            if (a->json) {
                std::cout << io::dumpJson(j) << "\n";
                return;
            }
            std::cout << std::fixed;
            for (const auto& [name, score] : scores)
                std::cout << std::setprecision(3) << (name.empty() ? "all" : name) << ": "
                          << score.labelled << " face-down cards labelled in " << score.withBacks
                          << " of " << score.pictures << " pictures; found " << score.found
                          << ", of them on a labelled card " << score.matched << " (recall "
                          << score.json()["recall"].get<double>() << ", precision "
                          << score.json()["precision"].get<double>() << "); as many found as "
                          << "labelled in " << score.exact << " of " << score.withBacks
                          << "; found on pictures without backs " << score.foundWhereNone << "\n";
            std::cout << std::setprecision(1) << "ms per picture: median "
                      << j["ms_median"].get<double>() << ", p95 " << j["ms_p95"].get<double>()
                      << "\n";
        });
    }
    // eval-count
    {
        struct Args {
            std::string dir, cardart, kind;
            int limit = 0;
            double countable = 0.05, whole = 0.85, legible = 0.2;
            bool json = false, autocorrelationRows = false, tableMask = false, noPieces = false,
                 noComplete = false, noRefine = false, noSceneCards = false, noPairLook = false, noLightness = false, noRefit = false,
                 noFaces = false, cardsAlone = false, noRowSplit = false, boxRows = false,
                 noOutlineRows = false, noWholeCards = false, rowsByMiddles = false,
                 noWholeAlone = false, noIfKnown = false, noLoneCards = false, noOversizedFit = false;
            double halfBelow = vi::BackFinderOptions{}.halfBelowClaimed;
            std::string dumpTerms;
        };
        auto a = std::make_shared<Args>();
        auto* cmd = app.add_subcommand(
            "eval-count",
            "score back attribution and counting on a synthetic set (nertzref-cli synth)");
        cmd->add_option("DIR", a->dir, "folder written by 'nertzref-cli synth' (images/, cards/)")
            ->required();
        cmd->add_option("--cardart", a->cardart,
                        "card-art cache for the enrolment renders (default as synth)");
        cmd->add_option("--kind", a->kind, "label for the report (default: the folder's name)");
        cmd->add_option("--limit", a->limit, "score only the first N scenes");
        cmd->add_option("--legible", a->legible,
                        "also score apart the scenes where every counted card shows at least this "
                        "share of itself (no sliver of a squared pile, whose deck only its white "
                        "margin may show)")
            ->capture_default_str()
            ->check(CLI::Range(0.0, 1.0));
        cmd->add_option("--countable", a->countable,
                        "a card counts when at least this share of it shows (a ribbon strip "
                        "of the generator shows 5.6% or more)")
            ->capture_default_str();
        cmd->add_option("--whole", a->whole,
                        "per-card attribution is scored on cards showing at least this share (a card "
                        "showing less than 0.85 is read by the part of it no later card covers)")
            ->capture_default_str();
        cmd->add_flag("--autocorrelation-rows", a->autocorrelationRows,
                      "read ribbon rows by the autocorrelation of their edge profile, not by the learnt "
                      "full-resolution edge finder (the default reader until the full-resolution one, see BACKS.md)");
        cmd->add_flag("--table-mask", a->tableMask,
                      "tell cards from the table by its colour, not by the learnt segmenter "
                      "(the finder before models/back_seg.onnx)");
        cmd->add_flag(
            "--no-row-split", a->noRowSplit,
            "do not split a blob of ribbon rows that touch into rows along the segmenter's "
            "instances (the finder before 2026-11-27, fourth session; BACKS.md)");
        cmd->add_flag("--box-rows", a->boxRows,
                      "read a ribbon row in the frame of its rotated box rather than of its four "
                      "corners in perspective (BACKS.md, \"Rows read in perspective\")");
        cmd->add_flag(
            "--no-outline-rows", a->noOutlineRows,
            "do not read a blob that the size and fill rules leave out of the row reader as a "
            "row when the segmenter marks card sides all through it (the finder before "
            "2026-11-27, sixth session; BACKS.md, \"Rows the size rules left out\")");
        cmd->add_flag(
            "--rows-by-middles", a->rowsByMiddles,
            "keep a blob the segmenter's middles make a row as a row even when the row reader found "
            "no clear edges and fewer cards than half its middles in it, not counted by its pieces "
            "(the finder before 2026-11-29, twentieth session; BACKS.md, \"Every row read in both frames\")");
        cmd->add_flag(
            "--no-whole-cards", a->noWholeCards,
            "do not take a piece, or two pieces together, with a card's four corners and no side "
            "marked through them for one card when larger than the scene's card (the finder before "
            "2026-11-27, seventh session; BACKS.md, \"Cards larger than the scene's card\")");
        cmd->add_flag(
            "--no-whole-alone", a->noWholeAlone,
            "complete a smaller card alone on the table to the scene's card size as if others lay "
            "across it (the finder before 2026-11-30, twenty-fourth session; BACKS.md, \"Whole "
            "cards alone on the table\")");
        cmd->add_flag(
            "--no-lone-cards", a->noLoneCards,
            "read a card alone on the table as a row when the row reader finds clear edges in its "
            "print, and count it by its pieces when the segmenter gives it two middles or more, "
            "whatever few sides the segmenter marks in it (the finder before 2026-12-01; BACKS.md, "
            "\"A card on its own read as strips\")");
        cmd->add_option(
               "--half-below", a->halfBelow,
               "a picture whose reading at the working size explains under this share of its card "
               "mask is read at half that size instead where that reading explains 0.3 of its own "
               "(close-ups of cards larger than the segmenter knows; count --close-ups uses 0.7; "
               "0, the default: only when the half reading explains more; BACKS.md, \"Close-ups\")")
            ->check(CLI::Range(0.0, 1.0))
            ->capture_default_str();
        cmd->add_flag(
            "--no-oversized-fit", a->noOversizedFit,
            "give a piece whose outline comes to more than 1.5 of the scene's whole card that "
            "outline, not the cards of the scene's size fitted into it (the finder before "
            "2026-12-01, thirty-first session; BACKS.md, \"Outlines larger than a card refitted\")");
        cmd->add_flag(
            "--no-if-known", a->noIfKnown,
            "take no piece of card pixels that no middle took under half a card, not even where it "
            "is read as an enrolled deck's (the count before 2026-11-30, twenty-fifth session; "
            "BACKS.md, \"Half-shown cards kept where they are read\")");
        cmd->add_flag("--no-complete", a->noComplete,
                      "give a covered card as the box of what shows of it, attributed from all of that box (the finder before covered cards were completed)");
        cmd->add_flag("--no-scene-cards", a->noSceneCards,
                      "leave a card unknown between two decks unknown, not read again beside the scene's own "
                      "whole cards of those decks (the counter before 2026-11-23, late evening)");
        cmd->add_flag("--no-pair-look", a->noPairLook,
                      "leave a card unknown between two decks unknown, not given to the nearer by what "
                      "tells those two apart (the counter before 2026-11-30, twenty-eighth session; "
                      "BACKS.md, \"Cards between two decks: what tells those two apart\")");
        cmd->add_flag("--no-lightness", a->noLightness,
                      "keep a card given to a deck that lies far lighter against its picture than the "
                      "deck's back did at enrolment (the counter before 2026-12-02, thirty-fifth "
                      "session; BACKS.md, \"Cards far lighter than their deck\")");
        cmd->add_flag("--no-refit", a->noRefit,
                      "leave a loose card that matches no deck unknown, not fitted again by "
                      "card-sized outlines around it (the counter before 2026-11-28; BACKS.md, "
                      "\"Unknown cards fitted again\")");
        cmd->add_flag(
            "--no-faces", a->noFaces,
            "do not read the scenes' faces: face-up cards are not left out but counted unknown, "
            "as 'count --no-faces' (the counter before 2026-11-24, sixth session)");
        cmd->add_option(
            "--dump-terms", a->dumpTerms,
            "write each attributed card's distance terms to every enrolled deck's still whole-card "
            "descriptors (backTerms), and those of each covered card showing as a strip along one "
            "edge to the decks' strips (\"strip\": its width), one JSON object a line, to this "
            "file: what models/training/fit_back_weights.py fits backDistance's weights on");
        cmd->add_flag("--cards-alone", a->cardsAlone,
                      "per-card attribution: read each labelled card alone, not together with the "
                      "scene's other cards as 'count' reads them (the figure before 2026-11-24, "
                      "sixth session)");
        cmd->add_flag("--no-refine", a->noRefine,
                      "keep loose cards' outlines as the segmenter gives them (at 640 px), not fitted again to "
                      "their sides in the full picture, and read a card that others lie on by its piece only "
                      "(the finder before 2026-11-23, late evening)");
        cmd->add_flag("--no-pieces", a->noPieces,
                      "with the segmenter, find cards in its mask's blobs as with the table's "
                      "colour, not in the pieces its outlines cut");
        cmd->add_flag("--json", a->json, "JSON on stdout");
        cmd->callback([a] {
            const fs::path dir(a->dir);
            const std::vector<fs::path> files = sceneFiles(a->dir, a->limit);
            const fs::path cache =
                a->cardart.empty() ? synth::defaultCardArtDir() : fs::path(a->cardart);
            const synth::DesignSplit split =
                synth::loadDesignSplit(synth::defaultDesignSplitFile());
            // --dump-terms: written beside the file and renamed over it when every scene is read
            std::optional<std::ofstream> terms;
            const std::string termsPart = a->dumpTerms + ".part";
            struct PartGuard {
                const std::string* path = nullptr;
                ~PartGuard() {
                    std::error_code ec;
                    if (path) fs::remove(*path, ec);
                }
            } termsGuard;
            if (!a->dumpTerms.empty()) {
                std::error_code ec;
                if (fs::is_directory(a->dumpTerms, ec))
                    throw sc("dump-terms", a->dumpTerms + " is a folder; give the file's name");
                terms.emplace(termsPart);
                if (!*terms) throw sc("dump-terms", "cannot write " + a->dumpTerms);
                termsGuard.path = &termsPart;
            }
            Tally heldOut, train, warnedCards;
            int exact = 0, unknownCards = 0, wrongCards = 0, warned = 0;
            // the scenes every counted card of which shows `legible` or more; |found - true|
            int legibleScenes = 0, legibleExact = 0;
            OutlineTally outlineTally;
            long countError = 0, deckError = 0;
            // per-card attribution by the card's design (scenes enrolment did not warn)
            struct DesignTally {
                int cards = 0, right = 0, unknown = 0, wrong = 0;
            };
            std::map<std::string, DesignTally> byDesign;
            std::vector<double> ms, faceMs;
            const std::unique_ptr<vi::Detector> detector = a->noFaces ? nullptr : faceReader("");
            std::map<std::string, cv::Mat> artCache;
            for (std::size_t i = 0; i < files.size(); ++i) {
                const io::Json s = io::readJsonFile(files[i].string());
                checkSceneFile(s, files[i].string());
                const cv::Mat img =
                    readImage((dir / s.at("image").get<std::string>()).string(), "image");
                // enrol each deck from its own flat-card render (never from this scene)
                vi::MatcherOptions matching;
                matching.sceneExemplars = !a->noSceneCards;
                matching.pairLook = !a->noPairLook;
                if (a->noLightness) matching.lighterBy = matching.stripLighterBy = 0.f;
                matching.refit.on = !a->noRefit;
                vi::BackMatcher matcher(matching);
                bool anyHeldOut = false, tooClose = false;
                for (const auto& d : s.at("decks")) {
                    const std::string back = d.at("back").get<std::string>();
                    if (!artCache.count(back)) artCache[back] = backArt(cache, back);
                    const auto view =
                        vi::renderEnrolmentView(artCache[back], std::hash<std::string>{}(back));
                    const vi::BackSignature sig = vi::makeBackSignature(view.image, view.quad);
                    if (!matcher.closeTo(sig).empty()) tooClose = true;
                    matcher.add("deck" + std::to_string(d.at("id").get<int>()), sig);
                    anyHeldOut = anyHeldOut || split.isHeldOut(d.at("design").get<std::string>());
                }
                if (tooClose) ++warned;  // enrolment would have warned this table: scored apart
                // per-card attribution on the labelled outlines
                std::map<std::string, int> truth;
                double leastShown = 1.0;  // of the counted cards
                Tally t;
                // every labelled outline, bottom card first (a card lies on the ones before it)
                std::vector<std::vector<cv::Point2f>> outlines;
                for (const auto& c : s.at("cards")) {
                    std::vector<cv::Point2f> o;
                    for (int k = 0; k < 4; ++k)
                        o.emplace_back(c.at("quad")[std::size_t(k)][0].get<float>(), c.at("quad")[std::size_t(k)][1].get<float>());
                    outlines.push_back(std::move(o));
                }
                // the cards to attribute, read together as the count reads a picture's cards
                struct Scored {
                    std::string deck, back, design;
                    Tally* tally;
                };
                std::vector<vi::BackCandidate> toRead;
                std::vector<Scored> scored;
                std::size_t index = 0;
                for (const auto& c : s.at("cards")) {
                    const std::size_t own = index++;
                    if (c.at("side").get<std::string>() != "back") continue;
                    const double vis = c.at("visible_fraction").get<double>();
                    const std::string deck = "deck" + std::to_string(c.at("deck").get<int>());
                    if (vis >= a->countable) {
                        ++truth[deck];
                        leastShown = std::min(leastShown, vis);
                    }
                    if (vis < a->whole) {
                        if (terms && vis >= a->countable) {
                            // a card others lie across that shows as a strip along one long edge
                            vi::Quad quad;
                            std::copy(outlines[own].begin(), outlines[own].end(), quad.begin());
                            const auto strip = stripThatShows(
                                quad, vi::uncoveredPart(outlines[own], {outlines.begin() + long(own) + 1,
                                                                        outlines.end()}));
                            if (strip) {
                                const std::string design = c.at("design").get<std::string>();
                                *terms << termsLine({{"scene", files[i].filename().string()},
                                                     {"truth", deck},
                                                     {"back", c.at("back").get<std::string>()},
                                                     {"design", design},
                                                     {"held_out", split.isHeldOut(design)},
                                                     {"warned", tooClose},
                                                     {"strip", strip->x1 - strip->x0}},
                                                    vi::describeBack(vi::rectifyCard(img, quad), *strip),
                                                    matcher);
                            }
                        }
                        continue;
                    }
                    vi::BackCandidate cand;
                    for (int k = 0; k < 4; ++k)
                        cand.quad[std::size_t(k)] = {c.at("quad")[std::size_t(k)][0].get<float>(),
                                                     c.at("quad")[std::size_t(k)][1].get<float>()};
                    // a card others lie across (below --whole 0.85) is read by what shows of it
                    if (vis < 0.85)
                        cand.shows = vi::uncoveredPart(
                            outlines[own], {outlines.begin() + long(own) + 1, outlines.end()});
                    toRead.push_back(std::move(cand));
                    scored.push_back(
                        {deck, c.at("back").get<std::string>(), c.at("design").get<std::string>(),
                         tooClose                                             ? &warnedCards
                         : split.isHeldOut(c.at("design").get<std::string>()) ? &heldOut
                                                                              : &train});
                }
                std::vector<vi::CountedCard> read;
                if (a->cardsAlone)
                    for (const auto& cand : toRead)
                        read.push_back(vi::attributeCard(img, cand.quad, {}, matcher, cand.shows));
                else {
                    // read as the count reads them: without what the segmenter sees as no card
                    vi::BackFinderOptions seen;
                    seen.learntMask = !a->tableMask;
                    const cv::Mat probability = vi::backCardProbability(img, seen);
                    read = vi::attributeCards(img, toRead, matcher, probability);
                    vi::settleBetweenTwoDecks(img, toRead, read, matcher, probability);
                    vi::unknownWhereLightnessDiffers(img, read, matcher);
                }
                for (std::size_t k = 0; k < read.size(); ++k) {
                    const auto& got = read[k];
                    const std::string& deck = scored[k].deck;
                    Tally& tt = *scored[k].tally;
                    ++tt.cards;
                    // the margin, on the distances the count itself gave: right when the nearest
                    // deck is the true one, else the true deck's distance against the nearest's
                    const int trueDeck = std::stoi(deck.substr(4));
                    const bool nearestTrue =
                        got.nearest >= 0 && matcher.decks()[std::size_t(got.nearest)].name == deck;
                    const vi::BackCandidate& c = toRead[k];
                    // the card described over what shows of it, without the segmenter's no-card
                    // pixels (so a card with a hand on it as it looks, not as the count read it):
                    // for the true deck's distance when it is not the nearest, and the term dump
                    std::optional<vi::BackDescriptor> probe;
                    if (!nearestTrue || terms)
                        probe = vi::describeBack(
                            vi::rectifyCard(img, c.quad), {},
                            c.shows.empty() ? cv::Mat() : vi::rectifiedShows(c.quad, c.shows));
                    const float trueDistance =
                        nearestTrue ? got.distance : matcher.distanceTo(*probe, trueDeck);
                    const float other = nearestTrue ? got.runnerUp : got.distance;
                    tt.margins.push_back(other > 1e-6f ? double(trueDistance) / double(other)
                                                       : 2.0);
                    if (terms)
                        *terms << termsLine({{"scene", files[i].filename().string()},
                                             {"truth", deck},
                                             {"back", scored[k].back},
                                             {"design", scored[k].design},
                                             {"held_out", scored[k].tally == &heldOut},
                                             {"warned", tooClose},
                                             {"covered", !c.shows.empty()},
                                             {"got", got.deckName}},
                                            *probe, matcher);
                    if (std::getenv("NERTZ_EVAL_DEBUG") && got.deckName != deck && !tooClose)
                        std::cerr << files[i].filename().string() << " " << scored[k].back
                                  << " truth " << deck << " got " << got.deckName << " d "
                                  << got.distance << " r " << got.runnerUp << " conf "
                                  << got.confidence << " true-d " << trueDistance << " hidden " << got.hidden
                                  << " nearest "
                                  << (got.nearest >= 0 ? matcher.decks()[std::size_t(got.nearest)].name : "-")
                                  << "\n";
                    DesignTally* dt = tooClose ? nullptr : &byDesign[scored[k].design];
                    if (dt) ++dt->cards;
                    if (got.deckName == deck) {
                        ++tt.right;
                        if (dt) ++dt->right;
                    } else if (tooClose) {
                        continue;
                    } else if (got.deck < 0) {
                        ++unknownCards;
                        ++dt->unknown;
                    } else {
                        ++wrongCards;
                        ++dt->wrong;
                    }
                }
                if (tooClose) continue;
                // the whole pipeline's count
                vi::BackFinderOptions finder;
                finder.learntRows = !a->autocorrelationRows;
                finder.learntMask = !a->tableMask;
                finder.pieces = !a->noPieces;
                if (a->noComplete) finder.completeBelow = 0;
                finder.refineOutlines = !a->noRefine;
                if (a->noRowSplit) finder.splitRows = 0.f;
                finder.rowCorners = !a->boxRows;
                if (a->noOutlineRows) finder.outlineRows = 0.f;
                if (a->rowsByMiddles) finder.unclearRowMiddles = 0.f;
                if (a->noWholeCards) finder.wholeCardOutline = 0.f;
                if (a->noWholeAlone) finder.wholeAloneShare = 0.f;
                if (a->noLoneCards) finder.loneCardOutline = 0.f;
                if (a->noOversizedFit) finder.oversizedPieceFit = 0.f;
                finder.halfBelowClaimed = float(a->halfBelow);
                if (a->noIfKnown) finder.leftoverIfKnownShare = finder.leftoverShare;
                const vi::DeckCount got = vi::countBacks(img, matcher, finder, detector.get());
                ms.push_back(got.ms);
                faceMs.push_back(got.facesMs);
                bool ok = got.unknown == 0;
                long sceneDeckError = got.unknown;
                for (const auto& [name, n] : got.counts) {
                    const auto it = truth.find(name);
                    const int want = it == truth.end() ? 0 : it->second;
                    ok = ok && n == want;
                    sceneDeckError += std::abs(n - want);
                }
                deckError += sceneDeckError;
                exact += ok ? 1 : 0;
                {
                    // the outlines of the backs lying whole (showing 0.9 or more of themselves)
                    auto quadOf = [&](std::size_t k) {
                        return vi::Quad{outlines[k][0], outlines[k][1], outlines[k][2], outlines[k][3]};
                    };
                    const auto& cards = s.at("cards");
                    for (std::size_t k = 0; k < outlines.size(); ++k) {
                        if (cards[k].at("side").get<std::string>() != "back" ||
                            cards[k].at("visible_fraction").get<double>() < 0.9)
                            continue;
                        const vi::Quad q = quadOf(k);
                        double best = 0;
                        for (const auto& c : got.cards)
                            if (!c.strip) best = std::max(best, vi::quadIoU(c.quad, q));
                        outlineTally.all.push_back(best);
                        // alone: its outline grown by 3% meets no other labelled card
                        const cv::Point2f mid = vi::quadCentre(q);
                        vi::Quad grown = q;
                        for (auto& p : grown) p = mid + (p - mid) * 1.03f;
                        bool alone = true;
                        for (std::size_t o = 0; o < outlines.size() && alone; ++o)
                            alone = o == k || vi::quadIoU(grown, quadOf(o)) <= 0.0;
                        if (alone) outlineTally.alone.push_back(best);
                    }
                }
                int truthTotal = 0;
                for (const auto& [name, n] : truth) truthTotal += n;
                countError += std::abs(got.total() - truthTotal);
                if (leastShown >= a->legible) {
                    ++legibleScenes;
                    legibleExact += ok ? 1 : 0;
                }
                if (const char* drawDir = std::getenv("NERTZ_EVAL_DRAW")) {
                    // debugging aid: truth outlines green, found cards red (unknown) or blue
                    cv::Mat vis = img.clone();
                    for (const auto& c : s.at("cards")) {
                        if (c.at("side").get<std::string>() != "back" ||
                            c.at("visible_fraction").get<double>() < a->countable)
                            continue;
                        std::vector<cv::Point> poly;
                        for (int k = 0; k < 4; ++k)
                            poly.emplace_back(c.at("quad")[std::size_t(k)][0].get<int>(),
                                              c.at("quad")[std::size_t(k)][1].get<int>());
                        cv::polylines(vis, poly, true, cv::Scalar(0, 255, 0), 3);
                    }
                    for (const auto& c : got.cards) {
                        std::vector<cv::Point> poly;
                        for (const auto& p : c.quad) poly.emplace_back(p);
                        cv::polylines(vis, poly, true,
                                      c.deck < 0 ? cv::Scalar(0, 0, 255) : cv::Scalar(255, 0, 0), 1);
                    }
                    cv::imwrite((fs::path(drawDir) / files[i].filename()).replace_extension(".jpg").string(), vis);
                }
                if (const char* cardsDir = std::getenv("NERTZ_EVAL_CARDS")) {
                    // debugging aid: what was found, for a script to match against the truth
                    io::Json found = io::Json::array();
                    for (const auto& c : got.cards)
                        found.push_back({{"quad", quadJson(c.quad)}, {"deck", c.deckName}, {"confidence", c.confidence},
                                         {"distance", c.distance}, {"runner_up", c.runnerUp},
                                         {"nearest", c.nearest >= 0 ? matcher.decks()[std::size_t(c.nearest)].name : ""}, {"strip", c.strip}, {"covered", !c.shows.empty()}, {"hidden", c.hidden},
                                         {"shows", pointsJson(c.shows)}});
                    std::ofstream((fs::path(cardsDir) / files[i].filename()).string()) << io::dumpJson(found) << "\n";
                }
                if (std::getenv("NERTZ_EVAL_SCENES")) {
                    std::cerr << files[i].filename().string() << " truth " << truthTotal
                              << " found " << got.total() << " unknown " << got.unknown
                              << " face-up " << got.faceUp.size() << " explained " << got.explained
                              << (ok ? " exact" : " wrong") << "\n";
                }
                Tally& st = anyHeldOut ? heldOut : train;
                ++st.scenes;
                st.exact += ok ? 1 : 0;
                if ((i + 1) % 20 == 0 || i + 1 == files.size())
                    std::cerr << "eval-count: " << i + 1 << "/" << files.size() << " scenes, exact "
                              << exact << "\n";
            }
            if (terms) {
                terms->close();
                std::error_code ec;
                if (terms->fail()) throw sc("dump-terms", "cannot write " + a->dumpTerms);
                fs::rename(termsPart, a->dumpTerms, ec);
                if (ec)
                    throw sc("dump-terms", "cannot write " + a->dumpTerms + " (" + ec.message() + ")");
                termsGuard.path = nullptr;
            }
            Tally all = heldOut;
            all.add(train);
            const std::string kind = a->kind.empty() ? dir.filename().string() : a->kind;
            io::Json j{{"kind", kind},
                       {"scenes", all.scenes},
                       {"exact_scene_accuracy", all.scenes ? double(exact) / all.scenes : 0.0},
                       {"mean_abs_count_error", all.scenes ? double(countError) / all.scenes : 0.0},
                       {"mean_deck_count_error", all.scenes ? double(deckError) / all.scenes : 0.0},
                       {"legible",
                        {{"visible_fraction", a->legible},
                         {"scenes", legibleScenes},
                         {"exact", legibleExact},
                         {"other_scenes", all.scenes - legibleScenes},
                         {"other_exact", exact - legibleExact}}},
                       {"scenes_warned_too_close", warned},
                       {"attribution",
                        {{"all", all.json()},
                         {"heldout", heldOut.json()},
                         {"train", train.json()},
                         {"warned_scenes", warnedCards.json()}}},
                       {"cards_unknown", unknownCards},
                       {"cards_wrong", wrongCards},
                       {"countable_visible_fraction", a->countable},
                       {"attribution_visible_fraction", a->whole},
                       {"ms_median", percentile(ms, 0.5)},
                       {"ms_p95", percentile(ms, 0.95)},
                       {"faces_ms_median", percentile(faceMs, 0.5)},
                       {"outlines", outlineTally.json()}};
            // designs, worst read first
            std::vector<std::pair<std::string, DesignTally>> designs(byDesign.begin(),
                                                                     byDesign.end());
            std::stable_sort(designs.begin(), designs.end(), [](const auto& x, const auto& y) {
                return double(x.second.right) * y.second.cards <
                       double(y.second.right) * x.second.cards;
            });
            io::Json jd = io::Json::object();
            for (const auto& [name, t] : designs)
                jd[name] = {{"cards", t.cards},
                            {"right", t.right},
                            {"unknown", t.unknown},
                            {"wrong", t.wrong}};
            j["attribution_by_design"] = jd;
            if (a->json) {
                std::cout << io::dumpJson(j) << "\n";
                return;
            }
            std::cout
                << std::fixed << std::setprecision(4) << kind << ": " << all.scenes
                << " scenes, exact counts " << j["exact_scene_accuracy"].get<double>()
                << " (held-out-design scenes " << heldOut.exact << "/" << heldOut.scenes
                << ", train " << train.exact << "/" << train.scenes << "); " << warned
                << " more scenes not scored: enrolment warned two of their decks are too close\n"
                << "mean |found - true| " << std::setprecision(2)
                << j["mean_abs_count_error"].get<double>()
                << " cards a scene, per deck (the sum over decks of |found - true| plus the unknown) "
                << j["mean_deck_count_error"].get<double>()
                << "; scenes where every counted card shows at least " << a->legible
                << " of itself: exact " << legibleExact << "/" << legibleScenes << ", the others "
                << exact - legibleExact << "/" << all.scenes - legibleScenes << "\n"
                << std::setprecision(4) << "per-card attribution: all " << all.right << "/"
                << all.cards << ", held-out " << heldOut.right << "/" << heldOut.cards << ", train "
                << train.right << "/" << train.cards << " (unknown " << unknownCards << ", wrong "
                << wrongCards << "); in the warned scenes " << warnedCards.right << "/"
                << warnedCards.cards << "\n"
                << "attribution margin (true deck's distance / nearest other's; over "
                << std::setprecision(2) << kNarrowMargin << " is narrow):";
            for (const auto& [name, t] :
                 {std::pair<const char*, const Tally*>{"held-out", &heldOut}, {"train", &train}})
                if (!t->margins.empty())
                    std::cout << " " << name << " p99 " << percentile(t->margins, 0.99) << ", "
                              << t->narrow() << " of " << t->margins.size() << " narrow;";
            std::cout << "\n" << std::setprecision(4);
            if (!designs.empty()) {
                std::cout << "per-card attribution by design, worst first:";
                for (const auto& [name, t] : designs)
                    std::cout << "  " << name << " " << t.right << "/" << t.cards
                              << (t.unknown + t.wrong
                                      ? " (unknown " + std::to_string(t.unknown) + ", wrong " +
                                            std::to_string(t.wrong) + ")"
                                      : std::string());
                std::cout << "\n";
            }
            {
                const io::Json& o = j["outlines"];
                std::cout << std::setprecision(2) << "outlines of the backs lying whole (showing 0.9 or more): "
                          << o["all"]["iou_0_8_or_more"].get<long>() << " of " << o["all"]["cards"].get<long>()
                          << " found with IoU >= 0.8, median IoU " << o["all"]["median_iou"].get<double>()
                          << "; of those alone on the table " << o["alone"]["iou_0_8_or_more"].get<long>()
                          << " of " << o["alone"]["cards"].get<long>() << ", median "
                          << o["alone"]["median_iou"].get<double>() << "\n";
            }
            std::cout << std::setprecision(1) << "ms per frame: median "
                      << j["ms_median"].get<double>() << ", p95 " << j["ms_p95"].get<double>()
                      << " (reading the faces: median " << j["faces_ms_median"].get<double>()
                      << ")\n";
        });
    }
}

}  // namespace nertz::cli
