// HandScreen: one hand at the table. The referee panel while playing (clock, "everyone is stuck",
// false calls), then the scoring steps of HandFlow, each one page with big controls and a
// keyboard shortcut, the camera view beside them. Shows HandFlow; computes nothing itself.
#pragma once
#include <QMap>
#include <QWidget>
#include <vector>

#include "hand_flow.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;
class QStackedWidget;
class QTableWidget;
class QTimer;
class QVBoxLayout;

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

private:
    void rebuild();       // a new game: per-side rows
    void showStep();      // the flow's step changed
    void refreshCounts(); // counts or referee state changed
    void goNext();
    void choose(int index);  // digit keys: a side on the current step
    void adjustSelected(int delta);
    void tick();

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
