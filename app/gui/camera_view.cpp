#include "camera_view.hpp"

#include <QMouseEvent>
#include <QPainter>

namespace nertz::gui {

CameraView::CameraView(QWidget* parent) : QWidget(parent) {
    setMinimumSize(320, 240);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
}

void CameraView::showReport(const FrameReport& report) {
    image_ = report.image;
    summary_ = report.summary;
    lost_.clear();
    ++frames_;
    if (!fpsClock_.isValid()) fpsClock_.start();
    if (fpsClock_.elapsed() > 1000) {
        fps_ = frames_ * 1000.0 / fpsClock_.elapsed();
        frames_ = 0;
        fpsClock_.restart();
    }
    update();
}

void CameraView::setSource(const QString& description) {
    source_ = description;
    lost_.clear();
    update();
}

void CameraView::setLost(const QString& message) {
    lost_ = message;
    update();
}

void CameraView::setHighlight(const std::optional<std::array<QPointF, 4>>& quad) {
    highlight_ = quad;
    update();
}

void CameraView::setNote(const QString& note) {
    note_ = note;
    update();
}

QRect CameraView::target() const {
    if (image_.isNull()) return {};
    const QSize s = image_.size().scaled(size(), Qt::KeepAspectRatio);
    return QRect(QPoint((width() - s.width()) / 2, (height() - s.height()) / 2), s);
}

QPoint CameraView::widgetPoint(QPointF framePoint) const {
    const QRect t = target();
    if (t.isEmpty()) return {};
    return QPoint(t.x() + int(framePoint.x() * t.width() / image_.width()), t.y() + int(framePoint.y() * t.height() / image_.height()));
}

void CameraView::mousePressEvent(QMouseEvent* event) {
    const QRect t = target();
    if (t.isEmpty() || !t.contains(event->position().toPoint())) return QWidget::mousePressEvent(event);
    const QPointF p = event->position() - QPointF(t.topLeft());
    emit framePointClicked(QPointF(p.x() * image_.width() / t.width(), p.y() * image_.height() / t.height()));
}

void CameraView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(38, 50, 56));
    if (!image_.isNull()) {
        p.setRenderHint(QPainter::SmoothPixmapTransform);
        p.drawImage(target(), image_);
        if (highlight_) {
            QPolygonF poly;
            for (const auto& q : *highlight_) poly << QPointF(widgetPoint(q));
            p.setRenderHint(QPainter::Antialiasing);
            p.setPen(QPen(QColor("#ffd600"), 5));
            p.drawPolygon(poly);
        }
    } else {
        p.setPen(QColor(200, 200, 200));
        p.drawText(rect(), Qt::AlignCenter, "waiting for the first frame...");
    }
    auto strip = [&](int y, const QString& text, QColor bg) {
        if (text.isEmpty()) return;
        QFont f = font();
        f.setPixelSize(14);
        p.setFont(f);
        const QRect r(0, y, width(), 24);
        p.fillRect(r, bg);
        p.setPen(Qt::white);
        p.drawText(r.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
    };
    QString top = source_;
    if (fps_ > 0) top += QString("   %1 fps").arg(fps_, 0, 'f', 1);
    strip(0, top, QColor(0, 0, 0, 150));
    strip(height() - 24, summary_.isEmpty() ? note_ : summary_, QColor(0, 0, 0, 150));
    if (!lost_.isEmpty()) strip(height() / 2 - 12, lost_, QColor(183, 28, 28, 220));
}

}  // namespace nertz::gui
