// DecksScreen: every player's decks (name, overlay colour, whether a back is enrolled); add a deck;
// enrol a deck's back by holding it under the camera: the vision thread finds the largest card back
// in view, makes its signature from the last few frames and compares it with the league's other
// decks (nearest back, "too close" warning) before it is stored with the chosen overlay colour.
#pragma once
#include <QWidget>
#include <memory>

#include "recognition.hpp"

class QComboBox;
class QLabel;
class QLineEdit;
class QTableWidget;

namespace nertz::gui {
class LeagueService;
class Banner;
class CameraView;

class DecksScreen : public QWidget {
    Q_OBJECT
public:
    explicit DecksScreen(LeagueService& service, QWidget* parent = nullptr);
    CameraView* cameraView() const { return camera_; }
    // The overlay colours offered for a deck: name and #rrggbb.
    static QList<QPair<QString, QString>> colours();
    void setRecognizer(std::shared_ptr<RecognitionAnalyzer> recognizer);
    // The analysis of the latest frame while this screen shows (GUI thread).
    void showEnrolReading(const EnrolReading& reading);
    const EnrolReading& lastReading() const { return reading_; }
public slots:
    void refresh();

private:
    void enrolTargetChanged();
    void enrol();
    LeagueService& service_;
    Banner* banner_;
    QTableWidget* table_;
    QComboBox* owner_;
    QLineEdit* name_;
    QComboBox* colour_;
    CameraView* camera_;
    QComboBox* enrolDeck_;
    QComboBox* enrolColour_;
    QLabel* enrolState_;
    std::shared_ptr<RecognitionAnalyzer> recognizer_;
    EnrolReading reading_;
};
}  // namespace nertz::gui
