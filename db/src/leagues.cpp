#include "nertz/db/leagues.hpp"

#include "nertz/db/players.hpp"

namespace nertz::db {

std::int64_t LeagueRepo::create(const std::string& name, const std::string& createdAt) {
    checkName(name, "name");
    Transaction tx(db_);
    if (find(name)) throw DbInputError("name", "a league called '" + name + "' already exists");
    db_.cached("INSERT INTO leagues(name, created_at) VALUES(?, ?)")
        .bindAll(name, createdAt.empty() ? utcNow() : createdAt)
        .run();
    const std::int64_t id = db_.lastInsertId();
    tx.commit();
    return id;
}

std::vector<League> LeagueRepo::list() {
    auto& st = db_.cached(
        "SELECT l.id, l.name, l.created_at, (SELECT COUNT(*) FROM games g WHERE g.league_id = l.id) "
        "FROM leagues l ORDER BY l.name");
    std::vector<League> out;
    while (st.step()) out.push_back({st.getInt(0), st.getText(1), st.getText(2), st.getInt(3)});
    st.reset();
    return out;
}

std::optional<std::int64_t> LeagueRepo::find(const std::string& name) {
    auto& st = db_.cached("SELECT id FROM leagues WHERE name = ?");
    st.bind(1, name);
    std::optional<std::int64_t> id;
    if (st.step()) id = st.getInt(0);
    st.reset();
    return id;
}

std::int64_t LeagueRepo::idOf(const std::string& name, const std::string& field) {
    if (auto id = find(name)) return *id;
    throw DbInputError(field, "unknown league '" + name + "' (create it with: league create NAME)");
}

League LeagueRepo::get(std::int64_t id) {
    auto& st = db_.cached("SELECT id, name, created_at FROM leagues WHERE id = ?");
    st.bind(1, id);
    if (!st.step()) {
        st.reset();
        throw DbInputError("league", "no league with id " + std::to_string(id));
    }
    League l{st.getInt(0), st.getText(1), st.getText(2), 0};
    st.reset();
    return l;
}

std::int64_t LeagueRepo::createSeason(const std::string& league, const std::string& name) {
    checkName(name, "name");
    Transaction tx(db_);
    const std::int64_t leagueId = idOf(league);
    auto& dup = db_.cached("SELECT 1 FROM seasons WHERE league_id = ? AND name = ?");
    dup.bindAll(leagueId, name);
    const bool exists = dup.step();
    dup.reset();
    if (exists) throw DbInputError("name", "league '" + league + "' already has a season called '" + name + "'");
    db_.cached("INSERT INTO seasons(league_id, name) VALUES(?, ?)").bindAll(leagueId, name).run();
    const std::int64_t id = db_.lastInsertId();
    tx.commit();
    return id;
}

std::vector<Season> LeagueRepo::seasons(std::int64_t leagueId) {
    auto& st = db_.cached("SELECT id, name FROM seasons WHERE league_id = ? ORDER BY id");
    st.bind(1, leagueId);
    std::vector<Season> out;
    while (st.step()) out.push_back({st.getInt(0), st.getText(1)});
    st.reset();
    return out;
}

std::int64_t LeagueRepo::seasonId(std::int64_t leagueId, const std::string& name, const std::string& field) {
    auto& st = db_.cached("SELECT id FROM seasons WHERE league_id = ? AND name = ?");
    st.bindAll(leagueId, name);
    std::optional<std::int64_t> id;
    if (st.step()) id = st.getInt(0);
    st.reset();
    if (!id) throw DbInputError(field, "unknown season '" + name + "' in this league (create it with: season create LEAGUE NAME)");
    return *id;
}

std::int64_t LeagueRepo::eventFor(std::int64_t leagueId, const std::string& date) {
    auto& st = db_.cached("SELECT id FROM events WHERE league_id = ? AND date = ?");
    st.bindAll(leagueId, date);
    std::optional<std::int64_t> id;
    if (st.step()) id = st.getInt(0);
    st.reset();
    if (id) return *id;
    db_.cached("INSERT INTO events(league_id, date) VALUES(?, ?)").bindAll(leagueId, date).run();
    return db_.lastInsertId();
}

}  // namespace nertz::db
