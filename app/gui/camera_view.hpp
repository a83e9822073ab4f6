// CameraView: shows the latest processed frame (scaled, aspect kept), the source, the frame rate
// and dropped frames, and what the vision stage does or that counting is by hand.
#pragma once
#include <QElapsedTimer>
#include <QImage>
#include <QWidget>
#include <array>
#include <optional>

#include "vision_worker.hpp"

namespace nertz::gui {

class CameraView : public QWidget {
    Q_OBJECT
public:
    explicit CameraView(QWidget* parent = nullptr);
    QSize sizeHint() const override { return {480, 360}; }
    bool hasFrame() const { return !image_.isNull(); }
    // Where a point of the frame (pixels) is drawn in this widget (tests click cards with it).
    QPoint widgetPoint(QPointF framePoint) const;
    QSize frameSize() const { return image_.size(); }
signals:
    // A tap on the picture, in frame pixels.
    void framePointClicked(QPointF framePoint);
public slots:
    void showReport(const nertz::gui::FrameReport& report);
    void setSource(const QString& description);
    // The source failed or disappeared: keep the last frame, say so.
    void setLost(const QString& message);
    void setNote(const QString& note);
    // A card outline (frame pixels) drawn over the picture: the card a person tapped.
    void setHighlight(const std::optional<std::array<QPointF, 4>>& quad);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent* event) override;

private:
    QRect target() const;
    QImage image_;
    QString source_, lost_, note_, summary_;
    std::optional<std::array<QPointF, 4>> highlight_;
    double fps_ = 0;
    quint64 frames_ = 0;
    QElapsedTimer fpsClock_;
};

}  // namespace nertz::gui
