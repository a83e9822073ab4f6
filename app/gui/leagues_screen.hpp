// LeaguesScreen: the leagues in the database and their seasons; add either.
#pragma once
#include <QWidget>

class QLineEdit;
class QTableWidget;
class QListWidget;

namespace nertz::gui {
class LeagueService;
class Banner;

class LeaguesScreen : public QWidget {
    Q_OBJECT
public:
    explicit LeaguesScreen(LeagueService& service, QWidget* parent = nullptr);
public slots:
    void refresh();

private:
    QString selectedLeague() const;
    LeagueService& service_;
    Banner* banner_;
    QTableWidget* table_;
    QListWidget* seasons_;
    QLineEdit* leagueName_;
    QLineEdit* seasonName_;
};
}  // namespace nertz::gui
