// CameraScreen: choose where frames come from: a camera and its resolution (Qt Multimedia), a
// video file, an image folder, or the demo clip; the choice is remembered in QSettings.
#pragma once
#include <QWidget>

#include "source_spec.hpp"

class QComboBox;
class QLabel;
class QLineEdit;

namespace nertz::gui {
class CameraView;

class CameraScreen : public QWidget {
    Q_OBJECT
public:
    explicit CameraScreen(QWidget* parent = nullptr);
    CameraView* cameraView() const { return camera_; }
    void setCurrent(const QString& description);
public slots:
    void refreshCameras();
signals:
    void sourceRequested(const nertz::gui::SourceSpec& spec);

private:
    QComboBox* cameras_;
    QComboBox* resolutions_;
    QLineEdit* video_;
    QLineEdit* folder_;
    QLabel* current_;
    CameraView* camera_;
};
}  // namespace nertz::gui
