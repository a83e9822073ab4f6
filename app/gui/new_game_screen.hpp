// NewGameScreen: start a game (league, season, preset and target, players or teams of two, a
// deck and a Nertz pile size per seat) or continue an unfinished one.
#pragma once
#include <QMap>
#include <QWidget>
#include <optional>

#include "nertz/scoring/rules.hpp"

class QComboBox;
class QListWidget;
class QSpinBox;
class QTableWidget;

namespace nertz::gui {
class LeagueService;
class Banner;

class NewGameScreen : public QWidget {
    Q_OBJECT
public:
    explicit NewGameScreen(LeagueService& service, QWidget* parent = nullptr);
    // Loads a custom rule set from a JSON file (as `nertzref-cli rules show --file`) and selects it;
    // on a bad file shows an error dialog naming the problem and returns false.
    bool loadRulesFile(const QString& path);
public slots:
    void refresh();
signals:
    // A game was created or chosen to continue; `colours` maps side name -> deck overlay colour.
    void gameChosen(qint64 gameId, const QMap<QString, QString>& colours);

private:
    void rebuildSeats();
    void start();
    scoring::RuleSet chosenRules() const;
    std::optional<scoring::RuleSet> custom_;
    LeagueService& service_;
    Banner* banner_;
    QComboBox* league_;
    QComboBox* season_;
    QComboBox* preset_;
    QSpinBox* target_;
    QSpinBox* teamSize_;
    QListWidget* players_;
    QTableWidget* seats_;
    QComboBox* open_;
    QStringList order_;  // players in the order they were ticked: the seat order
};
}  // namespace nertz::gui
