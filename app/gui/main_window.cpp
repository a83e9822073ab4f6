#include "main_window.hpp"

#include <QAction>
#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QHBoxLayout>
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
#include "frame_source.hpp"
#include "hand_flow.hpp"
#include "hand_screen.hpp"
#include "league_service.hpp"
#include "leagues_screen.hpp"
#include "new_game_screen.hpp"
#include "player_screen.hpp"
#include "players_screen.hpp"
#include "review_screen.hpp"
#include "standings_screen.hpp"
#include "vision_worker.hpp"

namespace nertz::gui {

MainWindow::MainWindow(LeagueService& service, QWidget* parent)
    : QMainWindow(parent), service_(service), flow_(std::make_unique<HandFlow>(service)),
      worker_(std::make_unique<VisionWorker>()) {
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
    for (auto* v : views_) v->setNote("Recognition: vision module not in this build — count by hand");

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
    file->addAction("&Quit", QKeySequence::Quit, this, &QWidget::close);

    connect(worker_.get(), &VisionWorker::frameProcessed, this, &MainWindow::onFrame);
    connect(newGame_, &NewGameScreen::gameChosen, this, [this](qint64 id, const QMap<QString, QString>& colours) {
        hand_->setColours(colours);
        flow_->openGame(id);
        showPage(Page::Hand);
    });
    connect(camera_, &CameraScreen::sourceRequested, this, [this](const SourceSpec& s) { setSource(s, true); });
    nav_->setCurrentRow(0);
    resize(1280, 800);
}

MainWindow::~MainWindow() {
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
    source_ = std::move(source);
    connect(source_.get(), &FrameSource::frameReady, worker_.get(), &VisionWorker::submit);
    connect(source_.get(), &FrameSource::failed, this, &MainWindow::onSourceFailed);
    for (auto* v : views_) v->setSource(source_->description());
    camera_->setCurrent(source_->description());
    status_->setText(QString("Database: %1   ·   Source: %2").arg(service_.path(), source_->description()));
    if (remember) {
        QSettings settings;
        settings.setValue("source/spec", spec.toString());
        settings.setValue("source/resolution", spec.resolution);
    }
    source_->start();
    return source_ && source_->isRunning();
}

void MainWindow::onFrame(const FrameReport& report) {
    for (auto* v : views_)
        if (v->isVisible() || framesShown_ == 0) v->showReport(report);
    if (framesShown_++ == 0) emit firstFrameShown();
}

void MainWindow::onSourceFailed(const QString& message) {
    const QString text = message + (flow_->step() != HandFlow::Step::Playing ? "  The count so far is kept." : "");
    for (auto* v : views_) v->setLost(text);
    status_->setText("Source problem: " + text);
}

void MainWindow::openLatestGame() {
    try {
        std::int64_t best = 0;
        for (const auto& league : service_.leagues())
            for (auto id : service_.gameIds(league.id))
                if (id > best && !service_.loadGame(id).game.outcome().over) best = id;
        if (best > 0) {
            const auto decks = service_.decks();
            const auto game = service_.loadGame(best);
            QMap<QString, QString> colours;
            for (const auto& s : game.game.sides()) {
                const std::string owner = s.members.empty() ? s.name : s.members.front();
                for (const auto& d : decks)
                    if (d.owner == owner && d.colour) {
                        colours[QString::fromStdString(s.name)] = QString::fromStdString(*d.colour);
                        break;
                    }
            }
            hand_->setColours(colours);
            flow_->openGame(best);
        }
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
    struct Item { Page page; QString name; };
    const Item items[] = {{Page::Leagues, "01-leagues"}, {Page::Players, "02-players"}, {Page::Decks, "03-decks"},
                          {Page::NewGame, "04-new-game"}};
    for (const auto& it : items) {
        showPage(it.page);
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
        flow_->setLakeTops("7H KS 5C 9D 3S", 0);
        flow_->goTo(HandFlow::Step::Backs);
        const int counts[] = {14, 11, 12, 10};
        for (int i = 0; i < flow_->sideCount(); ++i) flow_->setLake(i, counts[i % 4]);
        if (!shot("06-hand-back-count")) return false;
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
