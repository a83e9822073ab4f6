#include "leagues_screen.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "league_service.hpp"
#include "widgets.hpp"

namespace nertz::gui {

LeaguesScreen::LeaguesScreen(LeagueService& service, QWidget* parent) : QWidget(parent), service_(service) {
    auto* v = new QVBoxLayout(this);
    v->addWidget(heading("Leagues and seasons"));
    banner_ = new Banner(this);
    v->addWidget(banner_);
    auto* row = new QHBoxLayout;
    leagueName_ = new QLineEdit;
    leagueName_->setObjectName("leagueName");
    leagueName_->setPlaceholderText("new league name, e.g. Thursday club");
    auto* add = bigButton("Add league", "addLeague");
    add->setProperty("primary", true);
    row->addWidget(leagueName_, 1);
    row->addWidget(add);
    v->addLayout(row);
    table_ = new QTableWidget(0, 3);
    table_->setHorizontalHeaderLabels({"League", "Games", "Created"});
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setDefaultSectionSize(40);
    v->addWidget(table_, 2);
    v->addWidget(new QLabel("Seasons of the selected league"));
    seasons_ = new QListWidget;
    seasons_->setMaximumHeight(160);
    v->addWidget(seasons_, 1);
    auto* srow = new QHBoxLayout;
    seasonName_ = new QLineEdit;
    seasonName_->setObjectName("seasonName");
    seasonName_->setPlaceholderText("new season, e.g. Spring 2024");
    auto* addSeason = bigButton("Add season", "addSeason");
    srow->addWidget(seasonName_, 1);
    srow->addWidget(addSeason);
    v->addLayout(srow);

    auto addLeague = [this] {
        if (banner_->guard([this] { service_.addLeague(leagueName_->text()); })) {
            banner_->showInfo("League \"" + leagueName_->text().trimmed() + "\" added.");
            leagueName_->clear();
        }
    };
    connect(add, &QPushButton::clicked, this, addLeague);
    connect(leagueName_, &QLineEdit::returnPressed, this, addLeague);
    auto addS = [this] {
        const QString league = selectedLeague();
        if (league.isEmpty()) return banner_->showError("Select a league first.");
        if (banner_->guard([&] { service_.addSeason(league, seasonName_->text()); })) {
            banner_->showInfo("Season added to " + league + ".");
            seasonName_->clear();
        }
    };
    connect(addSeason, &QPushButton::clicked, this, addS);
    connect(seasonName_, &QLineEdit::returnPressed, this, addS);
    connect(table_, &QTableWidget::itemSelectionChanged, this, [this] {
        seasons_->clear();
        const auto row = table_->currentRow();
        if (row < 0) return;
        banner_->guard([&] {
            for (const auto& s : service_.seasons(table_->item(row, 0)->data(Qt::UserRole).toLongLong()))
                seasons_->addItem(QString::fromStdString(s.name));
        });
    });
    connect(&service_, &LeagueService::changed, this, &LeaguesScreen::refresh);
    refresh();
}

QString LeaguesScreen::selectedLeague() const {
    const int row = table_->currentRow();
    return row < 0 ? QString() : table_->item(row, 0)->text();
}

void LeaguesScreen::refresh() {
    const QString keep = selectedLeague();
    banner_->guard([&] {
        const auto list = service_.leagues();
        table_->setRowCount(static_cast<int>(list.size()));
        for (int i = 0; i < static_cast<int>(list.size()); ++i) {
            auto* name = new QTableWidgetItem(QString::fromStdString(list[i].name));
            name->setData(Qt::UserRole, static_cast<qlonglong>(list[i].id));
            table_->setItem(i, 0, name);
            table_->setItem(i, 1, new QTableWidgetItem(QString::number(list[i].games)));
            table_->setItem(i, 2, new QTableWidgetItem(QString::fromStdString(list[i].createdAt).left(10)));
            if (name->text() == keep || (keep.isEmpty() && i == 0)) table_->selectRow(i);
        }
    });
}

}  // namespace nertz::gui
