// The bundled demo clip: a short video of a Nertz table (a lake of face-up piles, then face-down
// cards with red and blue backs being dealt onto a sorting spot), drawn by our own code with
// QPainter and written by cv::VideoWriter. Generated on first use, never committed as binary.
#pragma once
#include <QString>

namespace nertz::gui {

inline constexpr int kDemoClipFrames = 40;

// Writes the clip (MJPG in AVI, 640x480, 10 fps, `frames` frames) to `path`; false and a message
// in `error` on failure.
bool writeDemoClip(const QString& path, int frames, QString* error);
// The clip to play: the cached one (cacheDir()/demo-v1.avi), else the one the build wrote beside the
// program (NERTZ_BUILT_DEMO_CLIP), else a newly generated cached one; empty on failure.
QString ensureDemoClip(QString* error);

}  // namespace nertz::gui
