#include "frame_source.hpp"

#include <QDir>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/videoio.hpp>

#include "nertz/vision/video_io.hpp"

namespace nertz::gui {

VideoFileSource::VideoFileSource(QString path, bool loop, QObject* parent)
    : FrameSource(parent), path_(std::move(path)), loop_(loop) {
    connect(&timer_, &QTimer::timeout, this, &VideoFileSource::next);
}

VideoFileSource::~VideoFileSource() = default;

QString VideoFileSource::description() const { return "video: " + path_; }

void VideoFileSource::start() {
    // as `nertzref-cli count` opens a clip (vision::openVideoFile)
    capture_ = std::make_unique<cv::VideoCapture>();
    if (!vision::openVideoFile(*capture_, path_.toStdString())) {
        capture_.reset();
        emit failed(QString("Cannot open the video file %1 (missing, or a format OpenCV cannot read).").arg(path_));
        return;
    }
    const double fps = capture_->get(cv::CAP_PROP_FPS);
    fps_ = (fps > 0 && fps < 240) ? fps : 10;
    timer_.start(unpaced_ ? 0 : static_cast<int>(1000.0 / fps_));
    next();  // the first frame at once
}

void VideoFileSource::stop() {
    timer_.stop();
    capture_.reset();
}

void VideoFileSource::next() {
    if (!capture_) return;
    cv::Mat frame;
    if (!capture_->read(frame) || frame.empty()) {
        if (loop_ && capture_->set(cv::CAP_PROP_POS_FRAMES, 0) && capture_->read(frame) && !frame.empty()) {
            emit frameReady(frame);
            return;
        }
        stop();
        emit finished();
        return;
    }
    emit frameReady(frame);
}

ImageFolderSource::ImageFolderSource(QString folder, int intervalMs, bool loop, QObject* parent)
    : FrameSource(parent), folder_(std::move(folder)), loop_(loop) {
    timer_.setInterval(intervalMs);
    connect(&timer_, &QTimer::timeout, this, &ImageFolderSource::next);
}

QString ImageFolderSource::description() const { return "folder: " + folder_; }

void ImageFolderSource::start() {
    QDir dir(folder_);
    if (!dir.exists()) {
        emit failed(QString("The image folder %1 does not exist.").arg(folder_));
        return;
    }
    files_.clear();
    for (const QString& name :
         dir.entryList({"*.png", "*.jpg", "*.jpeg", "*.bmp", "*.PNG", "*.JPG", "*.JPEG"}, QDir::Files, QDir::Name))
        files_ << dir.filePath(name);
    if (files_.isEmpty()) {
        emit failed(QString("The folder %1 holds no images (png, jpg, bmp).").arg(folder_));
        return;
    }
    index_ = 0;
    timer_.start();
    next();
}

void ImageFolderSource::stop() { timer_.stop(); }

void ImageFolderSource::next() {
    while (index_ < files_.size()) {
        const cv::Mat img = cv::imread(files_[index_++].toStdString(), cv::IMREAD_COLOR);
        if (!img.empty()) {
            emit frameReady(img);
            return;
        }
    }
    if (loop_) {
        index_ = 0;
        return;
    }
    stop();
    emit finished();
}

}  // namespace nertz::gui
