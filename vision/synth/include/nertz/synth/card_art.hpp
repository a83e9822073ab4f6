// Card artwork for synthetic scenes: the faces and backs of real deck designs rendered to PNG by
// models/training/render_card_art.sh, plus the procedural boxed NERTZ colour deck.
#pragma once

#include <opencv2/core.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "nertz/scoring/card.hpp"

namespace nertz::synth {

// Where a printed corner index (rank glyph + suit pip) sits on a card face, as a rectangle in
// card pixels (x right, y down, origin at the card image's top-left).
struct IndexRegion {
    cv::Rect2f box;
    std::string corner;  // "top_left" or "bottom_right"
};

// One face of a design: the card it shows, its BGRA image and its corner indices.
struct FaceArt {
    scoring::Card card;
    std::string name;  // SPEC name: "10H", "AS", "7B"
    cv::Mat image;     // CV_8UC4, alpha 0 outside the rounded card
    std::vector<IndexRegion> indices;
};

// One back of a design (some designs ship several back pictures).
struct BackArt {
    std::string id;  // "back", "back_c1", ...
    cv::Mat image;   // CV_8UC4
};

// One deck design: 52 faces and at least one back.
struct CardDesign {
    std::string name;     // "gnome-anglo", "kde-oxygen", "nertz-colour"
    std::string package;  // Debian package the artwork comes from, or "procedural"
    scoring::DeckKind kind = scoring::DeckKind::Standard;
    std::vector<FaceArt> faces;  // index by Card::index()
    std::vector<BackArt> backs;
};

// The card-art cache directory: $NERTZ_CARDART, else $XDG_CACHE_HOME/nertzref/cardart, else
// ~/.cache/nertzref/cardart.
std::filesystem::path defaultCardArtDir();

// Loads every design in a cache written by render_card_art.sh (CACHE/<design>/faces/<CARD>.png,
// CACHE/<design>/backs/*.png) and finds each face's corner indices. `only`, when not empty,
// restricts loading to those design names. Throws scoring::InputError("cardart", ...) when the
// directory is missing or incomplete (the message says how to render it).
std::vector<CardDesign> loadCardArt(const std::filesystem::path& cacheDir,
                                    const std::vector<std::string>& only = {});

// Loads one design directory (DIR/faces/*.png, DIR/backs/*.png); the design is named after DIR.
CardDesign loadDesign(const std::filesystem::path& designDir);

// The boxed NERTZ colour deck (suits blue, red, yellow, white; ranks 1-13), drawn procedurally:
// coloured numerals with a colour pip in two corners on white, and a patterned back.
CardDesign makeNertzColourDesign();

// A copy of `back` with its hue turned by `hueDegrees` (0..360): the same back design printed in
// another colour, like red and blue backs of one brand. Alpha is kept.
cv::Mat recolourBack(const cv::Mat& back, double hueDegrees);

// A plain back of one colour in the shape (alpha) of `back`: no pattern and no light margin, like
// the black decks of real tables; a faint print grain seeded by the colour, so the same colour gives
// the same picture.
cv::Mat plainBack(const cv::Mat& back, cv::Vec3b bgr);

// The back id modifier naming plainBack(_, bgr): "@plain<rrggbb>" (read by applyBackModifiers).
std::string plainBackModifier(cv::Vec3b bgr);

// A copy of `back` whose pattern is `times` times finer: the middle of the back (inside its light
// margin, 8% of the width and 6% of the height in from the edge) shrunk by `times` and tiled
// times x times over the same middle; the margin and alpha are kept. A train design printed this
// fine has the trouble of the held-out gnome-neoclassical back (a period of a few pixels once a
// card is rectified), so that a signature change can be judged on train designs. `times` 2..8.
cv::Mat fineBack(const cv::Mat& back, int times);

// The deck's back from a scene's back id after "<design>/<back id>": the modifiers "@hue<deg>"
// (recolourBack), "@plain<rrggbb>" (plainBack) and "@fine<times>" (fineBack) applied in order to
// `base`.
cv::Mat applyBackModifiers(cv::Mat base, const std::string& modifiers);

// Whether a design's face prints no corner index (rank and suit) at all, as checked by eye on the
// index sheets: such a face gets no index boxes, so its scenes label no index for it (it cannot be
// read by its corner), and no patch of its art is trained as an index.
bool printsNoIndex(const std::string& design, const scoring::Card& card);

// Finds the printed corner indices of a face image: the ink near the top-left corner (rank glyph
// and the suit pip under or beside it), and the same in the 180-degree-rotated bottom-right
// corner; cards being point-symmetric, a corner found much smaller than the other (or not at all)
// takes the other's box turned by 180 degrees. Returns an empty vector when neither is found.
std::vector<IndexRegion> findIndexRegions(const cv::Mat& faceBgra);

// A contact sheet of a design's faces with their index boxes drawn, for checking by eye.
cv::Mat indexSheet(const CardDesign& design);
// Writes indexSheet(design) as a PNG file.
void writeIndexSheet(const CardDesign& design, const std::filesystem::path& file);

}  // namespace nertz::synth
