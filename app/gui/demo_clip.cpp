#include "demo_clip.hpp"

#include <QDir>
#include <QFile>
#include <QFont>
#include <QImage>
#include <QPainter>
#include <QPainterPath>
#include <QRandomGenerator>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

#include "app_paths.hpp"
#include "nertz/synth/card_art.hpp"
#include "nertz/vision/back_finder.hpp"
#include "nertz/vision/back_render.hpp"

namespace nertz::gui {

namespace {

constexpr int kW = 640, kH = 480;
constexpr int kArtW = 250, kArtH = 350;  // painted artwork size (the cache's cards fit 250x350)
constexpr const char* kDesign = "gnome-anglo";

// A QImage (ARGB32: BGRA bytes in memory) as a CV_8UC4 BGRA matrix.
cv::Mat toBgra(const QImage& img) {
    const QImage a = img.convertToFormat(QImage::Format_ARGB32);
    return cv::Mat(a.height(), a.width(), CV_8UC4, const_cast<uchar*>(a.constBits()), a.bytesPerLine()).clone();
}

QPainterPath cardPath() {
    QPainterPath path;
    path.addRoundedRect(QRectF(1, 1, kArtW - 2, kArtH - 2), 16, 16);
    return path;
}

cv::Mat paintBack(QColor colour) {
    QImage img(kArtW, kArtH, QImage::Format_ARGB32);
    img.fill(Qt::transparent);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillPath(cardPath(), Qt::white);
    const QRectF inner(12, 12, kArtW - 24, kArtH - 24);
    p.fillRect(inner, colour);
    p.setClipRect(inner);
    p.setPen(QPen(colour.lighter(170), 4));
    for (int d = -kArtH; d < kArtH + kArtW; d += 26) {
        p.drawLine(QPointF(0, d), QPointF(kArtW, d + kArtW));
        p.drawLine(QPointF(0, d + kArtW), QPointF(kArtW, d));
    }
    return toBgra(img);
}

cv::Mat paintFace(const QString& name) {
    const QString rank = name.left(name.size() - 1);
    const QChar s = name.back();
    const bool red = s == 'H' || s == 'D';
    const QString pip = s == 'H' ? QString::fromUtf8("♥") : s == 'D' ? QString::fromUtf8("♦") : s == 'S' ? QString::fromUtf8("♠")
                                                                                                        : QString::fromUtf8("♣");
    QImage img(kArtW, kArtH, QImage::Format_ARGB32);
    img.fill(Qt::transparent);
    QPainter p(&img);
    p.setRenderHint(QPainter::Antialiasing);
    p.fillPath(cardPath(), QColor(250, 250, 246));
    p.setPen(QPen(QColor(60, 60, 60), 2));
    p.drawPath(cardPath());
    p.setPen(red ? QColor(200, 20, 30) : QColor(20, 20, 20));
    QFont f("DejaVu Sans", 40, QFont::Bold);
    p.setFont(f);
    p.drawText(QRectF(12, 6, 100, 60), Qt::AlignLeft, rank);
    p.drawText(QRectF(12, 62, 100, 60), Qt::AlignLeft, pip);
    f.setPointSize(110);
    p.setFont(f);
    p.drawText(QRectF(0, 60, kArtW, kArtH - 60), Qt::AlignCenter, pip);
    return toBgra(img);
}

// The card's outline at `centre`, turned by `deg`, `w` pixels wide (portrait).
vision::Quad placed(cv::Point2f centre, float w, float deg) {
    const float h = w * 1.4f;
    const float a = deg * float(CV_PI) / 180.f, c = std::cos(a), s = std::sin(a);
    const cv::Point2f corners[4] = {{-w / 2, -h / 2}, {w / 2, -h / 2}, {w / 2, h / 2}, {-w / 2, h / 2}};
    vision::Quad q;
    for (int i = 0; i < 4; ++i) q[i] = centre + cv::Point2f(corners[i].x * c - corners[i].y * s, corners[i].x * s + corners[i].y * c);
    return q;
}

// A green baize table with a soft light gradient and fine noise (fixed seed).
cv::Mat table() {
    cv::Mat t(kH, kW, CV_8UC3);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) {
            const double light = 1.0 - 0.18 * (std::hypot(x - kW * 0.45, y - kH * 0.4) / kW);
            t.at<cv::Vec3b>(y, x) = cv::Vec3b(cv::saturate_cast<uchar>(52 * light), cv::saturate_cast<uchar>(108 * light),
                                              cv::saturate_cast<uchar>(40 * light));
        }
    cv::Mat noise(kH, kW, CV_16SC3), t16;
    cv::RNG rng(7);
    rng.fill(noise, cv::RNG::NORMAL, 0, 2.5);
    t.convertTo(t16, CV_16SC3);
    t16 += noise;
    t16.convertTo(t, CV_8UC3);
    return t;
}

void caption(cv::Mat& frame, const std::string& text) {
    cv::putText(frame, text, cv::Point(10, kH - 12), cv::FONT_HERSHEY_SIMPLEX, 0.5, cv::Scalar(235, 235, 235), 1, cv::LINE_AA);
}

}  // namespace

int DemoClipPlan::count(int deck) const { return static_cast<int>(std::count(sortDecks.begin(), sortDecks.end(), deck)); }

cv::Mat demoClipFace(const QString& name, bool real) {
    if (!real) return paintFace(name);
    const std::filesystem::path file = synth::defaultCardArtDir() / kDesign / "faces" / (name.toStdString() + ".png");
    cv::Mat f = cv::imread(file.string(), cv::IMREAD_UNCHANGED);
    return f.type() == CV_8UC4 ? f : paintFace(name);
}

DemoClipPlan demoClipPlan() {
    DemoClipPlan p;
    p.enrolFirst[0] = 0;
    p.enrolEnd[0] = 20;
    p.enrolFirst[1] = 20;
    p.enrolEnd[1] = 40;
    p.lakeFirst = 40;
    p.lakeEnd = 60;
    p.sortDecks = {0, 1, 0, 0, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1};  // 8 blue, 6 red
    p.sortFirst = 64;
    p.sortEnd = p.sortFirst + 3 * static_cast<int>(p.sortDecks.size());
    p.holdFirst = p.sortEnd;
    p.frames = kDemoClipFrames;
    p.lakeTops = {"7H", "5S", "KD", "3C", "9H", "2D"};
    return p;
}

DemoClipArt demoClipArt() {
    const DemoClipPlan plan = demoClipPlan();
    DemoClipArt art;
    // The artwork: the cache's gnome-anglo back in blue and the same back turned red, and its
    // faces.
    const std::filesystem::path dir = synth::defaultCardArtDir() / kDesign;
    std::error_code ec;
    cv::Mat back;
    if (std::filesystem::is_regular_file(dir / "backs" / "back.png", ec))
        back = cv::imread((dir / "backs" / "back.png").string(), cv::IMREAD_UNCHANGED);
    if (back.type() == CV_8UC4) {
        for (const auto& t : plan.lakeTops) {
            cv::Mat f = cv::imread((dir / "faces" / (t.toStdString() + ".png")).string(), cv::IMREAD_UNCHANGED);
            if (f.type() != CV_8UC4) break;
            art.faces.push_back(f);
        }
    }
    if (back.type() == CV_8UC4 &&
        art.faces.size() == static_cast<std::size_t>(plan.lakeTops.size())) {
        art.backs[0] = back;
        art.backs[1] =
            synth::recolourBack(back, 120);  // navy -> red: the same design in another colour
        art.real = true;
        art.note =
            QString("card art %1 from %2").arg(kDesign, QString::fromStdString(dir.string()));
    } else {
        art.backs[0] = paintBack(QColor(30, 50, 150));
        art.backs[1] = paintBack(QColor(170, 30, 40));
        art.faces.clear();
        for (const auto& t : plan.lakeTops) art.faces.push_back(paintFace(t));
        art.note = QString(
                       "no card art in %1 (render it with models/training/render_card_art.sh, "
                       "needs gnome-cards-data "
                       "and librsvg2-bin): backs and faces are painted")
                       .arg(QString::fromStdString(dir.string()));
    }
    return art;
}

DemoClipFrames renderDemoClip(int frames) {
    const DemoClipPlan plan = demoClipPlan();
    const int n = frames > 0 ? std::min(frames, plan.frames) : plan.frames;
    DemoClipFrames out;
    const DemoClipArt art = demoClipArt();
    const auto& backs = art.backs;
    const auto& faces = art.faces;
    out.realArt = art.real;
    out.note = art.note;
    const cv::Mat base = table();
    // Where each sorted card lies: a 5 x 3 grid, slightly turned and off square (fixed seed).
    QRandomGenerator rng(1234);
    std::vector<vision::Quad> spots;
    for (std::size_t k = 0; k < plan.sortDecks.size(); ++k) {
        const int col = static_cast<int>(k % 5), row = static_cast<int>(k / 5);
        const cv::Point2f c(110.f + col * 105.f + float(int(rng.bounded(11)) - 5), 95.f + row * 135.f + float(int(rng.bounded(11)) - 5));
        spots.push_back(placed(c, 72.f, float(int(rng.bounded(17)) - 8)));
    }
    for (int f = 0; f < n; ++f) {
        cv::Mat frame;
        if (f < plan.enrolEnd[1]) {
            const int deck = f < plan.enrolEnd[0] ? 0 : 1;
            // a new view every 5 frames: the card moves a little in the hand
            frame = vision::renderEnrolmentView(backs[deck], static_cast<std::uint64_t>(100 + deck * 10 + (f - plan.enrolFirst[deck]) / 5),
                                                cv::Size(kW, kH))
                        .image;
            caption(frame, std::string("demo: enrol the ") + (deck == 0 ? "blue" : "red") + " deck's back");
        } else if (f < plan.lakeEnd) {
            frame = base.clone();
            for (int i = 0; i < static_cast<int>(faces.size()); ++i)
                vision::drawCard(frame, faces[i], placed(cv::Point2f(130.f + (i % 3) * 190.f, 130.f + (i / 3) * 200.f), 110.f, float((i * 7) % 11 - 5)));
            caption(frame, "demo: the lake at the call (top cards)");
        } else {
            frame = base.clone();
            const int laid = f < plan.sortFirst ? 0 : std::min<int>(static_cast<int>(plan.sortDecks.size()), (f - plan.sortFirst) / 3 + 1);
            for (int k = 0; k < laid; ++k) {
                vision::Quad q = spots[k];
                const bool moving = f < plan.sortEnd && k == laid - 1 && (f - plan.sortFirst) % 3 == 0;
                if (moving)  // the newest card slides in from the bottom right
                    for (auto& p : q) p += cv::Point2f(40.f, 30.f);
                vision::drawCard(frame, backs[plan.sortDecks[k]], q);
            }
            caption(frame, f < plan.holdFirst ? "demo: sorting the lake, face down" : "demo: the sorted lake, ready to count");
        }
        out.frames.push_back(frame);
    }
    return out;
}

std::vector<std::uint8_t> demoBackSignature(const DemoClipFrames& clip, int deck) {
    const DemoClipPlan plan = demoClipPlan();
    vision::BackSignature sig;
    for (int f = plan.enrolFirst[deck]; f < plan.enrolEnd[deck] && f < static_cast<int>(clip.frames.size()) && sig.views() < 3; f += 5) {
        const vision::EnrolmentReading reading = vision::findEnrolmentCard(clip.frames[f]);
        if (reading.card) sig.merge(vision::makeBackSignature(clip.frames[f], reading.card->quad));
    }
    return sig.views() > 0 ? sig.toBytes() : std::vector<std::uint8_t>{};
}

bool writeDemoClip(const QString& path, int frames, QString* error) {
    const QString tmp = path + ".part.avi";  // the MJPEG writer wants an .avi name
    // OpenCV's built-in MJPEG writer: no codec library or GStreamer element needed.
    cv::VideoWriter writer(tmp.toStdString(), cv::CAP_OPENCV_MJPEG, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10.0,
                           cv::Size(kW, kH));
    if (!writer.isOpened()) {
        if (error) *error = "Cannot write the demo clip to " + tmp;
        return false;
    }
    writer.set(cv::VIDEOWRITER_PROP_QUALITY, 80);
    const DemoClipFrames clip = renderDemoClip(frames);
    std::fprintf(stderr, "nertzref: demo clip %s: %s\n", qPrintable(path), qPrintable(clip.note));
    for (const auto& f : clip.frames) writer.write(f);
    writer.release();
    QFile::remove(path);
    if (!QFile::rename(tmp, path)) {
        if (error) *error = "Cannot move the demo clip into place at " + path;
        return false;
    }
    return true;
}

QString ensureDemoClip(QString* error) {
    const QString path = cacheDir() + "/demo-v2.avi";
    if (QFile::exists(path)) return path;
#ifdef NERTZ_BUILT_DEMO_CLIP
    if (QFile::exists(QStringLiteral(NERTZ_BUILT_DEMO_CLIP))) return QStringLiteral(NERTZ_BUILT_DEMO_CLIP);
#endif
    return writeDemoClip(path, kDemoClipFrames, error) ? path : QString();
}

}  // namespace nertz::gui
