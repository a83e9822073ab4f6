#include "league_service.hpp"

#include <QFile>
#include <QTextStream>
#include <stdexcept>

#include "nertz/scoring/rules.hpp"

namespace nertz::gui {

namespace {
std::string s(const QString& q) { return q.trimmed().toStdString(); }
}  // namespace

LeagueService::LeagueService(const QString& path, QObject* parent)
    : QObject(parent), db_(std::make_unique<db::Database>(path.toStdString())) {}

LeagueService::~LeagueService() = default;

QString LeagueService::path() const { return QString::fromStdString(db_->path()); }

std::vector<db::League> LeagueService::leagues() { return db::LeagueRepo(*db_).list(); }

std::int64_t LeagueService::addLeague(const QString& name) {
    const auto id = db::LeagueRepo(*db_).create(s(name));
    emit changed();
    return id;
}

std::vector<db::Season> LeagueService::seasons(std::int64_t leagueId) { return db::LeagueRepo(*db_).seasons(leagueId); }

std::int64_t LeagueService::addSeason(const QString& league, const QString& name) {
    const auto id = db::LeagueRepo(*db_).createSeason(s(league), s(name));
    emit changed();
    return id;
}

std::vector<db::Player> LeagueService::players() { return db::PlayerRepo(*db_).list(); }

std::int64_t LeagueService::addPlayer(const QString& name) {
    const auto id = db::PlayerRepo(*db_).add(s(name));
    emit changed();
    return id;
}

void LeagueService::renamePlayer(const QString& from, const QString& to) {
    db::PlayerRepo(*db_).rename(s(from), s(to));
    emit changed();
}

std::vector<db::Deck> LeagueService::decks() { return db::PlayerRepo(*db_).decks(); }

std::int64_t LeagueService::addDeck(const QString& owner, const QString& name, const QString& colour,
                                    std::vector<std::uint8_t> backSignature) {
    db::Deck d;
    d.owner = s(owner);
    d.name = s(name);
    if (!colour.trimmed().isEmpty()) d.colour = s(colour);
    d.backSignature = std::move(backSignature);
    const auto id = db::PlayerRepo(*db_).addDeck(d);
    emit changed();
    return id;
}

void LeagueService::addAudit(std::int64_t gameId, int handNumber, const QString& who, const QString& action,
                             const QString& reason) {
    db::AuditEntry e;
    e.at = db::utcNow();
    e.who = who.toStdString();
    e.action = action.toStdString();
    e.handNumber = handNumber;
    e.reason = reason.toStdString();
    db::GameRepo(*db_).addAudit(gameId, e);
    emit changed();
}

void LeagueService::setDeckBack(std::int64_t deckId, const std::vector<std::uint8_t>& backSignature, const QString& colour) {
    std::optional<std::string> c;
    if (!colour.trimmed().isEmpty()) c = s(colour);
    db::PlayerRepo(*db_).setDeckBack(deckId, backSignature, c);
    emit changed();
}

std::vector<std::optional<db::Deck>> LeagueService::seatDecks(std::int64_t gameId) {
    std::vector<std::optional<db::Deck>> out;
    db::PlayerRepo players(*db_);
    for (const auto& id : db::GameRepo(*db_).seatDecks(gameId)) {
        if (id) out.push_back(players.deck(*id));
        else out.push_back(std::nullopt);
    }
    return out;
}

QMap<QString, QString> LeagueService::seatColours(std::int64_t gameId) {
    const auto game = loadGame(gameId);
    const auto seats = seatDecks(gameId);
    const auto all = decks();
    QMap<QString, QString> colours;
    for (std::size_t i = 0; i < game.game.sides().size(); ++i) {
        const auto& side = game.game.sides()[i];
        const QString name = QString::fromStdString(side.name);
        if (i < seats.size() && seats[i]) {
            if (seats[i]->colour) colours[name] = QString::fromStdString(*seats[i]->colour);
            continue;
        }
        const std::string owner = side.members.empty() ? side.name : side.members.front();
        for (const auto& d : all)
            if (d.owner == owner && d.colour) {
                colours[name] = QString::fromStdString(*d.colour);
                break;
            }
    }
    return colours;
}

std::int64_t LeagueService::createGame(const db::NewGame& game) {
    const auto id = db::GameRepo(*db_).create(game);
    emit changed();
    return id;
}

db::StoredGame LeagueService::loadGame(std::int64_t gameId) { return db::GameRepo(*db_).load(gameId); }

std::vector<std::int64_t> LeagueService::gameIds(std::int64_t leagueId) { return db::GameRepo(*db_).gameIds(leagueId); }

int LeagueService::addHand(std::int64_t gameId, const scoring::HandResult& hand, const db::HandMeta& meta) {
    const int n = db::GameRepo(*db_).addHand(gameId, hand, meta);
    emit changed();
    return n;
}

void LeagueService::editHand(std::int64_t gameId, int number, const scoring::HandResult& hand, const db::HandMeta& meta,
                             const QString& reason) {
    if (reason.trimmed().isEmpty()) throw scoring::InputError("reason", "say why the hand is changed");
    db::GameRepo(*db_).editHand(gameId, number, hand, meta, s(reason));
    emit changed();
}

void LeagueService::deleteHand(std::int64_t gameId, int number, const QString& who, const QString& reason) {
    db::GameRepo(*db_).deleteHand(gameId, number, s(who), s(reason));
    emit changed();
}

std::vector<db::AuditEntry> LeagueService::audit(std::int64_t gameId) { return db::GameRepo(*db_).audit(gameId); }

std::vector<db::StandingRow> LeagueService::standings(std::int64_t leagueId, std::optional<std::int64_t> seasonId) {
    return db::standings(*db_, leagueId, seasonId);
}

db::PlayerStats LeagueService::playerStats(const QString& player) { return db::playerStats(*db_, s(player)); }

db::HeadToHead LeagueService::headToHead(const QString& a, const QString& b) {
    return db::headToHead(*db_, s(a), s(b));
}

void LeagueService::exportStandingsCsv(std::int64_t leagueId, const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate | QIODevice::Text))
        throw std::runtime_error("cannot write " + path.toStdString() + ": " + f.errorString().toStdString());
    QTextStream out(&f);
    out << "rank,player,games,wins,losses,ties,points,points_per_game,hands,nertz_calls,call_rate,rating\n";
    int rank = 0;
    for (const auto& r : standings(leagueId)) {
        out << ++rank << ',' << QString::fromStdString(r.player) << ',' << r.games << ',' << r.wins << ','
            << r.losses << ',' << r.ties << ',' << r.points << ',' << QString::number(r.pointsPerGame, 'f', 1) << ','
            << r.hands << ',' << r.nertzCalls << ',' << QString::number(r.callRate, 'f', 3) << ','
            << QString::number(r.rating, 'f', 2) << '\n';
    }
}

bool LeagueService::seedExample() {
    if (!leagues().empty() || !players().empty()) return false;
    db::Transaction tx(*db_);
    db::LeagueRepo(*db_).create("Thursday club");
    db::PlayerRepo repo(*db_);
    for (const char* n : {"Ann", "Bo", "Cy"}) repo.add(n);
    repo.addDeck({0, "Ann", "Red bicycle", "#c62828", {}});
    repo.addDeck({0, "Bo", "Blue bicycle", "#1565c0", {}});
    repo.addDeck({0, "Cy", "Green tally-ho", "#2e7d32", {}});
    auto hand = [](int a, int an, int b, int bn, int c, int cn, int caller) {
        scoring::HandResult h;
        h.sides = {{"Ann", a, an, caller == 0, 0, {}}, {"Bo", b, bn, caller == 1, 0, {}}, {"Cy", c, cn, caller == 2, 0, {}}};
        return h;
    };
    db::GameRepo games(*db_);
    db::NewGame g;
    g.league = "Thursday club";
    g.rules = scoring::preset("nna");
    g.rules.target = 100;
    g.rules.id = "nna-100";
    g.sides = {{"Ann", {}, {}}, {"Bo", {}, {}}, {"Cy", {}, {}}};
    g.date = "2024-05-02";
    games.record(g, {hand(18, 0, 12, 4, 9, 6, 0), hand(11, 5, 20, 0, 14, 2, 1), hand(22, 0, 10, 3, 8, 7, 0),
                     hand(15, 2, 13, 5, 19, 0, 2), hand(24, 0, 9, 6, 12, 3, 0)},
                 {db::HandMeta{"Ann", std::string("Bo"), {}, {}}});
    g.date = "2024-05-09";
    games.record(g, {hand(10, 6, 21, 0, 13, 2, 1), hand(17, 0, 16, 2, 9, 8, 0), hand(12, 4, 23, 0, 11, 5, 1),
                     hand(9, 5, 14, 3, 25, 0, 2), hand(20, 0, 18, 1, 10, 4, 0)},
                 {db::HandMeta{"Bo", std::string("Cy"), {}, {}}});
    g.date = "2024-05-16";  // a game in progress, with a deck per seat
    for (const auto& d : repo.decks()) g.seatDecks.push_back(d.id);  // Ann, Bo, Cy (name order)
    games.record(g, {hand(16, 0, 11, 3, 12, 5, 0), hand(13, 4, 19, 0, 10, 6, 1)},
                 {db::HandMeta{"Cy", std::string("Ann"), {}, {}}});
    tx.commit();
    emit changed();
    return true;
}

}  // namespace nertz::gui
