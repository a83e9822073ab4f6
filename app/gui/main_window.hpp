// MainWindow: the navigation bar, one page per screen, the frame source and the vision worker
// that feed every camera view, and the status bar. Renders each screen to PNG on request.
#pragma once
#include <QMainWindow>
#include <QMap>
#include <memory>

#include "source_spec.hpp"

class QListWidget;
class QStackedWidget;
class QLabel;

namespace nertz::gui {
class CameraScreen;
class CameraView;
class DecksScreen;
class FrameSource;
class HandFlow;
class HandScreen;
class LeagueService;
class NewGameScreen;
class PlayerScreen;
class ReviewScreen;
class StandingsScreen;
class VisionWorker;
class RecognitionAnalyzer;
struct FrameReport;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // The pages, in navigation order (Alt+1 .. Alt+9).
    enum class Page { Hand, NewGame, Game, Standings, Player, Leagues, Players, Decks, Camera };

    explicit MainWindow(LeagueService& service, QWidget* parent = nullptr);
    ~MainWindow() override;
    // Replaces the frame source; false and a message in the status bar when it cannot start.
    // `remember`: store the choice in QSettings.
    bool setSource(const SourceSpec& spec, bool remember);
    // Starts frames from a source made elsewhere (tests: a clip that does not loop).
    bool adoptSource(std::unique_ptr<FrameSource> source);
    QString sourceDescription() const;
    void showPage(Page page);
    HandFlow& handFlow() { return *flow_; }
    VisionWorker& worker() { return *worker_; }
    HandScreen* handScreen() const { return hand_; }
    DecksScreen* decksScreen() const { return decks_; }
    RecognitionAnalyzer& recognizer() { return *recognizer_; }
    // League import/export of a JSON file through nertzref-cli, under a progress dialog; false and
    // the CLI's message in `message` on failure (true: its summary).
    bool importLeagueFile(const QString& file, QString* message);
    bool exportLeagueFile(const QString& league, const QString& file, QString* message);
    // Recomputes a league's ratings from scratch on a job thread (own connection) under a progress
    // dialog; false and the error in `message` on failure.
    bool recomputeLeagueRatings(std::int64_t leagueId, QString* message);
    // Opens a game on the hand screen with its seats' colours and decks.
    void openGame(std::int64_t gameId);
    // Opens the most recent unfinished game, if any.
    void openLatestGame();
    // Renders every main screen to DIR/NN-name.png; false with `error` set on failure.
    bool renderScreens(const QString& dir, QString* error);
    // True once a processed frame has been shown.
    bool hasShownFrame() const { return framesShown_ > 0; }

signals:
    void firstFrameShown();

private:
    void onFrame(const FrameReport& report);
    void onSourceFailed(const QString& message);
    void updateRecognition();  // the recognition mode follows the page and the hand's step
    void updateSeats();        // the open game's seat decks -> the back counter
    void importLeague();
    void exportLeague();
    void recomputeRatings();
    LeagueService& service_;
    std::unique_ptr<HandFlow> flow_;
    std::shared_ptr<RecognitionAnalyzer> recognizer_;
    std::unique_ptr<VisionWorker> worker_;
    std::unique_ptr<FrameSource> source_;
    QListWidget* nav_;
    QStackedWidget* pages_;
    QLabel* status_;
    HandScreen* hand_;
    NewGameScreen* newGame_;
    ReviewScreen* review_;
    StandingsScreen* standings_;
    PlayerScreen* player_;
    DecksScreen* decks_;
    CameraScreen* camera_;
    QList<CameraView*> views_;
    quint64 framesShown_ = 0;
};
}  // namespace nertz::gui
