// What the GUI tests drive the real widgets with: find a widget by object name, click, type,
// pick from a combo box; and read the SQLite file the way another program would (a fresh
// read-only connection per query).
#pragma once
#include <QComboBox>
#include <QLineEdit>
#include <QPushButton>
#include <QString>
#include <QWidget>
#include <QtTest>
#include <sqlite3.h>

namespace nertz::guitest {

template <typename T>
T* find(QWidget& root, const QString& name) {
    T* w = root.findChild<T*>(name);
    if (!w) qFatal("no widget %s", qPrintable(name));
    return w;
}

// A person can only press an enabled, visible button.
inline void click(QWidget& root, const QString& button) {
    auto* b = find<QPushButton>(root, button);
    QVERIFY2(b->isEnabled() && b->isVisible(), qPrintable(button + " is disabled or hidden"));
    QTest::mouseClick(b, Qt::LeftButton);
}

inline void clickTimes(QWidget& root, const QString& button, int n) {
    for (int i = 0; i < n; ++i) click(root, button);
}

inline void typeInto(QWidget& root, const QString& edit, const QString& text) {
    auto* e = find<QLineEdit>(root, edit);
    e->clear();
    QTest::keyClicks(e, text);
}

// The item whose text is `text`, else the first that starts with it ("Ann" picks "Ann (red)").
inline void pick(QWidget& root, const QString& combo, const QString& text) {
    auto* c = find<QComboBox>(root, combo);
    int i = c->findText(text);
    if (i < 0) i = c->findText(text, Qt::MatchStartsWith);
    QVERIFY2(i >= 0, qPrintable(combo + " has no " + text));
    c->setCurrentIndex(i);
}

// The first row of a query on a fresh read-only connection (no row: step() is false).
class FirstRow {
public:
    FirstRow(const QString& file, const QString& sql) {
        sqlite3_open_v2(file.toUtf8().constData(), &db_, SQLITE_OPEN_READONLY, nullptr);
        row_ = sqlite3_prepare_v2(db_, sql.toUtf8().constData(), -1, &st_, nullptr) == SQLITE_OK &&
               sqlite3_step(st_) == SQLITE_ROW;
    }
    ~FirstRow() {
        sqlite3_finalize(st_);
        sqlite3_close(db_);
    }
    FirstRow(const FirstRow&) = delete;
    FirstRow& operator=(const FirstRow&) = delete;
    bool found() const { return row_; }
    sqlite3_stmt* statement() const { return st_; }

private:
    sqlite3* db_ = nullptr;
    sqlite3_stmt* st_ = nullptr;
    bool row_ = false;
};

// One integer from the first row (-1 when there is no row).
inline long long sqlInt(const QString& file, const QString& sql) {
    FirstRow r(file, sql);
    return r.found() ? sqlite3_column_int64(r.statement(), 0) : -1;
}

// One text from the first row (empty when there is no row or it is NULL).
inline QString sqlText(const QString& file, const QString& sql) {
    FirstRow r(file, sql);
    const auto* t = r.found() ? reinterpret_cast<const char*>(sqlite3_column_text(r.statement(), 0)) : nullptr;
    return t ? QString::fromUtf8(t) : QString();
}

}  // namespace nertz::guitest
