// HandFlow: the view model of one hand at the table, from the referee panel while playing through
// the scoring steps to the confirmed, saved hand. It holds the counts typed or tapped in, asks
// nertz::scoring for every number shown (scoreHand, checkLakeChecksum, IdleProcedure) and saves
// through LeagueService. No widget code and no score arithmetic outside nertz::scoring.
#pragma once
#include <QElapsedTimer>
#include <QObject>
#include <QStringList>
#include <optional>
#include <vector>

#include "league_service.hpp"
#include "nertz/scoring/hand.hpp"
#include "nertz/scoring/referee.hpp"

namespace nertz::gui {

class HandFlow : public QObject {
    Q_OBJECT
public:
    // The steps of a hand, in order. Lake is optional (skip it to score without a checksum).
    enum class Step { Playing, Called, Lake, Backs, NertzLeft, Review, Confirm };
    static QString stepTitle(Step step);

    // The review of the hand as entered: the breakdown when it is valid, else why not.
    struct Review {
        std::optional<scoring::HandScore> score;
        QString error;  // the scoring core's message when the hand is not valid
        std::optional<scoring::ChecksumResult> checksum;
        QStringList warnings;     // referee warnings (checksum off, deck sanity, ...)
        std::vector<int> totalsBefore, totalsAfter;
        bool gameOverAfter = false;
        QString outcome;  // "Ann wins the game" when this hand ends it
    };

    explicit HandFlow(LeagueService& service, QObject* parent = nullptr);

    // Opens a stored game for play; throws when it does not exist.
    void openGame(std::int64_t gameId);
    // Re-reads the open game after a change made elsewhere (a correction); keeps the hand in progress.
    void refreshGame() { reload(); }
    bool hasGame() const { return game_.has_value(); }
    std::int64_t gameId() const { return gameId_; }
    const db::StoredGame& game() const { return *game_; }
    const scoring::RuleSet& rules() const { return game_->game.rules(); }
    QStringList sideNames() const;
    // Every person at the table (team members individually): who may enter and confirm a hand.
    QStringList people() const;
    int sideCount() const { return static_cast<int>(lake_.size()); }
    int handNumber() const;  // the number this hand will get
    bool gameOver() const;

    Step step() const { return step_; }
    // Moves to the next step when the current one is complete; false and the reason otherwise.
    bool next(QString* why = nullptr);
    void back();
    void goTo(Step step);

    // Referee panel.
    qint64 elapsedMs() const;
    // The whole table is stuck: the rule set's next step. When it ends the hand, the flow moves
    // to scoring with nobody calling.
    scoring::IdleStep everyoneStuck();
    void cardPlayed();
    QString lastIdleInstruction() const { return idleText_; }
    int stockActions() const { return idle_ ? idle_->stockActions() : 0; }
    // A false call by `side`; false and a message when the rule set has none.
    bool addFalseCall(int side, QString* why = nullptr);
    int falseCalls(int side) const { return falseCalls_.at(side); }
    // Nertz called (or the table agrees the hand is over): go to scoring.
    void startScoring();

    // Scoring entries.
    void setCaller(std::optional<int> side);  // nullopt: nobody called, all stuck
    std::optional<int> caller() const { return caller_; }
    bool callerChosen() const { return callerChosen_; }
    // Top cards of the lake piles, as text ("7H KS 5C"), and the number of closed king piles.
    // Returns an error message naming the bad card, empty when fine (empty text clears it).
    QString setLakeTops(const QString& text, int closedKings);
    QString lakeTopsText() const { return lakeTopsText_; }
    int closedKings() const { return closedKings_; }
    std::optional<int> expectedLake() const;
    // SPEC "Pile check": a fanned lake pile's cards from the bottom up, typed like the tops
    // ("AH 2H 3H 5H"), must read A, 2, 3, ... in one suit. Returns the check (the first wrong card
    // named by PileCheck::message), or sets `error` to a message naming a word that is no card of
    // this game's deck (the check then is not ok and names nothing).
    scoring::PileCheck checkPile(const QString& text, QString* error) const;
    void adjustLake(int side, int delta);
    void setLake(int side, int value);
    int lake(int side) const { return lake_.at(side); }
    void adjustNertzLeft(int side, int delta);
    void setNertzLeft(int side, int value);
    int nertzLeft(int side) const { return nertzLeft_.at(side); }
    int pileSize(int side) const;
    int lakeTotal() const;

    // The deck each seat plays with (stored with the game; nullopt where none was chosen).
    const std::vector<std::optional<db::Deck>>& seatDecks() const { return seatDecks_; }
    // Back count from the camera: the cards counted per seat on the latest frame and the cards no
    // seat's back matched. While the camera count is on, its numbers replace the lake counts; the
    // count cannot go on to the next step while unknown cards are left.
    void applyCameraCount(const std::vector<int>& perSide, int unknown);
    void setCameraCounting(bool on);
    bool cameraCounting() const { return cameraCounting_; }
    int unknownCards() const { return cameraCounting_ ? unknown_ : 0; }
    // The source stopped mid-count: the count so far is kept (and said so).
    void cameraStopped(const QString& why);
    QString cameraNote() const { return cameraNote_; }

    scoring::HandResult result() const;
    Review review() const;

    // Saves the hand (the final step); throws with a user message when it cannot. Returns its number.
    int save(const QString& enteredBy, const QString& confirmedBy);
    // Deletes the game's last hand with reason "undo" (audited); throws when there is none. The hand is
    // kept so that restoreUndone() can put it back.
    void undoLastHand(const QString& who);
    // True while the last undone hand can be put back (same game, nothing saved after the undo).
    bool canRestore() const;
    // Puts the undone hand back as the last hand (audited "restore_hand"); returns its number.
    int restoreUndone(const QString& who);
    // Starts a fresh hand of the same game.
    void newHand();

signals:
    void stepChanged(nertz::gui::HandFlow::Step step);
    void countsChanged();
    void gameChanged();
    void saved(int handNumber);

private:
    void reload();
    LeagueService& service_;
    std::int64_t gameId_ = 0;
    std::optional<db::StoredGame> game_;
    Step step_ = Step::Playing;
    QElapsedTimer clock_;
    std::optional<scoring::IdleProcedure> idle_;
    QString idleText_;
    std::optional<int> caller_;
    bool callerChosen_ = false;
    bool endedStuck_ = false;
    QString lakeTopsText_;
    std::vector<scoring::Card> lakeTops_;
    int closedKings_ = 0;
    std::vector<int> lake_, nertzLeft_, falseCalls_;
    std::vector<std::optional<db::Deck>> seatDecks_;
    struct Undone {
        std::int64_t gameId;
        int number;
        scoring::HandResult hand;
        db::HandMeta meta;
    };
    std::optional<Undone> undone_;
    bool cameraCounting_ = false;
    int unknown_ = 0;
    QString cameraNote_;
};

}  // namespace nertz::gui
