// nertzref: the desktop app. Opens the league database (default: the same file as nertzref-cli),
// starts the camera or, with none, the demo clip, and shows the hand screen.
//   nertzref [--db FILE] [--demo | --source demo|video:PATH|folder:PATH|camera:ID]
//            [--screenshot DIR] [--startup-time]
#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <cstdio>

#include <opencv2/core/utils/logger.hpp>

#include "app_paths.hpp"
#include "camera_source.hpp"
#include "demo_clip.hpp"
#include "league_service.hpp"
#include "main_window.hpp"
#include "widgets.hpp"

using namespace nertz::gui;

namespace {

int fail(const QString& message, bool gui) {
    std::fprintf(stderr, "nertzref: %s\n", qPrintable(message));
    if (gui) QMessageBox::critical(nullptr, "nertzref", message);
    return 2;
}

// The source to start with: the command line, else the remembered choice when it still exists,
// else the first camera, else the demo clip.
SourceSpec startSource(const QString& cli, bool demo, QString* error, bool* ok) {
    *ok = true;
    if (demo) return {};
    if (!cli.isEmpty()) {
        auto spec = parseSourceSpec(cli, error);
        if (!spec) *ok = false;
        return spec.value_or(SourceSpec{});
    }
    QSettings settings;
    const auto saved = parseSourceSpec(settings.value("source/spec").toString(), nullptr);
    if (saved) {
        SourceSpec s = *saved;
        s.resolution = settings.value("source/resolution").toSize();
        if (s.kind == SourceSpec::Kind::Camera && CameraSource::find(s.arg)) return s;
        if ((s.kind == SourceSpec::Kind::Video || s.kind == SourceSpec::Kind::Folder) && QFileInfo::exists(s.arg)) return s;
    }
    const auto cameras = CameraSource::cameras();
    if (!cameras.isEmpty()) return {SourceSpec::Kind::Camera, QString::fromUtf8(cameras.front().id()), {}};
    return {};
}

}  // namespace

int main(int argc, char** argv) {
    QElapsedTimer sinceStart;
    sinceStart.start();
    // Qt 6.4's GStreamer backend crashes without its plugin packages; FFmpeg's is complete.
    if (qEnvironmentVariableIsEmpty("QT_MEDIA_BACKEND")) qputenv("QT_MEDIA_BACKEND", "ffmpeg");
    // OpenCV's own warnings (a video backend that cannot open a file) are not for the user; the app
    // says what went wrong itself. OPENCV_LOG_LEVEL still rules where it is set.
    if (qEnvironmentVariableIsEmpty("OPENCV_LOG_LEVEL"))
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
    QApplication app(argc, argv);
    QApplication::setOrganizationName("nertzref");
    QApplication::setApplicationName("nertzref");
    QApplication::setApplicationVersion("0.1.0");

    QCommandLineParser parser;
    parser.setApplicationDescription("nertzref: the Nertz referee and score keeper");
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption dbOpt("db", "League database file (created when missing).", "FILE");
    QCommandLineOption demoOpt("demo", "Start on the demo clip.");
    QCommandLineOption sourceOpt("source", "Frame source: demo, video:PATH, folder:PATH or camera:ID.", "SPEC");
    QCommandLineOption shotOpt("screenshot", "Render every main screen to DIR/*.png and exit (uses an example "
                                             "database unless --db is given).", "DIR");
    QCommandLineOption timeOpt("startup-time", "Print the time to the first frame on screen, then exit.");
    QCommandLineOption clipOpt("write-demo-clip", "Write the demo clip to FILE and exit (the build does this once, "
                                                  "so the first start needs no time to make it).", "FILE");
    parser.addOptions({dbOpt, demoOpt, sourceOpt, shotOpt, timeOpt, clipOpt});
    parser.process(app);
    if (parser.isSet(clipOpt)) {
        QString error;
        if (!writeDemoClip(parser.value(clipOpt), kDemoClipFrames, &error)) return fail(error, false);
        return 0;
    }
    const bool screenshot = parser.isSet(shotOpt);
    const bool interactive = !screenshot && !parser.isSet(timeOpt) && QGuiApplication::platformName() != "offscreen";

    QTemporaryDir tmp;
    QString dbPath = parser.value(dbOpt);
    if (dbPath.isEmpty() && screenshot) dbPath = tmp.path() + "/example.sqlite";
    if (dbPath.isEmpty()) {
        const QString last = QSettings().value("db/last").toString();
        dbPath = (!last.isEmpty() && QFileInfo::exists(last)) ? last : defaultDbPath();
    }
    std::unique_ptr<LeagueService> service;
    try {
        service = std::make_unique<LeagueService>(dbPath);
    } catch (const std::exception& e) {
        return fail(QString("cannot open the league database %1: %2").arg(dbPath, e.what()), interactive);
    }
    if (!screenshot) QSettings().setValue("db/last", dbPath);
    if (screenshot && !parser.isSet(dbOpt) && service->seedExample()) {
        // the example decks get the demo clip's backs (red: Ann's, blue: Bo's) for the back-count screen
        const DemoClipFrames clip = renderDemoClip(demoClipPlan().enrolEnd[1]);
        for (const auto& d : service->decks()) {
            const int deck = d.owner == "Bo" ? 0 : d.owner == "Ann" ? 1 : -1;
            if (deck >= 0) service->setDeckBack(d.id, demoBackSignature(clip, deck));
        }
    }

    app.setStyleSheet(appStyleSheet());
    MainWindow window(*service);
    QString error;
    bool ok = true;
    const SourceSpec spec = startSource(parser.value(sourceOpt), parser.isSet(demoOpt) || screenshot, &error, &ok);
    if (!ok) return fail(error, interactive);
    window.openLatestGame();
    window.show();
    window.setSource(spec, false);

    if (parser.isSet(timeOpt)) {
        QObject::connect(&window, &MainWindow::firstFrameShown, &app, [&] {
            std::printf("nertzref: first frame on screen after %lld ms (source: %s)\n", sinceStart.elapsed(),
                        qPrintable(window.sourceDescription()));
            std::fflush(stdout);
            QTimer::singleShot(0, &app, &QApplication::quit);
        });
        QTimer::singleShot(10000, &app, [&] {
            std::printf("nertzref: no frame within 10 s\n");
            app.exit(1);
        });
        return app.exec();
    }
    if (screenshot) {
        if (!window.renderScreens(parser.value(shotOpt), &error)) return fail(error, false);
        std::printf("nertzref: screenshots written to %s\n", qPrintable(parser.value(shotOpt)));
        return 0;
    }
    return app.exec();
}
