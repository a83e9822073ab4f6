// Synthetic card-table scenes: real card artwork laid out as a Nertz table shows it (lake piles,
// fans, loose and ribbon-spread face-down cards) on wood, cloth or white tables, seen from above or
// obliquely, with uneven light, glare, shadows, hands, blur and noise; every card's geometry and
// every corner index's visibility is known exactly.
#pragma once

#include <opencv2/core.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "nertz/synth/card_art.hpp"

namespace nertz::synth {

// What a scene shows.
enum class SceneKind {
    Faces,   // face-up cards, separated and overlapping
    Backs,   // face-down cards of several decks, loose and in small batches
    Mixed,   // some of each layout below
    Lake,    // squared face-up lake piles, top cards readable
    Fan,     // face-up fans: only the corner indices show
    Ribbon,  // face-down ribbon spreads of several decks
    Loose,   // the sort laid out loosely: 10-60 face-down cards, each showing a third of itself or more
    Pile,    // one lake pile fanned out face up for a pile check: A, 2, 3, ... of one suit, in half
             // the scenes with one fault a table can hold (ScenePile)
};

// "faces" | "backs" | "mixed" | "lake" | "fan" | "ribbon" | "loose" | "pile"; throws
// scoring::InputError("kind", ...).
SceneKind parseSceneKind(const std::string& text);
std::string sceneKindName(SceneKind kind);

struct SceneOptions {
    SceneKind kind = SceneKind::Mixed;
    cv::Size size{1280, 720};      // the camera's picture, before any stretching
    bool randomSize = false;       // pick each scene's size among 640x480 .. 1920x1080
    bool stretchSquare = false;    // finally stretch to 640x640 like the real set's exporter
    double maxTiltDegrees = 50.0;  // camera tilt from vertical
    std::filesystem::path photoBackgrounds;  // optional folder of table photos (jpg/png)
    // Share of scenes drawn on one of those photos; below 0 (the default) the photo is one of the
    // four table kinds drawn alike (a quarter of the scenes), as before the option existed.
    double photoBackgroundShare = -1.0;
    double plainBacks = 0.0;       // share of decks given a plain back of one colour (plainBack)
    double fineBacks =
        0.0;  // share of decks whose back pattern is printed 3-5 times finer (fineBack)
    double plainTables = 0.0;      // share of scenes on a plain one-colour cloth (felt)
    double realHands = 0.0;        // share of hands drawn with light, skin texture and a shadow
    double pepperNoise = 0.0;      // share of scenes with salt-and-pepper noise, as the real set's exporter added
    // Cards drawn smaller than their artwork are first blurred (sigma 0.45 / shrink) so that their
    // pattern is averaged, as a camera's pixels and lens average it, instead of aliased into moiré
    // by the warp's point samples. Off by default: every figure recorded before 2026-11-27 was
    // measured on scenes drawn without it (BACKS.md, "Cards drawn as a camera sees them").
    bool prefilterCards = false;
    // Share of the face-down cards of a backs or loose scene laid partly over a card of their own
    // deck dealt before them (a quarter to most of a card away, often at about its angle): tables
    // where the segmenter must find the side between two cards of one print. 0 (the default) draws
    // nothing more, so a seed's scenes stay as they were.
    double sameBackPairs = 0.0;
    // How far each card of a face-down ribbon lies from the one before it, in card heights (a card
    // is about 0.7 wide), drawn evenly between the two. The default 0.04..0.14 shows strips of 6-20%
    // of a card, as a tight spread does; wider spreads (up to 0.5) for measuring and training the
    // row reader on them. The same draw either way, so a seed's default scenes stay as they were.
    double ribbonShiftLo = 0.04, ribbonShiftHi = 0.14;
    // A card's long side as a share of the picture's short side (at the middle of the view), drawn
    // evenly between the two, for every kind but lake (whose piles fill their grid). 0 (the
    // default): 0.16-0.4, a loose sort's 0.12-0.24, with no draw more, so a seed's scenes stay as
    // they were. Close-ups (0.3-0.7) are what a phone held over a few cards sees; with a largest
    // size over 0.3 a backs scene holds fewer cards (1-5 face down, 0-3 face up beside them, a
    // small batch in a third of the scenes) instead of 2-11 and up to two batches of 2-7.
    double cardSizeLo = 0.0, cardSizeHi = 0.0;
};

// A printed corner index of a placed face-up card.
struct SceneIndex {
    std::string corner;              // "top_left" / "bottom_right"
    std::vector<cv::Point2f> quad;   // the index rectangle's corners in the image, in the glyph's
                                     // reading order (top-left, top-right, bottom-right, bottom-left)
    cv::Rect2f box;                  // axis-aligned box around quad, clipped to the image
    double visibleFraction = 0.0;    // share of the index not covered by other cards or hands
    bool visible = false;            // visibleFraction >= 0.8 and mostly inside the image
};

// One card placed in a scene.
struct SceneCard {
    std::vector<cv::Point2f> quad;  // image corners in reading order: the card's top-left, top-right,
                                    // bottom-right, bottom-left (as printed, so rotation is known)
    bool faceUp = true;
    std::string face;               // SPEC card name ("10H", "AS", "7B"), also for face-down cards
    int deckId = 0;                 // which player's deck (0-based within the scene)
    std::string design;             // artwork design of the deck
    std::string back;               // the deck's back: "<design>/<back id>" plus "@hue<deg>" if recoloured,
                                    // "@plain<rrggbb>" if plain (applyBackModifiers)
    double visibleFraction = 0.0;   // share of the card's area not covered (by cards, hands, image border)
    std::vector<SceneIndex> indices;  // face-up cards only
};

// One player's deck in a scene.
struct SceneDeck {
    int id = 0;
    std::string design;
    std::string back;
};

// What the fanned lake pile of a `pile` scene is (SPEC, "Pile check"): the pile A .. `top` of one
// suit as a table builds it, its cards from any of the players' decks, and the one fault injected
// into it, if any. The scene's `cards` are the pile's as laid, bottom to top.
struct ScenePile {
    std::string top;             // the pile's highest card of its suit ("7H"): the cards are A .. top
    std::string fault = "none";  // "none"; "swap": two neighbouring cards swapped (not the ace);
                                 // "suit": a card of another suit in place of the right one (its
                                 // rank); "missing": a rank left out (neither the ace nor the top);
                                 // "repeat": a card laid again on itself from another deck
    int at = 0;  // the first card out of order, 1-based from the bottom (0: none), as
                 // scoring::checkLakePile names it on the scene's cards
};

struct Scene {
    cv::Mat image;  // CV_8UC3, after all degradations except JPEG coding
    std::vector<SceneDeck> decks;
    std::vector<SceneCard> cards;  // bottom to top
    std::optional<ScenePile> pile;  // `pile` scenes only
    int jpegQuality = 90;          // the quality the writer should encode with
    // What each pixel shows (CV_32S, the image's size): the index into `cards` of the card on top,
    // -1 table, -2 a hand.
    cv::Mat ids;
};

// Makes scenes from a fixed set of designs. generate(seed) is deterministic: the same designs,
// options and seed give the same scene, byte for byte.
class SceneGenerator {
public:
    // `designs` must outlive the generator and hold at least one design.
    SceneGenerator(const std::vector<CardDesign>& designs, SceneOptions options);

    Scene generate(std::uint64_t seed) const;

    const SceneOptions& options() const noexcept { return options_; }

private:
    const std::vector<CardDesign>* designs_;
    SceneOptions options_;
    std::vector<std::filesystem::path> photos_;
};

}  // namespace nertz::synth
