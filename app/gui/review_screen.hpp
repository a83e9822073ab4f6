// ReviewScreen: the open game's hands with running totals, who entered and confirmed each, and
// the audit log; undo the last hand or edit any earlier hand with a reason (later hands recompute).
#pragma once
#include <QWidget>
#include <vector>

class QComboBox;
class QLineEdit;
class QListWidget;
class QSpinBox;
class QTableWidget;
class QGridLayout;

namespace nertz::gui {
class Banner;
class HandFlow;
class LeagueService;

class ReviewScreen : public QWidget {
    Q_OBJECT
public:
    ReviewScreen(LeagueService& service, HandFlow& flow, QWidget* parent = nullptr);
public slots:
    void refresh();

private:
    void loadEditor(int handIndex);
    void saveEdit();
    LeagueService& service_;
    HandFlow& flow_;
    Banner* banner_;
    QTableWidget* hands_;
    QListWidget* audit_;
    QSpinBox* editNumber_;
    QGridLayout* editGrid_;
    std::vector<QSpinBox*> editLake_, editNertz_, editFalse_;
    QComboBox* editCaller_;
    QComboBox* editWho_;
    QLineEdit* reason_;
};
}  // namespace nertz::gui
