#include "standings_screen.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>

#include "league_service.hpp"
#include "widgets.hpp"

namespace nertz::gui {

namespace {
// A table item that sorts by number.
class NumberItem : public QTableWidgetItem {
public:
    NumberItem(double value, int decimals) : QTableWidgetItem(QString::number(value, 'f', decimals)) {
        setData(Qt::UserRole, value);
        setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
    bool operator<(const QTableWidgetItem& other) const override {
        return data(Qt::UserRole).toDouble() < other.data(Qt::UserRole).toDouble();
    }
};
}  // namespace

StandingsScreen::StandingsScreen(LeagueService& service, QWidget* parent) : QWidget(parent), service_(service) {
    auto* v = new QVBoxLayout(this);
    v->addWidget(heading("Standings"));
    banner_ = new Banner(this);
    v->addWidget(banner_);
    auto* row = new QHBoxLayout;
    league_ = new QComboBox;
    league_->setObjectName("standingsLeague");
    season_ = new QComboBox;
    auto* exportCsv = bigButton("Export CSV", "exportStandings");
    row->addWidget(new QLabel("League"));
    row->addWidget(league_, 1);
    row->addWidget(new QLabel("Season"));
    row->addWidget(season_, 1);
    row->addWidget(exportCsv);
    v->addLayout(row);
    table_ = new QTableWidget(0, 11);
    table_->setObjectName("standingsTable");
    table_->setHorizontalHeaderLabels({"#", "Player", "Rating", "Games", "Wins", "Losses", "Ties", "Points", "Pts/game",
                                       "Pts/hand", "Call rate"});
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table_->verticalHeader()->hide();
    table_->verticalHeader()->setDefaultSectionSize(40);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSortingEnabled(true);
    v->addWidget(table_, 1);
    v->addWidget(heading("Head to head"));
    auto* hrow = new QHBoxLayout;
    a_ = new QComboBox;
    b_ = new QComboBox;
    hrow->addWidget(a_, 1);
    hrow->addWidget(new QLabel("v"));
    hrow->addWidget(b_, 1);
    v->addLayout(hrow);
    h2h_ = new QLabel;
    h2h_->setObjectName("headToHead");
    h2h_->setStyleSheet("font-size:20px;");
    v->addWidget(h2h_);

    connect(league_, &QComboBox::currentIndexChanged, this, [this] {
        season_->blockSignals(true);
        season_->clear();
        season_->addItem("all seasons", 0);
        banner_->guard([&] {
            if (league_->currentIndex() >= 0)
                for (const auto& s : service_.seasons(league_->currentData().toLongLong()))
                    season_->addItem(QString::fromStdString(s.name), static_cast<qlonglong>(s.id));
        });
        season_->blockSignals(false);
        fill();
    });
    connect(season_, &QComboBox::currentIndexChanged, this, &StandingsScreen::fill);
    connect(a_, &QComboBox::currentIndexChanged, this, &StandingsScreen::showHeadToHead);
    connect(b_, &QComboBox::currentIndexChanged, this, &StandingsScreen::showHeadToHead);
    connect(exportCsv, &QPushButton::clicked, this, [this] {
        if (league_->currentIndex() < 0) return banner_->showError("No league to export.");
        const QString path = QFileDialog::getSaveFileName(this, "Export standings", league_->currentText() + ".csv", "CSV (*.csv)");
        if (path.isEmpty()) return;
        if (banner_->guard([&] { service_.exportStandingsCsv(league_->currentData().toLongLong(), path); }))
            banner_->showInfo("Standings written to " + path);
    });
    connect(&service_, &LeagueService::changed, this, &StandingsScreen::refresh);
    refresh();
}

void StandingsScreen::refresh() {
    banner_->guard([&] {
        const QString keep = league_->currentText();
        league_->blockSignals(true);
        league_->clear();
        for (const auto& l : service_.leagues()) league_->addItem(QString::fromStdString(l.name), static_cast<qlonglong>(l.id));
        if (!keep.isEmpty()) league_->setCurrentText(keep);
        league_->blockSignals(false);
        emit league_->currentIndexChanged(league_->currentIndex());
        const QString ka = a_->currentText(), kb = b_->currentText();
        a_->blockSignals(true);
        b_->blockSignals(true);
        a_->clear();
        b_->clear();
        for (const auto& p : service_.players()) {
            a_->addItem(QString::fromStdString(p.name));
            b_->addItem(QString::fromStdString(p.name));
        }
        if (!ka.isEmpty()) a_->setCurrentText(ka);
        if (!kb.isEmpty()) b_->setCurrentText(kb);
        else if (b_->count() > 1) b_->setCurrentIndex(1);
        a_->blockSignals(false);
        b_->blockSignals(false);
        showHeadToHead();
    });
}

void StandingsScreen::fill() {
    table_->setSortingEnabled(false);
    table_->setRowCount(0);
    if (league_->currentIndex() < 0) return;
    banner_->guard([&] {
        std::optional<std::int64_t> season;
        if (season_->currentIndex() > 0) season = season_->currentData().toLongLong();
        const auto rows = service_.standings(league_->currentData().toLongLong(), season);
        table_->setRowCount(static_cast<int>(rows.size()));
        for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
            const auto& r = rows[i];
            table_->setItem(i, 0, new NumberItem(i + 1, 0));
            table_->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(r.player)));
            table_->setItem(i, 2, new NumberItem(r.rating, 2));
            table_->setItem(i, 3, new NumberItem(r.games, 0));
            table_->setItem(i, 4, new NumberItem(r.wins, 0));
            table_->setItem(i, 5, new NumberItem(r.losses, 0));
            table_->setItem(i, 6, new NumberItem(r.ties, 0));
            table_->setItem(i, 7, new NumberItem(r.points, 0));
            table_->setItem(i, 8, new NumberItem(r.pointsPerGame, 1));
            table_->setItem(i, 9, new NumberItem(r.pointsPerHand, 1));
            table_->setItem(i, 10, new NumberItem(r.callRate * 100, 0));
            table_->item(i, 10)->setText(QString::number(r.callRate * 100, 'f', 0) + "%");
        }
    });
    table_->setSortingEnabled(true);
}

void StandingsScreen::showHeadToHead() {
    if (a_->currentText().isEmpty() || b_->currentText().isEmpty() || a_->currentText() == b_->currentText()) {
        h2h_->setText("Pick two different players.");
        return;
    }
    banner_->guard([&] {
        const auto h = service_.headToHead(a_->currentText(), b_->currentText());
        h2h_->setText(QString("%1 %2 – %3 %4 in %5 finished games (%6 tied); points %7 – %8")
                          .arg(QString::fromStdString(h.a))
                          .arg(h.aWins)
                          .arg(h.bWins)
                          .arg(QString::fromStdString(h.b))
                          .arg(h.games)
                          .arg(h.ties)
                          .arg(h.aPoints)
                          .arg(h.bPoints));
    });
}

}  // namespace nertz::gui
