// LeagueService: the app's one door to the league database (nertz::db). Screens call it with
// intents and listen to changed(); every call is a db transaction, errors are exceptions with a
// message for the user (db::DbInputError / scoring::InputError) and never leave partial data.
#pragma once
#include <QMap>
#include <QObject>
#include <QString>
#include <memory>
#include <optional>

#include "nertz/db/database.hpp"
#include "nertz/db/games.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"
#include "nertz/db/stats.hpp"

namespace nertz::gui {

class LeagueService : public QObject {
    Q_OBJECT
public:
    // Opens (creating) the database file; throws db::DbInputError when it is not a league file.
    explicit LeagueService(const QString& path, QObject* parent = nullptr);
    ~LeagueService() override;
    QString path() const;
    db::Database& database() { return *db_; }

    std::vector<db::League> leagues();
    std::int64_t addLeague(const QString& name);
    std::vector<db::Season> seasons(std::int64_t leagueId);
    std::int64_t addSeason(const QString& league, const QString& name);

    std::vector<db::Player> players();
    std::int64_t addPlayer(const QString& name);
    void renamePlayer(const QString& from, const QString& to);
    std::vector<db::Deck> decks();
    std::int64_t addDeck(const QString& owner, const QString& name, const QString& colour,
                         std::vector<std::uint8_t> backSignature = {});
    // Stores a deck's enrolled back signature and its overlay colour (empty colour: kept).
    void setDeckBack(std::int64_t deckId, const std::vector<std::uint8_t>& backSignature, const QString& colour = {});
    // The deck each seat of a game plays with (nullopt where none was chosen).
    std::vector<std::optional<db::Deck>> seatDecks(std::int64_t gameId);
    // Seat -> overlay colour: the seat's deck, else (older games) the first member's first deck.
    QMap<QString, QString> seatColours(std::int64_t gameId);

    std::int64_t createGame(const db::NewGame& game);
    db::StoredGame loadGame(std::int64_t gameId);
    std::vector<std::int64_t> gameIds(std::int64_t leagueId);
    int addHand(std::int64_t gameId, const scoring::HandResult& hand, const db::HandMeta& meta);
    void editHand(std::int64_t gameId, int number, const scoring::HandResult& hand, const db::HandMeta& meta,
                  const QString& reason);
    void deleteHand(std::int64_t gameId, int number, const QString& who, const QString& reason);
    std::vector<db::AuditEntry> audit(std::int64_t gameId);
    void addAudit(std::int64_t gameId, int handNumber, const QString& who, const QString& action, const QString& reason);

    std::vector<db::StandingRow> standings(std::int64_t leagueId, std::optional<std::int64_t> seasonId = {});
    db::PlayerStats playerStats(const QString& player);
    db::HeadToHead headToHead(const QString& a, const QString& b);
    // Writes the league's standings as CSV; throws std::runtime_error when the file cannot be written.
    void exportStandingsCsv(std::int64_t leagueId, const QString& path);

    // Fills an empty database with a small example league (3 players, decks, two games) so a
    // first look at the screens has something in them; refuses (returns false) if not empty.
    bool seedExample();

signals:
    void changed();

private:
    std::unique_ptr<db::Database> db_;
};

}  // namespace nertz::gui
