#include "players_screen.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QTableWidget>
#include <QVBoxLayout>

#include "league_service.hpp"
#include "widgets.hpp"

namespace nertz::gui {

PlayersScreen::PlayersScreen(LeagueService& service, QWidget* parent) : QWidget(parent), service_(service) {
    auto* v = new QVBoxLayout(this);
    v->addWidget(heading("Players"));
    banner_ = new Banner(this);
    v->addWidget(banner_);
    auto* row = new QHBoxLayout;
    name_ = new QLineEdit;
    name_->setObjectName("playerName");
    name_->setPlaceholderText("new player's name");
    auto* add = bigButton("Add player", "addPlayer");
    add->setProperty("primary", true);
    row->addWidget(name_, 1);
    row->addWidget(add);
    v->addLayout(row);
    table_ = new QTableWidget(0, 2);
    table_->setHorizontalHeaderLabels({"Player", "Since"});
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setDefaultSectionSize(40);
    v->addWidget(table_, 1);
    auto* rrow = new QHBoxLayout;
    rename_ = new QLineEdit;
    rename_->setObjectName("renameTo");
    rename_->setPlaceholderText("new name for the selected player");
    auto* ren = bigButton("Rename", "renamePlayer");
    rrow->addWidget(rename_, 1);
    rrow->addWidget(ren);
    v->addLayout(rrow);

    auto addPlayer = [this] {
        if (banner_->guard([this] { service_.addPlayer(name_->text()); })) {
            banner_->showInfo("Player \"" + name_->text().trimmed() + "\" added.");
            name_->clear();
        }
    };
    connect(add, &QPushButton::clicked, this, addPlayer);
    connect(name_, &QLineEdit::returnPressed, this, addPlayer);
    connect(ren, &QPushButton::clicked, this, [this] {
        const int r = table_->currentRow();
        if (r < 0) return banner_->showError("Select a player to rename.");
        const QString from = table_->item(r, 0)->text();
        if (banner_->guard([&] { service_.renamePlayer(from, rename_->text()); })) {
            banner_->showInfo(from + " is now " + rename_->text().trimmed() + " (logged in the audit).");
            rename_->clear();
        }
    });
    connect(&service_, &LeagueService::changed, this, &PlayersScreen::refresh);
    refresh();
}

void PlayersScreen::refresh() {
    banner_->guard([&] {
        const auto list = service_.players();
        table_->setRowCount(static_cast<int>(list.size()));
        for (int i = 0; i < static_cast<int>(list.size()); ++i) {
            table_->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(list[i].name)));
            table_->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(list[i].createdAt).left(10)));
        }
    });
}

}  // namespace nertz::gui
