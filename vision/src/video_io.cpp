#include "nertz/vision/video_io.hpp"

#include <opencv2/videoio/registry.hpp>

#include <vector>

namespace nertz::vision {

bool openVideoFile(cv::VideoCapture& capture, const std::string& path) {
    const std::vector<int> apis = cv::videoio_registry::hasBackend(cv::CAP_FFMPEG)
                                      ? std::vector<int>{cv::CAP_FFMPEG}
                                      : std::vector<int>{cv::CAP_OPENCV_MJPEG, cv::CAP_ANY};
    for (int api : apis) {
        try {
            if (capture.open(path, api)) return true;
        } catch (const cv::Exception&) {
        }
    }
    return capture.isOpened();
}

}  // namespace nertz::vision
