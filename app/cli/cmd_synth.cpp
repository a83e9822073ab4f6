// synth: write synthetic card-table scenes (images, YOLO labels, per-card JSON, index crops) for
// training and measuring the vision module.
#include <iostream>

#include "commands.hpp"
#include "nertz/scoring/error.hpp"
#include "nertz/synth/card_art.hpp"
#include "nertz/synth/dataset.hpp"
#include "nertz/synth/design_split.hpp"
#include "nertz/synth/scene.hpp"

namespace nertz::cli {

namespace {

cv::Size parseSize(const std::string& text) {
    int w = 0, h = 0;
    char x = 0, extra = 0;
    if (std::sscanf(text.c_str(), "%d%c%d%c", &w, &x, &h, &extra) != 3 || (x != 'x' && x != 'X'))
        throw scoring::InputError("size", "'" + text + "' is not WxH (e.g. 1280x720), 'random' or 'square'");
    if (w < 64 || h < 64 || w > 8192 || h > 8192) throw scoring::InputError("size", "must be between 64x64 and 8192x8192");
    return {w, h};
}

}  // namespace

void addSynthCommand(CLI::App& app, Context&) {
    struct Args {
        std::string out;
        int scenes = 10;
        unsigned long long seed = 1;
        std::string kind = "mixed";
        std::string designs = "train";
        std::string size = "1280x720";
        std::string cardart;
        std::string split;
        std::string backgrounds;
        double backgroundShare = -1;
        double tilt = 50;
        double plainBacks = 0;
        double fineBacks = 0;
        double pepper = 0;
        bool prefilter = false;
        double sameBackPairs = 0;
        std::vector<double> ribbonShift{0.04, 0.14};
        std::vector<double> cardSize;
        double plainTables = 0;
        double realHands = 0;
        bool crops = false;
        bool previews = false;
        bool masks = false;
        bool colourDeck = true;
        std::string indexSheets;
    };
    auto args = std::make_shared<Args>();
    auto* cmd = app.add_subcommand("synth", "write synthetic card-table scenes with YOLO labels and per-card JSON");
    cmd->add_option("--out", args->out, "output folder (laid out like shared/data/real-cards)");
    cmd->add_option("--scenes", args->scenes, "number of scenes")->capture_default_str();
    cmd->add_option("--seed", args->seed, "seed; the same seed gives the same files")->capture_default_str();
    cmd->add_option("--kind", args->kind, "faces|backs|mixed|lake|fan|ribbon|loose|pile (pile: one fanned lake pile for a pile check, A up in one suit, half of them with one fault)")->capture_default_str();
    cmd->add_option("--designs", args->designs, "train|heldout|all (split: models/training/designs.json)")->capture_default_str();
    cmd->add_option("--size", args->size, "WxH, 'random' (640x480..1920x1080) or 'square' (random, stretched to 640x640)")
        ->capture_default_str();
    cmd->add_option("--cardart", args->cardart, "card-art cache (default $NERTZ_CARDART or ~/.cache/nertzref/cardart)");
    cmd->add_option("--split", args->split, "design split file (default models/training/designs.json)");
    cmd->add_option("--backgrounds", args->backgrounds, "folder of table photos to use as backgrounds too");
    cmd->add_option("--background-share", args->backgroundShare,
                    "share of scenes drawn on a --backgrounds photo (default: one of four table kinds alike)");
    cmd->add_option("--max-tilt", args->tilt, "largest camera tilt from vertical, degrees")->capture_default_str();
    cmd->add_option("--plain-backs", args->plainBacks,
                    "share of decks given a plain back of one colour (no pattern, no margin; mostly dark)")
        ->capture_default_str();
    cmd->add_option(
           "--fine-backs", args->fineBacks,
           "share of decks whose back pattern is printed 3-5 times finer (tiled; margin kept)")
        ->capture_default_str();
    cmd->add_option("--plain-tables", args->plainTables, "share of scenes on a plain one-colour cloth (felt)")
        ->capture_default_str();
    cmd->add_option("--real-hands", args->realHands,
                    "share of hands drawn with light, skin texture and a shadow (else one shaded skin colour)")
        ->capture_default_str();
    cmd->add_option("--pepper", args->pepper, "share of scenes with salt-and-pepper noise (as the real set's exporter added)")
        ->capture_default_str();
    cmd->add_flag("--prefilter", args->prefilter,
                  "blur each card's artwork by its shrink before drawing it, as a camera averages "
                  "a fine pattern, instead of aliasing it into moire (off by default: the figures "
                  "before 2026-11-27 were measured without it)");
    cmd->add_option(
           "--same-back-pairs", args->sameBackPairs,
           "share of face-down cards (backs, loose) laid partly over a card of their own deck, "
           "for training the segmenter on the side between two cards of one print")
        ->capture_default_str();
    cmd->add_option("--ribbon-shift", args->ribbonShift,
                    "LO,HI: how far each card of a face-down ribbon lies from the one before it, in "
                    "card heights (a card is about 0.7 wide), drawn evenly between the two")
        ->delimiter(',')
        ->expected(2)
        ->capture_default_str();
    cmd->add_option("--card-size", args->cardSize,
                    "LO,HI: a card's long side as a share of the picture's short side, drawn evenly "
                    "between the two (default 0.16-0.4, loose sorts 0.12-0.24; lake piles keep "
                    "their grid's size); 0.3,0.7 draws close-ups as a phone over a few cards sees them")
        ->delimiter(',')
        ->expected(2);
    cmd->add_flag("--crops", args->crops, "also write rectified corner-index crops to OUT/crops/<class>/");
    cmd->add_flag("--previews", args->previews, "also write OUT/previews/NAME.png with the labels drawn");
    cmd->add_flag("--masks", args->masks,
                  "also write OUT/masks/NAME.png: what each pixel shows, 16-bit (0 table, 1 hand, 2 + i the i-th card of the JSON)");
    cmd->add_flag("!--no-colour-deck", args->colourDeck, "leave out the procedural NERTZ colour deck");
    cmd->add_option("--index-sheets", args->indexSheets, "write each design's faces with their index boxes to this folder and stop");
    cmd->callback([args] {
        namespace sy = nertz::synth;
        if (args->out.empty() && args->indexSheets.empty()) throw scoring::InputError("out", "--out DIR is required");
        if (args->scenes < 0 || args->scenes > 10'000'000) throw scoring::InputError("scenes", "must be 0..10000000");
        if (args->tilt < 0 || args->tilt > 75) throw scoring::InputError("max-tilt", "must be 0..75 degrees");
        if (args->plainBacks < 0 || args->plainBacks > 1) throw scoring::InputError("plain-backs", "must be 0..1");
        if (args->fineBacks < 0 || args->fineBacks > 1)
            throw scoring::InputError("fine-backs", "must be 0..1");
        if (args->pepper < 0 || args->pepper > 1) throw scoring::InputError("pepper", "must be 0..1");
        if (args->plainTables < 0 || args->plainTables > 1) throw scoring::InputError("plain-tables", "must be 0..1");
        if (args->realHands < 0 || args->realHands > 1) throw scoring::InputError("real-hands", "must be 0..1");
        if (args->backgroundShare != -1 && (args->backgroundShare < 0 || args->backgroundShare > 1))
            throw scoring::InputError("background-share", "must be 0..1");
        if (args->backgroundShare != -1 && args->backgrounds.empty())
            throw scoring::InputError("background-share", "needs --backgrounds DIR");
        if (args->sameBackPairs < 0 || args->sameBackPairs > 1)
            throw scoring::InputError("same-back-pairs", "must be 0..1");
        if (args->ribbonShift.size() != 2 || !(args->ribbonShift[0] >= 0.02) ||
            !(args->ribbonShift[1] <= 0.5) || !(args->ribbonShift[0] <= args->ribbonShift[1]))
            throw scoring::InputError("ribbon-shift",
                                      "must be LO,HI with 0.02 <= LO <= HI <= 0.5 (card heights)");
        if (!args->cardSize.empty() &&
            (args->cardSize.size() != 2 || !(args->cardSize[0] >= 0.03) || !(args->cardSize[1] <= 1.5) ||
             !(args->cardSize[0] <= args->cardSize[1])))
            throw scoring::InputError("card-size",
                                      "must be LO,HI with 0.03 <= LO <= HI <= 1.5 (shares of the picture's short side)");
        sy::SceneOptions opt;
        if (!args->cardSize.empty()) {
            opt.cardSizeLo = args->cardSize[0];
            opt.cardSizeHi = args->cardSize[1];
        }
        opt.ribbonShiftLo = args->ribbonShift[0];
        opt.ribbonShiftHi = args->ribbonShift[1];
        opt.plainBacks = args->plainBacks;
        opt.fineBacks = args->fineBacks;
        opt.pepperNoise = args->pepper;
        opt.prefilterCards = args->prefilter;
        opt.sameBackPairs = args->sameBackPairs;
        opt.plainTables = args->plainTables;
        opt.realHands = args->realHands;
        opt.kind = sy::parseSceneKind(args->kind);
        opt.maxTiltDegrees = args->tilt;
        if (args->size == "random") {
            opt.randomSize = true;
        } else if (args->size == "square") {
            opt.randomSize = true;
            opt.stretchSquare = true;
        } else {
            opt.size = parseSize(args->size);
        }
        opt.photoBackgrounds = args->backgrounds;
        opt.photoBackgroundShare = args->backgroundShare;
        if (!args->backgrounds.empty() && !std::filesystem::is_directory(args->backgrounds))
            throw scoring::InputError("backgrounds", "not a folder: " + args->backgrounds);
        const sy::DesignSet set = sy::parseDesignSet(args->designs);
        const sy::DesignSplit split = sy::loadDesignSplit(args->split.empty() ? sy::defaultDesignSplitFile() : std::filesystem::path(args->split));
        const std::filesystem::path cache = args->cardart.empty() ? sy::defaultCardArtDir() : std::filesystem::path(args->cardart);
        std::vector<std::string> wanted;
        if (!std::filesystem::is_directory(cache))
            throw scoring::InputError("cardart", "no card-art cache at " + cache.string() +
                                                     "; render it with models/training/render_card_art.sh");
        for (const auto& e : std::filesystem::directory_iterator(cache))
            if (e.is_directory() && split.allows(set, e.path().filename().string())) wanted.push_back(e.path().filename().string());
        if (wanted.empty()) throw scoring::InputError("designs", "no '" + args->designs + "' designs in " + cache.string());
        std::cerr << "synth: loading " << wanted.size() << " designs from " << cache.string() << "\n";
        std::vector<sy::CardDesign> designs = sy::loadCardArt(cache, wanted);
        if (!args->indexSheets.empty()) {
            std::filesystem::create_directories(args->indexSheets);
            for (const auto& d : designs) sy::writeIndexSheet(d, std::filesystem::path(args->indexSheets) / (d.name + ".png"));
            std::cerr << "synth: wrote " << designs.size() << " index sheets to " << args->indexSheets << "\n";
            return;
        }
        if (args->colourDeck) designs.push_back(sy::makeNertzColourDesign());
        const sy::SceneGenerator generator(designs, opt);
        sy::DatasetOptions dopt;
        dopt.scenes = args->scenes;
        dopt.seed = args->seed;
        dopt.crops = args->crops;
        dopt.previews = args->previews;
        dopt.masks = args->masks;
        sy::writeDataset(args->out, generator, dopt, [](int done, int total) {
            if (done % 50 == 0 || done == total) std::cerr << "synth: " << done << "/" << total << " scenes\n";
        });
        std::cout << "{\"out\": \"" << args->out << "\", \"scenes\": " << args->scenes << ", \"designs\": " << designs.size() << "}\n";
    });
}

}  // namespace nertz::cli
