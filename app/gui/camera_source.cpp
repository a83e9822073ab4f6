#include "camera_source.hpp"

#include <QCamera>
#include <QMediaCaptureSession>
#include <QVideoFrame>
#include <QVideoSink>
#include <algorithm>

#include "frame_adapter.hpp"

namespace nertz::gui {

CameraSource::CameraSource(QCameraDevice device, QSize resolution, QObject* parent)
    : FrameSource(parent), device_(std::move(device)), resolution_(resolution) {
    connect(&devices_, &QMediaDevices::videoInputsChanged, this, &CameraSource::onDevicesChanged);
}

CameraSource::~CameraSource() { stop(); }

QString CameraSource::description() const {
    QString d = "camera: " + device_.description();
    if (resolution_.isValid()) d += QString(" %1x%2").arg(resolution_.width()).arg(resolution_.height());
    return d;
}

void CameraSource::start() {
    stop();
    camera_ = std::make_unique<QCamera>(device_);
    if (resolution_.isValid()) {
        for (const QCameraFormat& f : device_.videoFormats()) {
            if (f.resolution() == resolution_) {
                camera_->setCameraFormat(f);
                break;
            }
        }
    }
    sink_ = std::make_unique<QVideoSink>();
    session_ = std::make_unique<QMediaCaptureSession>();
    session_->setCamera(camera_.get());
    session_->setVideoSink(sink_.get());
    connect(sink_.get(), &QVideoSink::videoFrameChanged, this, &CameraSource::onFrame);
    connect(camera_.get(), &QCamera::errorOccurred, this, [this](QCamera::Error, const QString& text) {
        stop();
        emit failed("Camera error: " + text);
    });
    running_ = true;
    camera_->start();
}

void CameraSource::stop() {
    running_ = false;
    if (camera_) camera_->stop();
    session_.reset();
    sink_.reset();
    camera_.reset();
}

void CameraSource::onFrame(const QVideoFrame& frame) {
    const cv::Mat mat = toMat(frame);
    if (!mat.empty()) emit frameReady(mat);
}

void CameraSource::onDevicesChanged() {
    if (!running_) return;
    const auto list = QMediaDevices::videoInputs();
    const bool present = std::any_of(list.begin(), list.end(), [&](const QCameraDevice& d) { return d.id() == device_.id(); });
    if (!present) {
        stop();
        emit failed(QString("The camera \"%1\" disappeared.").arg(device_.description()));
    }
}

QList<QCameraDevice> CameraSource::cameras() { return QMediaDevices::videoInputs(); }

QList<QSize> CameraSource::resolutions(const QCameraDevice& device) {
    QList<QSize> sizes;
    for (const QCameraFormat& f : device.videoFormats())
        if (!sizes.contains(f.resolution())) sizes << f.resolution();
    std::sort(sizes.begin(), sizes.end(), [](QSize a, QSize b) { return a.width() * a.height() > b.width() * b.height(); });
    return sizes;
}

std::optional<QCameraDevice> CameraSource::find(const QString& id) {
    const auto list = cameras();
    for (const QCameraDevice& d : list)
        if (QString::fromUtf8(d.id()) == id) return d;
    bool ok = false;
    const int index = id.toInt(&ok);
    if (ok && index >= 0 && index < list.size()) return list[index];
    return std::nullopt;
}

}  // namespace nertz::gui
