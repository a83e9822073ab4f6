#include "hand_flow.hpp"

#include <QRegularExpression>
#include <algorithm>
#include <numeric>

#include "nertz/scoring/game.hpp"

namespace nertz::gui {

namespace sc = nertz::scoring;

QString HandFlow::stepTitle(Step step) {
    switch (step) {
        case Step::Playing: return "Playing";
        case Step::Called: return "Who called?";
        case Step::Lake: return "Lake tops";
        case Step::Backs: return "Back count";
        case Step::NertzLeft: return "Nertz left";
        case Step::Review: return "Review";
        case Step::Confirm: return "Confirm";
    }
    return {};
}

HandFlow::HandFlow(LeagueService& service, QObject* parent) : QObject(parent), service_(service) {}

void HandFlow::openGame(std::int64_t gameId) {
    game_ = service_.loadGame(gameId);
    gameId_ = gameId;
    seatDecks_ = service_.seatDecks(gameId);
    const auto n = game_->game.sides().size();
    lake_.assign(n, 0);
    nertzLeft_.assign(n, 0);
    falseCalls_.assign(n, 0);
    emit gameChanged();
    newHand();
}

void HandFlow::reload() {
    game_ = service_.loadGame(gameId_);
    seatDecks_ = service_.seatDecks(gameId_);
    emit gameChanged();
}

QStringList HandFlow::sideNames() const {
    QStringList out;
    if (game_)
        for (const auto& s : game_->game.sides()) out << QString::fromStdString(s.name);
    return out;
}

QStringList HandFlow::people() const {
    QStringList out;
    if (!game_) return out;
    for (const auto& s : game_->game.sides()) {
        if (s.members.empty()) out << QString::fromStdString(s.name);
        for (const auto& m : s.members) out << QString::fromStdString(m);
    }
    return out;
}

int HandFlow::handNumber() const { return game_ ? static_cast<int>(game_->game.hands().size()) + 1 : 0; }

bool HandFlow::gameOver() const { return game_ && game_->game.outcome().over; }

void HandFlow::newHand() {
    step_ = Step::Playing;
    clock_.restart();
    if (game_) idle_.emplace(game_->game.rules());
    idleText_.clear();
    caller_.reset();
    callerChosen_ = false;
    endedStuck_ = false;
    lakeTopsText_.clear();
    lakeTops_.clear();
    closedKings_ = 0;
    std::fill(lake_.begin(), lake_.end(), 0);
    std::fill(nertzLeft_.begin(), nertzLeft_.end(), 0);
    std::fill(falseCalls_.begin(), falseCalls_.end(), 0);
    cameraCounting_ = false;
    unknown_ = 0;
    cameraNote_.clear();
    emit countsChanged();
    emit stepChanged(step_);
}

bool HandFlow::next(QString* why) {
    auto fail = [&](const QString& text) {
        if (why) *why = text;
        return false;
    };
    if (!game_) return fail("Start or open a game first (New game screen).");
    switch (step_) {
        case Step::Playing:
            if (gameOver()) return fail("This game is over. Start a new game.");
            startScoring();
            return true;
        case Step::Called:
            if (!callerChosen_) return fail("Choose who called Nertz, or \"Nobody: all stuck\".");
            break;
        case Step::Backs:
            if (unknownCards() > 0)
                return fail(QString("%1 card%2 could not be told by the back: tap each one (magenta, marked ?) on the video "
                                    "and choose its owner, or turn the camera count off and count by hand.")
                                .arg(unknownCards())
                                .arg(unknownCards() == 1 ? "" : "s"));
            cameraCounting_ = false;  // the count is taken: later frames no longer change it
            break;
        case Step::Lake:
        case Step::NertzLeft: break;
        case Step::Review: {
            const Review r = review();
            if (!r.score) return fail("The hand cannot be scored yet: " + r.error);
            break;
        }
        case Step::Confirm: return fail("Pick who confirms, then Save.");
    }
    goTo(static_cast<Step>(static_cast<int>(step_) + 1));
    return true;
}

void HandFlow::applyCameraCount(const std::vector<int>& perSide, int unknown) {
    if (!cameraCounting_ || step_ != Step::Backs) return;
    for (std::size_t i = 0; i < lake_.size(); ++i) lake_[i] = i < perSide.size() ? perSide[i] : 0;
    unknown_ = unknown;
    cameraNote_.clear();
    emit countsChanged();
}

void HandFlow::setCameraCounting(bool on) {
    cameraCounting_ = on;
    if (!on) unknown_ = 0;
    cameraNote_.clear();
    emit countsChanged();
}

void HandFlow::cameraStopped(const QString& why) {
    if (!cameraCounting_) return;
    cameraCounting_ = false;
    cameraNote_ = QString("%1 The count so far (%2 cards) is kept: finish it by hand.").arg(why).arg(lakeTotal());
    if (unknown_ > 0) cameraNote_ += QString(" %1 card(s) it could not tell by the back are not in it.").arg(unknown_);
    unknown_ = 0;
    emit countsChanged();
}

void HandFlow::back() {
    if (step_ == Step::Playing) return;
    goTo(static_cast<Step>(static_cast<int>(step_) - 1));
}

void HandFlow::goTo(Step step) {
    step_ = step;
    emit stepChanged(step_);
}

qint64 HandFlow::elapsedMs() const { return clock_.isValid() ? clock_.elapsed() : 0; }

sc::IdleStep HandFlow::everyoneStuck() {
    if (!idle_) return {};
    sc::IdleStep step = idle_->stuck();
    idleText_ = QString::fromStdString(step.instruction);
    if (step.action == sc::IdleAction::EndHand) {
        endedStuck_ = true;
        setCaller(std::nullopt);
        startScoring();
    }
    emit countsChanged();
    return step;
}

void HandFlow::cardPlayed() {
    if (idle_) idle_->played();
    idleText_ = "A card was played: the stuck count starts again.";
    emit countsChanged();
}

bool HandFlow::addFalseCall(int side, QString* why) {
    if (!game_ || !game_->game.rules().hasFalseCalls()) {
        if (why) *why = "These rules have no false-call penalty.";
        return false;
    }
    ++falseCalls_.at(side);
    emit countsChanged();
    return true;
}

void HandFlow::startScoring() { goTo(Step::Called); }

void HandFlow::setCaller(std::optional<int> side) {
    caller_ = side;
    callerChosen_ = true;
    if (side) nertzLeft_.at(*side) = 0;
    emit countsChanged();
}

namespace {
// Card names typed with spaces, commas or semicolons between them ("7H KS, 5C"). Returns an error
// message naming the first word that is no card of `kind`, empty when every word is one.
QString parseCards(const QString& text, sc::DeckKind kind, std::vector<sc::Card>& cards) {
    for (const QString& word : text.split(QRegularExpression("[\\s,;]+"), Qt::SkipEmptyParts)) {
        const auto card = sc::parseCard(word.toStdString(), kind);
        if (!card) return QString("\"%1\" is not a card name (like 7H, KS, 10D%2)").arg(word, kind == sc::DeckKind::NertzColour ? "; here 7B, 13W" : "");
        cards.push_back(*card);
    }
    return {};
}
}  // namespace

QString HandFlow::setLakeTops(const QString& text, int closedKings) {
    std::vector<sc::Card> cards;
    const auto kind = game_ ? game_->game.rules().deck : sc::DeckKind::Standard;
    if (QString err = parseCards(text, kind, cards); !err.isEmpty()) return err;
    if (closedKings < 0) return "closed king piles cannot be negative";
    lakeTopsText_ = text.trimmed();
    lakeTops_ = std::move(cards);
    closedKings_ = closedKings;
    emit countsChanged();
    return {};
}

sc::PileCheck HandFlow::checkPile(const QString& text, QString* error) const {
    std::vector<sc::Card> cards;
    const auto kind = game_ ? game_->game.rules().deck : sc::DeckKind::Standard;
    const QString err = parseCards(text, kind, cards);
    if (error) *error = err;
    if (!err.isEmpty()) {
        sc::PileCheck none;
        none.ok = false;
        return none;
    }
    return sc::checkLakePile(cards);
}

std::optional<int> HandFlow::expectedLake() const {
    if (lakeTops_.empty() && closedKings_ == 0) return std::nullopt;
    return sc::expectedLakeCards(lakeTops_, closedKings_);
}

void HandFlow::adjustLake(int side, int delta) { setLake(side, lake_.at(side) + delta); }

void HandFlow::setLake(int side, int value) {
    lake_.at(side) = std::clamp(value, 0, sc::kDeckSize);
    emit countsChanged();
}

void HandFlow::adjustNertzLeft(int side, int delta) { setNertzLeft(side, nertzLeft_.at(side) + delta); }

void HandFlow::setNertzLeft(int side, int value) {
    nertzLeft_.at(side) = std::clamp(value, 0, pileSize(side));
    emit countsChanged();
}

int HandFlow::pileSize(int side) const {
    if (!game_) return 13;
    return game_->game.sides().at(side).pileSize.value_or(game_->game.rules().pileSize);
}

int HandFlow::lakeTotal() const { return std::accumulate(lake_.begin(), lake_.end(), 0); }

sc::HandResult HandFlow::result() const {
    sc::HandResult hand;
    const bool falseCallsCount = game_ && game_->game.rules().hasFalseCalls();
    for (int i = 0; i < sideCount(); ++i) {
        sc::SideHand s;
        s.name = game_->game.sides()[i].name;
        s.lake = lake_[i];
        s.nertzLeft = nertzLeft_[i];
        s.called = caller_ == i;
        s.falseCalls = falseCallsCount ? falseCalls_[i] : 0;
        hand.sides.push_back(s);
    }
    hand.end = caller_ ? sc::HandEnd::Nertz : sc::HandEnd::Stuck;
    return hand;
}

HandFlow::Review HandFlow::review() const {
    Review r;
    if (!game_) {
        r.error = "no game";
        return r;
    }
    const sc::HandResult hand = result();
    r.totalsBefore = game_->game.totals();
    try {
        sc::Game copy = game_->game;
        r.score = copy.addHand(hand);
        r.totalsAfter = copy.totals();
        const auto outcome = copy.outcome();
        r.gameOverAfter = outcome.over;
        if (outcome.winner) r.outcome = QString::fromStdString(*outcome.winner) + " wins the game";
        else if (outcome.over) r.outcome = "The game ends in a shared first place";
    } catch (const std::exception& e) {
        r.error = QString::fromUtf8(e.what());
    }
    if (!lakeTops_.empty() || closedKings_ > 0) {
        r.checksum = sc::checkLakeChecksum(lakeTops_, closedKings_, hand);
        if (!r.checksum->ok()) r.warnings << QString::fromStdString(r.checksum->message());
    } else {
        r.warnings << "No lake tops entered: the lake count is not checked against a checksum.";
    }
    const auto kind = game_->game.rules().deck;
    for (int i = 0; i < sideCount(); ++i)
        for (const auto& w : sc::checkDeck(hand.sides[i].name, {}, nertzLeft_[i], pileSize(i), kind))
            r.warnings << QString::fromStdString(w);
    if (lakeTotal() == 0) r.warnings << "No lake cards counted for anybody.";
    if (!caller_ && !endedStuck_)
        r.warnings << "Nobody called: the hand is scored as ended all stuck.";
    return r;
}

int HandFlow::save(const QString& enteredBy, const QString& confirmedBy) {
    if (!game_) throw sc::InputError("game", "no game open");
    const QStringList who = people();
    if (!who.contains(enteredBy)) throw sc::InputError("entered_by", "choose who entered the hand");
    if (!who.contains(confirmedBy)) throw sc::InputError("confirmed_by", "choose a second player to confirm");
    if (enteredBy == confirmedBy)
        throw sc::InputError("confirmed_by", "the hand must be confirmed by a second player, not by who entered it");
    db::HandMeta meta;
    meta.enteredBy = enteredBy.toStdString();
    meta.confirmedBy = confirmedBy.toStdString();
    meta.lakeChecksum = expectedLake();
    const int number = service_.addHand(gameId_, result(), meta);
    reload();
    emit saved(number);
    newHand();
    return number;
}

void HandFlow::undoLastHand(const QString& who) {
    if (!game_ || game_->game.hands().empty()) throw sc::InputError("hand", "there is no hand to undo in this game");
    const int number = static_cast<int>(game_->game.hands().size());
    Undone u{gameId_, number, game_->game.hands().back(), game_->meta.at(number - 1)};
    service_.deleteHand(gameId_, number, who, "undo");
    undone_ = u;
    reload();
    newHand();
}

bool HandFlow::canRestore() const {
    return undone_ && game_ && undone_->gameId == gameId_ && undone_->number == static_cast<int>(game_->game.hands().size()) + 1;
}

int HandFlow::restoreUndone(const QString& who) {
    if (!canRestore()) throw sc::InputError("hand", "there is no undone hand to restore (only the last undo, before a new hand is saved)");
    db::HandMeta meta = undone_->meta;
    meta.enteredAt.clear();  // stored now; who confirmed it stays
    const int number = service_.addHand(gameId_, undone_->hand, meta);
    service_.addAudit(gameId_, number, who, "restore_hand", "redo of an undo");
    undone_.reset();
    reload();
    newHand();
    return number;
}

}  // namespace nertz::gui
