// Opening a recorded clip the same way everywhere (`nertzref-cli count`, the app's video source).
#pragma once

#include <opencv2/videoio.hpp>

#include <string>

namespace nertz::vision {

// Opens `path` in `capture`: with FFmpeg where OpenCV has it built in (it reads nearly everything,
// and what it cannot open is no video; the other backends, asked about a file FFmpeg refused,
// print their own complaints on stderr beyond OpenCV's log level); without it, OpenCV's own MJPEG
// reader (needs nothing installed), then any. A backend that throws on a file is passed over.
// Returns whether the clip is open; never throws.
bool openVideoFile(cv::VideoCapture& capture, const std::string& path);

}  // namespace nertz::vision
