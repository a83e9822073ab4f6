// CameraSource: a Qt Multimedia camera (QCamera -> QMediaCaptureSession -> QVideoSink) as a
// FrameSource; notices when the camera disappears.
#pragma once
#include <QCameraDevice>
#include <QMediaDevices>
#include <QSize>
#include <memory>

#include "frame_source.hpp"

class QCamera;
class QMediaCaptureSession;
class QVideoSink;
class QVideoFrame;

namespace nertz::gui {

class CameraSource : public FrameSource {
    Q_OBJECT
public:
    // `resolution` empty: the camera's default format.
    CameraSource(QCameraDevice device, QSize resolution, QObject* parent = nullptr);
    ~CameraSource() override;
    QString description() const override;
    void start() override;
    void stop() override;
    bool isRunning() const override { return running_; }

    // The cameras Qt Multimedia sees, and the resolutions one offers (largest first).
    static QList<QCameraDevice> cameras();
    static QList<QSize> resolutions(const QCameraDevice& device);
    // The camera whose id is `id`, or by index ("0", "1") when no id matches.
    static std::optional<QCameraDevice> find(const QString& id);

private:
    void onFrame(const QVideoFrame& frame);
    void onDevicesChanged();
    QCameraDevice device_;
    QSize resolution_;
    bool running_ = false;
    std::unique_ptr<QMediaCaptureSession> session_;
    std::unique_ptr<QCamera> camera_;
    std::unique_ptr<QVideoSink> sink_;
    QMediaDevices devices_;
};

}  // namespace nertz::gui
