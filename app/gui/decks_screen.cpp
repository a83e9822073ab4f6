#include "decks_screen.hpp"

#include <QComboBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
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
    for (const auto& [label, hex] : colours()) {
        QPixmap swatch(20, 20);
        swatch.fill(QColor(hex));
        colour_->addItem(QIcon(swatch), label, hex);
    }
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
    auto* enrol = bigButton("Enrol back from camera", "enrolBack");
    enrol->setEnabled(false);
    side->addWidget(enrol);
    auto* why = new QLabel(
        "Back enrolment (hold a card back under the camera, see the signature's match quality) needs the vision "
        "module, which is not part of this build yet. Decks are added without a back signature until then.");
    why->setWordWrap(true);
    why->setProperty("hint", true);
    side->addWidget(why);

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
    });
}

}  // namespace nertz::gui
