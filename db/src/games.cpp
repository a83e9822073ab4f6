#include "nertz/db/games.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"
#include "nertz/db/ratings.hpp"
#include "nertz/scoring/error.hpp"

namespace nertz::db {
namespace sc = nertz::scoring;

std::string playerGameStatsSql(const std::string& gameFilter);  // schema.cpp

namespace {

template <typename E, typename Parse>
E parseEnum(const std::string& text, Parse parse, const char* column) {
    auto v = parse(text);
    if (!v) throw SqliteError(0, std::string("corrupt value '") + text + "' in games." + column);
    return *v;
}

std::int64_t findOrCreateTeam(Database& db, PlayerRepo& players, const sc::Side& side, const std::string& field) {
    std::vector<std::int64_t> memberIds;
    for (std::size_t m = 0; m < side.members.size(); ++m) {
        memberIds.push_back(players.idOf(side.members[m], field + ".members[" + std::to_string(m) + "]"));
    }
    if (players.find(side.name)) {
        throw DbInputError(field + ".name", "'" + side.name + "' is a player's name; give the team another name");
    }
    auto& find = db.cached("SELECT id FROM teams WHERE name = ?");
    find.bind(1, side.name);
    std::optional<std::int64_t> id;
    if (find.step()) id = find.getInt(0);
    find.reset();
    if (id) {
        auto& mem = db.cached("SELECT player_id FROM team_members WHERE team_id = ? ORDER BY player_id");
        mem.bind(1, *id);
        std::set<std::int64_t> have;
        while (mem.step()) have.insert(mem.getInt(0));
        mem.reset();
        if (have != std::set<std::int64_t>(memberIds.begin(), memberIds.end())) {
            throw DbInputError(field + ".members", "team '" + side.name + "' already exists with other members");
        }
        return *id;
    }
    db.cached("INSERT INTO teams(name) VALUES(?)").bind(1, side.name).run();
    const std::int64_t teamId = db.lastInsertId();
    for (std::int64_t p : memberIds) db.cached("INSERT INTO team_members(team_id, player_id) VALUES(?, ?)").bindAll(teamId, p).run();
    return teamId;
}

}  // namespace

std::string describeHand(const sc::HandResult& hand) {
    std::string out(sc::toString(hand.end));
    for (const sc::SideHand& s : hand.sides) {
        out += " | " + s.name + " " + std::to_string(s.lake) + "/" + std::to_string(s.nertzLeft);
        if (s.called) out += " called";
        if (s.falseCalls) out += " false_calls=" + std::to_string(s.falseCalls);
        if (s.pileSize) out += " pile=" + std::to_string(*s.pileSize);
    }
    return out;
}

std::int64_t GameRepo::insertGame(const NewGame& g) {
    LeagueRepo leagues(db_);
    PlayerRepo players(db_);
    const std::int64_t leagueId = leagues.idOf(g.league);
    std::optional<std::int64_t> seasonId;
    if (g.season) seasonId = leagues.seasonId(leagueId, *g.season);
    const std::string date = g.date.empty() ? localToday() : g.date;
    checkDate(date);
    // Validates the sides and rules exactly as the scoring core does.
    const sc::Game check(g.rules, g.sides);
    const std::int64_t eventId = leagues.eventFor(leagueId, date);
    const sc::RuleSet& r = g.rules;
    db_.cached(
           "INSERT INTO games(league_id, season_id, event_id, played_on, created_at, over, rules_id, rules_name, "
           "rules_source, lake_card_points, nertz_card_points, penalty_payers, caller_bonus, false_call_points, "
           "target, at_target, settlement, pile_size, min_team_size, max_team_size, deck, idle_stock_action, "
           "idle_before_nertz_burn, idle_before_hand_ends, idle_scope) "
           "VALUES(?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
        .bindAll(leagueId, seasonId, eventId, date, g.createdAt.empty() ? utcNow() : g.createdAt, r.id, r.name,
                 r.source, r.lakeCardPoints, r.nertzCardPoints, std::string(sc::toString(r.penaltyPayers)),
                 r.callerBonus, r.falseCallPoints, r.target, std::string(sc::toString(r.atTarget)),
                 std::string(sc::toString(r.settlement)), r.pileSize, r.minTeamSize, r.maxTeamSize,
                 std::string(sc::deckKindName(r.deck)), std::string(sc::toString(r.idle.stockAction)),
                 r.idle.stockActionsBeforeNertzBurn, r.idle.stockActionsBeforeHandEnds,
                 std::string(sc::toString(r.idle.scope)))
        .run();
    const std::int64_t gameId = db_.lastInsertId();
    for (std::size_t seat = 0; seat < g.sides.size(); ++seat) {
        const sc::Side& side = g.sides[seat];
        const bool team = !side.members.empty();
        const std::string field = (team ? "teams[" : "players[") + std::to_string(seat) + "]";
        std::optional<std::int64_t> teamId;
        std::vector<std::int64_t> memberIds;
        if (team) {
            teamId = findOrCreateTeam(db_, players, side, field);
            for (const std::string& m : side.members) memberIds.push_back(*players.find(m));
        } else {
            memberIds.push_back(players.idOf(side.name, field));
        }
        std::optional<std::int64_t> deckId;
        if (seat < g.seatDecks.size()) deckId = g.seatDecks[seat];
        if (deckId) PlayerRepo(db_).deck(*deckId);  // DbInputError("deck") when unknown
        db_.cached("INSERT INTO game_sides(game_id, seat, team_id, pile_size, total, deck_id) VALUES(?, ?, ?, ?, 0, ?)")
            .bindAll(gameId, static_cast<int>(seat), teamId, side.pileSize, deckId)
            .run();
        for (std::int64_t p : memberIds) {
            db_.cached("INSERT INTO game_players(game_id, seat, player_id) VALUES(?, ?, ?)")
                .bindAll(gameId, static_cast<int>(seat), p)
                .run();
        }
    }
    return gameId;
}

std::vector<std::optional<std::int64_t>> GameRepo::seatDecks(std::int64_t gameId) {
    auto& st = db_.cached("SELECT deck_id FROM game_sides WHERE game_id = ? ORDER BY seat");
    st.bind(1, gameId);
    std::vector<std::optional<std::int64_t>> out;
    while (st.step()) out.push_back(st.getOptInt(0));
    st.reset();
    if (out.empty()) throw DbInputError("game", "no game with id " + std::to_string(gameId));
    return out;
}

void GameRepo::setSeatDeck(std::int64_t gameId, int seat, std::optional<std::int64_t> deckId) {
    Transaction tx(db_);
    const auto seats = seatDecks(gameId);
    if (seat < 0 || seat >= static_cast<int>(seats.size()))
        throw DbInputError("seat", "game " + std::to_string(gameId) + " has no seat " + std::to_string(seat));
    if (deckId) PlayerRepo(db_).deck(*deckId);
    db_.cached("UPDATE game_sides SET deck_id = ? WHERE game_id = ? AND seat = ?").bindAll(deckId, gameId, seat).run();
    tx.commit();
}

std::int64_t GameRepo::create(const NewGame& game) {
    Transaction tx(db_);
    const std::int64_t id = insertGame(game);
    saveFrom(id, sc::Game(game.rules, game.sides), {}, 0);
    tx.commit();
    return id;
}

namespace {
// Who entered and confirmed a hand is shown and printed as it is given: UTF-8 (checkText).
void checkMeta(const HandMeta& m) {
    checkText(m.enteredBy, "entered_by");
    if (m.confirmedBy) checkText(*m.confirmedBy, "confirmed_by");
}
}  // namespace

std::int64_t GameRepo::record(const NewGame& game, const std::vector<sc::HandResult>& hands,
                              const std::vector<HandMeta>& meta) {
    if (!meta.empty() && meta.size() != 1 && meta.size() != hands.size()) {
        throw sc::InputError("hands", "one hand record per hand is needed");
    }
    for (const HandMeta& m : meta) checkMeta(m);
    sc::Game g(game.rules, game.sides);
    for (std::size_t h = 0; h < hands.size(); ++h) {
        try {
            g.addHand(hands[h]);
        } catch (const sc::InputError& e) {
            const std::string f = "hands[" + std::to_string(h) + "]";
            throw sc::InputError(e.field().rfind("hands[", 0) == 0 ? e.field() : f + "." + e.field(),
                                 std::string(e.what()).substr(e.field().empty() ? 0 : e.field().size() + 2));
        }
    }
    std::vector<HandMeta> all;
    for (std::size_t h = 0; h < hands.size(); ++h) all.push_back(meta.empty() ? HandMeta{} : meta.size() == 1 ? meta[0] : meta[h]);
    Transaction tx(db_);
    const std::int64_t id = insertGame(game);
    saveFrom(id, g, all, 0);
    tx.commit();
    return id;
}

int GameRepo::addHand(std::int64_t gameId, sc::HandResult hand, const HandMeta& meta) {
    checkMeta(meta);
    Transaction tx(db_);
    StoredGame s = loadUnlocked(gameId);
    s.game.addHand(std::move(hand));
    s.meta.push_back(meta);
    saveFrom(gameId, s.game, s.meta, s.game.hands().size() - 1);
    tx.commit();
    return static_cast<int>(s.game.hands().size());
}

namespace {
void checkNumber(const StoredGame& s, int number) {
    if (number < 1 || static_cast<std::size_t>(number) > s.game.hands().size()) {
        throw DbInputError("hand", "game " + std::to_string(s.id) + " has no hand " + std::to_string(number) + " (it has " +
                                       std::to_string(s.game.hands().size()) + ")");
    }
}
void checkReason(const std::string& reason) {
    if (reason.find_first_not_of(" \t") == std::string::npos) throw DbInputError("reason", "give a reason for the correction");
    checkText(reason, "reason");
}
}  // namespace

void GameRepo::editHand(std::int64_t gameId, int number, sc::HandResult hand, const HandMeta& meta,
                        const std::string& reason) {
    checkReason(reason);
    checkMeta(meta);
    Transaction tx(db_);
    StoredGame s = loadUnlocked(gameId);
    checkNumber(s, number);
    const std::size_t index = static_cast<std::size_t>(number - 1);
    const std::string oldValue = describeHand(s.game.hands()[index]);
    s.game.editHand(index, std::move(hand));
    HandMeta m = meta;
    m.enteredAt = utcNow();
    if (!m.lakeChecksum) m.lakeChecksum = s.meta[index].lakeChecksum;
    s.meta[index] = m;
    saveFrom(gameId, s.game, s.meta, index);
    addAudit(gameId, {utcNow(), meta.enteredBy, "edit_hand", number, reason, oldValue, describeHand(s.game.hands()[index])});
    tx.commit();
}

void GameRepo::deleteHand(std::int64_t gameId, int number, const std::string& who, const std::string& reason) {
    checkReason(reason);
    checkText(who, "entered_by");
    Transaction tx(db_);
    StoredGame s = loadUnlocked(gameId);
    checkNumber(s, number);
    const std::size_t index = static_cast<std::size_t>(number - 1);
    const std::string oldValue = describeHand(s.game.hands()[index]);
    s.game.deleteHand(index);
    s.meta.erase(s.meta.begin() + static_cast<std::ptrdiff_t>(index));
    saveFrom(gameId, s.game, s.meta, index);
    addAudit(gameId, {utcNow(), who, "delete_hand", number, reason, oldValue, std::nullopt});
    tx.commit();
}

void GameRepo::saveFrom(std::int64_t gameId, const sc::Game& game, const std::vector<HandMeta>& meta, std::size_t from) {
    db_.cached("DELETE FROM hands WHERE game_id = ? AND number > ?").bindAll(gameId, static_cast<std::int64_t>(from)).run();
    auto& insHand = db_.cached(
        "INSERT INTO hands(game_id, number, end_reason, caller_seat, lake_checksum, entered_by, confirmed_by, entered_at) "
        "VALUES(?, ?, ?, ?, ?, ?, ?, ?)");
    auto& insRes = db_.cached(
        "INSERT INTO hand_results(hand_id, seat, lake, nertz_left, called, false_calls, pile_size, lake_points, "
        "penalty, bonus, false_call, score) VALUES(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    const std::string now = utcNow();
    for (std::size_t h = from; h < game.hands().size(); ++h) {
        const sc::HandResult& hand = game.hands()[h];
        const sc::HandScore& score = game.scores()[h];
        const HandMeta m = h < meta.size() ? meta[h] : HandMeta{};
        std::optional<int> caller;
        for (std::size_t i = 0; i < hand.sides.size(); ++i) {
            if (hand.sides[i].called) caller = static_cast<int>(i);
        }
        insHand.bindAll(gameId, static_cast<int>(h + 1), std::string(sc::toString(hand.end)), caller, m.lakeChecksum,
                        m.enteredBy, m.confirmedBy, m.enteredAt.empty() ? now : m.enteredAt)
            .run();
        const std::int64_t handId = db_.lastInsertId();
        for (std::size_t i = 0; i < hand.sides.size(); ++i) {
            const sc::SideHand& s = hand.sides[i];
            const sc::SideScore& r = score.sides[i];
            insRes.bindAll(handId, static_cast<int>(i), s.lake, s.nertzLeft, s.called, s.falseCalls,
                           s.pileSize.value_or(game.rules().pileSize), r.lakePoints, r.penalty, r.bonus, r.falseCall,
                           r.score)
                .run();
        }
    }
    // Totals, results and the game's state.
    const std::vector<int> totals = game.totals();
    const sc::GameOutcome out = game.outcome();
    auto& upd = db_.cached("UPDATE game_sides SET total = ?, result = ? WHERE game_id = ? AND seat = ?");
    for (std::size_t i = 0; i < totals.size(); ++i) {
        std::optional<std::string> result;
        if (out.over) {
            const std::string& name = game.sides()[i].name;
            if (out.winner) {
                result = *out.winner == name ? "win" : "loss";
            } else {
                const bool tied = std::find(out.tiedLeaders.begin(), out.tiedLeaders.end(), name) != out.tiedLeaders.end();
                result = tied ? "tie" : "loss";
            }
        }
        upd.bindAll(totals[i], result, gameId, static_cast<int>(i)).run();
    }
    auto& prev = db_.cached("SELECT over, league_id, played_on FROM games WHERE id = ?");
    prev.bind(1, gameId);
    prev.step();
    const bool wasOver = prev.getInt(0) != 0;
    const std::int64_t leagueId = prev.getInt(1);
    const std::string playedOn = prev.getText(2);
    prev.reset();
    db_.cached("UPDATE games SET over = ? WHERE id = ?").bindAll(out.over, gameId).run();
    // Aggregate rows of this game.
    db_.cached("DELETE FROM player_game_stats WHERE game_id = ?").bind(1, gameId).run();
    db_.cached(playerGameStatsSql("gp.game_id = ?1")).bind(1, gameId).run();
    // Ratings: only finished games count, so re-rate when this game is or was finished.
    if (wasOver || out.over) RatingRepo(db_).recomputeFrom(leagueId, playedOn, gameId);
}

StoredGame GameRepo::load(std::int64_t gameId) { return loadUnlocked(gameId); }

StoredGame GameRepo::loadUnlocked(std::int64_t gameId) {
    auto& g = db_.cached(
        "SELECT l.name, s.name, g.played_on, g.created_at, g.rules_id, g.rules_name, g.rules_source, "
        "g.lake_card_points, g.nertz_card_points, g.penalty_payers, g.caller_bonus, g.false_call_points, g.target, "
        "g.at_target, g.settlement, g.pile_size, g.min_team_size, g.max_team_size, g.deck, g.idle_stock_action, "
        "g.idle_before_nertz_burn, g.idle_before_hand_ends, g.idle_scope "
        "FROM games g JOIN leagues l ON l.id = g.league_id LEFT JOIN seasons s ON s.id = g.season_id WHERE g.id = ?");
    g.bind(1, gameId);
    if (!g.step()) {
        g.reset();
        throw DbInputError("game", "no game with id " + std::to_string(gameId));
    }
    const std::string league = g.getText(0);
    const std::optional<std::string> season = g.getOptText(1);
    const std::string date = g.getText(2), createdAt = g.getText(3);
    sc::RuleSet r;
    r.id = g.getText(4);
    r.name = g.getText(5);
    r.source = g.getText(6);
    r.lakeCardPoints = static_cast<int>(g.getInt(7));
    r.nertzCardPoints = static_cast<int>(g.getInt(8));
    r.penaltyPayers = parseEnum<sc::PenaltyPayers>(g.getText(9), sc::parsePenaltyPayers, "penalty_payers");
    r.callerBonus = static_cast<int>(g.getInt(10));
    r.falseCallPoints = static_cast<int>(g.getInt(11));
    r.target = static_cast<int>(g.getInt(12));
    r.atTarget = parseEnum<sc::AtTarget>(g.getText(13), sc::parseAtTarget, "at_target");
    r.settlement = parseEnum<sc::Settlement>(g.getText(14), sc::parseSettlement, "settlement");
    r.pileSize = static_cast<int>(g.getInt(15));
    r.minTeamSize = static_cast<int>(g.getInt(16));
    r.maxTeamSize = static_cast<int>(g.getInt(17));
    r.deck = parseEnum<sc::DeckKind>(g.getText(18), sc::parseDeckKind, "deck");
    r.idle.stockAction = parseEnum<sc::StockAction>(g.getText(19), sc::parseStockAction, "idle_stock_action");
    if (auto v = g.getOptInt(20)) r.idle.stockActionsBeforeNertzBurn = static_cast<int>(*v);
    if (auto v = g.getOptInt(21)) r.idle.stockActionsBeforeHandEnds = static_cast<int>(*v);
    r.idle.scope = parseEnum<sc::StuckScope>(g.getText(22), sc::parseStuckScope, "idle_scope");
    g.reset();

    // Sides: a team's name, or the player's current name.
    auto& sd = db_.cached(
        "SELECT gs.seat, t.name, gs.pile_size, p.name FROM game_sides gs "
        "LEFT JOIN teams t ON t.id = gs.team_id "
        "JOIN game_players gp ON gp.game_id = gs.game_id AND gp.seat = gs.seat "
        "JOIN players p ON p.id = gp.player_id "
        "WHERE gs.game_id = ? ORDER BY gs.seat, gp.rowid");
    sd.bind(1, gameId);
    std::vector<sc::Side> sides;
    int lastSeat = -1;
    while (sd.step()) {
        const int seat = static_cast<int>(sd.getInt(0));
        if (seat != lastSeat) {
            sc::Side side;
            if (auto team = sd.getOptText(1)) side.name = *team;
            else side.name = sd.getText(3);
            if (auto ps = sd.getOptInt(2)) side.pileSize = static_cast<int>(*ps);
            sides.push_back(std::move(side));
            lastSeat = seat;
        }
        if (!sd.isNull(1)) sides.back().members.push_back(sd.getText(3));
    }
    sd.reset();

    StoredGame out{gameId, league, season, date, createdAt, sc::Game(r, sides), {}};
    auto& hd = db_.cached(
        "SELECT h.number, h.end_reason, h.lake_checksum, h.entered_by, h.confirmed_by, h.entered_at, r.seat, r.lake, "
        "r.nertz_left, r.called, r.false_calls, r.pile_size FROM hands h JOIN hand_results r ON r.hand_id = h.id "
        "WHERE h.game_id = ? ORDER BY h.number, r.seat");
    hd.bind(1, gameId);
    std::vector<sc::HandResult> hands;
    int lastNumber = -1;
    while (hd.step()) {
        const int number = static_cast<int>(hd.getInt(0));
        if (number != lastNumber) {
            sc::HandResult hand;
            hand.end = parseEnum<sc::HandEnd>(hd.getText(1), sc::parseHandEnd, "end_reason");
            hands.push_back(std::move(hand));
            HandMeta m;
            if (auto c = hd.getOptInt(2)) m.lakeChecksum = static_cast<int>(*c);
            m.enteredBy = hd.getText(3);
            m.confirmedBy = hd.getOptText(4);
            m.enteredAt = hd.getText(5);
            out.meta.push_back(std::move(m));
            lastNumber = number;
        }
        const auto seat = static_cast<std::size_t>(hd.getInt(6));
        sc::SideHand s;
        s.name = seat < sides.size() ? sides[seat].name : "?";
        s.lake = static_cast<int>(hd.getInt(7));
        s.nertzLeft = static_cast<int>(hd.getInt(8));
        s.called = hd.getInt(9) != 0;
        s.falseCalls = static_cast<int>(hd.getInt(10));
        s.pileSize = static_cast<int>(hd.getInt(11));
        hands.back().sides.push_back(std::move(s));
    }
    hd.reset();
    for (auto& h : hands) out.game.addHand(std::move(h));
    return out;
}

std::vector<std::int64_t> GameRepo::gameIds(std::int64_t leagueId) {
    auto& st = db_.cached("SELECT id FROM games WHERE league_id = ? ORDER BY played_on, id");
    st.bind(1, leagueId);
    std::vector<std::int64_t> out;
    while (st.step()) out.push_back(st.getInt(0));
    st.reset();
    return out;
}

std::vector<AuditEntry> GameRepo::audit(std::int64_t gameId) {
    auto& st = db_.cached(
        "SELECT at, who, action, hand_number, reason, old_value, new_value FROM audit_log WHERE game_id = ? ORDER BY id");
    st.bind(1, gameId);
    std::vector<AuditEntry> out;
    while (st.step()) {
        AuditEntry e{st.getText(0), st.getText(1), st.getText(2), std::nullopt, st.getOptText(4), st.getOptText(5),
                     st.getOptText(6)};
        if (auto n = st.getOptInt(3)) e.handNumber = static_cast<int>(*n);
        out.push_back(std::move(e));
    }
    st.reset();
    return out;
}

void GameRepo::addAudit(std::int64_t gameId, const AuditEntry& e) {
    db_.cached(
           "INSERT INTO audit_log(at, who, action, game_id, hand_number, reason, old_value, new_value) "
           "VALUES(?, ?, ?, ?, ?, ?, ?, ?)")
        .bindAll(e.at, e.who, e.action, gameId, e.handNumber, e.reason, e.oldValue, e.newValue)
        .run();
}

}  // namespace nertz::db
