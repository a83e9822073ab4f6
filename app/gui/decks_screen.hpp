// DecksScreen: every player's decks (name, overlay colour, whether a back is enrolled); add a deck.
// Enrolling a back from the camera needs the vision module and says so while it is missing.
#pragma once
#include <QWidget>

class QComboBox;
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
public slots:
    void refresh();

private:
    LeagueService& service_;
    Banner* banner_;
    QTableWidget* table_;
    QComboBox* owner_;
    QLineEdit* name_;
    QComboBox* colour_;
    CameraView* camera_;
};
}  // namespace nertz::gui
