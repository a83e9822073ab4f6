#include "frame_adapter.hpp"

#include <opencv2/imgproc.hpp>

namespace nertz::gui {

cv::Mat toMat(const QImage& image) {
    if (image.isNull()) return {};
    const QImage rgb = image.convertToFormat(QImage::Format_RGB888);
    cv::Mat view(rgb.height(), rgb.width(), CV_8UC3, const_cast<uchar*>(rgb.constBits()),
                 static_cast<size_t>(rgb.bytesPerLine()));
    cv::Mat bgr;
    cv::cvtColor(view, bgr, cv::COLOR_RGB2BGR);
    return bgr;
}

cv::Mat toMat(const QVideoFrame& frame) {
    if (!frame.isValid()) return {};
    return toMat(frame.toImage());
}

QImage toQImage(const cv::Mat& mat) {
    if (mat.empty()) return {};
    cv::Mat rgb;
    switch (mat.channels()) {
        case 1: cv::cvtColor(mat, rgb, cv::COLOR_GRAY2RGB); break;
        case 4: cv::cvtColor(mat, rgb, cv::COLOR_BGRA2RGB); break;
        default: cv::cvtColor(mat, rgb, cv::COLOR_BGR2RGB); break;
    }
    QImage view(rgb.data, rgb.cols, rgb.rows, static_cast<qsizetype>(rgb.step), QImage::Format_RGB888);
    return view.copy();
}

}  // namespace nertz::gui
