// FrameSource: where camera-view frames come from (a camera, a video file, an image folder, the
// demo clip). A source emits BGR frames on the GUI thread; the VisionWorker does the rest.
#pragma once
#include <QMetaType>
#include <QObject>
#include <QStringList>
#include <QTimer>
#include <memory>
#include <opencv2/core.hpp>

namespace cv {
class VideoCapture;
}

Q_DECLARE_METATYPE(cv::Mat)

namespace nertz::gui {

class FrameSource : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;
    // What it reads, for the status bar ("video: /path/clip.avi", "camera: HD Webcam").
    virtual QString description() const = 0;
    // Starts emitting frames; emits failed() (and stays stopped) when it cannot.
    virtual void start() = 0;
    virtual void stop() = 0;
    virtual bool isRunning() const = 0;
signals:
    void frameReady(const cv::Mat& bgr);
    // The source could not open or was lost (a camera unplugged): a sentence for the user.
    void failed(const QString& message);
    // A file or folder source reached its end (only when not looping).
    void finished();
};

// Frames of a video file read with cv::VideoCapture, paced at the file's frame rate.
class VideoFileSource : public FrameSource {
    Q_OBJECT
public:
    explicit VideoFileSource(QString path, bool loop = true, QObject* parent = nullptr);
    ~VideoFileSource() override;
    QString description() const override;
    void start() override;
    void stop() override;
    bool isRunning() const override { return timer_.isActive(); }
    // Emit as fast as the event loop allows instead of at the file's frame rate (tests).
    void setUnpaced(bool unpaced) { unpaced_ = unpaced; }
    double fps() const { return fps_; }

private:
    void next();
    QString path_;
    bool loop_;
    bool unpaced_ = false;
    double fps_ = 10;
    std::unique_ptr<cv::VideoCapture> capture_;
    QTimer timer_;
};

// The images of a folder (png, jpg, jpeg, bmp; name order), one every `intervalMs`.
class ImageFolderSource : public FrameSource {
    Q_OBJECT
public:
    explicit ImageFolderSource(QString folder, int intervalMs = 500, bool loop = true, QObject* parent = nullptr);
    QString description() const override;
    void start() override;
    void stop() override;
    bool isRunning() const override { return timer_.isActive(); }
    const QStringList& files() const { return files_; }

private:
    void next();
    QString folder_;
    bool loop_;
    QStringList files_;
    int index_ = 0;
    QTimer timer_;
};

}  // namespace nertz::gui
