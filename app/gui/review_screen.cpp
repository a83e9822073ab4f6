#include "review_screen.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "hand_flow.hpp"
#include "league_service.hpp"
#include "widgets.hpp"

namespace nertz::gui {

namespace sc = nertz::scoring;

ReviewScreen::ReviewScreen(LeagueService& service, HandFlow& flow, QWidget* parent)
    : QWidget(parent), service_(service), flow_(flow) {
    auto* v = new QVBoxLayout(this);
    v->addWidget(heading("Game: hands, corrections, audit"));
    banner_ = new Banner(this);
    banner_->setObjectName("reviewBanner");
    v->addWidget(banner_);
    hands_ = new QTableWidget;
    hands_->setObjectName("handsTable");
    hands_->setSelectionBehavior(QAbstractItemView::SelectRows);
    hands_->setSelectionMode(QAbstractItemView::SingleSelection);
    hands_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    hands_->verticalHeader()->setDefaultSectionSize(38);
    v->addWidget(hands_, 3);

    auto* editBox = new QHBoxLayout;
    v->addLayout(editBox);
    auto* edit = new QVBoxLayout;
    editBox->addLayout(edit, 3);
    auto* top = new QHBoxLayout;
    top->addWidget(new QLabel("Edit hand"));
    editNumber_ = new QSpinBox;
    editNumber_->setObjectName("editNumber");
    editNumber_->setMinimum(1);
    top->addWidget(editNumber_);
    top->addWidget(new QLabel("Caller"));
    editCaller_ = new QComboBox;
    editCaller_->setObjectName("editCaller");
    top->addWidget(editCaller_, 1);
    edit->addLayout(top);
    editGrid_ = new QGridLayout;
    edit->addLayout(editGrid_);
    auto* reasonRow = new QHBoxLayout;
    editWho_ = new QComboBox;
    editWho_->setObjectName("editWho");
    reason_ = new QLineEdit;
    reason_->setObjectName("editReason");
    reason_->setPlaceholderText("reason for the correction (required)");
    reasonRow->addWidget(new QLabel("By"));
    reasonRow->addWidget(editWho_);
    reasonRow->addWidget(reason_, 1);
    edit->addLayout(reasonRow);
    auto* buttons = new QHBoxLayout;
    auto* save = bigButton("Save correction", "saveEdit");
    save->setProperty("primary", true);
    auto* undo = bigButton("Undo last hand", "reviewUndo");
    undo->setProperty("danger", true);
    buttons->addWidget(save);
    buttons->addStretch(1);
    buttons->addWidget(undo);
    auto* restore = bigButton("Restore the undone hand", "reviewRestore");
    restore->setVisible(false);
    buttons->addWidget(restore);
    edit->addLayout(buttons);
    auto* auditBox = new QVBoxLayout;
    editBox->addLayout(auditBox, 2);
    auditBox->addWidget(new QLabel("Audit log"));
    audit_ = new QListWidget;
    audit_->setObjectName("auditList");
    audit_->setWordWrap(true);
    auditBox->addWidget(audit_);

    connect(hands_, &QTableWidget::itemSelectionChanged, this, [this] {
        if (hands_->currentRow() >= 0) editNumber_->setValue(hands_->currentRow() + 1);
    });
    connect(editNumber_, &QSpinBox::valueChanged, this, [this](int n) { loadEditor(n - 1); });
    connect(save, &QPushButton::clicked, this, &ReviewScreen::saveEdit);
    connect(undo, &QPushButton::clicked, this, [this, undo] {
        if (!flow_.hasGame() || flow_.game().game.hands().empty()) return banner_->showError("There is no hand to undo in this game.");
        if (!confirmTap(undo, QString("Really delete hand %1? Tap again").arg(flow_.game().game.hands().size()))) {
            banner_->showInfo("Tap \"Undo\" again within 5 s to delete the last hand (it can be restored afterwards).");
            return;
        }
        if (banner_->guard([this] { flow_.undoLastHand(editWho_->currentText()); }))
            banner_->showInfo("The last hand was deleted (reason \"undo\", in the audit log). \"Restore\" puts it back.");
    });
    connect(restore, &QPushButton::clicked, this, [this] {
        int n = 0;
        if (banner_->guard([&] { n = flow_.restoreUndone(editWho_->currentText()); }))
            banner_->showInfo(QString("Hand %1 restored (audited).").arg(n));
    });
    connect(&flow_, &HandFlow::gameChanged, this, [this, restore] { restore->setVisible(flow_.canRestore()); });
    connect(&flow_, &HandFlow::gameChanged, this, &ReviewScreen::refresh);
    refresh();
}

void ReviewScreen::refresh() {
    // deleted at once (never a sender here), so lookups by object name find only the new editors
    while (auto* item = editGrid_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    editLake_.clear();
    editNertz_.clear();
    editFalse_.clear();
    if (!flow_.hasGame()) {
        hands_->setRowCount(0);
        hands_->setColumnCount(0);
        audit_->clear();
        return;
    }
    const auto& stored = flow_.game();
    const auto& game = stored.game;
    const QStringList names = flow_.sideNames();
    QStringList header{"Hand", "End"};
    for (const auto& n : names) header << n;
    header << "Entered / confirmed";
    hands_->setColumnCount(header.size());
    hands_->setHorizontalHeaderLabels(header);
    hands_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    const int count = static_cast<int>(game.hands().size());
    hands_->setRowCount(count);
    for (int h = 0; h < count; ++h) {
        const auto totals = game.totalsAfter(h + 1);
        hands_->setItem(h, 0, new QTableWidgetItem(QString::number(h + 1)));
        hands_->setItem(h, 1, new QTableWidgetItem(QString::fromStdString(std::string(sc::toString(game.hands()[h].end)))));
        for (int s = 0; s < names.size(); ++s) {
            const auto& side = game.hands()[h].sides[s];
            auto* item = new QTableWidgetItem(QString("%1%2  (%3 lake, %4 left) = %5")
                                                  .arg(game.scores()[h].sides[s].score >= 0 ? "+" : "")
                                                  .arg(game.scores()[h].sides[s].score)
                                                  .arg(side.lake)
                                                  .arg(side.nertzLeft)
                                                  .arg(totals[s]));
            if (side.called) item->setFont(QFont(font().family(), font().pointSize(), QFont::Bold));
            hands_->setItem(h, 2 + s, item);
        }
        const auto& meta = stored.meta[h];
        hands_->setItem(h, 2 + names.size(),
                        new QTableWidgetItem(QString::fromStdString(meta.enteredBy + " / " + meta.confirmedBy.value_or("-"))));
    }
    editNumber_->setMaximum(std::max(1, count));
    editCaller_->clear();
    editCaller_->addItem("nobody (all stuck)");
    editCaller_->addItems(names);
    editWho_->clear();
    editWho_->addItems(flow_.people());
    const bool falseCalls = game.rules().hasFalseCalls();
    editGrid_->addWidget(new QLabel("Side"), 0, 0);
    editGrid_->addWidget(new QLabel("Lake"), 0, 1);
    editGrid_->addWidget(new QLabel("Nertz left"), 0, 2);
    if (falseCalls) editGrid_->addWidget(new QLabel("False calls"), 0, 3);
    for (int s = 0; s < names.size(); ++s) {
        editGrid_->addWidget(new QLabel(names[s]), s + 1, 0);
        auto* lake = new QSpinBox;
        lake->setObjectName(QString("editLake_%1").arg(s));
        lake->setRange(0, sc::kDeckSize);
        auto* left = new QSpinBox;
        left->setObjectName(QString("editNertz_%1").arg(s));
        left->setRange(0, sc::kDeckSize);
        auto* fc = new QSpinBox;
        fc->setObjectName(QString("editFalse_%1").arg(s));
        fc->setRange(0, 20);
        fc->setVisible(falseCalls);
        editGrid_->addWidget(lake, s + 1, 1);
        editGrid_->addWidget(left, s + 1, 2);
        editGrid_->addWidget(fc, s + 1, 3);
        editLake_.push_back(lake);
        editNertz_.push_back(left);
        editFalse_.push_back(fc);
    }
    loadEditor(editNumber_->value() - 1);
    audit_->clear();
    banner_->guard([&] {
        for (const auto& a : service_.audit(flow_.gameId())) {
            QString line = QString::fromStdString(a.at + "  " + a.who + "  " + a.action);
            if (a.handNumber) line += QString(" hand %1").arg(*a.handNumber);
            if (a.reason) line += QString::fromStdString(" — \"" + *a.reason + "\"");
            if (a.oldValue) line += QString::fromStdString("\n   was: " + *a.oldValue);
            if (a.newValue) line += QString::fromStdString("\n   now: " + *a.newValue);
            audit_->addItem(line);
        }
    });
}

void ReviewScreen::loadEditor(int index) {
    if (!flow_.hasGame()) return;
    const auto& hands = flow_.game().game.hands();
    if (index < 0 || index >= static_cast<int>(hands.size()) || editLake_.size() != hands[index].sides.size()) return;
    editCaller_->setCurrentIndex(0);
    for (std::size_t s = 0; s < hands[index].sides.size(); ++s) {
        const auto& side = hands[index].sides[s];
        editLake_[s]->setValue(side.lake);
        editNertz_[s]->setValue(side.nertzLeft);
        editFalse_[s]->setValue(side.falseCalls);
        if (side.called) editCaller_->setCurrentIndex(static_cast<int>(s) + 1);
    }
}

void ReviewScreen::saveEdit() {
    if (!flow_.hasGame()) return banner_->showError("No game open.");
    const int number = editNumber_->value();
    const auto& hands = flow_.game().game.hands();
    if (number < 1 || number > static_cast<int>(hands.size())) return banner_->showError("There is no such hand.");
    sc::HandResult hand = hands[number - 1];
    for (std::size_t s = 0; s < hand.sides.size(); ++s) {
        hand.sides[s].lake = editLake_[s]->value();
        hand.sides[s].nertzLeft = editNertz_[s]->value();
        hand.sides[s].falseCalls = editFalse_[s]->value();
        hand.sides[s].called = editCaller_->currentIndex() == static_cast<int>(s) + 1;
    }
    hand.end = editCaller_->currentIndex() > 0 ? sc::HandEnd::Nertz : sc::HandEnd::Stuck;
    db::HandMeta meta = flow_.game().meta[number - 1];
    meta.enteredBy = editWho_->currentText().toStdString();
    const QString reason = reason_->text();
    if (banner_->guard([&] {
            service_.editHand(flow_.gameId(), number, hand, meta, reason);
            flow_.refreshGame();
        })) {
        banner_->showInfo(QString("Hand %1 corrected (\"%2\"); the totals after it were recomputed.").arg(number).arg(reason.trimmed()));
        reason_->clear();
    }
}

}  // namespace nertz::gui
