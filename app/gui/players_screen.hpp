// PlayersScreen: the club's players; add and rename.
#pragma once
#include <QWidget>

class QLineEdit;
class QTableWidget;

namespace nertz::gui {
class LeagueService;
class Banner;

class PlayersScreen : public QWidget {
    Q_OBJECT
public:
    explicit PlayersScreen(LeagueService& service, QWidget* parent = nullptr);
public slots:
    void refresh();

private:
    LeagueService& service_;
    Banner* banner_;
    QTableWidget* table_;
    QLineEdit* name_;
    QLineEdit* rename_;
};
}  // namespace nertz::gui
