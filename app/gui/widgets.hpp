// Small shared widgets of the screens: big touch buttons, the message banner, the +/- counter,
// and the app's style sheet.
#pragma once
#include <QLabel>
#include <QPushButton>
#include <QWidget>
#include <functional>

namespace nertz::gui {

// A large, touch-friendly push button; `objectName` lets tests find it.
QPushButton* bigButton(const QString& text, const QString& objectName, QWidget* parent = nullptr);
// Two taps confirm a destructive action: the first tap arms `button` for 5 s (its text becomes
// `question`) and returns false; a second tap within that time returns true.
bool confirmTap(QPushButton* button, const QString& question);
// A heading label for the top of a screen.
QLabel* heading(const QString& text, QWidget* parent = nullptr);
// The style sheet of the whole app (large fonts, big controls).
QString appStyleSheet();

// A line under a screen's heading that shows the result of the last action or its error.
class Banner : public QLabel {
    Q_OBJECT
public:
    explicit Banner(QWidget* parent = nullptr);
    void showError(const QString& text);
    void showInfo(const QString& text);
    // Runs `action`; shows the exception's message as an error when it throws. True on success.
    bool guard(const std::function<void()>& action);
};

// One player's big "-  value  +" row (lake count, Nertz cards left), with a colour swatch.
class Counter : public QWidget {
    Q_OBJECT
public:
    Counter(const QString& name, const QString& colour, const QString& objectPrefix, QWidget* parent = nullptr);
    void setValue(int value);
    void setNote(const QString& note);
    void setSelected(bool selected);
signals:
    void adjust(int delta);

private:
    QLabel* name_;
    QLabel* value_;
    QLabel* note_;
};

}  // namespace nertz::gui
