#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QProcess>
#include <QSettings>
#include <QShortcut>
#include <QStackedWidget>
#include <QStatusBar>

#include "camera_screen.hpp"
#include "camera_view.hpp"
#include "decks_screen.hpp"
#include "demo_clip.hpp"
#include "frame_source.hpp"
#include "hand_flow.hpp"
#include "hand_screen.hpp"
#include "league_service.hpp"
#include "nertz/db/ratings.hpp"
#include "leagues_screen.hpp"
#include "new_game_screen.hpp"
#include "player_screen.hpp"
#include "recognition.hpp"
#include "long_task.hpp"
#include "players_screen.hpp"
#include "review_screen.hpp"
#include "standings_screen.hpp"
#include "vision_worker.hpp"

namespace nertz::gui {

MainWindow::MainWindow(LeagueService& service, QWidget* parent)
    : QMainWindow(parent), service_(service), flow_(std::make_unique<HandFlow>(service)),
      recognizer_(std::make_shared<RecognitionAnalyzer>()), worker_(std::make_unique<VisionWorker>()) {
    // Nothing of the vision module loads here: the analyzer is cheap until a step needs it, and the
    // face reader's models load on the worker thread the first time the lake step runs.
    worker_->setAnalyzer(recognizer_);
    setWindowTitle("nertzref — " + service.path());
    auto* central = new QWidget;
    auto* row = new QHBoxLayout(central);
    row->setContentsMargins(0, 0, 0, 0);
    row->setSpacing(0);
    nav_ = new QListWidget;
    nav_->setObjectName("navList");
    nav_->setFixedWidth(190);
    nav_->setFocusPolicy(Qt::NoFocus);
    pages_ = new QStackedWidget;
    auto* pageHolder = new QWidget;
    auto* pv = new QVBoxLayout(pageHolder);
    pv->setContentsMargins(16, 8, 16, 8);
    pv->addWidget(pages_);
    row->addWidget(nav_);
    row->addWidget(pageHolder, 1);
    setCentralWidget(central);

    hand_ = new HandScreen(*flow_);
    newGame_ = new NewGameScreen(service_);
    review_ = new ReviewScreen(service_, *flow_);
    standings_ = new StandingsScreen(service_);
    player_ = new PlayerScreen(service_);
    decks_ = new DecksScreen(service_);
    camera_ = new CameraScreen;
    const QList<QPair<QString, QWidget*>> pages = {
        {"Hand", hand_},           {"New game", newGame_},
        {"Game", review_},         {"Standings", standings_},
        {"Player", player_},       {"Leagues", new LeaguesScreen(service_)},
        {"Players", new PlayersScreen(service_)}, {"Decks", decks_},
        {"Camera", camera_}};
    for (int i = 0; i < pages.size(); ++i) {
        auto* item = new QListWidgetItem(QString("%1   Alt+%2").arg(pages[i].first).arg(i + 1), nav_);
        item->setSizeHint(QSize(0, 54));
        pages_->addWidget(pages[i].second);
        auto* sc = new QShortcut(QKeySequence(Qt::ALT | (Qt::Key_1 + i)), this);
        connect(sc, &QShortcut::activated, this, [this, i] { showPage(static_cast<Page>(i)); });
    }
    connect(nav_, &QListWidget::currentRowChanged, this, [this](int row) {
        pages_->setCurrentIndex(row);
        if (row == static_cast<int>(Page::Hand)) hand_->setFocus();
    });
    views_ = {hand_->cameraView(), decks_->cameraView(), camera_->cameraView()};
    hand_->cameraView()->setNote("Recognition runs on the lake-tops and back-count steps");
    decks_->cameraView()->setNote("Enrolment: hold one card back flat under the camera");
    camera_->cameraView()->setNote("Frames only here (recognition runs on the Hand and Decks screens)");
    hand_->setRecognizer(recognizer_);
    decks_->setRecognizer(recognizer_);

    status_ = new QLabel;
    statusBar()->addWidget(status_, 1);
    auto* file = menuBar()->addMenu("&File");
    auto* open = file->addAction("&Open league database...");
    connect(open, &QAction::triggered, this, [this] {
        const QString f = QFileDialog::getSaveFileName(this, "Open or create a league database", service_.path(),
                                                       "SQLite (*.sqlite *.db);;All files (*)", nullptr,
                                                       QFileDialog::DontConfirmOverwrite);
        if (f.isEmpty()) return;
        QSettings().setValue("db/last", f);
        QProcess::startDetached(QCoreApplication::applicationFilePath(), {"--db", f});
        close();
    });
    auto* example = file->addAction("Load the &example league (empty database only)");
    connect(example, &QAction::triggered, this, [this] {
        status_->setText(service_.seedExample() ? "Example league loaded." : "The example league only goes into an empty database.");
    });
    file->addSeparator();
    file->addAction("&Import a league (JSON export)...", this, &MainWindow::importLeague);
    file->addAction("&Export a league as JSON...", this, &MainWindow::exportLeague);
    file->addAction("&Recompute ratings of a league", this, &MainWindow::recomputeRatings);
    file->addSeparator();
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

    connect(worker_.get(), &VisionWorker::frameProcessed, this, &MainWindow::onFrame);
    connect(newGame_, &NewGameScreen::gameChosen, this, [this](qint64 id, const QMap<QString, QString>&) {
        openGame(id);
        showPage(Page::Hand);
    });
    connect(nav_, &QListWidget::currentRowChanged, this, &MainWindow::updateRecognition);
    connect(flow_.get(), &HandFlow::stepChanged, this, &MainWindow::updateRecognition);
    connect(flow_.get(), &HandFlow::countsChanged, this,
            &MainWindow::updateRecognition);  // camera count held or on
    connect(hand_, &HandScreen::dealingChanged, this, &MainWindow::updateRecognition);
    connect(flow_.get(), &HandFlow::gameChanged, this, &MainWindow::updateSeats);
    connect(&service_, &LeagueService::changed, this, &MainWindow::updateSeats);
    connect(camera_, &CameraScreen::sourceRequested, this, [this](const SourceSpec& s) { setSource(s, true); });
    nav_->setCurrentRow(0);
    resize(1280, 800);
}

MainWindow::~MainWindow() {
    // Hidden first, while every part lives: hiding takes the focus from a field, and a field's
    // focus-out handler may still use the hand flow (the lake tops field applies its tops), which
    // goes before ~QWidget would hide the window.
    hide();
    if (source_) source_->stop();
    source_.reset();
    worker_.reset();  // joins the worker thread before the views go
}

void MainWindow::showPage(Page page) { nav_->setCurrentRow(static_cast<int>(page)); }

QString MainWindow::sourceDescription() const { return source_ ? source_->description() : QString("no source"); }

bool MainWindow::setSource(const SourceSpec& spec, bool remember) {
    if (source_) source_->stop();
    source_.reset();
    QString error;
    auto source = makeSource(spec, &error);
    if (!source) {
        onSourceFailed(error);
        return false;
    }
    if (remember) {
        QSettings settings;
        settings.setValue("source/spec", spec.toString());
        settings.setValue("source/resolution", spec.resolution);
    }
    return adoptSource(std::move(source));
}

bool MainWindow::adoptSource(std::unique_ptr<FrameSource> source) {
    if (source_) source_->stop();
    source_ = std::move(source);
    connect(source_.get(), &FrameSource::frameReady, worker_.get(), &VisionWorker::submit);
    connect(source_.get(), &FrameSource::failed, this, &MainWindow::onSourceFailed);
    connect(source_.get(), &FrameSource::finished, this, [this] {
        const bool passing =
            hand_->dealing() && hand_->lastTally().dealt && hand_->lastTally().passing;
        flow_->cameraStopped(
            passing
                ? "The video ended while a card was still passing: that card is not in the count."
                : "The video ended.");
        for (auto* v : views_)
            v->setLost("The video ended." + QString(flow_->step() == HandFlow::Step::Backs
                                                        ? "  The count so far is kept."
                                                        : ""));
    });
    for (auto* v : views_) v->setSource(source_->description());
    camera_->setCurrent(source_->description());
    status_->setText(QString("Database: %1   ·   Source: %2").arg(service_.path(), source_->description()));
    source_->start();
    return source_ && source_->isRunning();
}

void MainWindow::onFrame(const FrameReport& report) {
    for (auto* v : views_)
        if (v->isVisible() || framesShown_ == 0) v->showReport(report);
    if (report.result.canConvert<BackTally>()) {
        BackTally t = report.result.value<BackTally>();
        t.seq = report.seq;
        hand_->showTally(t);
    } else if (report.result.canConvert<EnrolReading>()) {
        decks_->showEnrolReading(report.result.value<EnrolReading>());
    } else if (report.result.canConvert<LakeReading>()) {
        hand_->showLakeReading(report.result.value<LakeReading>());
    }
    if (framesShown_++ == 0) emit firstFrameShown();
}

void MainWindow::onSourceFailed(const QString& message) {
    flow_->cameraStopped(message);
    const QString text = message + (flow_->step() != HandFlow::Step::Playing ? "  The count so far is kept." : "");
    for (auto* v : views_) v->setLost(text);
    status_->setText("Source problem: " + text);
}

void MainWindow::openGame(std::int64_t gameId) {
    hand_->setColours(service_.seatColours(gameId));
    flow_->openGame(gameId);
}

void MainWindow::updateRecognition() {
    using Mode = RecognitionAnalyzer::Mode;
    Mode mode = Mode::Off;
    const int page = nav_->currentRow();
    if (page == static_cast<int>(Page::Decks)) mode = Mode::Enrol;
    else if (page == static_cast<int>(Page::Hand) && flow_->step() == HandFlow::Step::Backs)
        mode = hand_->dealing() && flow_->cameraCounting() ? Mode::Deal : Mode::Count;
    else if (page == static_cast<int>(Page::Hand) &&
             (flow_->step() == HandFlow::Step::Lake || flow_->step() == HandFlow::Step::NertzLeft)) {
        mode = Mode::Lake;  // lake tops, or a fanned Nertz pile: the face reader either way
    }
    recognizer_->setMode(mode);
}

void MainWindow::updateSeats() {
    if (!flow_->hasGame()) return;
    std::vector<SeatBack> seats;
    const QStringList names = flow_->sideNames();
    QMap<QString, QString> colours;
    std::vector<std::optional<db::Deck>> decks;
    try {
        colours = service_.seatColours(flow_->gameId());
        decks = service_.seatDecks(flow_->gameId());
    } catch (const std::exception& e) {
        status_->setText(QString("Could not read the seats' decks: ") + e.what());
    }
    for (int i = 0; i < names.size(); ++i) {
        SeatBack b;
        b.name = names[i];
        b.colour = QColor(colours.value(names[i], "#90a4ae"));
        if (i < static_cast<int>(decks.size()) && decks[i]) b.signature = decks[i]->backSignature;
        seats.push_back(b);
    }
    const QStringList problems = recognizer_->setSeats(seats);
    if (!problems.isEmpty()) status_->setText(problems.join("  "));
}

namespace {
// The league to act on: the only one, else asked for.
std::optional<db::League> pickLeague(QWidget* parent, LeagueService& service, const QString& what) {
    const auto leagues = service.leagues();
    if (leagues.empty()) return std::nullopt;
    if (leagues.size() == 1) return leagues.front();
    QStringList names;
    for (const auto& l : leagues) names << QString::fromStdString(l.name);
    bool ok = false;
    const QString name = QInputDialog::getItem(parent, what, "League", names, 0, false, &ok);
    if (!ok) return std::nullopt;
    return leagues[names.indexOf(name)];
}
}  // namespace

bool MainWindow::importLeagueFile(const QString& f, QString* message) {
    const QString db = service_.path();
    QString out;
    const QString error = runWithProgress(this, "Importing " + QFileInfo(f).fileName() + "...", [&](const Progress&) {
        out = runCli({"--db", db, "import", f});
    });
    if (message) *message = error.isEmpty() ? out : error;
    if (error.isEmpty()) emit service_.changed();
    return error.isEmpty();
}

bool MainWindow::exportLeagueFile(const QString& league, const QString& f, QString* message) {
    const QString db = service_.path();
    const QString error = runWithProgress(this, "Exporting " + league + "...", [&](const Progress&) {
        runCli({"--db", db, "export", "--league", league, "--format", "json", "--out", f});
    });
    if (message) *message = error.isEmpty() ? "Exported to " + f : error;
    return error.isEmpty();
}

void MainWindow::importLeague() {
    const QString f = QFileDialog::getOpenFileName(this, "Import a league", QString(), "League export (*.json);;All files (*)");
    if (f.isEmpty()) return;
    QString message;
    if (!importLeagueFile(f, &message)) {
        QMessageBox::warning(this, "Import failed", "The league was not imported (nothing was changed):\n" + message);
        return;
    }
    status_->setText(message);
}

void MainWindow::exportLeague() {
    const auto league = pickLeague(this, service_, "Export a league");
    if (!league) return status_->setText("There is no league to export.");
    const QString name = QString::fromStdString(league->name);
    const QString f = QFileDialog::getSaveFileName(this, "Export a league", name + ".json", "League export (*.json)");
    if (f.isEmpty()) return;
    QString message;
    if (!exportLeagueFile(name, f, &message)) return (void)QMessageBox::warning(this, "Export failed", message);
    status_->setText(message);
}

bool MainWindow::recomputeLeagueRatings(std::int64_t leagueId, QString* message) {
    const std::string path = service_.path().toStdString();
    const QString error = runWithProgress(this, "Recomputing the ratings...", [&](const Progress&) {
        db::Database own(path);  // its own connection, on the job's thread
        db::RatingRepo(own).recomputeAll(leagueId);
    });
    if (message) *message = error.isEmpty() ? QString("Ratings recomputed.") : error;
    if (error.isEmpty()) emit service_.changed();
    return error.isEmpty();
}

void MainWindow::recomputeRatings() {
    const auto league = pickLeague(this, service_, "Recompute ratings");
    if (!league) return status_->setText("There is no league.");
    QString message;
    if (!recomputeLeagueRatings(league->id, &message)) return (void)QMessageBox::warning(this, "Recompute failed", message);
    status_->setText("Ratings of " + QString::fromStdString(league->name) + " recomputed.");
}

void MainWindow::openLatestGame() {
    try {
        std::int64_t best = 0;
        for (const auto& league : service_.leagues())
            for (auto id : service_.gameIds(league.id))
                if (id > best && !service_.loadGame(id).game.outcome().over) best = id;
        if (best > 0) openGame(best);
    } catch (const std::exception& e) {
        status_->setText(QString("Could not open the last game: ") + e.what());
    }
}

bool MainWindow::renderScreens(const QString& dir, QString* error) {
    if (!QDir().mkpath(dir)) {
        if (error) *error = "cannot create " + dir;
        return false;
    }
    auto settle = [](int ms) {
        QElapsedTimer t;
        t.start();
        while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    };
    auto shot = [&](const QString& name) {
        settle(250);
        const QString path = QDir(dir).filePath(name + ".png");
        if (!grab().save(path, "PNG", 0)) {  // 0: smallest file
            if (error) *error = "cannot write " + path;
            return false;
        }
        return true;
    };
    // wait up to 3 s for a camera frame so the camera views are not empty
    QElapsedTimer wait;
    wait.start();
    while (!hasShownFrame() && wait.elapsed() < 3000) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    // Frames of the demo clip fed straight to the worker, so the recognition screens show their work.
    if (source_) source_->stop();
    const DemoClipFrames clip = renderDemoClip();
    const DemoClipPlan plan = demoClipPlan();
    auto feed = [&](int frame) {
        for (int i = 0; i < 4; ++i) {
            worker_->submit(clip.frames.at(frame));
            settle(150);
        }
    };
    struct Item { Page page; QString name; };
    const Item items[] = {{Page::Leagues, "01-leagues"}, {Page::Players, "02-players"}, {Page::Decks, "03-decks"},
                          {Page::NewGame, "04-new-game"}};
    for (const auto& it : items) {
        showPage(it.page);
        if (it.page == Page::Decks) feed(plan.enrolFirst[1] + 5);
        if (!shot(it.name)) return false;
    }
    showPage(Page::Hand);
    if (flow_->hasGame()) {
        flow_->newHand();
        flow_->everyoneStuck();
        if (!shot("05-hand-referee")) return false;
        flow_->newHand();
        flow_->startScoring();
        flow_->setCaller(0);
        flow_->goTo(HandFlow::Step::Lake);
        feed(plan.lakeFirst + 5);  // the clip's lake: the face reader marks the tops it reads
        // a pile in doubt typed into the pile check (SPEC "Pile check")
        if (auto* pile = findChild<QLineEdit*>("pileCards")) pile->setText("AH 2H 3H 5H");
        if (!shot("05b-hand-lake")) return false;
        flow_->setLakeTops("7H 5S 2D", 0);  // 14 cards: the demo clip's sort
        flow_->goTo(HandFlow::Step::Backs);
        flow_->setCameraCounting(true);
        feed(plan.holdFirst + 2);
        if (!shot("06-hand-back-count")) return false;
        flow_->setCameraCounting(false);
        flow_->goTo(HandFlow::Step::NertzLeft);
        for (int i = 1; i < flow_->sideCount(); ++i) flow_->setNertzLeft(i, 2 + i);
        if (!shot("07-hand-nertz-left")) return false;
        flow_->goTo(HandFlow::Step::Review);
        if (!shot("08-hand-review")) return false;
        flow_->newHand();
    } else if (!shot("05-hand")) {
        return false;
    }
    const Item rest[] = {{Page::Game, "09-game"}, {Page::Standings, "10-standings"}, {Page::Player, "11-player"},
                         {Page::Camera, "12-camera"}};
    for (const auto& it : rest) {
        showPage(it.page);
        if (!shot(it.name)) return false;
    }
    return true;
}

}  // namespace nertz::gui
