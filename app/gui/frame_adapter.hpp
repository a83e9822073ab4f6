// The one adapter between Qt's image types and OpenCV: every camera, file and folder frame
// becomes a BGR cv::Mat for the worker, and every processed frame a QImage for the screen.
#pragma once
#include <QImage>
#include <QVideoFrame>
#include <opencv2/core.hpp>

namespace nertz::gui {

// A deep BGR 8-bit 3-channel copy of `image`; empty for a null image.
cv::Mat toMat(const QImage& image);
// A deep BGR copy of a video frame (any pixel format Qt can map); empty when it cannot be read.
cv::Mat toMat(const QVideoFrame& frame);
// A deep RGB888 copy of a BGR, BGRA or grey cv::Mat.
QImage toQImage(const cv::Mat& bgr);

}  // namespace nertz::gui
