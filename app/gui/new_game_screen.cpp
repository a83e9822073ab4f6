#include "new_game_screen.hpp"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QListWidget>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>

#include "league_service.hpp"
#include "nertz/io/json.hpp"
#include "nertz/scoring/rules.hpp"
#include "widgets.hpp"

namespace nertz::gui {

namespace sc = nertz::scoring;

NewGameScreen::NewGameScreen(LeagueService& service, QWidget* parent) : QWidget(parent), service_(service) {
    auto* v = new QVBoxLayout(this);
    v->addWidget(heading("New game"));
    banner_ = new Banner(this);
    v->addWidget(banner_);
    auto* cols = new QHBoxLayout;
    v->addLayout(cols, 1);
    auto* form = new QFormLayout;
    cols->addLayout(form, 1);
    league_ = new QComboBox;
    league_->setObjectName("gameLeague");
    season_ = new QComboBox;
    season_->setObjectName("gameSeason");
    preset_ = new QComboBox;
    preset_->setObjectName("gamePreset");
    for (const auto& id : sc::presetIds()) {
        const auto r = sc::preset(id);
        preset_->addItem(QString::fromStdString(id + " — " + r.name), QString::fromStdString(id));
    }
    target_ = new QSpinBox;
    target_->setObjectName("gameTarget");
    target_->setRange(10, 5000);
    target_->setSingleStep(50);
    teamSize_ = new QSpinBox;
    teamSize_->setObjectName("gameTeamSize");
    teamSize_->setRange(1, 4);
    form->addRow("League", league_);
    form->addRow("Season", season_);
    auto* rulesRow = new QHBoxLayout;
    rulesRow->addWidget(preset_, 1);
    auto* loadRules = bigButton("From a file...", "loadRules");
    rulesRow->addWidget(loadRules);
    form->addRow("Rules", rulesRow);
    connect(loadRules, &QPushButton::clicked, this, [this] {
        const QString f = QFileDialog::getOpenFileName(this, "A custom rule set", QString(), "Rule set (*.json);;All files (*)");
        if (!f.isEmpty()) loadRulesFile(f);
    });
    form->addRow("Game to", target_);
    form->addRow("Players per side", teamSize_);
    players_ = new QListWidget;
    players_->setObjectName("gamePlayers");
    form->addRow("Who plays (tick in seat order)", players_);

    auto* right = new QVBoxLayout;
    cols->addLayout(right, 1);
    right->addWidget(new QLabel("Seats: deck and Nertz pile size (handicap) per side"));
    seats_ = new QTableWidget(0, 3);
    seats_->setObjectName("gameSeats");
    seats_->setHorizontalHeaderLabels({"Side", "Deck", "Pile"});
    seats_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    seats_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    seats_->verticalHeader()->setDefaultSectionSize(46);
    right->addWidget(seats_, 1);
    auto* note = new QLabel("The deck per seat is stored with the game: its back attributes the lake cards in the back count, "
                            "its colour marks the seat's counters and outlines.");
    note->setWordWrap(true);
    note->setProperty("hint", true);
    right->addWidget(note);
    auto* start = bigButton("Start game  (Ctrl+Enter)", "startGame");
    start->setProperty("primary", true);
    start->setShortcut(QKeySequence("Ctrl+Return"));
    right->addWidget(start);

    auto* cont = new QHBoxLayout;
    open_ = new QComboBox;
    open_->setObjectName("openGames");
    auto* go = bigButton("Continue game", "continueGame");
    cont->addWidget(new QLabel("Unfinished games:"));
    cont->addWidget(open_, 1);
    cont->addWidget(go);
    v->addLayout(cont);

    connect(preset_, &QComboBox::currentIndexChanged, this, [this] {
        if (preset_->currentIndex() < 0) return;
        const auto r = chosenRules();
        target_->setValue(r.target);
        teamSize_->setRange(r.minTeamSize, r.maxTeamSize);
        teamSize_->setValue(r.minTeamSize);
        rebuildSeats();
    });
    connect(teamSize_, &QSpinBox::valueChanged, this, &NewGameScreen::rebuildSeats);
    connect(players_, &QListWidget::itemChanged, this, [this](QListWidgetItem* item) {
        const QString name = item->text();
        order_.removeAll(name);
        if (item->checkState() == Qt::Checked) order_ << name;
        rebuildSeats();
    });
    connect(league_, &QComboBox::currentIndexChanged, this, [this] {
        season_->clear();
        season_->addItem("(no season)");
        open_->clear();
        const qint64 id = league_->currentData().toLongLong();
        if (id <= 0) return;
        banner_->guard([&] {
            for (const auto& s : service_.seasons(id)) season_->addItem(QString::fromStdString(s.name));
            for (auto gid : service_.gameIds(id)) {
                const auto g = service_.loadGame(gid);
                if (g.game.outcome().over) continue;
                QStringList names;
                for (const auto& s : g.game.sides()) names << QString::fromStdString(s.name);
                open_->addItem(QString("#%1 %2 %3, %4 hands").arg(gid).arg(QString::fromStdString(g.date), names.join(" v "))
                                   .arg(g.game.hands().size()),
                               static_cast<qlonglong>(gid));
            }
        });
    });
    connect(start, &QPushButton::clicked, this, &NewGameScreen::start);
    connect(go, &QPushButton::clicked, this, [this] {
        if (open_->currentIndex() < 0) return banner_->showError("There is no unfinished game in this league.");
        banner_->guard([&] {
            const qint64 id = open_->currentData().toLongLong();
            emit gameChosen(id, service_.seatColours(id));
        });
    });
    connect(&service_, &LeagueService::changed, this, &NewGameScreen::refresh);
    refresh();
    preset_->setCurrentIndex(0);
    emit preset_->currentIndexChanged(0);
}

void NewGameScreen::refresh() {
    banner_->guard([&] {
        const QString keepLeague = league_->currentText();
        const int keepOpen = open_->currentIndex();
        league_->blockSignals(true);
        league_->clear();
        for (const auto& l : service_.leagues()) league_->addItem(QString::fromStdString(l.name), static_cast<qlonglong>(l.id));
        if (!keepLeague.isEmpty()) league_->setCurrentText(keepLeague);
        league_->blockSignals(false);
        emit league_->currentIndexChanged(league_->currentIndex());
        if (keepOpen >= 0 && keepOpen < open_->count()) open_->setCurrentIndex(keepOpen);
        players_->blockSignals(true);
        players_->clear();
        for (const auto& p : service_.players()) {
            auto* item = new QListWidgetItem(QString::fromStdString(p.name), players_);
            item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
            item->setCheckState(order_.contains(item->text()) ? Qt::Checked : Qt::Unchecked);
            item->setSizeHint(QSize(0, 40));
        }
        players_->blockSignals(false);
        rebuildSeats();
    });
}

void NewGameScreen::rebuildSeats() {
    const int size = teamSize_->value();
    const auto rules = chosenRules();
    std::vector<db::Deck> decks;
    banner_->guard([&] { decks = service_.decks(); });
    const int sides = static_cast<int>(order_.size()) / size;
    seats_->setRowCount(sides);
    for (int i = 0; i < sides; ++i) {
        const QStringList members = order_.mid(i * size, size);
        auto* name = new QTableWidgetItem(members.join(" & "));
        name->setData(Qt::UserRole, members);
        name->setFlags(name->flags() & ~Qt::ItemIsEditable);
        seats_->setItem(i, 0, name);
        auto* deck = new QComboBox;
        deck->setObjectName(QString("seatDeck_%1").arg(i));
        int preferred = -1;
        deck->addItem("(no deck)", static_cast<qlonglong>(0));
        for (const auto& d : decks) {
            QPixmap swatch(16, 16);
            swatch.fill(QColor(QString::fromStdString(d.colour.value_or("#90a4ae"))));
            deck->addItem(QIcon(swatch),
                          QString::fromStdString(d.owner + ": " + d.name) + (d.backSignature.empty() ? " (back not enrolled)" : ""),
                          static_cast<qlonglong>(d.id));
            deck->setItemData(deck->count() - 1, QString::fromStdString(d.colour.value_or("")), Qt::UserRole + 1);
            if (preferred < 0 && members.contains(QString::fromStdString(d.owner))) preferred = deck->count() - 1;
        }
        if (preferred >= 0) deck->setCurrentIndex(preferred);
        seats_->setCellWidget(i, 1, deck);
        auto* pile = new QSpinBox;
        pile->setObjectName(QString("seatPile_%1").arg(i));
        pile->setRange(1, 52);
        pile->setValue(rules.pileSize);
        seats_->setCellWidget(i, 2, pile);
    }
}

void NewGameScreen::start() {
    if (league_->currentIndex() < 0) return banner_->showError("Add a league first (Leagues screen).");
    if (order_.size() % teamSize_->value() != 0)
        return banner_->showError(QString("%1 players cannot be split into sides of %2.").arg(order_.size()).arg(teamSize_->value()));
    db::NewGame g;
    g.league = league_->currentText().toStdString();
    if (season_->currentIndex() > 0) g.season = season_->currentText().toStdString();
    g.rules = chosenRules();
    if (g.rules.target != target_->value()) {
        const std::string base = g.rules.id;
        g.rules.target = target_->value();
        g.rules.id = base + "-" + std::to_string(target_->value());
    }
    QMap<QString, QString> colours;
    for (int i = 0; i < seats_->rowCount(); ++i) {
        sc::Side side;
        side.name = seats_->item(i, 0)->text().toStdString();
        const QStringList members = seats_->item(i, 0)->data(Qt::UserRole).toStringList();
        if (members.size() > 1)
            for (const auto& m : members) side.members.push_back(m.toStdString());
        const int pile = static_cast<QSpinBox*>(seats_->cellWidget(i, 2))->value();
        if (pile != g.rules.pileSize) side.pileSize = pile;
        g.sides.push_back(side);
        auto* deck = static_cast<QComboBox*>(seats_->cellWidget(i, 1));
        colours[seats_->item(i, 0)->text()] = deck->currentData(Qt::UserRole + 1).toString();
        const qlonglong deckId = deck->currentData().toLongLong();
        g.seatDecks.push_back(deckId > 0 ? std::optional<std::int64_t>(deckId) : std::nullopt);
    }
    banner_->guard([&] {
        const auto id = service_.createGame(g);
        banner_->showInfo(QString("Game #%1 started.").arg(id));
        emit gameChosen(id, colours);
    });
}

sc::RuleSet NewGameScreen::chosenRules() const {
    const QString id = preset_->currentData().toString();
    if (id == "custom:" && custom_) return *custom_;
    return sc::preset(id.toStdString());
}

bool NewGameScreen::loadRulesFile(const QString& path) {
    try {
        const sc::RuleSet r = io::ruleSetFromFile(path.toStdString());
        custom_ = r;
        const int old = preset_->findData("custom:");
        if (old >= 0) preset_->removeItem(old);
        preset_->addItem(QString::fromStdString("custom: " + r.id + " — " + r.name) + " (" + QFileInfo(path).fileName() + ")",
                         QString("custom:"));
        preset_->setCurrentIndex(preset_->count() - 1);
        banner_->showInfo(QString("Custom rule set \"%1\" loaded from %2.").arg(QString::fromStdString(r.id), path));
        return true;
    } catch (const std::exception& e) {
        auto* box = new QMessageBox(QMessageBox::Warning, "Custom rule set",
                                    QString("%1 is not a rule set nertzref can use:\n\n%2\n\nA rule set is JSON like "
                                            "{\"base\":\"nna\",\"id\":\"club\",\"target\":200}.")
                                        .arg(path, QString::fromUtf8(e.what())),
                                    QMessageBox::Ok, this);
        box->setObjectName("rulesError");
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();  // not exec(): the window stays live
        banner_->showError("Rule set not loaded: " + QString::fromUtf8(e.what()));
        return false;
    }
}

}  // namespace nertz::gui
