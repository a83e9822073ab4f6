#include "hand_screen.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QSet>
#include <QShortcut>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "camera_view.hpp"
#include "recognition.hpp"
#include "widgets.hpp"

namespace nertz::gui {

using Step = HandFlow::Step;

namespace {
void clearBox(QVBoxLayout* box) {
    while (auto* item = box->takeAt(0)) {
        delete item->widget();  // at once: the flow's signal, never one of these widgets, calls here
        delete item;
    }
}
QLabel* hint(const QString& text) {
    auto* l = new QLabel(text);
    l->setProperty("hint", true);
    l->setWordWrap(true);
    return l;
}
}  // namespace

QString HandScreen::shortcutHelp() {
    return "Enter: next step (Save on the last) · Esc: back · Playing: S everyone stuck, P a card "
           "was played, N Nertz!, F1-F8 false call by side 1-8, Ctrl+Z undo last hand · Who "
           "called: 1-8 that side, 0 nobody (all stuck) · Lake: R use the tops the camera read, K check a fanned pile from the "
           "camera on/off · "
           "Back count: C camera count on/off, tap a card to reassign, D dealt one at a time "
           "on/off · Nertz left: F take the camera's count of a fanned pile · Counts: 1-8 or "
           "Up/Down pick a side, + / Right add one, - / Left take one, PgUp add five";
}

HandScreen::HandScreen(HandFlow& flow, QWidget* parent) : QWidget(parent), flow_(flow) {
    setFocusPolicy(Qt::StrongFocus);
    auto* outer = new QVBoxLayout(this);
    title_ = heading("No game open");
    title_->setObjectName("handTitle");
    outer->addWidget(title_);
    banner_ = new Banner(this);
    banner_->setObjectName("handBanner");
    outer->addWidget(banner_);
    auto* cols = new QHBoxLayout;
    outer->addLayout(cols, 1);
    auto* left = new QVBoxLayout;
    cols->addLayout(left, 3);
    stepLabel_ = new QLabel;
    stepLabel_->setObjectName("stepLabel");
    stepLabel_->setStyleSheet("font-size:20px; font-weight:bold; color:#00695c;");
    left->addWidget(stepLabel_);
    pages_ = new QStackedWidget;
    left->addWidget(pages_, 1);
    camera_ = new CameraView;
    cols->addWidget(camera_, 2);

    // --- Playing: the referee panel
    {
        auto* page = new QWidget;
        auto* v = new QVBoxLayout(page);
        clock_ = new QLabel("0:00");
        clock_->setObjectName("clock");
        clock_->setProperty("clock", true);
        v->addWidget(clock_);
        auto* row = new QHBoxLayout;
        auto* stuck = bigButton("Everyone is stuck  (S)", "everyoneStuck");
        auto* played = bigButton("A card was played  (P)", "cardPlayed");
        row->addWidget(stuck);
        row->addWidget(played);
        v->addLayout(row);
        instruction_ = new QLabel("When nobody can play, press \"Everyone is stuck\": it says what the table must do next under these rules.");
        instruction_->setObjectName("idleInstruction");
        instruction_->setProperty("instruction", true);
        instruction_->setWordWrap(true);
        v->addWidget(instruction_);
        falseCallNote_ = hint("");
        v->addWidget(falseCallNote_);
        falseCallBox_ = new QVBoxLayout;
        v->addLayout(falseCallBox_);
        v->addStretch(1);
        auto* nertz = bigButton("Nertz! Score the hand  (N)", "nertzCalled");
        nertz->setProperty("primary", true);
        nertz->setMinimumHeight(72);
        v->addWidget(nertz);
        auto* undo = bigButton("Undo last hand  (Ctrl+Z)", "undoHand");
        v->addWidget(undo);
        connect(stuck, &QPushButton::clicked, this, [this] { flow_.everyoneStuck(); });
        connect(played, &QPushButton::clicked, this, [this] { flow_.cardPlayed(); });
        connect(nertz, &QPushButton::clicked, this, &HandScreen::goNext);
        auto* restore = bigButton("Restore the undone hand", "restoreHand");
        restore->setVisible(false);
        v->addWidget(restore);
        connect(undo, &QPushButton::clicked, this, [this, undo] {
            if (!flow_.hasGame() || flow_.game().game.hands().empty()) return banner_->showError("There is no hand to undo in this game.");
            if (!confirmTap(undo, QString("Really delete hand %1? Tap again (Ctrl+Z)").arg(flow_.game().game.hands().size()))) {
                banner_->showInfo("Tap Undo (or Ctrl+Z) again within 5 s to delete the last hand; it can be restored afterwards.");
                return;
            }
            const QStringList people = flow_.people();
            if (banner_->guard([&] { flow_.undoLastHand(people.isEmpty() ? QString("app") : people.front()); }))
                banner_->showInfo("The last hand was deleted (reason \"undo\", in the audit log). \"Restore\" puts it back.");
        });
        connect(restore, &QPushButton::clicked, this, [this] {
            const QStringList people = flow_.people();
            int n = 0;
            if (banner_->guard([&] { n = flow_.restoreUndone(people.isEmpty() ? QString("app") : people.front()); }))
                banner_->showInfo(QString("Hand %1 restored (audited).").arg(n));
        });
        connect(&flow_, &HandFlow::gameChanged, this, [this, restore] { restore->setVisible(flow_.canRestore()); });
        pages_->addWidget(page);
    }
    // --- Who called
    {
        auto* page = new QWidget;
        auto* v = new QVBoxLayout(page);
        v->addWidget(hint("Who called Nertz? (keys 1-8; 0: nobody, the hand ended all stuck)"));
        callerBox_ = new QVBoxLayout;
        v->addLayout(callerBox_);
        allStuck_ = bigButton("Nobody: all stuck  (0)", "callerNone");
        allStuck_->setCheckable(true);
        v->addWidget(allStuck_);
        v->addStretch(1);
        connect(allStuck_, &QPushButton::clicked, this, [this] { flow_.setCaller(std::nullopt); });
        pages_->addWidget(page);
    }
    // --- Lake tops (optional)
    {
        auto* page = new QWidget;
        auto* v = new QVBoxLayout(page);
        v->addWidget(hint("Optional: read the top card of every lake pile before anything is sorted (like 7H KS 10D). "
                          "The per-deck counts must add up to the checksum. Leave empty and press Enter to skip."));
        tops_ = new QLineEdit;
        tops_->setObjectName("lakeTops");
        tops_->setPlaceholderText("top cards, e.g. 7H KS 5C 10D");
        tops_->setMinimumHeight(52);
        v->addWidget(tops_);
        auto* row = new QHBoxLayout;
        row->addWidget(new QLabel("Closed king piles (turned over):"));
        kings_ = new QSpinBox;
        kings_->setObjectName("closedKings");
        kings_->setRange(0, 32);
        row->addWidget(kings_);
        row->addStretch(1);
        v->addLayout(row);
        expected_ = new QLabel;
        expected_->setObjectName("lakeExpected");
        expected_->setStyleSheet("font-size:22px;");
        v->addWidget(expected_);
        lakeRead_ = hint("On this step the face reader reads the top cards in view (its models load the first time, "
                         "on the vision thread).");
        lakeRead_->setObjectName("lakeRead");
        v->addWidget(lakeRead_);
        lakeLoading_ = new QProgressBar;
        lakeLoading_->setObjectName("lakeLoading");
        lakeLoading_->setRange(0, 0);  // busy: the face reader's models are loading on the vision thread
        lakeLoading_->setFormat("Loading the face reader...");
        lakeLoading_->setTextVisible(true);
        lakeLoading_->setVisible(false);
        v->addWidget(lakeLoading_);
        useLakeRead_ = bigButton("Use the tops read by the camera  (R)", "useLakeRead");
        useLakeRead_->setEnabled(false);
        v->addWidget(useLakeRead_);
        // SPEC "Pile check": a lake pile in doubt, fanned out from its ace, typed or read by the camera
        auto* pileBox = new QGroupBox("Pile check: a lake pile in doubt, fanned out from its ace");
        auto* pv = new QVBoxLayout(pileBox);
        auto* pileRow = new QHBoxLayout;
        pileCards_ = new QLineEdit;
        pileCards_->setObjectName("pileCards");
        pileCards_->setPlaceholderText("its cards from the bottom up, e.g. AH 2H 3H 4H");
        pileCards_->setToolTip("A lake pile must read A, 2, 3, ... in one suit; the first wrong card is named.");
        pileRow->addWidget(pileCards_, 1);
        pileFromCamera_ = new QPushButton("From the camera  (K)");
        pileFromCamera_->setObjectName("pileFromCamera");
        pileFromCamera_->setCheckable(true);
        pileFromCamera_->setToolTip("Read the fan under the camera: each card read is numbered from the bottom up on the video.");
        pileRow->addWidget(pileFromCamera_);
        usePileRead_ = new QPushButton("Take its reading");
        usePileRead_->setObjectName("usePileRead");
        usePileRead_->setToolTip("Copy the camera's reading into the field, to put a misread card right by hand.");
        usePileRead_->setEnabled(false);
        pileRow->addWidget(usePileRead_);
        pv->addLayout(pileRow);
        pileVerdict_ = new QLabel;
        pileVerdict_->setObjectName("pileVerdict");
        pileVerdict_->setWordWrap(true);
        pileVerdict_->setStyleSheet("font-size:18px;");
        pv->addWidget(pileVerdict_);
        pileRead_ = hint("");
        pileRead_->setObjectName("pileRead");
        pileRead_->setVisible(false);
        pv->addWidget(pileRead_);
        v->addWidget(pileBox);
        v->addStretch(1);
        connect(pileCards_, &QLineEdit::textChanged, this, [this] { showPileVerdict(); });
        connect(pileFromCamera_, &QPushButton::toggled, this, [this](bool on) {
            if (recognizer_) recognizer_->setPileCheck(on);
            pileReadCards_.clear();
            usePileRead_->setEnabled(false);
            pileRead_->setText(!on ? QString()
                               : recognizer_ ? "Fan one pile out under the camera, its corner indices in view: each card "
                                               "read is numbered from the bottom up on the video."
                                             : "No recognition in this window: type the pile's cards.");
            pileRead_->setVisible(on);
        });
        // the camera's reading into the typed field, where a misread card can be put right
        connect(usePileRead_, &QPushButton::clicked, this, [this] {
            if (pileReadCards_.isEmpty()) return;
            pileCards_->setText(pileReadCards_.join(' '));
            pileCards_->setFocus();
        });
        connect(useLakeRead_, &QPushButton::clicked, this, [this] {
            if (lakeTopsRead_.isEmpty()) return;
            tops_->setText(lakeTopsRead_.join(' '));
            const QString err = flow_.setLakeTops(tops_->text(), kings_->value());
            if (!err.isEmpty()) banner_->showError(err);
            else banner_->showInfo(QString("%1 top cards from the camera: check them against the table.").arg(lakeTopsRead_.size()));
            showStep();
        });
        auto apply = [this] {
            const QString err = flow_.setLakeTops(tops_->text(), kings_->value());
            if (!err.isEmpty()) banner_->showError(err);
            else banner_->hide();
        };
        connect(tops_, &QLineEdit::editingFinished, this, apply);
        connect(kings_, &QSpinBox::valueChanged, this, apply);
        pages_->addWidget(page);
    }
    // --- Back count
    {
        auto* page = new QWidget;
        auto* v = new QVBoxLayout(page);
        v->addWidget(hint(
            "Lay the sorted lake cards face down under the camera: each card is told by its back "
            "and outlined in its owner's colour. Tap a card on the video to give it to another "
            "player; unknown cards (magenta, ?) must be given an owner. Or deal them past the "
            "camera one at a time (D), onto a spot or across the view: each is counted once. Or "
            "count by hand with + / -."));
        auto* modes = new QHBoxLayout;
        cameraCount_ = bigButton("Camera count: off  (C)", "cameraCount");
        cameraCount_->setCheckable(true);
        modes->addWidget(cameraCount_, 2);
        dealMode_ = bigButton("Dealt one at a time  (D)", "dealMode");
        dealMode_->setCheckable(true);
        dealMode_->setToolTip(
            "Count the cards as they are dealt past the camera one at a time, onto a spot or "
            "through the view, instead of the cards lying on the latest frame");
        modes->addWidget(dealMode_, 1);
        v->addLayout(modes);
        cameraState_ = hint("");
        cameraState_->setObjectName("cameraState");
        v->addWidget(cameraState_);
        backsBox_ = new QVBoxLayout;
        v->addLayout(backsBox_);
        backsTotal_ = new QLabel;
        backsTotal_->setObjectName("backsTotal");
        backsTotal_->setStyleSheet("font-size:20px;");
        v->addWidget(backsTotal_);
        unknown_ = new QLabel;
        unknown_->setObjectName("unknownCards");
        unknown_->setWordWrap(true);
        unknown_->setStyleSheet("font-size:18px; color:#ad1457;");
        v->addWidget(unknown_);
        selectedCard_ = new QLabel;
        selectedCard_->setObjectName("selectedCard");
        selectedCard_->setWordWrap(true);
        v->addWidget(selectedCard_);
        dealtList_ = new QListWidget;
        dealtList_->setObjectName("dealtCards");
        dealtList_->setMaximumHeight(160);
        dealtList_->setVisible(false);
        v->addWidget(dealtList_);
        restartDeal_ = bigButton("Start the deal count again", "restartDeal");
        restartDeal_->setVisible(false);
        v->addWidget(restartDeal_);
        assignBox_ = new QHBoxLayout;
        v->addLayout(assignBox_);
        v->addStretch(1);
        connect(dealMode_, &QPushButton::toggled, this, [this](bool on) {
            selected_point_.reset();
            startDealAgain();
            if (on && !cameraCount_->isChecked())
                cameraCount_->setChecked(true);  // dealing is a camera count
            refreshCamera();
            emit dealingChanged();
        });
        connect(restartDeal_, &QPushButton::clicked, this, [this] {
            startDealAgain();
            refreshCamera();
            banner_->showInfo("The deal count starts again from the next frame.");
        });
        connect(dealtList_, &QListWidget::currentRowChanged, this, [this](int row) {
            if (row < 0) return;
            selectedDealt_ = row;
            refreshCamera();
        });
        connect(cameraCount_, &QPushButton::toggled, this, [this](bool on) {
            flow_.setCameraCounting(on);
            if (on && recognizer_) recognizer_->clearReassignments();
            selected_point_.reset();
            refreshCamera();
        });
        connect(camera_, &CameraView::framePointClicked, this, [this](QPointF p) { selectCard(p); });
        pages_->addWidget(page);
    }
    // --- Nertz left
    {
        auto* page = new QWidget;
        auto* v = new QVBoxLayout(page);
        v->addWidget(hint("Cards left in each Nertz pile: enter them with + / -. Or fan a player's Nertz pile face up "
                          "under the camera so every corner shows, pick the player (1-8) and take the camera's count "
                          "(F): it counts the different cards the face reader reads, so check it against the fan."));
        nertzBox_ = new QVBoxLayout;
        v->addLayout(nertzBox_);
        fanRead_ = hint("Camera: waiting for a frame.");
        fanRead_->setObjectName("fanRead");
        v->addWidget(fanRead_);
        useFanRead_ = bigButton("Use the camera's count for the chosen player  (F)", "useFanRead");
        useFanRead_->setEnabled(false);
        v->addWidget(useFanRead_);
        connect(useFanRead_, &QPushButton::clicked, this, [this] {
            if (fanCount_ < 0 || flow_.step() != Step::NertzLeft) return;
            flow_.setNertzLeft(selected_, fanCount_);
            banner_->showInfo(QString("%1: %2 cards left, counted by the camera (check the fan).")
                                  .arg(flow_.sideNames().value(selected_))
                                  .arg(fanCount_));
        });
        v->addStretch(1);
        pages_->addWidget(page);
    }
    // --- Review
    {
        auto* page = new QWidget;
        auto* v = new QVBoxLayout(page);
        breakdown_ = new QTableWidget(0, 7);
        breakdown_->setObjectName("breakdown");
        breakdown_->setHorizontalHeaderLabels({"Side", "Lake", "Penalty", "Bonus", "False call", "Hand", "Total"});
        breakdown_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
        breakdown_->verticalHeader()->hide();
        breakdown_->verticalHeader()->setDefaultSectionSize(42);
        breakdown_->setEditTriggers(QAbstractItemView::NoEditTriggers);
        v->addWidget(breakdown_, 1);
        checksum_ = new QLabel;
        checksum_->setObjectName("checksumState");
        checksum_->setStyleSheet("font-size:20px;");
        v->addWidget(checksum_);
        warnings_ = new QLabel;
        warnings_->setObjectName("warnings");
        warnings_->setWordWrap(true);
        warnings_->setStyleSheet("color:#e65100;");
        v->addWidget(warnings_);
        pages_->addWidget(page);
    }
    // --- Confirm
    {
        auto* page = new QWidget;
        auto* v = new QVBoxLayout(page);
        confirmSummary_ = new QLabel;
        confirmSummary_->setWordWrap(true);
        confirmSummary_->setStyleSheet("font-size:20px;");
        v->addWidget(confirmSummary_);
        auto* grid = new QGridLayout;
        enteredBy_ = new QComboBox;
        enteredBy_->setObjectName("enteredBy");
        confirmedBy_ = new QComboBox;
        confirmedBy_->setObjectName("confirmedBy");
        grid->addWidget(new QLabel("Entered by"), 0, 0);
        grid->addWidget(enteredBy_, 0, 1);
        grid->addWidget(new QLabel("Confirmed by (a second player)"), 1, 0);
        grid->addWidget(confirmedBy_, 1, 1);
        v->addLayout(grid);
        auto* save = bigButton("Save hand  (Enter)", "saveHand");
        save->setProperty("primary", true);
        save->setMinimumHeight(72);
        v->addWidget(save);
        v->addStretch(1);
        connect(save, &QPushButton::clicked, this, &HandScreen::goNext);
        pages_->addWidget(page);
    }

    auto* nav = new QHBoxLayout;
    back_ = bigButton("Back  (Esc)", "stepBack");
    next_ = bigButton("Next  (Enter)", "stepNext");
    next_->setProperty("primary", true);
    nav->addWidget(back_);
    nav->addStretch(1);
    nav->addWidget(next_);
    left->addLayout(nav);
    left->addWidget(hint(shortcutHelp()));
    connect(back_, &QPushButton::clicked, this, [this] {
        banner_->hide();
        flow_.back();
    });
    connect(next_, &QPushButton::clicked, this, &HandScreen::goNext);
    for (auto* b : findChildren<QPushButton*>()) b->setFocusPolicy(Qt::NoFocus);

    auto key = [this](const QKeySequence& seq, auto fn) {
        auto* s = new QShortcut(seq, this);
        s->setContext(Qt::WidgetWithChildrenShortcut);
        connect(s, &QShortcut::activated, this, fn);
    };
    key(QKeySequence(Qt::Key_Return), [this] { goNext(); });
    key(QKeySequence(Qt::Key_Enter), [this] { goNext(); });
    key(QKeySequence(Qt::Key_Escape), [this] { banner_->hide(); flow_.back(); });
    key(QKeySequence(Qt::Key_S), [this] { if (flow_.step() == Step::Playing) flow_.everyoneStuck(); });
    key(QKeySequence(Qt::Key_P), [this] { if (flow_.step() == Step::Playing) flow_.cardPlayed(); });
    key(QKeySequence(Qt::Key_N), [this] { if (flow_.step() == Step::Playing) goNext(); });
    key(QKeySequence(Qt::CTRL | Qt::Key_Z), [this] {
        if (flow_.step() == Step::Playing) findChild<QPushButton*>("undoHand")->click();
    });
    for (int i = 0; i < 8; ++i) {
        key(QKeySequence(Qt::Key_F1 + i), [this, i] {
            QString why;
            if (flow_.step() == Step::Playing && i < flow_.sideCount() && !flow_.addFalseCall(i, &why)) banner_->showError(why);
        });
        key(QKeySequence(Qt::Key_1 + i), [this, i] { choose(i); });
    }
    key(QKeySequence(Qt::Key_C), [this] { if (flow_.step() == Step::Backs) cameraCount_->toggle(); });
    key(QKeySequence(Qt::Key_D), [this] {
        if (flow_.step() == Step::Backs) dealMode_->toggle();
    });
    key(QKeySequence(Qt::Key_R), [this] { if (flow_.step() == Step::Lake && useLakeRead_->isEnabled()) useLakeRead_->click(); });
    key(QKeySequence(Qt::Key_K), [this] { if (flow_.step() == Step::Lake) pileFromCamera_->toggle(); });
    key(QKeySequence(Qt::Key_F), [this] { if (flow_.step() == Step::NertzLeft && useFanRead_->isEnabled()) useFanRead_->click(); });
    key(QKeySequence(Qt::Key_0), [this] { if (flow_.step() == Step::Called) flow_.setCaller(std::nullopt); });
    for (auto k : {Qt::Key_Plus, Qt::Key_Equal, Qt::Key_Right}) key(QKeySequence(k), [this] { adjustSelected(1); });
    key(QKeySequence(Qt::SHIFT | Qt::Key_Plus), [this] { adjustSelected(1); });
    for (auto k : {Qt::Key_Minus, Qt::Key_Left}) key(QKeySequence(k), [this] { adjustSelected(-1); });
    key(QKeySequence(Qt::Key_PageUp), [this] { adjustSelected(5); });
    key(QKeySequence(Qt::Key_Up), [this] { choose(std::max(0, selected_ - 1)); });
    key(QKeySequence(Qt::Key_Down), [this] { choose(std::min(flow_.sideCount() - 1, selected_ + 1)); });

    connect(&flow_, &HandFlow::gameChanged, this, &HandScreen::rebuild);
    connect(&flow_, &HandFlow::stepChanged, this, &HandScreen::showStep);
    connect(&flow_, &HandFlow::countsChanged, this, &HandScreen::refreshCounts);
    connect(&flow_, &HandFlow::saved, this, [this](int n) {
        banner_->showInfo(QString("Hand %1 saved and confirmed. Next hand: the clock is running.").arg(n));
    });
    clockTimer_ = new QTimer(this);
    connect(clockTimer_, &QTimer::timeout, this, &HandScreen::tick);
    clockTimer_->start(500);
    rebuild();
}

void HandScreen::setColours(const QMap<QString, QString>& colours) {
    colours_ = colours;
    rebuild();
}

void HandScreen::rebuild() {
    clearBox(falseCallBox_);
    clearBox(callerBox_);
    clearBox(backsBox_);
    clearBox(nertzBox_);
    while (auto* item = assignBox_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    assignButtons_.clear();
    selected_point_.reset();
    selectedDealt_.reset();
    tally_ = {};
    falseCallButtons_.clear();
    callerButtons_.clear();
    lakeCounters_.clear();
    nertzCounters_.clear();
    selected_ = 0;
    if (!flow_.hasGame()) {
        title_->setText("No game open: start one on the New game screen");
        showStep();
        return;
    }
    const QStringList names = flow_.sideNames();
    const bool falseCalls = flow_.rules().hasFalseCalls();
    falseCallNote_->setText(falseCalls ? QString("False calls (%1 each): F1-F%2").arg(flow_.rules().falseCallPoints).arg(names.size())
                                       : "These rules have no false-call penalty.");
    auto* fcRow = new QHBoxLayout;
    auto* fcWidget = new QWidget;
    fcWidget->setLayout(fcRow);
    fcRow->setContentsMargins(0, 0, 0, 0);
    for (int i = 0; i < names.size(); ++i) {
        const QString colour = colours_.value(names[i]);
        auto* fc = bigButton("False call: " + names[i], QString("falseCall_%1").arg(i));
        fc->setEnabled(falseCalls);
        fc->setFocusPolicy(Qt::NoFocus);
        connect(fc, &QPushButton::clicked, this, [this, i] {
            QString why;
            if (!flow_.addFalseCall(i, &why)) banner_->showError(why);
        });
        fcRow->addWidget(fc);
        falseCallButtons_.push_back(fc);

        auto* call = bigButton(QString("%1 called  (%2)").arg(names[i]).arg(i + 1), QString("caller_%1").arg(i));
        call->setCheckable(true);
        call->setMinimumHeight(64);
        call->setFocusPolicy(Qt::NoFocus);
        if (!colour.isEmpty()) call->setStyleSheet(QString("QPushButton{border-left:14px solid %1;}").arg(colour));
        connect(call, &QPushButton::clicked, this, [this, i] { flow_.setCaller(i); });
        callerBox_->addWidget(call);
        callerButtons_.push_back(call);

        auto* lc = new Counter(QString("%1  (%2)").arg(names[i]).arg(i + 1), colour, QString("lake_%1").arg(i));
        connect(lc, &Counter::adjust, this, [this, i](int d) { selected_ = i; flow_.adjustLake(i, d); });
        backsBox_->addWidget(lc);
        lakeCounters_.push_back(lc);
        auto* nc = new Counter(QString("%1  (%2)").arg(names[i]).arg(i + 1), colour, QString("nertz_%1").arg(i));
        connect(nc, &Counter::adjust, this, [this, i](int d) { selected_ = i; flow_.adjustNertzLeft(i, d); });
        nertzBox_->addWidget(nc);
        nertzCounters_.push_back(nc);
        auto* as = bigButton("It is " + names[i] + "'s", QString("assign_%1").arg(i));
        as->setFocusPolicy(Qt::NoFocus);
        if (!colour.isEmpty()) as->setStyleSheet(QString("QPushButton{border-left:14px solid %1;}").arg(colour));
        connect(as, &QPushButton::clicked, this, [this, i] { assignSelected(i); });
        assignBox_->addWidget(as);
        assignButtons_.push_back(as);
    }
    falseCallBox_->addWidget(fcWidget);
    showStep();
}

void HandScreen::showStep() {
    const Step step = flow_.step();
    pages_->setCurrentIndex(static_cast<int>(step));
    stepLabel_->setText(QString("Step %1 of 7: %2").arg(static_cast<int>(step) + 1).arg(HandFlow::stepTitle(step)));
    back_->setEnabled(step != Step::Playing);
    next_->setVisible(step != Step::Playing && step != Step::Confirm);
    next_->setText(step == Step::Lake && tops_->text().trimmed().isEmpty() ? "Skip  (Enter)" : "Next  (Enter)");
    if (step == Step::Playing) {
        autoCountOffered_ = false;
        if (dealing()) startDealAgain();  // a new hand: its deal count starts from nothing
    }
    // Every seat's back is enrolled: the camera count starts by itself (once a hand; C turns it off).
    if (step == Step::Backs && !autoCountOffered_ && recognizer_ && flow_.hasGame() && flow_.lakeTotal() == 0 &&
        !flow_.cameraCounting()) {
        autoCountOffered_ = true;
        bool all = !flow_.seatDecks().empty();
        for (const auto& d : flow_.seatDecks()) all = all && d && !d->backSignature.empty();
        if (all) flow_.setCameraCounting(true);
    }
    if (step != Step::NertzLeft) {
        fanCount_ = -1;
        useFanRead_->setEnabled(false);
        fanRead_->setText("Camera: waiting for a frame.");
    }
    if (step != Step::Lake) {
        pileFromCamera_->setChecked(false);  // the lake's tops marked again when the step comes back
        pileCards_->clear();
    }
    lakeLoading_->setVisible(step == Step::Lake && recognizer_ && !recognizer_->detectorLoaded() && lakeTopsRead_.isEmpty());
    if (step == Step::Lake) tops_->setFocus();
    else setFocus();
    if (step == Step::Confirm) {
        const QStringList people = flow_.people();
        const QString keepE = enteredBy_->currentText(), keepC = confirmedBy_->currentText();
        enteredBy_->clear();
        confirmedBy_->clear();
        enteredBy_->addItems(people);
        confirmedBy_->addItem("(choose)");
        confirmedBy_->addItems(people);
        if (people.contains(keepE)) enteredBy_->setCurrentText(keepE);
        if (people.contains(keepC) && keepC != enteredBy_->currentText()) confirmedBy_->setCurrentText(keepC);
    }
    refreshCounts();
}

void HandScreen::refreshCounts() {
    if (!flow_.hasGame()) return;
    const auto& totals = flow_.game().game.totals();
    QStringList parts;
    const QStringList names = flow_.sideNames();
    for (int i = 0; i < names.size(); ++i) parts << QString("%1 %2").arg(names[i]).arg(totals[i]);
    title_->setText(QString("Game #%1 · %2 to %3 · hand %4 · %5")
                        .arg(flow_.gameId())
                        .arg(QString::fromStdString(flow_.rules().id))
                        .arg(flow_.rules().target)
                        .arg(flow_.handNumber())
                        .arg(parts.join(" · ")));
    if (!flow_.lastIdleInstruction().isEmpty())
        instruction_->setText(QString("%1  (stock actions so far: %2)").arg(flow_.lastIdleInstruction()).arg(flow_.stockActions()));
    for (int i = 0; i < static_cast<int>(falseCallButtons_.size()); ++i)
        falseCallButtons_[i]->setText(QString("%1 false calls: %2").arg(names[i]).arg(flow_.falseCalls(i)));
    for (int i = 0; i < static_cast<int>(callerButtons_.size()); ++i)
        callerButtons_[i]->setChecked(flow_.callerChosen() && flow_.caller() == i);
    allStuck_->setChecked(flow_.callerChosen() && !flow_.caller());
    const auto expected = flow_.expectedLake();
    expected_->setText(expected ? QString("Checksum: the lake holds %1 cards").arg(*expected) : "No checksum (no tops entered)");
    for (int i = 0; i < static_cast<int>(lakeCounters_.size()); ++i) {
        lakeCounters_[i]->setValue(flow_.lake(i));
        lakeCounters_[i]->setSelected(i == selected_ && flow_.step() == Step::Backs);
        nertzCounters_[i]->setValue(flow_.nertzLeft(i));
        nertzCounters_[i]->setNote(QString("of %1").arg(flow_.pileSize(i)) + (flow_.caller() == i ? " · called" : ""));
        nertzCounters_[i]->setSelected(i == selected_ && flow_.step() == Step::NertzLeft);
    }
    refreshCamera();
    backsTotal_->setText(expected ? QString("Counted %1 of %2 lake cards").arg(flow_.lakeTotal()).arg(*expected)
                                  : QString("Counted %1 lake cards").arg(flow_.lakeTotal()));
    if (flow_.step() == Step::Review || flow_.step() == Step::Confirm) {
        const HandFlow::Review r = flow_.review();
        breakdown_->setRowCount(r.score ? static_cast<int>(r.score->sides.size()) : 0);
        if (r.score) {
            for (int i = 0; i < static_cast<int>(r.score->sides.size()); ++i) {
                const auto& s = r.score->sides[i];
                const QStringList cells = {QString::fromStdString(s.name), QString::number(s.lakePoints), QString::number(s.penalty),
                                           QString::number(s.bonus), QString::number(s.falseCall), QString::number(s.score),
                                           QString("%1 → %2").arg(r.totalsBefore[i]).arg(r.totalsAfter[i])};
                for (int c = 0; c < cells.size(); ++c) {
                    auto* item = new QTableWidgetItem(cells[c]);
                    if (c > 0) item->setTextAlignment(Qt::AlignCenter);
                    if (c == 5) item->setFont(QFont(font().family(), 18, QFont::Bold));
                    breakdown_->setItem(i, c, item);
                }
            }
        }
        if (r.checksum)
            checksum_->setText((r.checksum->ok() ? QString::fromUtf8("✔ ") : QString::fromUtf8("✘ ")) +
                               QString::fromStdString(r.checksum->message()));
        else
            checksum_->setText("Checksum: not checked (no lake tops)");
        checksum_->setStyleSheet(QString("font-size:20px; color:%1;").arg(!r.checksum ? "#546e7a" : r.checksum->ok() ? "#2e7d32" : "#c62828"));
        QStringList lines;
        if (!r.error.isEmpty()) lines << "Cannot score: " + r.error;
        for (const auto& w : r.warnings) lines << QString::fromUtf8("⚠ ") + w;
        if (!r.outcome.isEmpty()) lines << r.outcome + " with this hand.";
        warnings_->setText(lines.join("\n"));
        confirmSummary_->setText(r.score ? QString("Hand %1 as reviewed%2. A second player confirms it, then it is saved.")
                                               .arg(flow_.handNumber())
                                               .arg(r.outcome.isEmpty() ? "" : " — " + r.outcome)
                                         : "The hand cannot be saved: " + r.error);
    }
}

void HandScreen::goNext() {
    if (flow_.step() == Step::Lake) {
        const QString err = flow_.setLakeTops(tops_->text(), kings_->value());
        if (!err.isEmpty()) return banner_->showError(err);
    }
    if (flow_.step() == Step::Confirm) {
        if (banner_->guard([this] { flow_.save(enteredBy_->currentText(), confirmedBy_->currentText()); })) {
            tops_->clear();
            kings_->setValue(0);
        }
        return;
    }
    QString why;
    if (!flow_.next(&why)) banner_->showError(why);
    else if (banner_->property("banner").toString() == "error") banner_->hide();
}

void HandScreen::choose(int index) {
    if (index >= flow_.sideCount()) return;
    if (flow_.step() == Step::Called) {
        flow_.setCaller(index);
        return;
    }
    selected_ = index;
    refreshCounts();
}

void HandScreen::adjustSelected(int delta) {
    if (selected_ >= flow_.sideCount()) return;
    if (flow_.step() == Step::Backs) flow_.adjustLake(selected_, delta);
    else if (flow_.step() == Step::NertzLeft) flow_.adjustNertzLeft(selected_, delta);
}

bool HandScreen::dealing() const {
    return dealMode_->isChecked();
}

void HandScreen::startDealAgain() {
    if (recognizer_) recognizer_->resetDeal();
    selectedDealt_.reset();
    tally_ = {};
    if (flow_.cameraCounting()) flow_.applyCameraCount({}, 0);  // the counters show the new count
    refreshDealt();
}

void HandScreen::showTally(const BackTally& tally) {
    if (tally.dealt != dealing()) return;  // a frame counted before the mode changed
    // the list follows the deal: a card counted, or one given to another seat
    bool changed =
        tally.dealt && (tally.cards.size() != tally_.cards.size() ||
                        tally.cards.size() != static_cast<std::size_t>(dealtList_->count()));
    for (std::size_t i = 0; tally.dealt && !changed && i < tally.cards.size(); ++i)
        changed = tally.cards[i].side != tally_.cards[i].side ||
                  tally.cards[i].reassigned != tally_.cards[i].reassigned;
    tally_ = tally;
    if (changed) refreshDealt();
    if (flow_.step() != Step::Backs || !flow_.cameraCounting()) return refreshCamera();
    flow_.applyCameraCount(tally.perSide, tally.unknown);
}

void HandScreen::refreshDealt() {
    const bool on = dealing();
    dealtList_->setVisible(on);
    restartDeal_->setVisible(on);
    if (!on) {
        dealtList_->clear();
        return;
    }
    const QStringList names = flow_.sideNames();
    const int keep = dealtList_->currentRow();
    dealtList_->blockSignals(true);
    dealtList_->clear();
    for (int n = 0; n < static_cast<int>(tally_.cards.size()); ++n) {
        const auto& c = tally_.cards[std::size_t(n)];
        const QString owner =
            c.side >= 0 ? names.value(c.side) + (c.reassigned ? " (reassigned)" : "") : "unknown";
        auto* item = new QListWidgetItem(QString("#%1  frame %2  %3  (%4)")
                                             .arg(n + 1)
                                             .arg(c.frame)
                                             .arg(owner)
                                             .arg(c.confidence, 0, 'f', 2));
        if (c.side < 0)
            item->setForeground(QColor("#ad1457"));
        else if (colours_.contains(names.value(c.side)))
            item->setForeground(QColor(colours_.value(names.value(c.side))));
        dealtList_->addItem(item);
    }
    if (keep >= 0 && keep < dealtList_->count()) dealtList_->setCurrentRow(keep);
    dealtList_->blockSignals(false);
    dealtList_->scrollToBottom();
}

void HandScreen::showLakeReading(const LakeReading& reading) {
    if (flow_.step() == Step::NertzLeft) {
        // One deck per Nertz pile: every card in it is different, so a card read twice counts once.
        const QSet<QString> distinct(reading.faces.begin(), reading.faces.end());
        fanCount_ = reading.faces.isEmpty() ? -1 : static_cast<int>(distinct.size());
        useFanRead_->setEnabled(fanCount_ > 0);
        fanRead_->setText(fanCount_ < 0 ? "Camera: " + reading.problem
                                        : QString("Camera reads a fan of %1 card%2: %3")
                                              .arg(fanCount_)
                                              .arg(fanCount_ == 1 ? "" : "s")
                                              .arg(QStringList(distinct.begin(), distinct.end()).join(' ')));
        return;
    }
    if (flow_.step() != Step::Lake) return;
    lakeLoading_->setVisible(false);
    if (pileFromCamera_->isChecked()) {
        pileReadCards_ = reading.pile;
        usePileRead_->setEnabled(!reading.pile.isEmpty());
        if (reading.pile.isEmpty())
            pileRead_->setText("Camera: no card of a fanned pile read" +
                               (reading.problem.isEmpty() ? QString(".") : QString(" (%1)").arg(reading.problem)));
        else {
            const QString verdict = !reading.pileUnread.isEmpty() ? reading.pileUnread + "." : pileVerdictText(reading.pileCheck);
            pileRead_->setText(QString("Camera reads %1 from the bottom up: %2").arg(reading.pile.join(' '), verdict));
        }
    }
    lakeTopsRead_ = reading.tops;
    useLakeRead_->setEnabled(!reading.tops.isEmpty());
    lakeRead_->setText(reading.tops.isEmpty() ? "Camera: " + reading.problem
                                               : QString("Camera reads %1 top card%2: %3%4")
                                                     .arg(reading.tops.size())
                                                     .arg(reading.tops.size() == 1 ? "" : "s")
                                                     .arg(reading.tops.join(' '))
                                                     .arg(reading.problem.isEmpty() ? "" : "  (" + reading.problem + ")"));
}

QString HandScreen::pileVerdictText(const scoring::PileCheck& check) {
    if (check.ok) return "in order, A up to its top in one suit.";
    return QString::fromStdString(check.message()) + ".";
}

void HandScreen::showPileVerdict() {
    const QString text = pileCards_->text().trimmed();
    if (text.isEmpty()) {
        pileVerdict_->clear();
        return;
    }
    QString error;
    const scoring::PileCheck check = flow_.checkPile(text, &error);
    if (!error.isEmpty()) {
        pileVerdict_->setStyleSheet("font-size:18px; color:#c62828;");
        pileVerdict_->setText(error);
        return;
    }
    pileVerdict_->setStyleSheet(check.ok ? "font-size:18px; color:#2e7d32;" : "font-size:18px; color:#c62828;");
    QString verdict = pileVerdictText(check);
    verdict[0] = verdict[0].toUpper();
    pileVerdict_->setText(verdict);
}

bool HandScreen::selectCard(QPointF framePoint) {
    if (flow_.step() != Step::Backs || !flow_.cameraCounting() || dealing()) return false;
    for (const auto& c : tally_.cards)
        if (c.contains(framePoint)) {
            selected_point_ = c.centre();
            refreshCamera();
            return true;
        }
    selected_point_.reset();
    refreshCamera();
    return false;
}

void HandScreen::assignSelected(int side) {
    if (dealing() && selectedDealt_ && recognizer_) {
        recognizer_->reassignDealt(*selectedDealt_, side);
        banner_->showInfo(QString("Dealt card #%1 goes to %2 (from the next frame on).")
                              .arg(*selectedDealt_ + 1)
                              .arg(flow_.sideNames().value(side)));
        selectedDealt_.reset();
        dealtList_->clearSelection();
        refreshCamera();
        return;
    }
    if (!selected_point_ || !recognizer_) return;
    recognizer_->reassign(*selected_point_, side);
    banner_->showInfo(QString("The card goes to %1 (from the next frame on).").arg(flow_.sideNames().value(side)));
    selected_point_.reset();
    refreshCamera();
}

void HandScreen::refreshCamera() {
    const bool live = flow_.cameraCounting();
    const bool deal = dealing();
    if (cameraCount_->isChecked() != live) {  // the flow changed it (a step, a stopped camera)
        cameraCount_->blockSignals(true);
        cameraCount_->setChecked(live);
        cameraCount_->blockSignals(false);
    }
    cameraCount_->setText(live ? "Camera count: on, live  (C: hold it)" : "Camera count: off  (C: count from the camera)");
    QString state;
    if (!flow_.cameraNote().isEmpty()) state = flow_.cameraNote();
    else if (live && !recognizer_) state = "No recognition in this window.";
    else if (live) {
        int enrolled = 0;
        for (const auto& d : flow_.seatDecks()) enrolled += d && !d->backSignature.empty();
        if (deal)
            state = QString(
                        "Counting cards dealt past the camera: %1 so far (%2 ms a frame)%3. %4 of "
                        "%5 seats have an enrolled back.")
                        .arg(tally_.total())
                        .arg(tally_.ms, 0, 'f', 0)
                        .arg(tally_.passing ? ", a card is passing" : "")
                        .arg(enrolled)
                        .arg(flow_.sideCount());
        else
            state = QString(
                        "Counting from the camera: %1 cards on the last frame (%2 ms). %3 of %4 "
                        "seats have an enrolled back.")
                        .arg(tally_.total())
                        .arg(tally_.ms, 0, 'f', 0)
                        .arg(enrolled)
                        .arg(flow_.sideCount());
        if (enrolled < flow_.sideCount())
            state += deal ? " Cards of a seat without one come out unknown: enrol its deck on the "
                            "Decks screen, or pick them in the list to assign."
                          : " Cards of a seat without one come out unknown: enrol its deck on the "
                            "Decks screen, or tap to assign.";
    }
    cameraState_->setText(state);
    const int unknown = flow_.unknownCards();
    unknown_->setText(
        unknown > 0
            ? QString("%1 unknown card%2 (magenta, ?): %3 and choose its owner.")
                  .arg(unknown)
                  .arg(unknown == 1 ? "" : "s")
                  .arg(deal ? "pick each in the list of dealt cards" : "tap each on the video")
            : QString());
    QString sel;
    std::optional<std::array<QPointF, 4>> highlight;
    if (deal && selectedDealt_ && *selectedDealt_ < static_cast<int>(tally_.cards.size())) {
        const auto& c = tally_.cards[std::size_t(*selectedDealt_)];
        sel = QString("Dealt card #%1 (frame %2) selected, now: %3. Whose is it?")
                  .arg(*selectedDealt_ + 1)
                  .arg(c.frame)
                  .arg(c.side >= 0 ? flow_.sideNames().value(c.side)
                                   : c.lighter ? "unknown, far lighter than the deck it looks like"
                                               : "unknown");
    } else if (selected_point_) {
        QString owner = "unknown";
        for (const auto& c : tally_.cards)
            if (c.contains(*selected_point_)) owner = c.side >= 0 ? flow_.sideNames().value(c.side) : "unknown";
        sel = QString("Card at (%1, %2) selected, now: %3. Whose is it?")
                  .arg(int(selected_point_->x()))
                  .arg(int(selected_point_->y()))
                  .arg(owner);
        for (const auto& c : tally_.cards)
            if (c.contains(*selected_point_)) highlight = c.quad;
    }
    selectedCard_->setText(sel);
    camera_->setHighlight(highlight);
    const bool picked = deal ? selectedDealt_.has_value() : selected_point_.has_value();
    for (auto* b : assignButtons_) b->setVisible(picked && live);
}

void HandScreen::tick() {
    const qint64 s = flow_.elapsedMs() / 1000;
    clock_->setText(QString("%1:%2").arg(s / 60).arg(s % 60, 2, 10, QChar('0')));
}

}  // namespace nertz::gui
