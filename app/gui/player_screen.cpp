#include "player_screen.hpp"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineSeries>
#include <QTableWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include "league_service.hpp"
#include "widgets.hpp"

namespace nertz::gui {

namespace {
QChartView* chartView(const QString& title) {
    auto* chart = new QChart;
    chart->setTitle(title);
    chart->legend()->hide();
    chart->setMargins(QMargins(4, 4, 4, 4));
    auto* view = new QChartView(chart);
    view->setRenderHint(QPainter::Antialiasing);
    view->setMinimumHeight(220);
    return view;
}

// The side of `player` in a game (a side named so, or a team with them as a member).
std::optional<std::size_t> sideOf(const scoring::Game& game, const std::string& player) {
    for (std::size_t i = 0; i < game.sides().size(); ++i) {
        const auto& s = game.sides()[i];
        if (s.name == player || std::find(s.members.begin(), s.members.end(), player) != s.members.end()) return i;
    }
    return std::nullopt;
}
}  // namespace

PlayerScreen::PlayerScreen(LeagueService& service, QWidget* parent) : QWidget(parent), service_(service) {
    auto* v = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    top->addWidget(heading("Player"));
    player_ = new QComboBox;
    player_->setObjectName("playerPick");
    player_->setMinimumWidth(220);
    top->addWidget(player_);
    top->addStretch(1);
    v->addLayout(top);
    banner_ = new Banner(this);
    v->addWidget(banner_);
    summary_ = new QLabel;
    summary_->setObjectName("playerSummary");
    summary_->setWordWrap(true);
    summary_->setStyleSheet("font-size:18px;");
    v->addWidget(summary_);
    auto* grid = new QGridLayout;
    running_ = chartView("Running total through each game");
    perHand_ = chartView("Points per hand over time");
    callRate_ = chartView("Nertz-call rate per game (%)");
    history_ = new QTableWidget(0, 5);
    history_->setHorizontalHeaderLabels({"Date", "League", "Result", "Points", "Hands"});
    history_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    history_->verticalHeader()->hide();
    history_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    grid->addWidget(running_, 0, 0);
    grid->addWidget(perHand_, 0, 1);
    grid->addWidget(callRate_, 1, 0);
    grid->addWidget(history_, 1, 1);
    v->addLayout(grid, 1);
    connect(player_, &QComboBox::currentIndexChanged, this, &PlayerScreen::fill);
    connect(&service_, &LeagueService::changed, this, &PlayerScreen::refresh);
    refresh();
}

void PlayerScreen::showPlayer(const QString& name) { player_->setCurrentText(name); }

void PlayerScreen::refresh() {
    banner_->guard([&] {
        const QString keep = player_->currentText();
        player_->blockSignals(true);
        player_->clear();
        for (const auto& p : service_.players()) player_->addItem(QString::fromStdString(p.name));
        if (!keep.isEmpty()) player_->setCurrentText(keep);
        player_->blockSignals(false);
        fill();
    });
}

void PlayerScreen::fill() {
    for (auto* view : {running_, perHand_, callRate_}) {
        view->chart()->removeAllSeries();
        for (auto* axis : view->chart()->axes()) view->chart()->removeAxis(axis);
    }
    history_->setRowCount(0);
    summary_->clear();
    if (player_->currentText().isEmpty()) return;
    banner_->guard([&] {
        const auto stats = service_.playerStats(player_->currentText());
        QStringList lines;
        for (const auto& [league, r] : stats.leagues)
            lines << QString("%1: %2 games, %3 wins, %4 points (%5 per game), Nertz called in %6% of hands, rating %7")
                         .arg(QString::fromStdString(league))
                         .arg(r.games)
                         .arg(r.wins)
                         .arg(r.points)
                         .arg(r.pointsPerGame, 0, 'f', 1)
                         .arg(r.callRate * 100, 0, 'f', 0)
                         .arg(r.rating, 0, 'f', 2);
        summary_->setText(lines.isEmpty() ? "No finished games yet." : lines.join("\n"));
        history_->setRowCount(static_cast<int>(stats.history.size()));
        auto* perHandSeries = new QLineSeries;
        auto* rateSet = new QBarSet("call rate");
        QStringList categories;
        int handIndex = 0, maxHands = 1, minTotal = 0, maxTotal = 10, minHand = 0, maxHand = 10;
        const std::string player = player_->currentText().toStdString();
        for (int i = 0; i < static_cast<int>(stats.history.size()); ++i) {
            const auto& h = stats.history[i];
            history_->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(h.date)));
            history_->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(h.league)));
            history_->setItem(i, 2, new QTableWidgetItem(QString::fromStdString(h.result)));
            history_->setItem(i, 3, new QTableWidgetItem(QString::number(h.points)));
            history_->setItem(i, 4, new QTableWidgetItem(QString::number(h.hands)));
            const auto game = service_.loadGame(h.gameId);
            const auto side = sideOf(game.game, player);
            if (!side) continue;
            auto* running = new QLineSeries;
            running->setName(QString::fromStdString(h.date));
            running->append(0, 0);
            int calls = 0;
            const auto& hands = game.game.hands();
            for (std::size_t k = 0; k < hands.size(); ++k) {
                const int total = game.game.totalsAfter(k + 1)[*side];
                const int score = game.game.scores()[k].sides[*side].score;
                running->append(static_cast<qreal>(k + 1), total);
                perHandSeries->append(++handIndex, score);
                minTotal = std::min(minTotal, total);
                maxTotal = std::max(maxTotal, total);
                minHand = std::min(minHand, score);
                maxHand = std::max(maxHand, score);
                if (hands[k].sides[*side].called) ++calls;
            }
            maxHands = std::max(maxHands, static_cast<int>(hands.size()));
            running_->chart()->addSeries(running);
            *rateSet << (hands.empty() ? 0.0 : 100.0 * calls / static_cast<double>(hands.size()));
            categories << QString("#%1").arg(h.gameId);
        }
        auto axes = [](QChart* chart, double x0, double x1, double y0, double y1, const QString& xTitle) {
            auto* ax = new QValueAxis;
            ax->setRange(x0, x1);
            ax->setLabelFormat("%d");
            ax->setTitleText(xTitle);
            auto* ay = new QValueAxis;
            ay->setRange(y0, y1);
            ay->setLabelFormat("%d");
            chart->addAxis(ax, Qt::AlignBottom);
            chart->addAxis(ay, Qt::AlignLeft);
            for (auto* s : chart->series()) {
                s->attachAxis(ax);
                s->attachAxis(ay);
            }
        };
        axes(running_->chart(), 0, maxHands, minTotal - 5, maxTotal + 5, "hand");
        perHand_->chart()->addSeries(perHandSeries);
        axes(perHand_->chart(), 0, std::max(1, handIndex), minHand - 3, maxHand + 3, "hand (all games, in order)");
        auto* bars = new QBarSeries;
        bars->append(rateSet);
        callRate_->chart()->addSeries(bars);
        auto* cat = new QBarCategoryAxis;
        cat->append(categories);
        auto* ay = new QValueAxis;
        ay->setRange(0, 100);
        ay->setLabelFormat("%d");
        callRate_->chart()->addAxis(cat, Qt::AlignBottom);
        callRate_->chart()->addAxis(ay, Qt::AlignLeft);
        bars->attachAxis(cat);
        bars->attachAxis(ay);
    });
}

}  // namespace nertz::gui
