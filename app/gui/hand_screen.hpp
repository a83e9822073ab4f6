// HandScreen: one hand at the table. The referee panel while playing (clock, "everyone is stuck",
// false calls), then the scoring steps of HandFlow, each one page with big controls and a
// keyboard shortcut, the camera view beside them. Shows HandFlow; computes nothing itself.
#pragma once
#include <QMap>
#include <QWidget>
#include <vector>

#include "hand_flow.hpp"
#include "recognition.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QTimer;
class QVBoxLayout;
class QHBoxLayout;

namespace nertz::gui {
class Banner;
class CameraView;
class Counter;

class HandScreen : public QWidget {
    Q_OBJECT
public:
    HandScreen(HandFlow& flow, QWidget* parent = nullptr);
    CameraView* cameraView() const { return camera_; }
    // Side name -> overlay colour (from the seats' decks).
    void setColours(const QMap<QString, QString>& colours);
    // Keyboard help for the README and the on-screen hint line.
    static QString shortcutHelp();
    // The camera recognition this screen shows and corrects (reassignments go to it).
    void setRecognizer(std::shared_ptr<RecognitionAnalyzer> recognizer) { recognizer_ = std::move(recognizer); }
    // Results of the analysis of the latest frame (from MainWindow, GUI thread).
    void showTally(const BackTally& tally);
    void showLakeReading(const LakeReading& reading);
    const BackTally& lastTally() const { return tally_; }
    // Selects the counted card at `framePoint` (as a tap on the video does); false when none is there.
    bool selectCard(QPointF framePoint);
    // The back count counts cards dealt past the camera one at a time (onto a spot or through the
    // view) instead of the cards lying on the latest frame (the "Dealt one at a time" button, D).
    bool dealing() const;

  signals:
    void dealingChanged();

  private:
    void rebuild();       // a new game: per-side rows
    void showStep();      // the flow's step changed
    void refreshCounts(); // counts or referee state changed
    void goNext();
    void choose(int index);  // digit keys: a side on the current step
    void adjustSelected(int delta);
    void tick();
    void assignSelected(int side);
    void refreshCamera();

    HandFlow& flow_;
    QMap<QString, QString> colours_;
    int selected_ = 0;
    Banner* banner_;
    QLabel* title_;
    QLabel* stepLabel_;
    QStackedWidget* pages_;
    CameraView* camera_;
    QPushButton* back_;
    QPushButton* next_;
    // playing
    QLabel* clock_;
    QLabel* instruction_;
    QVBoxLayout* falseCallBox_;
    std::vector<QPushButton*> falseCallButtons_;
    QLabel* falseCallNote_;
    // called
    QVBoxLayout* callerBox_;
    std::vector<QPushButton*> callerButtons_;
    QPushButton* allStuck_;
    // lake
    QLineEdit* tops_;
    QSpinBox* kings_;
    QLabel* expected_;
    // backs / nertz left
    QVBoxLayout* backsBox_;
    QVBoxLayout* nertzBox_;
    std::vector<Counter*> lakeCounters_, nertzCounters_;
    QLabel* backsTotal_;
    QPushButton* cameraCount_;
    QPushButton* dealMode_;
    QPushButton* restartDeal_;
    QListWidget* dealtList_;  // Deal: the cards counted so far, in order; pick one to reassign it
    void refreshDealt();
    void startDealAgain();  // the deal count from nothing: recognizer, list, counters
    QLabel* cameraState_;
    QLabel* unknown_;
    QLabel* selectedCard_;
    QHBoxLayout* assignBox_;
    std::vector<QPushButton*> assignButtons_;
    std::shared_ptr<RecognitionAnalyzer> recognizer_;
    BackTally tally_;
    std::optional<QPointF> selected_point_;
    std::optional<int> selectedDealt_;  // Deal: the card number picked in the list
    bool autoCountOffered_ = false;  // the camera count started by itself once this hand
    // lake read from the camera
    QLabel* lakeRead_;
    QPushButton* useLakeRead_;
    QProgressBar* lakeLoading_;
    QStringList lakeTopsRead_;
    // SPEC "Pile check": a lake pile in doubt, typed from the bottom up or read by the camera
    QLineEdit* pileCards_;
    QLabel* pileVerdict_;
    QPushButton* pileFromCamera_;  // the camera reads the frame as one fanned pile (K)
    QLabel* pileRead_;
    QPushButton* usePileRead_;     // the camera's reading into pileCards_, to be put right by hand
    QStringList pileReadCards_;
    void showPileVerdict();
    static QString pileVerdictText(const scoring::PileCheck& check);  // "card 4 from the bottom is 5H, expected 4H."
    // a fanned Nertz pile counted by the face reader (distinct cards read), -1: nothing yet
    QLabel* fanRead_;
    QPushButton* useFanRead_;
    int fanCount_ = -1;
    // review
    QTableWidget* breakdown_;
    QLabel* checksum_;
    QLabel* warnings_;
    // confirm
    QComboBox* enteredBy_;
    QComboBox* confirmedBy_;
    QLabel* confirmSummary_;
    QTimer* clockTimer_;
};
}  // namespace nertz::gui
