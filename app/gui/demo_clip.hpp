// The bundled demo clip: a short video of a Nertz table made by our own generator, so a machine
// without a camera can walk the whole flow. Two decks of one back design in two colours (blue and
// red, the most common pair at real tables) are each held under the camera to enrol them, then the
// lake's face-up top cards show, then the sorted lake cards are laid out face down one by one and
// stay for the back count. The art is the real GNOME card artwork from the card-art cache of
// nertz::synth (NERTZ_CARDART, else ~/.cache/nertzref/cardart; models/training/render_card_art.sh
// writes it); without the cache the backs and faces are painted with QPainter instead (said in a
// log line). Frames are composed with nertz::vision's renderer (renderEnrolmentView, drawCard).
#pragma once
#include <QString>
#include <QStringList>
#include <opencv2/core.hpp>
#include <cstdint>
#include <vector>

namespace nertz::gui {

// What is where in the clip (frame ranges are [first, last)).
struct DemoClipPlan {
    int enrolFirst[2] = {0, 0}, enrolEnd[2] = {0, 0};  // deck 0 (blue), deck 1 (red) held up to enrol
    int lakeFirst = 0, lakeEnd = 0;                    // the lake's top cards, face up
    int sortFirst = 0, sortEnd = 0;                    // face-down cards laid out one at a time
    int holdFirst = 0, frames = 0;                     // the whole sort lying still, to the end
    std::vector<int> sortDecks;                        // the deck (0 or 1) of each card laid out
    QStringList lakeTops;                              // the lake's top cards ("7H")
    QStringList deckNames = {"blue", "red"};
    int count(int deck) const;                         // cards of `deck` in the sort
};
DemoClipPlan demoClipPlan();

inline constexpr int kDemoClipFrames = 150;

struct DemoClipFrames {
    std::vector<cv::Mat> frames;  // 8-bit BGR, 640x480
    bool realArt = false;         // card art from the cache (else painted)
    QString note;                 // where the art came from, or why it is painted
};
// The clip's artwork: the two backs (blue, red; CV_8UC4 BGRA) and the lake's faces, from the cache
// or painted.
struct DemoClipArt {
    cv::Mat backs[2];
    std::vector<cv::Mat> faces;  // plan.lakeTops
    bool real = false;
    QString note;
};
DemoClipArt demoClipArt();
// The face `name` ("AH") in the clip's artwork: from the cache where `real`, else painted (as
// demoClipArt paints them), so that tests can lay out other cards in the clip's style.
cv::Mat demoClipFace(const QString& name, bool real);

// Renders the first `frames` frames of the clip (all when <= 0).
DemoClipFrames renderDemoClip(int frames = 0);

// The back signature (bytes) of deck 0 or 1 from its enrolment frames, as the Decks screen makes it
// (the largest back in view, three views merged); empty when none is found. For the screenshots.
std::vector<std::uint8_t> demoBackSignature(const DemoClipFrames& clip, int deck);

// Writes the clip (MJPG in AVI, 640x480, 10 fps, the first `frames` frames) to `path`; false and a
// message in `error` on failure. Logs (stderr) where the art came from.
bool writeDemoClip(const QString& path, int frames, QString* error);
// The clip to play: the cached one (cacheDir()/demo-v2.avi), else the one the build wrote beside the
// program (NERTZ_BUILT_DEMO_CLIP), else a newly generated cached one; empty on failure.
QString ensureDemoClip(QString* error);

}  // namespace nertz::gui
