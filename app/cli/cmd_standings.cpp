// standings, player stats, head-to-head, export (csv/json) and import of a league.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "league_db.hpp"
#include "nertz/db/games.hpp"
#include "nertz/db/leagues.hpp"
#include "nertz/db/players.hpp"
#include "nertz/db/stats.hpp"
#include "nertz/io/json.hpp"

namespace nertz::cli {
namespace sc = nertz::scoring;
namespace fs = std::filesystem;

namespace {

io::Json optJson(const std::optional<std::int64_t>& v) { return v ? io::Json(*v) : io::Json(nullptr); }
io::Json optJson(const std::optional<std::string>& v) { return v ? io::Json(*v) : io::Json(nullptr); }

io::Json standingJson(const db::StandingRow& r) {
    return {{"player", r.player},
            {"games", r.games},
            {"wins", r.wins},
            {"losses", r.losses},
            {"ties", r.ties},
            {"points", r.points},
            {"points_per_game", round1(r.pointsPerGame)},
            {"points_per_hand", round1(r.pointsPerHand)},
            {"hands", r.hands},
            {"nertz_calls", r.nertzCalls},
            {"rating", round1(r.rating)},
            {"win_pct", round1(r.winPct)},
            {"call_rate", std::round(r.callRate * 1000.0) / 1000.0},
            {"lake_per_hand", round1(r.lakePerHand)},
            {"best_hand", optJson(r.bestHand)},
            {"largest_margin", optJson(r.largestMargin)},
            {"mu", std::round(r.mu * 1000.0) / 1000.0},
            {"sigma", std::round(r.sigma * 1000.0) / 1000.0}};
}

const std::vector<std::string> kStandingHeader{"#",    "player", "games", "W",    "L",     "T",    "win%", "points",
                                               "pts/g", "pts/h", "hands", "calls", "call%", "lake/h", "best", "margin",
                                               "rating"};

std::vector<std::string> standingCells(std::size_t rank, const db::StandingRow& r) {
    auto opt = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("-"); };
    return {std::to_string(rank),      r.player,                    std::to_string(r.games), std::to_string(r.wins),
            std::to_string(r.losses),  std::to_string(r.ties),      fixed1(r.winPct),        std::to_string(r.points),
            fixed1(r.pointsPerGame),   fixed1(r.pointsPerHand),     std::to_string(r.hands), std::to_string(r.nertzCalls),
            fixed1(100.0 * r.callRate), fixed1(r.lakePerHand),      opt(r.bestHand),         opt(r.largestMargin),
            fixed1(r.rating)};
}

// A text cell that a spreadsheet would run as a formula (one starting with =, +, -, @, a tab or a
// carriage return: a player called "=HYPERLINK(...)") is written after an apostrophe, which
// spreadsheets read as "this is text" and do not show; a number (a penalty of -6) is written as it
// is. The JSON export carries every name unchanged.
bool formulaLike(const std::string& s) {
    if (s.empty() || std::string("=+-@\t\r").find(s.front()) == std::string::npos) return false;
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    return end != s.c_str() + s.size();  // not a number as a whole
}

std::string csvCell(const std::string& cell) {
    const std::string s = formulaLike(cell) ? "'" + cell : cell;
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string q = "\"";
    for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

std::string csvLine(const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t i = 0; i < cells.size(); ++i) out += (i ? "," : "") + csvCell(cells[i]);
    return out + "\n";
}

// Back signatures travel as lower-case hex (opaque bytes from the vision module).
std::string toHex(const std::vector<std::uint8_t>& bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (std::uint8_t b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

std::vector<std::uint8_t> fromHex(const std::string& text, const std::string& field) {
    auto nibble = [&](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        throw sc::InputError(field, "not hexadecimal");
    };
    if (text.size() % 2) throw sc::InputError(field, "odd number of hex digits");
    std::vector<std::uint8_t> out(text.size() / 2);
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = static_cast<std::uint8_t>(nibble(text[2 * i]) * 16 + nibble(text[2 * i + 1]));
    }
    return out;
}

// The whole league as JSON: deterministic, and enough to rebuild it (import): the league, its
// players, their decks (colour and back signature) and every game with the deck of each seat.
io::Json exportJson(db::Database& db, std::int64_t leagueId) {
    db::LeagueRepo leagues(db);
    db::GameRepo games(db);
    const db::League league = leagues.get(leagueId);
    io::Json seasons = io::Json::array();
    for (const auto& s : leagues.seasons(leagueId)) seasons.push_back(s.name);
    std::map<std::string, std::string> playerCreated;
    for (const auto& p : db::PlayerRepo(db).list()) playerCreated[p.name] = p.createdAt;
    std::set<std::string> used;
    db::PlayerRepo playerRepo(db);
    std::set<std::int64_t> usedDecks;
    io::Json gameList = io::Json::array();
    for (std::int64_t id : games.gameIds(leagueId)) {
        const db::StoredGame s = games.load(id);
        io::Json seatDecks = io::Json::array();
        for (const auto& d : games.seatDecks(id)) {
            if (!d) {
                seatDecks.push_back(nullptr);
                continue;
            }
            const db::Deck deck = playerRepo.deck(*d);
            usedDecks.insert(deck.id);
            seatDecks.push_back({{"owner", deck.owner}, {"name", deck.name}});
        }
        for (const auto& side : s.game.sides()) {
            if (side.members.empty()) used.insert(side.name);
            for (const auto& m : side.members) used.insert(m);
        }
        io::Json hands = io::Json::array();
        for (std::size_t h = 0; h < s.game.hands().size(); ++h) {
            const db::HandMeta& m = s.meta[h];
            hands.push_back({{"hand", io::toJson(s.game.hands()[h])},
                             {"entered_by", m.enteredBy},
                             {"confirmed_by", optJson(m.confirmedBy)},
                             {"entered_at", m.enteredAt},
                             {"lake_checksum", m.lakeChecksum ? io::Json(*m.lakeChecksum) : io::Json(nullptr)}});
        }
        io::Json audit = io::Json::array();
        for (const auto& e : games.audit(id)) {
            audit.push_back({{"at", e.at},
                             {"who", e.who},
                             {"action", e.action},
                             {"hand", e.handNumber ? io::Json(*e.handNumber) : io::Json(nullptr)},
                             {"reason", optJson(e.reason)},
                             {"old", optJson(e.oldValue)},
                             {"new", optJson(e.newValue)}});
        }
        gameList.push_back({{"date", s.date},
                            {"season", optJson(s.season)},
                            {"created_at", s.createdAt},
                            {"rules", io::toJson(s.game.rules())},
                            {"sides", io::sidesToJson(s.game.sides())},
                            {"seat_decks", seatDecks},
                            {"hands", hands},
                            {"audit", audit}});
    }
    io::Json players = io::Json::array();
    io::Json decks = io::Json::array();
    for (const auto& d : playerRepo.decks()) {
        if (!used.count(d.owner) && !usedDecks.count(d.id)) continue;
        if (!used.count(d.owner)) used.insert(d.owner);  // a borrowed deck's owner comes along
        decks.push_back({{"owner", d.owner},
                         {"name", d.name},
                         {"colour", optJson(d.colour)},
                         {"back", d.backSignature.empty() ? io::Json(nullptr) : io::Json(toHex(d.backSignature))}});
    }
    for (const auto& name : used) players.push_back({{"name", name}, {"created_at", playerCreated[name]}});
    return {{"format", "nertzref-league"},
            {"version", 1},
            {"league", {{"name", league.name}, {"created_at", league.createdAt}, {"seasons", seasons}}},
            {"players", players},
            {"decks", decks},
            {"games", gameList}};
}

std::string str(const io::Json& j, const std::string& key, const std::string& field) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_string()) throw sc::InputError(field + "." + key, "missing or not a string");
    return j[key].get<std::string>();
}
std::optional<std::string> optStr(const io::Json& j, const std::string& key, const std::string& field) {
    if (!j.contains(key) || j[key].is_null()) return std::nullopt;
    return str(j, key, field);
}
const io::Json& arr(const io::Json& j, const std::string& key, const std::string& field) {
    if (!j.is_object() || !j.contains(key) || !j[key].is_array()) throw sc::InputError(field + key, "missing or not an array");
    return j[key];
}

// Imports an export into the database in one transaction; returns the league name.
std::string importJson(db::Database& db, const io::Json& j) {
    if (!j.is_object() || !j.contains("format") || j["format"] != "nertzref-league") {
        throw sc::InputError("format", "not a nertzref league export (\"format\": \"nertzref-league\" missing)");
    }
    if (!j.contains("version") || j["version"] != 1) throw sc::InputError("version", "unsupported export version");
    db::Transaction tx(db);
    db::LeagueRepo leagues(db);
    db::PlayerRepo players(db);
    db::GameRepo games(db);
    if (!j.contains("league") || !j["league"].is_object()) throw sc::InputError("league", "missing");
    const io::Json& L = j["league"];
    const std::string name = str(L, "name", "league");
    if (leagues.find(name)) throw sc::InputError("league.name", "a league called '" + name + "' already exists");
    leagues.create(name, str(L, "created_at", "league"));
    for (const auto& s : arr(L, "seasons", "league.")) {
        if (!s.is_string()) throw sc::InputError("league.seasons", "must be names");
        leagues.createSeason(name, s.get<std::string>());
    }
    const io::Json& ps = arr(j, "players", "");
    for (std::size_t i = 0; i < ps.size(); ++i) {
        const std::string f = "players[" + std::to_string(i) + "]";
        const std::string p = str(ps[i], "name", f);
        if (!players.find(p)) players.add(p, str(ps[i], "created_at", f));
    }
    // Decks (absent in exports written before decks were exported). A deck the owner already has
    // under that name is kept as it is (not overwritten).
    if (j.contains("decks")) {
        const io::Json& ds = arr(j, "decks", "");
        for (std::size_t i = 0; i < ds.size(); ++i) {
            const std::string f = "decks[" + std::to_string(i) + "]";
            db::Deck d;
            d.owner = str(ds[i], "owner", f);
            d.name = str(ds[i], "name", f);
            d.colour = optStr(ds[i], "colour", f);
            if (const auto back = optStr(ds[i], "back", f)) d.backSignature = fromHex(*back, f + ".back");
            if (!players.find(d.owner)) throw sc::InputError(f + ".owner", "'" + d.owner + "' is not among the players");
            if (!players.findDeck(d.owner, d.name)) players.addDeck(d);
        }
    }
    const io::Json& gs = arr(j, "games", "");
    for (std::size_t i = 0; i < gs.size(); ++i) {
        const std::string f = "games[" + std::to_string(i) + "]";
        const io::Json& g = gs[i];
        try {
            db::NewGame ng;
            ng.league = name;
            ng.season = optStr(g, "season", f);
            ng.date = str(g, "date", f);
            ng.createdAt = str(g, "created_at", f);
            if (!g.contains("rules")) throw sc::InputError("rules", "missing");
            ng.rules = io::ruleSetFromJson(g["rules"]);
            if (!g.contains("sides")) throw sc::InputError("sides", "missing");
            ng.sides = io::sidesFromJson(g["sides"]);
            if (g.contains("seat_decks")) {
                const io::Json& sd = arr(g, "seat_decks", "");
                if (sd.size() != ng.sides.size()) throw sc::InputError("seat_decks", "one entry per side expected");
                for (std::size_t k = 0; k < sd.size(); ++k) {
                    if (sd[k].is_null()) {
                        ng.seatDecks.push_back(std::nullopt);
                        continue;
                    }
                    const std::string kf = "seat_decks[" + std::to_string(k) + "]";
                    const std::string owner = str(sd[k], "owner", kf), dname = str(sd[k], "name", kf);
                    const auto deck = players.findDeck(owner, dname);
                    if (!deck) throw sc::InputError(kf, "no deck '" + dname + "' of " + owner + " in the export");
                    ng.seatDecks.push_back(deck->id);
                }
            }
            std::vector<sc::HandResult> hands;
            std::vector<db::HandMeta> metas;
            const io::Json& hs = arr(g, "hands", "");
            for (std::size_t h = 0; h < hs.size(); ++h) {
                const std::string hf = "hands[" + std::to_string(h) + "]";
                if (!hs[h].is_object() || !hs[h].contains("hand")) throw sc::InputError(hf + ".hand", "missing");
                hands.push_back(io::handFromJson(hs[h]["hand"], hf + ".hand"));
                db::HandMeta m;
                m.enteredBy = str(hs[h], "entered_by", hf);
                m.confirmedBy = optStr(hs[h], "confirmed_by", hf);
                m.enteredAt = str(hs[h], "entered_at", hf);
                if (hs[h].contains("lake_checksum") && hs[h]["lake_checksum"].is_number_integer()) {
                    m.lakeChecksum = hs[h]["lake_checksum"].get<int>();
                }
                metas.push_back(std::move(m));
            }
            const std::int64_t id = games.record(ng, hands, metas);
            for (const auto& a : arr(g, "audit", "")) {
                db::AuditEntry e{str(a, "at", "audit"), str(a, "who", "audit"), str(a, "action", "audit"),
                                 std::nullopt,           optStr(a, "reason", "audit"), optStr(a, "old", "audit"),
                                 optStr(a, "new", "audit")};
                if (a.contains("hand") && a["hand"].is_number_integer()) e.handNumber = a["hand"].get<int>();
                games.addAudit(id, e);
            }
        } catch (const sc::InputError& e) {
            throw sc::InputError(f + "." + e.field(),
                                 std::string(e.what()).substr(e.field().empty() ? 0 : e.field().size() + 2));
        }
    }
    tx.commit();
    return name;
}

void writeFile(const fs::path& p, const std::string& text) {
    std::ofstream out(p, std::ios::binary);
    out << text;
    if (!out) throw sc::InputError("out", "cannot write '" + p.string() + "'");
}

}  // namespace

void addStandingsCommands(CLI::App& app, Context& ctx) {
    // standings
    auto* standings = app.add_subcommand("standings", "league (or season) standings in rank order");
    auto league = std::make_shared<std::string>();
    auto season = std::make_shared<std::string>();
    auto json = std::make_shared<bool>(false);
    standings->add_option("--league", *league, "league name")->required();
    standings->add_option("--season", *season, "only this season's games");
    standings->add_flag("--json", *json, "JSON output");
    standings->callback([&ctx, league, season, json] {
        auto db = openDb(ctx);
        db::LeagueRepo leagues(*db);
        const std::int64_t id = leagues.idOf(*league);
        std::optional<std::int64_t> sid;
        if (!season->empty()) sid = leagues.seasonId(id, *season);
        const auto rows = db::standings(*db, id, sid);
        if (*json) {
            io::Json arr = io::Json::array();
            for (const auto& r : rows) arr.push_back(standingJson(r));
            std::cout << io::dumpJson(io::Json{{"standings", arr}}) << "\n";
            return;
        }
        std::vector<std::vector<std::string>> cells;
        for (std::size_t i = 0; i < rows.size(); ++i) cells.push_back(standingCells(i + 1, rows[i]));
        std::cout << textTable(kStandingHeader, cells);
    });

    // player stats
    auto* player = app.get_subcommand("player");
    auto* stats = player->add_subcommand("stats", "a player's statistics per league and game history");
    auto pname = std::make_shared<std::string>();
    auto pjson = std::make_shared<bool>(false);
    stats->add_option("NAME", *pname, "player name")->required();
    stats->add_flag("--json", *pjson, "JSON output");
    stats->callback([&ctx, pname, pjson] {
        auto db = openDb(ctx);
        const db::PlayerStats s = db::playerStats(*db, *pname);
        if (*pjson) {
            io::Json leagues = io::Json::array();
            for (const auto& [l, r] : s.leagues) {
                io::Json j = standingJson(r);
                j.erase("player");
                j["league"] = l;
                leagues.push_back(j);
            }
            io::Json hist = io::Json::array();
            for (const auto& e : s.history) {
                hist.push_back({{"game", e.gameId},
                                {"league", e.league},
                                {"date", e.date},
                                {"result", e.result},
                                {"points", e.points},
                                {"hands", e.hands},
                                {"rating_after", e.ratingAfter ? io::Json(round1(*e.ratingAfter)) : io::Json(nullptr)}});
            }
            std::cout << io::dumpJson(io::Json{{"player", s.player}, {"leagues", leagues}, {"history", hist}}) << "\n";
            return;
        }
        std::vector<std::string> header = kStandingHeader;
        header[1] = "league";
        std::vector<std::vector<std::string>> rows;
        for (std::size_t i = 0; i < s.leagues.size(); ++i) {
            auto cells = standingCells(i + 1, s.leagues[i].second);
            cells[1] = s.leagues[i].first;
            rows.push_back(cells);
        }
        std::cout << s.player << "\n" << textTable(header, rows) << "\nhistory\n";
        std::vector<std::vector<std::string>> hist;
        for (const auto& e : s.history) {
            hist.push_back({std::to_string(e.gameId), e.date, e.league, e.result, std::to_string(e.points),
                            std::to_string(e.hands), e.ratingAfter ? fixed1(*e.ratingAfter) : "-"});
        }
        std::cout << textTable({"game", "date", "league", "result", "points", "hands", "rating"}, hist);
    });

    // head-to-head
    auto* h2h = app.add_subcommand("head-to-head", "two players' record against each other");
    auto a = std::make_shared<std::string>();
    auto b = std::make_shared<std::string>();
    auto hleague = std::make_shared<std::string>();
    auto hjson = std::make_shared<bool>(false);
    h2h->add_option("A", *a, "first player")->required();
    h2h->add_option("B", *b, "second player")->required();
    h2h->add_option("--league", *hleague, "only games of this league");
    h2h->add_flag("--json", *hjson, "JSON output");
    h2h->callback([&ctx, a, b, hleague, hjson] {
        auto db = openDb(ctx);
        std::optional<std::int64_t> lid;
        if (!hleague->empty()) lid = db::LeagueRepo(*db).idOf(*hleague);
        const db::HeadToHead r = db::headToHead(*db, *a, *b, lid);
        if (*hjson) {
            io::Json games = io::Json::array();
            for (const auto& g : r.list) {
                games.push_back({{"game", g.gameId}, {"date", g.date}, {"a_points", g.aPoints}, {"b_points", g.bPoints}});
            }
            std::cout << io::dumpJson(io::Json{{"a", r.a},           {"b", r.b},         {"games", r.games},
                                  {"a_wins", r.aWins},  {"b_wins", r.bWins}, {"ties", r.ties},
                                  {"a_points", r.aPoints}, {"b_points", r.bPoints}, {"list", games}})
                      << "\n";
            return;
        }
        std::cout << r.a << " vs " << r.b << ": " << r.games << " games, " << r.a << " ahead " << r.aWins << ", " << r.b
                  << " ahead " << r.bWins << ", level " << r.ties << "; points " << r.aPoints << " - " << r.bPoints << "\n";
        std::vector<std::vector<std::string>> rows;
        for (const auto& g : r.list) {
            rows.push_back({std::to_string(g.gameId), g.date, std::to_string(g.aPoints), std::to_string(g.bPoints)});
        }
        if (!rows.empty()) std::cout << textTable({"game", "date", r.a, r.b}, rows);
    });

    // export
    auto* exp = app.add_subcommand("export", "export a league as CSV tables or one JSON file");
    auto eleague = std::make_shared<std::string>();
    auto format = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    exp->add_option("--league", *eleague, "league name")->required();
    exp->add_option("--format", *format, "csv or json")->required()->check(CLI::IsMember({"csv", "json"}));
    exp->add_option("--out", *out, "a folder (csv: hands.csv, standings.csv) or a file; default: stdout");
    exp->callback([&ctx, eleague, format, out] {
        auto db = openDb(ctx);
        const std::int64_t id = db::LeagueRepo(*db).idOf(*eleague);
        if (*format == "json") {
            const std::string text = io::dumpJson(exportJson(*db, id), 2) + "\n";
            if (out->empty()) {
                std::cout << text;
            } else {
                fs::path p(*out);
                if (fs::is_directory(p)) p /= *eleague + ".json";
                writeFile(p, text);
            }
            return;
        }
        // CSV: one row per side per hand, and the standings.
        std::string hands = csvLine({"game", "date", "season", "hand", "side", "members", "lake", "nertz_left", "called",
                                     "false_calls", "pile_size", "lake_points", "penalty", "bonus", "false_call",
                                     "score", "entered_by", "confirmed_by"});
        db::GameRepo games(*db);
        for (std::int64_t gid : games.gameIds(id)) {
            const db::StoredGame s = games.load(gid);
            for (std::size_t h = 0; h < s.game.hands().size(); ++h) {
                for (std::size_t i = 0; i < s.game.sides().size(); ++i) {
                    const auto& side = s.game.sides()[i];
                    const auto& sh = s.game.hands()[h].sides[i];
                    const auto& sc2 = s.game.scores()[h].sides[i];
                    std::string members;
                    for (const auto& m : side.members) members += (members.empty() ? "" : "+") + m;
                    hands += csvLine({std::to_string(gid), s.date, s.season.value_or(""), std::to_string(h + 1), side.name,
                                      members.empty() ? side.name : members, std::to_string(sh.lake),
                                      std::to_string(sh.nertzLeft), sh.called ? "1" : "0", std::to_string(sh.falseCalls),
                                      std::to_string(sh.pileSize.value_or(s.game.rules().pileSize)),
                                      std::to_string(sc2.lakePoints), std::to_string(sc2.penalty), std::to_string(sc2.bonus),
                                      std::to_string(sc2.falseCall), std::to_string(sc2.score), s.meta[h].enteredBy,
                                      s.meta[h].confirmedBy.value_or("")});
                }
            }
        }
        std::string table = csvLine({"rank", "player", "games", "wins", "losses", "ties", "win_pct", "points",
                                     "points_per_game", "points_per_hand", "hands", "nertz_calls", "call_rate",
                                     "lake_per_hand", "best_hand", "largest_margin", "rating"});
        const auto rows = db::standings(*db, id);
        for (std::size_t i = 0; i < rows.size(); ++i) {
            auto cells = standingCells(i + 1, rows[i]);
            cells[14] = cells[14] == "-" ? "" : cells[14];
            cells[15] = cells[15] == "-" ? "" : cells[15];
            cells[12] = fixed1(100.0 * rows[i].callRate);
            table += csvLine(cells);
        }
        if (out->empty()) {
            std::cout << hands;
        } else if (fs::is_directory(*out) || fs::path(*out).extension().empty()) {
            std::error_code ec;
            fs::create_directories(*out, ec);
            writeFile(fs::path(*out) / "hands.csv", hands);
            writeFile(fs::path(*out) / "standings.csv", table);
        } else {
            writeFile(*out, hands);
        }
    });

    // import
    auto* imp = app.add_subcommand("import", "import a league from a JSON export (one transaction)");
    auto file = std::make_shared<std::string>();
    imp->add_option("FILE", *file, "a file written by: export --format json")->required();
    imp->callback([&ctx, file] {
        const io::Json j = io::readJsonFile(*file);
        auto db = openDb(ctx);
        const std::string name = importJson(*db, j);
        std::cout << "imported league " << name << "\n";
    });
}

}  // namespace nertz::cli
