// PlayerScreen: one player's page: totals per league, game history, and charts (running total
// through each game, points per hand over time, Nertz-call rate per game) drawn with QtCharts.
#pragma once
#include <QWidget>

class QChartView;
class QComboBox;
class QLabel;
class QTableWidget;

namespace nertz::gui {
class Banner;
class LeagueService;

class PlayerScreen : public QWidget {
    Q_OBJECT
public:
    explicit PlayerScreen(LeagueService& service, QWidget* parent = nullptr);
    void showPlayer(const QString& name);
public slots:
    void refresh();

private:
    void fill();
    LeagueService& service_;
    Banner* banner_;
    QComboBox* player_;
    QLabel* summary_;
    QTableWidget* history_;
    QChartView* running_;
    QChartView* perHand_;
    QChartView* callRate_;
};
}  // namespace nertz::gui
