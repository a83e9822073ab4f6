#include "decks_screen.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPixmap>
#include <QTableWidget>
#include <QVBoxLayout>

#include "camera_view.hpp"
#include "league_service.hpp"
#include "widgets.hpp"

namespace nertz::gui {

QList<QPair<QString, QString>> DecksScreen::colours() {
    return {{"red", "#c62828"},   {"blue", "#1565c0"},  {"green", "#2e7d32"}, {"yellow", "#f9a825"},
            {"purple", "#6a1b9a"}, {"orange", "#ef6c00"}, {"black", "#212121"}, {"teal", "#00838f"}};
}

namespace {
// The overlay colours as items with a swatch (the item's data is the colour's hex code).
void addColourItems(QComboBox* box) {
    for (const auto& [label, hex] : DecksScreen::colours()) {
        QPixmap swatch(20, 20);
        swatch.fill(QColor(hex));
        box->addItem(QIcon(swatch), label, hex);
    }
}
}  // namespace

DecksScreen::DecksScreen(LeagueService& service, QWidget* parent) : QWidget(parent), service_(service) {
    auto* outer = new QHBoxLayout(this);
    auto* v = new QVBoxLayout;
    outer->addLayout(v, 3);
    v->addWidget(heading("Decks"));
    banner_ = new Banner(this);
    v->addWidget(banner_);
    table_ = new QTableWidget(0, 4);
    table_->setHorizontalHeaderLabels({"Owner", "Deck", "Colour", "Back"});
    table_->horizontalHeader()->setSectionResizeMode(1, QHeaderView::Stretch);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->setDefaultSectionSize(40);
    v->addWidget(table_, 1);
    auto* form = new QGridLayout;
    owner_ = new QComboBox;
    owner_->setObjectName("deckOwner");
    name_ = new QLineEdit;
    name_->setObjectName("deckName");
    name_->setPlaceholderText("deck name, e.g. Red bicycle");
    colour_ = new QComboBox;
    colour_->setObjectName("deckColour");
    addColourItems(colour_);
    form->addWidget(new QLabel("Owner"), 0, 0);
    form->addWidget(owner_, 0, 1);
    form->addWidget(new QLabel("Name"), 1, 0);
    form->addWidget(name_, 1, 1);
    form->addWidget(new QLabel("Overlay colour"), 2, 0);
    form->addWidget(colour_, 2, 1);
    v->addLayout(form);
    auto* add = bigButton("Add deck", "addDeck");
    add->setProperty("primary", true);
    v->addWidget(add);

    auto* side = new QVBoxLayout;
    outer->addLayout(side, 2);
    camera_ = new CameraView;
    side->addWidget(camera_, 1);
    auto* enrolForm = new QGridLayout;
    enrolDeck_ = new QComboBox;
    enrolDeck_->setObjectName("enrolDeck");
    enrolColour_ = new QComboBox;
    enrolColour_->setObjectName("enrolColour");
    addColourItems(enrolColour_);
    enrolForm->addWidget(new QLabel("Deck to enrol"), 0, 0);
    enrolForm->addWidget(enrolDeck_, 0, 1);
    enrolForm->addWidget(new QLabel("Overlay colour"), 1, 0);
    enrolForm->addWidget(enrolColour_, 1, 1);
    side->addLayout(enrolForm);
    enrolState_ = new QLabel("Hold one card of the deck face down, flat, under the camera.");
    enrolState_->setObjectName("enrolState");
    enrolState_->setWordWrap(true);
    enrolState_->setStyleSheet("font-size:17px;");
    side->addWidget(enrolState_);
    auto* enrol = bigButton("Enrol back from camera  (Ctrl+E)", "enrolBack");
    enrol->setProperty("primary", true);
    enrol->setShortcut(QKeySequence("Ctrl+E"));
    side->addWidget(enrol);
    connect(enrol, &QPushButton::clicked, this, &DecksScreen::enrol);
    connect(enrolDeck_, &QComboBox::currentIndexChanged, this, &DecksScreen::enrolTargetChanged);

    connect(add, &QPushButton::clicked, this, [this] {
        if (banner_->guard([this] { service_.addDeck(owner_->currentText(), name_->text(), colour_->currentData().toString()); })) {
            banner_->showInfo("Deck \"" + name_->text().trimmed() + "\" added for " + owner_->currentText() + ".");
            name_->clear();
        }
    });
    connect(&service_, &LeagueService::changed, this, &DecksScreen::refresh);
    refresh();
}

void DecksScreen::refresh() {
    banner_->guard([&] {
        const QString keep = owner_->currentText();
        owner_->clear();
        for (const auto& p : service_.players()) owner_->addItem(QString::fromStdString(p.name));
        if (!keep.isEmpty()) owner_->setCurrentText(keep);
        const auto decks = service_.decks();
        table_->setRowCount(static_cast<int>(decks.size()));
        for (int i = 0; i < static_cast<int>(decks.size()); ++i) {
            const auto& d = decks[i];
            table_->setItem(i, 0, new QTableWidgetItem(QString::fromStdString(d.owner)));
            table_->setItem(i, 1, new QTableWidgetItem(QString::fromStdString(d.name)));
            auto* c = new QTableWidgetItem(QString::fromStdString(d.colour.value_or("")));
            if (d.colour) c->setBackground(QColor(QString::fromStdString(*d.colour)));
            if (d.colour) c->setForeground(Qt::white);
            table_->setItem(i, 2, c);
            table_->setItem(i, 3, new QTableWidgetItem(d.backSignature.empty() ? "not enrolled"
                                                                               : QString("enrolled (%1 bytes)").arg(d.backSignature.size())));
        }
        const qlonglong keepDeck = enrolDeck_->currentData().toLongLong();
        enrolDeck_->blockSignals(true);
        enrolDeck_->clear();
        for (const auto& d : decks) {
            QPixmap swatch(16, 16);
            swatch.fill(QColor(QString::fromStdString(d.colour.value_or("#90a4ae"))));
            enrolDeck_->addItem(QIcon(swatch), QString::fromStdString(d.owner + ": " + d.name), static_cast<qlonglong>(d.id));
            if (d.id == keepDeck) enrolDeck_->setCurrentIndex(enrolDeck_->count() - 1);
        }
        enrolDeck_->blockSignals(false);
        enrolTargetChanged();
    });
}

void DecksScreen::setRecognizer(std::shared_ptr<RecognitionAnalyzer> recognizer) {
    recognizer_ = std::move(recognizer);
    enrolTargetChanged();
}

// A new deck to enrol: collect fresh views, and compare with every other deck's back.
void DecksScreen::enrolTargetChanged() {
    reading_ = {};
    const qlonglong id = enrolDeck_->currentData().toLongLong();
    std::vector<EnrolledBack> others;
    banner_->guard([&] {
        for (const auto& d : service_.decks()) {
            if (d.id == id) {
                const int c = enrolColour_->findData(QString::fromStdString(d.colour.value_or("")));
                if (c >= 0) enrolColour_->setCurrentIndex(c);
                continue;
            }
            others.push_back({QString::fromStdString(d.owner + ": " + d.name), d.backSignature});
        }
    });
    if (!recognizer_) {
        enrolState_->setText("No recognition in this window.");
        return;
    }
    recognizer_->setEnrolled(others);
    recognizer_->resetEnrolment();
    enrolState_->setText(enrolDeck_->count() == 0 ? "Add a deck first, then hold one of its cards face down under the camera."
                                                  : "Hold one card of the deck face down, flat, under the camera.");
}

void DecksScreen::showEnrolReading(const EnrolReading& r) {
    reading_ = r;
    if (!r.found) {
        enrolState_->setText("No card back in view: hold one card face down, flat, fully in view.");
        return;
    }
    if (r.notCollected) {
        enrolState_->setText(QString("Something lies on the card (%1% of it: a finger, a hand, another card): take it off; "
                                     "this view is not collected (%2 view%3 so far).")
                                 .arg(int(std::lround(r.covered * 100)))
                                 .arg(r.views)
                                 .arg(r.views == 1 ? "" : "s"));
        enrolState_->setStyleSheet("font-size:17px; color:#e65100;");
        return;
    }
    QString text = QString("Back in view (%1 of the picture), %2 view%3 collected.")
                       .arg(QString::number(100.0 * r.areaShare, 'f', 0) + "%")
                       .arg(r.views)
                       .arg(r.views == 1 ? "" : "s");
    if (r.areaShare < 0.02f) text += " Closer: the card is small in the picture.";
    if (r.nearest.isEmpty()) text += " No other deck is enrolled yet.";
    else
        text += QString(" Nearest other back: %1, distance %2 (%3).")
                    .arg(r.nearest)
                    .arg(r.nearestDistance, 0, 'f', 2)
                    .arg(r.warnings.isEmpty() ? "told apart well" : "too close");
    for (const auto& w : r.warnings) text += QString::fromUtf8("\n⚠ ") + w;
    enrolState_->setText(text);
    enrolState_->setStyleSheet(QString("font-size:17px; color:%1;").arg(r.warnings.isEmpty() ? "#2e7d32" : "#e65100"));
}

void DecksScreen::enrol() {
    if (enrolDeck_->currentIndex() < 0) return banner_->showError("Add the deck first (left), then enrol its back.");
    if (reading_.notCollected && reading_.signature.empty())
        return banner_->showError("Something lies on the card (a finger, a hand, another card): take it off and enrol again.");
    if (!reading_.found || reading_.signature.empty())
        return banner_->showError("No card back in view yet: hold one card face down, flat, under the camera.");
    const QString deck = enrolDeck_->currentText();
    const EnrolReading r = reading_;
    if (banner_->guard([&] { service_.setDeckBack(enrolDeck_->currentData().toLongLong(), r.signature, enrolColour_->currentData().toString()); }))
        banner_->showInfo(QString("Back of %1 enrolled from %2 view%3%4.")
                              .arg(deck)
                              .arg(r.views)
                              .arg(r.views == 1 ? "" : "s")
                              .arg(r.warnings.isEmpty() ? QString() : QString(" — warning: ") + r.warnings.join("; ")));
}

}  // namespace nertz::gui
