#include <QDateTime>
#include <QTimer>
#include "widgets.hpp"

#include <QHBoxLayout>
#include <QStyle>
#include <exception>

namespace nertz::gui {

QPushButton* bigButton(const QString& text, const QString& objectName, QWidget* parent) {
    auto* b = new QPushButton(text, parent);
    b->setObjectName(objectName);
    b->setMinimumHeight(52);
    b->setProperty("big", true);
    return b;
}

QLabel* heading(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setProperty("heading", true);
    return l;
}

QString appStyleSheet() {
    return R"(
* { font-size: 16px; }
QWidget#nav { background: #263238; }
QListWidget#navList { background: #263238; color: #eceff1; border: none; font-size: 18px; }
QListWidget#navList::item { padding: 14px 12px; }
QListWidget#navList::item:selected { background: #00897b; color: white; }
QLabel[heading="true"] { font-size: 26px; font-weight: bold; color: #263238; padding: 4px 0; }
QLabel[banner="error"] { background: #ffebee; color: #b71c1c; border: 1px solid #e57373; border-radius: 6px; padding: 8px; }
QLabel[banner="info"] { background: #e8f5e9; color: #1b5e20; border: 1px solid #81c784; border-radius: 6px; padding: 8px; }
QPushButton { padding: 8px 16px; border-radius: 8px; background: #eceff1; border: 1px solid #b0bec5; }
QPushButton:hover { background: #e0f2f1; }
QPushButton:checked { background: #00897b; color: white; border-color: #00695c; }
QPushButton[big="true"] { font-size: 18px; font-weight: bold; min-width: 64px; }
QPushButton[primary="true"] { background: #00897b; color: white; border-color: #00695c; }
QPushButton[primary="true"]:disabled { background: #b2dfdb; }
QPushButton[danger="true"] { background: #c62828; color: white; border-color: #8e0000; }
QPushButton[counter="true"] { font-size: 28px; font-weight: bold; min-width: 72px; min-height: 60px; }
QLabel[count="true"] { font-size: 34px; font-weight: bold; min-width: 70px; qproperty-alignment: AlignCenter; }
QLabel[clock="true"] { font-size: 54px; font-weight: bold; color: #263238; }
QLabel[instruction="true"] { font-size: 20px; background: #fff8e1; border: 1px solid #ffca28; border-radius: 8px; padding: 10px; }
QLabel[hint="true"] { color: #546e7a; font-size: 14px; }
QLineEdit, QComboBox, QSpinBox { min-height: 40px; font-size: 17px; padding: 2px 6px; }
QTableWidget, QListWidget { font-size: 16px; }
QHeaderView::section { font-weight: bold; padding: 6px; background: #eceff1; border: none; }
QCheckBox { spacing: 10px; min-height: 34px; }
QCheckBox::indicator { width: 26px; height: 26px; }
)";
}

Banner::Banner(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
    hide();
}

void Banner::showError(const QString& text) {
    setProperty("banner", "error");
    setText(text);
    style()->unpolish(this);
    style()->polish(this);
    show();
}

void Banner::showInfo(const QString& text) {
    setProperty("banner", "info");
    setText(text);
    style()->unpolish(this);
    style()->polish(this);
    show();
}

bool confirmTap(QPushButton* button, const QString& question) {
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (!button->property("plainText").isValid()) button->setProperty("plainText", button->text());
    const qint64 armed = button->property("armedAt").toLongLong();
    if (armed > 0 && now - armed < 5000) {
        button->setProperty("armedAt", 0);
        button->setText(button->property("plainText").toString());
        return true;
    }
    button->setProperty("armedAt", now);
    button->setText(question);
    QTimer::singleShot(5000, button, [button, now] {
        if (button->property("armedAt").toLongLong() != now) return;
        button->setProperty("armedAt", 0);
        button->setText(button->property("plainText").toString());
    });
    return false;
}

bool Banner::guard(const std::function<void()>& action) {
    try {
        action();
        return true;
    } catch (const std::exception& e) {
        showError(QString::fromUtf8(e.what()));
        return false;
    }
}

Counter::Counter(const QString& name, const QString& colour, const QString& objectPrefix, QWidget* parent)
    : QWidget(parent) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(4, 2, 4, 2);
    auto* swatch = new QLabel(this);
    swatch->setFixedSize(18, 48);
    swatch->setStyleSheet(QString("background:%1; border-radius:4px;").arg(colour.isEmpty() ? "#90a4ae" : colour));
    name_ = new QLabel(name, this);
    name_->setStyleSheet("font-size:20px; font-weight:bold;");
    name_->setMinimumWidth(120);
    auto* minus = new QPushButton(QString::fromUtf8("\u2212"), this);
    minus->setObjectName(objectPrefix + "_minus");
    minus->setProperty("counter", true);
    value_ = new QLabel("0", this);
    value_->setObjectName(objectPrefix + "_value");
    value_->setProperty("count", true);
    auto* plus = new QPushButton("+", this);
    plus->setObjectName(objectPrefix + "_plus");
    plus->setProperty("counter", true);
    auto* plus5 = new QPushButton("+5", this);
    plus5->setObjectName(objectPrefix + "_plus5");
    plus5->setProperty("counter", true);
    note_ = new QLabel(this);
    note_->setProperty("hint", true);
    row->addWidget(swatch);
    row->addWidget(name_);
    row->addWidget(minus);
    row->addWidget(value_);
    row->addWidget(plus);
    row->addWidget(plus5);
    row->addWidget(note_, 1);
    for (auto* b : {minus, plus, plus5}) b->setFocusPolicy(Qt::NoFocus);
    connect(minus, &QPushButton::clicked, this, [this] { emit adjust(-1); });
    connect(plus, &QPushButton::clicked, this, [this] { emit adjust(1); });
    connect(plus5, &QPushButton::clicked, this, [this] { emit adjust(5); });
}

void Counter::setValue(int value) { value_->setText(QString::number(value)); }
void Counter::setNote(const QString& note) { note_->setText(note); }
void Counter::setSelected(bool selected) {
    setStyleSheet(selected ? "Counter, nertz--gui--Counter { background:#e0f2f1; border-radius:8px; }" : "");
    setAutoFillBackground(selected);
    QPalette p = palette();
    p.setColor(QPalette::Window, selected ? QColor("#e0f2f1") : palette().color(QPalette::Base));
    setPalette(p);
}

}  // namespace nertz::gui
