#include "camera_screen.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QLineEdit>
#include <QVBoxLayout>

#include "camera_source.hpp"
#include "camera_view.hpp"
#include "widgets.hpp"

namespace nertz::gui {

CameraScreen::CameraScreen(QWidget* parent) : QWidget(parent) {
    auto* v = new QVBoxLayout(this);
    v->addWidget(heading("Camera and sources"));
    current_ = new QLabel;
    current_->setObjectName("currentSource");
    current_->setStyleSheet("font-size:18px;");
    v->addWidget(current_);
    auto* grid = new QGridLayout;
    cameras_ = new QComboBox;
    cameras_->setObjectName("cameraList");
    resolutions_ = new QComboBox;
    resolutions_->setObjectName("cameraResolution");
    auto* useCamera = bigButton("Use camera", "useCamera");
    grid->addWidget(new QLabel("Camera"), 0, 0);
    grid->addWidget(cameras_, 0, 1);
    grid->addWidget(resolutions_, 0, 2);
    grid->addWidget(useCamera, 0, 3);
    video_ = new QLineEdit;
    video_->setObjectName("videoPath");
    video_->setPlaceholderText("a video file (avi, mp4, mkv ...)");
    auto* browseVideo = bigButton("Browse...", "browseVideo");
    auto* useVideo = bigButton("Use video", "useVideo");
    grid->addWidget(new QLabel("Video file"), 1, 0);
    grid->addWidget(video_, 1, 1);
    grid->addWidget(browseVideo, 1, 2);
    grid->addWidget(useVideo, 1, 3);
    folder_ = new QLineEdit;
    folder_->setObjectName("folderPath");
    folder_->setPlaceholderText("a folder of images (png, jpg)");
    auto* browseFolder = bigButton("Browse...", "browseFolder");
    auto* useFolder = bigButton("Use folder", "useFolder");
    grid->addWidget(new QLabel("Image folder"), 2, 0);
    grid->addWidget(folder_, 2, 1);
    grid->addWidget(browseFolder, 2, 2);
    grid->addWidget(useFolder, 2, 3);
    auto* useDemo = bigButton("Use the demo clip", "useDemo");
    grid->addWidget(new QLabel("Demo"), 3, 0);
    grid->addWidget(useDemo, 3, 1, 1, 3);
    grid->setColumnStretch(1, 1);
    v->addLayout(grid);
    camera_ = new CameraView;
    v->addWidget(camera_, 1);

    connect(cameras_, &QComboBox::currentIndexChanged, this, [this] {
        resolutions_->clear();
        resolutions_->addItem("default", QSize());
        const auto list = CameraSource::cameras();
        const int i = cameras_->currentIndex();
        if (i < 0 || i >= list.size()) return;
        for (const QSize& s : CameraSource::resolutions(list[i]))
            resolutions_->addItem(QString("%1 x %2").arg(s.width()).arg(s.height()), s);
    });
    connect(useCamera, &QPushButton::clicked, this, [this] {
        if (cameras_->currentData().toString().isEmpty()) {
            current_->setText("No camera found on this machine: use a video file, an image folder or the demo clip.");
            return;
        }
        SourceSpec s{SourceSpec::Kind::Camera, cameras_->currentData().toString(), resolutions_->currentData().toSize()};
        emit sourceRequested(s);
    });
    connect(browseVideo, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, "Video file", {}, "Videos (*.avi *.mp4 *.mkv *.mov *.webm);;All files (*)");
        if (!f.isEmpty()) video_->setText(f);
    });
    connect(browseFolder, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getExistingDirectory(this, "Image folder");
        if (!f.isEmpty()) folder_->setText(f);
    });
    connect(useVideo, &QPushButton::clicked, this, [this] {
        emit sourceRequested({SourceSpec::Kind::Video, video_->text().trimmed(), {}});
    });
    connect(useFolder, &QPushButton::clicked, this, [this] {
        emit sourceRequested({SourceSpec::Kind::Folder, folder_->text().trimmed(), {}});
    });
    connect(useDemo, &QPushButton::clicked, this, [this] { emit sourceRequested({}); });
    refreshCameras();
}

void CameraScreen::refreshCameras() {
    cameras_->clear();
    const auto list = CameraSource::cameras();
    for (const auto& d : list) cameras_->addItem(d.description(), QString::fromUtf8(d.id()));
    if (list.isEmpty()) cameras_->addItem("(no camera found)", QString());
}

void CameraScreen::setCurrent(const QString& description) { current_->setText("Now showing: " + description); }

}  // namespace nertz::gui
