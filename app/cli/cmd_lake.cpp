// lake / eval-lake: the lake checksum from a picture of the lake's piles, and how often it is right
// on a labelled synthetic set (issue 5, "Lake checksum from a picture"); pile / eval-pile: the pile
// check of a fanned lake pile (SPEC, "Pile check"), and how often a picture of one is read right.
#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "vision_cli.hpp"
#include "nertz/io/json.hpp"
#include "nertz/scoring/error.hpp"
#include "nertz/scoring/referee.hpp"
#include "nertz/vision/back_signature.hpp"
#include "nertz/vision/detector.hpp"
#include "nertz/vision/image_io.hpp"
#include "nertz/vision/lake_tops.hpp"

namespace nertz::cli {
namespace fs = std::filesystem;
namespace vi = nertz::vision;
using sc = nertz::scoring::InputError;

namespace {

std::unique_ptr<vi::Detector> stillDetector(const std::string& models) {
    return makeDetector(vi::DetectorOptions::stillPicture(), models);
}

// A lake pile of a labelled scene: its top card's face, rank and outline.
struct TruePile {
    scoring::Card top;
    vi::Quad quad;
};

// A card of a labelled scene (cards/NAME.json): its face and outline.
struct LabelledCard {
    scoring::Card face;
    vi::Quad quad;
};

// A scene file written by `synth --kind KIND`, where every card lies face up (lake and pile scenes):
// the whole record, its picture (`image`) and its cards as listed, bottom to top. `anyDeck`: faces
// of the NERTZ colour deck too (else standard cards only). Throws an InputError of DIR naming the
// file and what is wrong for a file that is not such a scene.
io::Json faceUpScene(const fs::path& file, const std::string& kind, bool anyDeck, std::string& image,
                     std::vector<LabelledCard>& cards) {
    auto bad = [&](const std::string& what) {
        return sc("DIR", file.string() + ": not a " + kind + " scene of 'nertzref-cli synth --kind " + kind +
                             "' (" + what + ")");
    };
    io::Json s;
    try {
        s = io::readJsonFile(file.string());
    } catch (const std::exception& e) {
        throw bad(e.what());
    }
    if (!s.is_object() || !s.contains("image") || !s["image"].is_string()) throw bad("no \"image\"");
    image = s["image"].get<std::string>();
    if (!s.contains("cards") || !s["cards"].is_array()) throw bad("no \"cards\" list");
    cards.clear();
    for (std::size_t k = 0; k < s["cards"].size(); ++k) {
        const io::Json& c = s["cards"][k];
        const std::string at = "cards[" + std::to_string(k) + "]";
        if (!c.is_object() || !c.contains("side") || c["side"] != "face")
            throw bad(at + " is not a face-up card");
        std::optional<scoring::Card> face;
        if (c.contains("face") && c["face"].is_string()) {
            const std::string name = c["face"].get<std::string>();
            face = anyDeck ? scoring::parseAnyCard(name) : scoring::parseCard(name, scoring::DeckKind::Standard);
        }
        if (!face) throw bad(at + " has no \"face\" of a card");
        const io::Json q = c.contains("quad") ? c["quad"] : io::Json();
        bool ok = q.is_array() && q.size() == 4;
        for (std::size_t p = 0; ok && p < 4; ++p)
            ok = q[p].is_array() && q[p].size() == 2 && q[p][0].is_number() && q[p][1].is_number();
        if (!ok) throw bad(at + " has no \"quad\" of four [x, y] points");
        vi::Quad quad;
        for (std::size_t p = 0; p < 4; ++p)
            quad[p] = {q[p][0].get<float>(), q[p][1].get<float>()};
        cards.push_back({*face, quad});
    }
    return s;
}

// The piles of a scene written by `synth --kind lake`, from its cards (listed bottom to top, each
// pile's cards one after another, ace side first): a card continues the pile before it when it is
// of its suit, of a higher rank (one a lower card is left out where no deck held it) and lies within
// 0.3 of a card of it (the generator squares a pile to 0.07 of a card; piles lie a card apart).
// Throws for a file that is not such a scene. Lake scenes written before 2026-12-02 hold piles of
// mixed cards (scene.cpp, Layout::lake): each such card starts a pile of its own here.
std::vector<TruePile> lakePiles(const fs::path& file, std::string& image, int& decks) {
    std::vector<LabelledCard> cards;
    const io::Json s = faceUpScene(file, "lake", false, image, cards);
    // the decks in play (one a player, as the table knows); 0 where the file does not say
    decks = s.contains("decks") && s["decks"].is_array() ? int(s["decks"].size()) : 0;
    std::vector<TruePile> piles;
    for (const auto& [face, quad] : cards) {
        if (!piles.empty()) {
            TruePile& last = piles.back();
            if (last.top.suit == face.suit && face.rank > last.top.rank &&
                cv::norm(vi::quadCentre(last.quad) - vi::quadCentre(quad)) <
                    0.3 * vi::quadSides(quad).height) {
                last = {face, quad};
                continue;
            }
        }
        piles.push_back({face, quad});
    }
    return piles;
}

// A scene written by `synth --kind pile`: one fanned lake pile, its cards bottom to top (the
// order the generator lays them in and writes them: Scene::cards), and the fault put in it
// ("none", "swap", "suit", "missing", "repeat"; models/training/SYNTH.md). Throws an InputError of
// DIR for a file that is not such a scene (one without a "pile" record among them).
struct PileScene {
    std::string image;
    std::vector<scoring::Card> bottomToTop;
    std::string fault;
};
PileScene pileScene(const fs::path& file) {
    PileScene p;
    std::vector<LabelledCard> cards;
    const io::Json s = faceUpScene(file, "pile", true, p.image, cards);
    if (!s.contains("pile") || !s["pile"].is_object() || !s["pile"].contains("fault") ||
        !s["pile"]["fault"].is_string())
        throw sc("DIR", file.string() + ": not a pile scene of 'nertzref-cli synth --kind pile' (no \"pile\" "
                                        "record with its \"fault\")");
    if (cards.empty())
        throw sc("DIR", file.string() + ": not a pile scene of 'nertzref-cli synth --kind pile' (no card)");
    p.fault = s["pile"]["fault"].get<std::string>();
    for (const auto& c : cards) p.bottomToTop.push_back(c.face);
    return p;
}

// What `pile --image` reads in a picture of a fanned pile, and eval-pile scores: the still
// picture's detection, each card at its corner index, ordered from the pile's bottom
// (vision::readFannedPile), the indices its spacing says lie unread looked for where they should
// lie unless `lookAgain` is false. `ms`: the time it took.
vi::FannedPile readPilePicture(vi::Detector& detector, const cv::Mat& img, bool lookAgain, double* ms = nullptr) {
    const auto start = std::chrono::steady_clock::now();
    vi::FannedPile pile = vi::readFannedPile(detector.detect(img), img, lookAgain ? &detector : nullptr);
    if (ms) ms[0] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return pile;
}

void addLake(CLI::App& app) {
    struct Args {
        std::string input, models;
        int closed = 0, decks = 0;
        bool json = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "lake",
        "read the top card of every lake pile and give the expected number of lake cards");
    cmd->add_option("INPUT", a->input, "picture of the lake")->required();
    cmd->add_option("--closed", a->closed,
                    "closed (finished, turned over) king piles, 13 cards each (each may show as a "
                    "card face down)")
        ->capture_default_str();
    cmd->add_option("--decks", a->decks,
                    "decks in the game, one a player (0: not known): a face or a suit read on more "
                    "tops than that is flagged")
        ->capture_default_str();
    cmd->add_option("--models", a->models, "model folder (default: as detect)");
    cmd->add_flag("--json", a->json, "JSON on stdout");
    cmd->callback([a] {
        if (a->closed < 0 || a->closed > 64) throw sc("closed", "must be 0..64");
        if (a->decks < 0 || a->decks > 64) throw sc("decks", "must be 0..64");
        cv::Mat img;
        try {
            img = vi::loadImage(a->input);
        } catch (const vi::ImageError& e) {
            throw sc("INPUT", e.what());
        }
        const auto detector = stillDetector(a->models);
        const vi::Detection det = detector->detect(img);
        vi::LakeTops lake = vi::readLakeTops(det, img);
        vi::checkAgainstDecks(lake, a->decks);
        const int expected = scoring::expectedLakeCards(lake.cards(), a->closed);
        if (a->json) {
            io::Json tops = io::Json::array(), unread = io::Json::array(),
                     unexplained = io::Json::array(), clashes = io::Json::array(),
                     beyond = io::Json::array(), suitsBeyond = io::Json::array();
            for (const auto& c : lake.beyondDecks) beyond.push_back(c.name());
            for (const auto s : lake.suitsBeyondDecks) suitsBeyond.push_back(std::string(1, scoring::suitLetter(s)));
            for (const auto& t : lake.tops) {
                io::Json j{{"face", t.card.name()},
                           {"confidence", std::round(double(t.confidence) * 1000) / 1000}};
                j["quad"] = t.quad ? quadJson(*t.quad) : io::Json(nullptr);
                // where it was read: its outline's middle, or its index where it has no outline
                j["at"] = {std::round(double(t.at.x) * 10) / 10, std::round(double(t.at.y) * 10) / 10};
                tops.push_back(j);
            }
            for (const auto& q : lake.unread) unread.push_back({{"quad", quadJson(q)}});
            for (const auto& q : lake.unexplained) unexplained.push_back({{"quad", quadJson(q)}});
            io::Json backs = io::Json::array();
            for (const auto& q : lake.backs) backs.push_back({{"quad", quadJson(q)}});
            for (const auto& [i, k] : lake.clashes)
                clashes.push_back({{"tops", {i, k}},
                                   {"faces", {lake.tops[i].card.name(), lake.tops[k].card.name()}}});
            const io::Json j{{"tops", tops},
                             {"closed_piles", a->closed},
                             {"expected", expected},
                             {"complete", lake.complete(a->closed)},
                             {"unread", unread},
                             {"unexplained", unexplained},
                             {"backs", backs},
                             {"clashes", clashes},
                             {"beyond_decks", beyond},
                             {"suits_beyond_decks", suitsBeyond},
                             {"ms", std::round(det.ms * 10) / 10}};
            std::cout << io::dumpJson(j) << "\n";
            return;
        }
        for (const auto& t : lake.tops) std::cout << t.card.name() << " ";
        std::cout << "\nexpected lake cards: " << expected << "\n";
        if (!lake.unread.empty())
            std::cout << lake.unread.size()
                      << " face-up card(s) outlined whose face was not read (--json lists them as "
                         "\"unread\"): their piles are not in that number; read their tops by eye "
                         "or take the picture again, closer or steadier\n";
        if (!lake.unexplained.empty())
            std::cout << lake.unexplained.size()
                      << " card-sized printed thing(s) in view where no card was found (--json "
                         "lists them as \"unexplained\"): a pile there is not in that number; "
                         "look at them, or take the picture again\n";
        if (int(lake.backs.size()) > a->closed)
            std::cout << lake.backs.size() << " card(s) outlined face down (--json lists them as "
                         "\"backs\"), " << a->closed << " closed king pile(s) given: a closed pile is given "
                         "with --closed; any other is a pile whose top was not read, and is not in that "
                         "number\n";
        for (const auto& [i, k] : lake.clashes)
            std::cout << lake.tops[i].card.name() << " and " << lake.tops[k].card.name()
                      << " were read on one another: one pile holds one suit, so one of them is "
                         "misread or a card under a top; check that pile by eye\n";
        for (const auto& c : lake.beyondDecks)
            std::cout << c.name() << " was read on more pile tops than the game's " << a->decks
                      << " deck(s) hold: at least one of them is misread; check them by eye\n";
        for (const auto s : lake.suitsBeyondDecks)
            std::cout << "more " << scoring::suitName(s) << " piles were read than the game's " << a->decks
                      << " deck(s) have aces of that suit: a top's suit is misread or one pile was read "
                         "twice; check the " << scoring::suitName(s) << " tops by eye\n";
    });
}

void addEvalLake(CLI::App& app) {
    struct Args {
        std::string dir, models;
        int limit = 0;
        bool json = false, verbose = false, noDeckCheck = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "eval-lake",
        "score the lake checksum on lake scenes written by 'nertzref-cli synth --kind lake': the "
        "expected total exact, said to be complete, the pile tops read, and timing");
    cmd->add_option("DIR", a->dir, "folder written by 'nertzref-cli synth --kind lake' (images/, cards/)")
        ->required();
    cmd->add_option("--limit", a->limit, "score only the first N scenes");
    cmd->add_option("--models", a->models, "model folder (default: as detect)");
    cmd->add_flag("--verbose", a->verbose, "one line per scene on stderr");
    cmd->add_flag("--no-deck-check", a->noDeckCheck,
                  "do not flag a face or a suit read on more tops than the scene has decks (as "
                  "`lake` without --decks; eval-lake before 2026-12-03, forty-first session)");
    cmd->add_flag("--json", a->json, "JSON on stdout");
    cmd->callback([a] {
        const fs::path dir(a->dir);
        const std::vector<fs::path> files = sceneFiles(a->dir, a->limit, " --kind lake");
        // every scene file is checked before the models load or any picture is read
        std::vector<std::vector<TruePile>> truth;
        std::vector<std::string> images;
        std::vector<int> decks;
        for (const auto& f : files) {
            std::string image;
            int d = 0;
            truth.push_back(lakePiles(f, image, d));
            images.push_back(image);
            decks.push_back(a->noDeckCheck ? 0 : d);
        }
        const auto detector = stillDetector(a->models);
        int exact = 0, complete = 0, completeWrong = 0, incompleteExact = 0;
        long piles = 0, right = 0, wrong = 0, absError = 0, unreadOutlines = 0, unexplained = 0,
             clashes = 0, beyondDecks = 0, suitsBeyondDecks = 0, backs = 0;
        std::vector<double> ms;
        for (std::size_t i = 0; i < files.size(); ++i) {
            cv::Mat img;
            try {
                img = vi::loadImage((dir / images[i]).string());
            } catch (const vi::ImageError& e) {
                throw sc("DIR", files[i].string() + ": " + e.what());
            }
            const vi::Detection det = detector->detect(img);
            ms.push_back(det.ms);
            vi::LakeTops lake = vi::readLakeTops(det, img);
            vi::checkAgainstDecks(lake, decks[i]);
            const auto& ps = truth[i];
            int trueTotal = 0;
            for (const auto& p : ps) trueTotal += int(p.top.rank);
            const int expected = scoring::expectedLakeCards(lake.cards());
            // a top is right where it names the top card of the pile it lies on
            std::vector<char> found(ps.size(), 0);
            int sceneRight = 0;
            for (const auto& t : lake.tops) {
                bool ok = false;
                for (std::size_t k = 0; k < ps.size() && !ok; ++k) {
                    if (found[k] || ps[k].top != t.card) continue;
                    if (vi::quadContains(ps[k].quad, t.at)) found[k] = 1, ok = true;
                }
                sceneRight += ok ? 1 : 0;
            }
            piles += long(ps.size());
            right += sceneRight;
            wrong += long(lake.tops.size()) - sceneRight;
            unreadOutlines += long(lake.unread.size());
            unexplained += long(lake.unexplained.size());
            clashes += long(lake.clashes.size());
            beyondDecks += long(lake.beyondDecks.size());
            suitsBeyondDecks += long(lake.suitsBeyondDecks.size());
            backs += long(lake.backs.size());
            absError += std::abs(expected - trueTotal);
            const bool ok = expected == trueTotal;
            exact += ok ? 1 : 0;
            if (lake.complete()) {
                ++complete;
                completeWrong += ok ? 0 : 1;
            } else {
                incompleteExact += ok ? 1 : 0;
            }
            if (a->verbose)
                std::cerr << images[i] << ": piles " << ps.size() << ", tops read "
                          << lake.tops.size() << " (" << sceneRight << " right), unread "
                          << lake.unread.size() << ", unexplained " << lake.unexplained.size()
                          << ", clashes " << lake.clashes.size()
                          << ", beyond decks " << lake.beyondDecks.size()
                          << ", suits beyond decks " << lake.suitsBeyondDecks.size()
                          << ", backs " << lake.backs.size()
                          << ", expected " << expected << " of "
                          << trueTotal << (ok ? " exact" : " wrong") << "\n";
            if ((i + 1) % 20 == 0 || i + 1 == files.size())
                std::cerr << "eval-lake: " << i + 1 << "/" << files.size() << " scenes, exact "
                          << exact << "\n";
        }
        const double n = double(files.size());
        const double recall = piles ? double(right) / double(piles) : 0.0;
        const double precision = right + wrong ? double(right) / double(right + wrong) : 0.0;
        const io::Json j{
            {"scenes", files.size()},
            {"exact", exact},
            {"exact_share", double(exact) / n},
            {"complete", complete},
            {"complete_wrong", completeWrong},
            {"incomplete", int(files.size()) - complete},
            {"incomplete_exact", incompleteExact},
            {"mean_abs_error", double(absError) / n},
            {"tops", {{"piles", piles}, {"right", right}, {"wrong", wrong}, {"recall", recall},
                      {"precision", precision}, {"unread_outlines", unreadOutlines},
                      {"unexplained", unexplained}, {"clashes", clashes},
                      {"beyond_decks", beyondDecks}, {"suits_beyond_decks", suitsBeyondDecks}, {"backs", backs}}},
            {"ms", {{"median", percentile(ms, 0.5)}, {"p95", percentile(ms, 0.95)}}}};
        if (a->json) {
            std::cout << io::dumpJson(j) << "\n";
            return;
        }
        std::cout << std::fixed << std::setprecision(3);
        std::cout << "scenes " << files.size() << ": expected total exact in " << exact << " ("
                  << double(exact) / n << "), mean |expected - true| " << double(absError) / n
                  << " cards\n";
        std::cout << "said complete (every face-up outline read, nothing card-like unexplained, no "
                     "tops of two suits on one another, no face or suit on more tops than decks, no card face down) in "
                  << complete << ", of them wrong "
                  << completeWrong << "; said incomplete in " << files.size() - std::size_t(complete)
                  << " (exact anyway " << incompleteExact << ")\n";
        std::cout << "pile tops: " << right << " of " << piles << " read right (recall " << recall
                  << "), " << wrong << " readings not a pile's top (precision " << precision
                  << "); outlines left unread " << unreadOutlines << ", card-like regions unexplained "
                  << unexplained << ", tops clashing " << clashes << ", faces beyond the decks "
                  << beyondDecks << ", suits beyond the decks " << suitsBeyondDecks
                  << ", face-down outlines " << backs << "\n";
        std::cout << std::setprecision(1) << "ms per picture: median " << percentile(ms, 0.5)
                  << ", p95 " << percentile(ms, 0.95) << "\n";
    });
}

// SPEC, "Pile check": a fanned lake pile must read A, 2, 3, ... in one suit; the first wrong card
// is named. The cards given bottom to top, or read from a picture of the fanned pile.
void addPile(CLI::App& app) {
    struct Args {
        std::vector<std::string> cards;
        std::string image, models;
        bool json = false, noLookAgain = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "pile", "check a fanned lake pile: it must read A, 2, 3, ... in one suit; names the first "
                "wrong card");
    cmd->add_option("CARDS", a->cards, "the pile's cards from the bottom up (\"AH 2H 3H\")");
    cmd->add_option("--image", a->image,
                    "a picture of the fanned pile instead: its corner indices read and ordered "
                    "along the fan, from the end with the ace");
    cmd->add_option("--models", a->models, "model folder (default: as detect)");
    cmd->add_flag("--no-look-again", a->noLookAgain,
                  "do not look again for the indices the fan's spacing says lie unread (between two "
                  "cards read a gap apart, under a first card that is no ace)");
    cmd->add_flag("--json", a->json, "JSON on stdout");
    cmd->callback([a] {
        if (a->cards.empty() == a->image.empty())
            throw sc("CARDS", "give the pile's cards from the bottom up, or --image PICTURE (not both)");
        vi::FannedPile pile;  // typed: the cards alone
        std::vector<scoring::Card>& cards = pile.bottomToTop;
        if (!a->image.empty()) {
            cv::Mat img;
            try {
                img = vi::loadImage(a->image);
            } catch (const vi::ImageError& e) {
                throw sc("image", e.what());
            }
            pile = readPilePicture(*stillDetector(a->models), img, !a->noLookAgain);
        } else {
            // "AH 2H" as one argument or several, commas allowed
            for (std::string arg : a->cards) {
                std::replace(arg.begin(), arg.end(), ',', ' ');
                std::istringstream words(arg);
                for (std::string word; words >> word;) {
                    const auto c = scoring::parseAnyCard(word);
                    if (!c) throw sc("CARDS", "'" + word + "' is not a card (like AH, 10S, QC, 7B)");
                    cards.push_back(*c);
                }
            }
            if (cards.empty()) throw sc("CARDS", "no card given");
        }
        // from a picture, no verdict where the fan's spacing shows a card unread below the first
        // wrong card read (vision::checkFannedPile)
        const vi::FannedPileCheck fanned = vi::checkFannedPile(pile);
        const scoring::PileCheck& check = fanned.check;
        const bool verdict = !fanned.unreadAt;
        std::string message = fanned.message(pile);
        if (cards.empty()) message = "no card read in the picture: take it again, closer, with the corner indices in view";
        if (a->json) {
            io::Json names = io::Json::array();
            for (const auto& c : cards) names.push_back(c.name());
            const io::Json none(nullptr);
            io::Json j{{"cards", names},
                       {"ok", verdict ? io::Json(check.ok) : none},
                       {"first_wrong", verdict && check.firstWrong ? io::Json(*check.firstWrong + 1) : none},
                       {"expected", verdict && check.expected ? io::Json(check.expected->name()) : none},
                       {"found", verdict && check.found ? io::Json(check.found->name()) : none},
                       {"message", message}};
            if (!a->image.empty()) {
                j["at"] = pointsJson(pile.at);
                j["unread_at"] = fanned.unreadAt ? io::Json(*fanned.unreadAt + 1) : none;
                j["unread"] = pile.unreadBefore.size();
            }
            std::cout << io::dumpJson(j) << "\n";
            return;
        }
        if (!a->image.empty()) {
            std::cout << "read from the bottom up:";
            for (const auto& c : cards) std::cout << " " << c.name();
            std::cout << "\n";
        }
        std::cout << message << "\n";
    });
}

// How often `pile --image` reads a fanned lake pile right, on pile scenes written by `nertzref-cli
// synth --kind pile` (each names its cards bottom to top and the fault put in it, if any).
void addEvalPile(CLI::App& app) {
    struct Args {
        std::string dir, models;
        int limit = 0;
        bool json = false, verbose = false, noLookAgain = false;
    };
    auto a = std::make_shared<Args>();
    auto* cmd = app.add_subcommand(
        "eval-pile",
        "score the pile check from a picture (pile --image) on pile scenes written by 'nertzref-cli "
        "synth --kind pile': piles read exactly, the verdict, the first wrong card named, the cards "
        "read, and timing");
    cmd->add_option("DIR", a->dir, "folder written by 'nertzref-cli synth --kind pile' (images/, cards/)")
        ->required();
    cmd->add_option("--limit", a->limit, "score only the first N scenes");
    cmd->add_option("--models", a->models, "model folder (default: as detect)");
    cmd->add_flag("--verbose", a->verbose,
                  "one line per scene on stderr (also with NERTZ_EVAL_SCENES=1, as eval-count)");
    cmd->add_flag("--no-look-again", a->noLookAgain,
                  "do not look again for the indices the fan's spacing says lie unread (between two "
                  "cards read a gap apart, under a first card that is no ace)");
    cmd->add_flag("--json", a->json, "JSON on stdout");
    cmd->callback([a] {
        const fs::path dir(a->dir);
        const std::vector<fs::path> files = sceneFiles(a->dir, a->limit, " --kind pile");
        // every scene file is checked before the models load or any picture is read
        std::vector<PileScene> truth;
        for (const auto& f : files) truth.push_back(pileScene(f));
        const char* env = std::getenv("NERTZ_EVAL_SCENES");
        const bool verbose = a->verbose || (env && std::string(env) != "0");
        const auto detector = stillDetector(a->models);
        // by the fault put in the pile ("none" first), and all together ("")
        struct Score {
            int scenes = 0, exact = 0, verdictRight = 0, faulty = 0, namedRight = 0;
        };
        std::map<std::string, Score> byFault;
        int falseAlarms = 0, missedFaults = 0, withheld = 0, withheldMisread = 0;
        long cardsTrue = 0, cardsRead = 0, cardsRight = 0;
        std::vector<double> ms;
        for (std::size_t i = 0; i < files.size(); ++i) {
            const PileScene& t = truth[i];
            cv::Mat img;
            try {
                img = vi::loadImage((dir / t.image).string());
            } catch (const vi::ImageError& e) {
                throw sc("DIR", files[i].string() + ": " + e.what());
            }
            double took = 0;
            const vi::FannedPile pile = readPilePicture(*detector, img, !a->noLookAgain, &took);
            const std::vector<scoring::Card>& read = pile.bottomToTop;
            ms.push_back(took);
            const scoring::PileCheck want = scoring::checkLakePile(t.bottomToTop);
            const vi::FannedPileCheck fanned = vi::checkFannedPile(pile);
            const scoring::PileCheck& got = fanned.check;
            const bool exact = read == t.bottomToTop;
            // no verdict where a card lies unread below the first wrong card read (as pile says)
            const bool given = !fanned.unreadAt;
            const bool verdict = given && got.ok == want.ok;
            // the first wrong card named right: at the same place, the same card
            const bool named = given && !want.ok && got.firstWrong == want.firstWrong && got.found == want.found;
            falseAlarms += given && want.ok && !got.ok ? 1 : 0;
            missedFaults += given && !want.ok && got.ok ? 1 : 0;
            withheld += given ? 0 : 1;
            withheldMisread += !given && read != t.bottomToTop ? 1 : 0;
            // the cards read that are cards of the pile (each true card matched once)
            std::multiset<scoring::Card> left(t.bottomToTop.begin(), t.bottomToTop.end());
            int right = 0;
            for (const auto& c : read)
                if (const auto it = left.find(c); it != left.end()) left.erase(it), ++right;
            cardsTrue += long(t.bottomToTop.size());
            cardsRead += long(read.size());
            cardsRight += right;
            for (const std::string& key : {std::string(), t.fault}) {
                Score& s = byFault[key];
                ++s.scenes;
                s.exact += exact ? 1 : 0;
                s.verdictRight += verdict ? 1 : 0;
                s.faulty += want.ok ? 0 : 1;
                s.namedRight += named ? 1 : 0;
            }
            if (verbose) {
                auto names = [](const std::vector<scoring::Card>& cs) {
                    std::string out;
                    for (const auto& c : cs) out += (out.empty() ? "" : " ") + c.name();
                    return out.empty() ? std::string("(none)") : out;
                };
                std::cerr << t.image << ": fault " << t.fault << ", true " << names(t.bottomToTop) << ", read "
                          << names(read) << (exact ? " exact" : " wrong") << ", verdict "
                          << (!given ? "none (a card unread)" : got.ok ? "ok" : "not ok")
                          << (!given ? "" : verdict ? " (right)" : " (wrong)");
                if (!want.ok) std::cerr << ", first wrong card " << (named ? "named right" : "not named right");
                std::cerr << "\n";
            }
            if ((i + 1) % 20 == 0 || i + 1 == files.size())
                std::cerr << "eval-pile: " << i + 1 << "/" << files.size() << " scenes, exact "
                          << byFault[""].exact << "\n";
        }
        const Score& all = byFault[""];
        const double n = double(files.size());
        const double recall = cardsTrue ? double(cardsRight) / double(cardsTrue) : 0.0;
        const double namedShare = all.faulty ? double(all.namedRight) / double(all.faulty) : 0.0;
        io::Json faults = io::Json::object();
        for (const auto& [fault, s] : byFault)
            if (!fault.empty())
                faults[fault] = {{"scenes", s.scenes}, {"exact", s.exact}, {"verdict_right", s.verdictRight},
                                 {"named_right", s.namedRight}};
        const io::Json j{
            {"scenes", files.size()},
            {"exact", all.exact},
            {"exact_share", double(all.exact) / n},
            {"verdict_right", all.verdictRight},
            {"verdict_share", double(all.verdictRight) / n},
            {"false_alarms", falseAlarms},
            {"missed_faults", missedFaults},
            {"withheld", withheld},
            {"withheld_misread", withheldMisread},
            {"faulty", all.faulty},
            {"named_right", all.namedRight},
            {"named_share", namedShare},
            {"cards", {{"true", cardsTrue}, {"read", cardsRead}, {"right", cardsRight},
                       {"misread", cardsRead - cardsRight}, {"recall", recall}}},
            {"by_fault", faults},
            {"ms", {{"median", percentile(ms, 0.5)}, {"p95", percentile(ms, 0.95)}}}};
        if (a->json) {
            std::cout << io::dumpJson(j) << "\n";
            return;
        }
        std::cout << std::fixed << std::setprecision(3);
        std::cout << "scenes " << files.size() << ": pile read exactly (every card, in order) in "
                  << all.exact << " (" << double(all.exact) / n << ")\n";
        std::cout << "verdict (ok or not, as the check on the true cards) right in " << all.verdictRight
                  << " (" << double(all.verdictRight) / n << "); right piles said wrong " << falseAlarms
                  << ", faulty piles said ok " << missedFaults << "; no verdict (a card seen unread in the "
                  << "fan) in " << withheld << ", " << withheldMisread << " of them not read exactly\n";
        std::cout << "faulty piles " << all.faulty << ": first wrong card named right (same place, same card) in "
                  << all.namedRight << " (" << namedShare << ")\n";
        std::cout << "cards: " << cardsRight << " of " << cardsTrue << " in the piles read (recall " << recall
                  << "), " << cardsRead - cardsRight << " readings not a card of the pile (of " << cardsRead
                  << " read)\n";
        std::cout << "by fault:";
        for (const auto& [fault, s] : byFault)
            if (!fault.empty())
                std::cout << " " << fault << " " << s.scenes << " (exact " << s.exact << ", verdict right "
                          << s.verdictRight << ", named right " << s.namedRight << ");";
        std::cout << "\n";
        std::cout << std::setprecision(1) << "ms per picture: median " << percentile(ms, 0.5) << ", p95 "
                  << percentile(ms, 0.95) << "\n";
    });
}

}  // namespace

void addLakeCommands(CLI::App& app, Context&) {
    addLake(app);
    addEvalLake(app);
    addPile(app);
    addEvalPile(app);
}

}  // namespace nertz::cli
