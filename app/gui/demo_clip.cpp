#include "demo_clip.hpp"

#include <QDir>
#include <QFile>
#include <QFont>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QRandomGenerator>
#include <opencv2/videoio.hpp>

#include "app_paths.hpp"
#include "frame_adapter.hpp"

namespace nertz::gui {

namespace {

constexpr int kW = 640, kH = 480, kCardW = 62, kCardH = 88;

void drawFace(QPainter& p, QPointF at, double angle, const QString& rank, QChar suit, bool red) {
    p.save();
    p.translate(at);
    p.rotate(angle);
    QPainterPath path;
    path.addRoundedRect(QRectF(-kCardW / 2.0, -kCardH / 2.0, kCardW, kCardH), 6, 6);
    p.fillPath(path, QColor(250, 250, 246));
    p.setPen(QPen(QColor(60, 60, 60), 1));
    p.drawPath(path);
    p.setPen(red ? QColor(200, 20, 30) : QColor(20, 20, 20));
    QFont f("DejaVu Sans", 13, QFont::Bold);
    p.setFont(f);
    p.drawText(QRectF(-kCardW / 2.0 + 4, -kCardH / 2.0 + 2, 30, 20), Qt::AlignLeft, rank);
    p.drawText(QRectF(-kCardW / 2.0 + 4, -kCardH / 2.0 + 20, 30, 20), Qt::AlignLeft, QString(suit));
    f.setPointSize(28);
    p.setFont(f);
    p.drawText(QRectF(-kCardW / 2.0, -kCardH / 2.0 + 20, kCardW, kCardH - 20), Qt::AlignCenter, QString(suit));
    p.restore();
}

void drawBack(QPainter& p, QPointF at, double angle, QColor colour) {
    p.save();
    p.translate(at);
    p.rotate(angle);
    QPainterPath path;
    path.addRoundedRect(QRectF(-kCardW / 2.0, -kCardH / 2.0, kCardW, kCardH), 6, 6);
    p.fillPath(path, Qt::white);
    p.setPen(QPen(QColor(60, 60, 60), 1));
    p.drawPath(path);
    const QRectF inner(-kCardW / 2.0 + 4, -kCardH / 2.0 + 4, kCardW - 8, kCardH - 8);
    p.fillRect(inner, colour);
    p.setClipRect(inner);
    p.setPen(QPen(colour.lighter(150), 2));
    for (int d = -kCardH; d < kCardH; d += 8) {
        p.drawLine(QPointF(-kCardW, d), QPointF(kCardW, d + kCardW));
        p.drawLine(QPointF(-kCardW, d + kCardW), QPointF(kCardW, d));
    }
    p.restore();
}

}  // namespace

bool writeDemoClip(const QString& path, int frames, QString* error) {
    const QString tmp = path + ".part.avi";  // the MJPEG writer wants an .avi name
    // OpenCV's built-in MJPEG writer: no codec library or GStreamer element needed.
    cv::VideoWriter writer(tmp.toStdString(), cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0,
                           cv::Size(kW, kH));
    if (!writer.isOpened()) {
        if (error) *error = "Cannot write the demo clip to " + tmp;
        return false;
    }
    // The lake: six piles with their top cards (checksum 7+5+13+3+9+2 = 39 cards).
    struct Top { QString rank; QChar suit; bool red; };
    const Top tops[] = {{"7", u'♥', true}, {"5", u'♠', false}, {"K", u'♦', true},
                        {"3", u'♣', false}, {"9", u'♥', true}, {"2", u'♦', true}};
    QRandomGenerator rng(1234);  // fixed seed: the same clip every time
    struct Dealt { QPointF at; double angle; bool red; };
    std::vector<Dealt> dealt;
    for (int i = 0; i < frames; ++i) dealt.push_back({QPointF(380 + rng.bounded(200), 250 + rng.bounded(160)),
                                                      rng.bounded(60) - 30.0, rng.bounded(2) == 0});
    QImage img(kW, kH, QImage::Format_RGB888);
    for (int f = 0; f < frames; ++f) {
        img.fill(QColor(24, 92, 52));
        QPainter p(&img);
        p.setRenderHint(QPainter::Antialiasing);
        // cloth texture
        p.setPen(QColor(30, 102, 60));
        for (int y = 0; y < kH; y += 6) p.drawLine(0, y, kW, y + 3);
        for (int i = 0; i < 6; ++i)
            drawFace(p, QPointF(70 + (i % 3) * 90, 90 + (i / 3) * 120), (i * 7) % 11 - 5.0, tops[i].rank, tops[i].suit, tops[i].red);
        // the sort: one more face-down card on the table every frame; the newest slides in
        for (int k = 0; k <= f; ++k) {
            QPointF at = dealt[k].at;
            if (k == f) at = QPointF(kW + 40, kH + 40) + (at - QPointF(kW + 40, kH + 40)) * 0.7;
            drawBack(p, at, dealt[k].angle, dealt[k].red ? QColor(170, 30, 40) : QColor(30, 60, 160));
        }
        p.setPen(Qt::white);
        p.setFont(QFont("DejaVu Sans", 11));
        p.drawText(QRect(10, kH - 26, kW - 20, 20), Qt::AlignLeft, "nertzref demo clip (drawn, not a real table)");
        p.end();
        writer.write(toMat(img));
    }
    writer.release();
    QFile::remove(path);
    if (!QFile::rename(tmp, path)) {
        if (error) *error = "Cannot move the demo clip into place at " + path;
        return false;
    }
    return true;
}

QString ensureDemoClip(QString* error) {
    const QString path = cacheDir() + "/demo-v1.avi";
    if (QFile::exists(path)) return path;
#ifdef NERTZ_BUILT_DEMO_CLIP
    if (QFile::exists(QStringLiteral(NERTZ_BUILT_DEMO_CLIP))) return QStringLiteral(NERTZ_BUILT_DEMO_CLIP);
#endif
    return writeDemoClip(path, kDemoClipFrames, error) ? path : QString();
}

}  // namespace nertz::gui
