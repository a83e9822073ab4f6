// game record/start/show and hand add/edit/delete: games of a league, kept in the database.
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "league_db.hpp"
#include "nertz/db/games.hpp"
#include "nertz/db/players.hpp"
#include "nertz/io/json.hpp"
#include "rule_options.hpp"

namespace nertz::cli {
namespace sc = nertz::scoring;

namespace {

struct Placement {
    std::string league, season, date;
    void addTo(CLI::App* cmd) {
        cmd->add_option("--league", league, "league name")->required();
        cmd->add_option("--season", season, "season name");
        cmd->add_option("--date", date, "date played, YYYY-MM-DD (default: today)");
    }
    db::NewGame newGame(sc::RuleSet rules, std::vector<sc::Side> sides) const {
        db::NewGame g;
        g.league = league;
        if (!season.empty()) g.season = season;
        if (!date.empty()) db::checkDate(date);
        g.date = date;
        g.rules = std::move(rules);
        g.sides = std::move(sides);
        return g;
    }
};

struct Who {
    std::string enteredBy = defaultUser(), confirmedBy;
    void addTo(CLI::App* cmd, bool confirm = true) {
        cmd->add_option("--entered-by", enteredBy, "who entered it (default: $USER)");
        if (confirm) cmd->add_option("--confirmed-by", confirmedBy, "who confirmed it");
    }
    db::HandMeta meta() const {
        db::HandMeta m;
        m.enteredBy = enteredBy;
        if (!confirmedBy.empty()) m.confirmedBy = confirmedBy;
        return m;
    }
};

std::int64_t gameIdOf(const std::string& text) {
    try {
        std::size_t used = 0;
        const long long id = std::stoll(text, &used);
        if (used == text.size() && id > 0) return id;
    } catch (const std::exception&) {
    }
    throw sc::InputError("game", "'" + text + "' is not a game id");
}

// The expected lake count from "lake_tops"/"closed_piles" when the hand gives them.
std::optional<int> lakeChecksum(const io::Json& in, const sc::HandResult& hand, sc::DeckKind kind) {
    if (!in.is_object() || !in.contains("lake_tops")) return std::nullopt;
    const io::Json& tops = in["lake_tops"];
    if (!tops.is_array()) throw sc::InputError("lake_tops", "must be an array of card names");
    std::vector<sc::Card> cards;
    for (std::size_t i = 0; i < tops.size(); ++i) {
        const std::string f = "lake_tops[" + std::to_string(i) + "]";
        auto c = tops[i].is_string() ? sc::parseCard(tops[i].get<std::string>(), kind) : std::nullopt;
        if (!c) throw sc::InputError(f, "must be a card name such as \"7H\"");
        cards.push_back(*c);
    }
    int closed = 0;
    if (in.contains("closed_piles")) {
        if (!in["closed_piles"].is_number_integer()) throw sc::InputError("closed_piles", "must be a whole number");
        closed = in["closed_piles"].get<int>();
    }
    return sc::checkLakeChecksum(cards, closed, hand).expected;
}

std::string totalsLine(const sc::Game& g) {
    const auto totals = g.totals();
    std::string out;
    for (std::size_t i = 0; i < totals.size(); ++i) {
        out += (i ? ", " : "") + g.sides()[i].name + " " + std::to_string(totals[i]);
    }
    const sc::GameOutcome o = g.outcome();
    if (o.over) out += o.winner ? "; game over, " + *o.winner + " wins" : "; game over, tied";
    return out;
}

io::Json auditJson(const db::AuditEntry& e) {
    auto opt = [](const std::optional<std::string>& s) { return s ? io::Json(*s) : io::Json(nullptr); };
    return {{"at", e.at},           {"who", e.who},           {"action", e.action},
            {"hand", e.handNumber ? io::Json(*e.handNumber) : io::Json(nullptr)},
            {"reason", opt(e.reason)}, {"old", opt(e.oldValue)}, {"new", opt(e.newValue)}};
}

}  // namespace

void addGamesCommands(CLI::App& app, Context& ctx) {
    CLI::App* game = app.get_subcommand("game");  // registered by addScoreCommands

    // game record
    auto* record = game->add_subcommand("record", "store a whole game (the game JSON on stdin) in a league");
    auto recPlace = std::make_shared<Placement>();
    auto recRules = std::make_shared<RuleChoice>();
    auto recWho = std::make_shared<Who>();
    recPlace->addTo(record);
    recRules->addTo(record);
    recWho->addTo(record);
    record->callback([&ctx, recPlace, recRules, recWho] {
        const sc::RuleSet rules = recRules->resolve();
        const io::Json in = io::parseJson(readStdin(), "the game on stdin");
        const sc::Game g = io::gameFromJson(in, rules);
        db::NewGame ng = recPlace->newGame(rules, g.sides());
        auto db = openDb(ctx);
        const std::int64_t id = db::GameRepo(*db).record(ng, g.hands(), {recWho->meta()});
        std::cout << id << "\n";
    });

    // game start
    auto* start = game->add_subcommand("start", "start a game for hand-by-hand entry; prints its id");
    auto stPlace = std::make_shared<Placement>();
    auto stRules = std::make_shared<RuleChoice>();
    auto players = std::make_shared<std::vector<std::string>>();
    auto teams = std::make_shared<std::vector<std::string>>();
    stPlace->addTo(start);
    stRules->addTo(start);
    start->add_option("--players", *players, "players, comma separated: Ann,Bo,Cy")->delimiter(',');
    start->add_option("--teams", *teams, "teams, comma separated, members joined by '+': T1=Ann+Cy,T2=Bo+Di")
        ->delimiter(',');
    auto decks = std::make_shared<std::vector<std::string>>();
    start->add_option("--decks", *decks,
                      "the deck of each seat in order, OWNER:NAME, '-' for none: Ann:Red,Bo:Blue (used to count the lake by backs)")
        ->delimiter(',');
    start->callback([&ctx, stPlace, stRules, players, teams, decks] {
        const sc::RuleSet rules = stRules->resolve();
        if (players->empty() == teams->empty()) throw sc::InputError("players", "give --players or --teams");
        std::vector<sc::Side> sides;
        for (const auto& p : *players) sides.push_back({p, {}, {}});
        for (std::size_t i = 0; i < teams->size(); ++i) {
            const std::string& t = (*teams)[i];
            const auto eq = t.find('=');
            if (eq == std::string::npos || eq == 0) throw sc::InputError("teams[" + std::to_string(i) + "]", "write NAME=A+B");
            sc::Side side{t.substr(0, eq), {}, {}};
            std::stringstream ss(t.substr(eq + 1));
            for (std::string m; std::getline(ss, m, '+');) side.members.push_back(m);
            sides.push_back(std::move(side));
        }
        if (!decks->empty() && decks->size() != sides.size()) {
            throw sc::InputError("decks", "give one deck per seat (" + std::to_string(sides.size()) + "), '-' for none");
        }
        auto db = openDb(ctx);
        db::NewGame ng = stPlace->newGame(rules, sides);
        db::PlayerRepo repo(*db);
        for (std::size_t i = 0; i < decks->size(); ++i) {
            const std::string& d = (*decks)[i];
            const std::string field = "decks[" + std::to_string(i) + "]";
            if (d == "-") {
                ng.seatDecks.push_back(std::nullopt);
                continue;
            }
            const auto colon = d.find(':');
            if (colon == std::string::npos || colon == 0 || colon + 1 == d.size()) throw sc::InputError(field, "write OWNER:NAME or -");
            const auto deck = repo.findDeck(d.substr(0, colon), d.substr(colon + 1));
            if (!deck) throw sc::InputError(field, "no deck '" + d.substr(colon + 1) + "' of '" + d.substr(0, colon) + "'");
            ng.seatDecks.push_back(deck->id);
        }
        std::cout << db::GameRepo(*db).create(ng) << "\n";
    });

    // game show
    auto* show = game->add_subcommand("show", "show a stored game: hands, scores, totals, corrections");
    auto showId = std::make_shared<std::string>();
    auto showJson = std::make_shared<bool>(false);
    show->add_option("GAME", *showId, "game id")->required();
    show->add_flag("--json", *showJson, "JSON output");
    show->callback([&ctx, showId, showJson] {
        auto db = openDb(ctx);
        db::GameRepo repo(*db);
        const db::StoredGame s = repo.load(gameIdOf(*showId));
        const sc::Game& g = s.game;
        if (*showJson) {
            io::Json hands = io::Json::array();
            for (std::size_t h = 0; h < g.hands().size(); ++h) {
                const db::HandMeta& m = s.meta[h];
                hands.push_back({{"number", h + 1},
                                 {"hand", io::toJson(g.hands()[h])},
                                 {"score", io::toJson(g.scores()[h])["players"]},
                                 {"entered_by", m.enteredBy},
                                 {"confirmed_by", m.confirmedBy ? io::Json(*m.confirmedBy) : io::Json(nullptr)},
                                 {"entered_at", m.enteredAt},
                                 {"lake_checksum", m.lakeChecksum ? io::Json(*m.lakeChecksum) : io::Json(nullptr)}});
            }
            io::Json audit = io::Json::array();
            for (const auto& e : repo.audit(s.id)) audit.push_back(auditJson(e));
            io::Json j{{"id", s.id},
                       {"league", s.league},
                       {"season", s.season ? io::Json(*s.season) : io::Json(nullptr)},
                       {"date", s.date},
                       {"rules", io::toJson(g.rules())},
                       {"sides", io::sidesToJson(g.sides())},
                       {"result", io::gameResultJson(g)},
                       {"hands", hands},
                       {"audit", audit}};
            std::cout << io::dumpJson(j) << "\n";
            return;
        }
        std::cout << "game " << s.id << "  league " << s.league << (s.season ? "  season " + *s.season : "") << "  "
                  << s.date << "  rules " << g.rules().id << " (to " << g.rules().target << ")\n";
        std::vector<std::string> header{"hand"};
        for (const auto& side : g.sides()) header.push_back(side.name);
        header.push_back("entered_by");
        std::vector<std::vector<std::string>> rows;
        std::vector<int> run(g.sides().size(), 0);
        for (std::size_t h = 0; h < g.hands().size(); ++h) {
            std::vector<std::string> row{std::to_string(h + 1)};
            for (std::size_t i = 0; i < run.size(); ++i) {
                run[i] += g.scores()[h].sides[i].score;
                row.push_back(std::to_string(g.scores()[h].sides[i].score) + " (" + std::to_string(run[i]) + ")" +
                              (g.hands()[h].sides[i].called ? "*" : ""));
            }
            row.push_back(s.meta[h].enteredBy);
            rows.push_back(std::move(row));
        }
        std::cout << textTable(header, rows) << "totals: " << totalsLine(g) << "\n";
        const auto audit = repo.audit(s.id);
        for (const auto& e : audit) {
            std::cout << "correction " << e.at << " by " << e.who << ": " << e.action << " hand "
                      << (e.handNumber ? std::to_string(*e.handNumber) : "-") << " (" << e.reason.value_or("") << ")"
                      << " was [" << e.oldValue.value_or("") << "]\n";
        }
    });

    // hand add / edit / delete
    auto* hand = app.add_subcommand("hand", "add, correct or delete a hand of a stored game");
    hand->require_subcommand(1);
    {
        auto* add = hand->add_subcommand("add", "add the next hand (hand JSON on stdin)");
        auto id = std::make_shared<std::string>();
        auto who = std::make_shared<Who>();
        add->add_option("GAME", *id, "game id")->required();
        who->addTo(add);
        add->callback([&ctx, id, who] {
            const std::int64_t gameId = gameIdOf(*id);
            const io::Json in = io::parseJson(readStdin(), "the hand on stdin");
            sc::HandResult h = io::handFromJson(in);
            auto db = openDb(ctx);
            db::GameRepo repo(*db);
            db::HandMeta meta = who->meta();
            meta.lakeChecksum = lakeChecksum(in, h, repo.load(gameId).game.rules().deck);
            const int number = repo.addHand(gameId, std::move(h), meta);
            std::cout << "hand " << number << " of game " << gameId << ": " << totalsLine(repo.load(gameId).game) << "\n";
        });

        auto* edit = hand->add_subcommand("edit", "replace hand N (hand JSON on stdin); later totals are recomputed");
        auto eid = std::make_shared<std::string>();
        auto enumber = std::make_shared<int>(0);
        auto ereason = std::make_shared<std::string>();
        auto ewho = std::make_shared<Who>();
        edit->add_option("GAME", *eid, "game id")->required();
        edit->add_option("N", *enumber, "hand number (1-based)")->required();
        edit->add_option("--reason", *ereason, "why it is corrected (kept in the audit log)")->required();
        ewho->addTo(edit);
        edit->callback([&ctx, eid, enumber, ereason, ewho] {
            const std::int64_t gameId = gameIdOf(*eid);
            const io::Json in = io::parseJson(readStdin(), "the hand on stdin");
            sc::HandResult h = io::handFromJson(in);
            auto db = openDb(ctx);
            db::GameRepo repo(*db);
            db::HandMeta meta = ewho->meta();
            meta.lakeChecksum = lakeChecksum(in, h, repo.load(gameId).game.rules().deck);
            repo.editHand(gameId, *enumber, std::move(h), meta, *ereason);
            std::cout << "edited hand " << *enumber << " of game " << gameId << ": " << totalsLine(repo.load(gameId).game)
                      << "\n";
        });

        auto* del = hand->add_subcommand("delete", "delete hand N; later hands move up and totals are recomputed");
        auto did = std::make_shared<std::string>();
        auto dnumber = std::make_shared<int>(0);
        auto dreason = std::make_shared<std::string>();
        auto dwho = std::make_shared<Who>();
        del->add_option("GAME", *did, "game id")->required();
        del->add_option("N", *dnumber, "hand number (1-based)")->required();
        del->add_option("--reason", *dreason, "why it is deleted (kept in the audit log)")->required();
        dwho->addTo(del, false);
        del->callback([&ctx, did, dnumber, dreason, dwho] {
            const std::int64_t gameId = gameIdOf(*did);
            auto db = openDb(ctx);
            db::GameRepo repo(*db);
            repo.deleteHand(gameId, *dnumber, dwho->enteredBy, *dreason);
            std::cout << "deleted hand " << *dnumber << " of game " << gameId << ": "
                      << totalsLine(repo.load(gameId).game) << "\n";
        });
    }
}

}  // namespace nertz::cli
