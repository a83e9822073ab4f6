// StandingsScreen: a league's (or season's) standings, sortable by any column; head-to-head of
// two players; export as CSV.
#pragma once
#include <QWidget>

class QComboBox;
class QLabel;
class QTableWidget;

namespace nertz::gui {
class Banner;
class LeagueService;

class StandingsScreen : public QWidget {
    Q_OBJECT
public:
    explicit StandingsScreen(LeagueService& service, QWidget* parent = nullptr);
public slots:
    void refresh();

private:
    void fill();
    void showHeadToHead();
    LeagueService& service_;
    Banner* banner_;
    QComboBox* league_;
    QComboBox* season_;
    QTableWidget* table_;
    QComboBox* a_;
    QComboBox* b_;
    QLabel* h2h_;
};
}  // namespace nertz::gui
