#include "nertz/io/json.hpp"

#include <fstream>
#include <set>
#include <sstream>

namespace nertz::io {
namespace sc = nertz::scoring;
using sc::InputError;

namespace {

std::string join(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

std::string typeName(const Json& v) {
    return v.type_name();
}

void requireObject(const Json& j, const std::string& field) {
    if (!j.is_object())
        throw InputError(field.empty() ? "input" : field,
                         "must be a JSON object, got " + typeName(j));
}

void rejectUnknown(const Json& j, const std::string& field,
                   std::initializer_list<const char*> known) {
    std::set<std::string> ok(known.begin(), known.end());
    for (const auto& [key, value] : j.items()) {
        if (!ok.count(key)) {
            std::string list;
            for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
            throw InputError(join(field, key), "unknown field (expected one of: " + list + ")");
        }
    }
}

int intField(const Json& v, const std::string& field) {
    if (!v.is_number_integer()) {
        throw InputError(field,
                         "must be a whole number, got " + (v.is_number() ? v.dump() : typeName(v)));
    }
    const auto n = v.get<long long>();
    if (n < -1000000 || n > 1000000) throw InputError(field, "is out of range: " + v.dump());
    return static_cast<int>(n);
}

std::string stringField(const Json& v, const std::string& field) {
    if (!v.is_string()) throw InputError(field, "must be a string, got " + typeName(v));
    return v.get<std::string>();
}

bool boolField(const Json& v, const std::string& field) {
    if (!v.is_boolean()) throw InputError(field, "must be true or false, got " + typeName(v));
    return v.get<bool>();
}

std::optional<int> optIntField(const Json& v, const std::string& field) {
    if (v.is_null()) return std::nullopt;
    return intField(v, field);
}

template <typename E, typename Parse>
E enumField(const Json& v, const std::string& field, Parse parse, const char* choices) {
    const std::string s = stringField(v, field);
    auto e = parse(s);
    if (!e) throw InputError(field, "unknown value '" + s + "' (expected " + choices + ")");
    return *e;
}

Json optToJson(const std::optional<int>& v) {
    return v ? Json(*v) : Json(nullptr);
}

}  // namespace

Json parseJson(const std::string& text, const std::string& what) {
    try {
        return Json::parse(text);
    } catch (const Json::exception& e) {
        // a parse error, or a number no double holds ("1e400"), which the parser throws as
        // out_of_range: the library's message without its tag
        throw InputError("json", what + " is not valid JSON (" + withoutJsonTag(e.what()) + ")");
    }
}

std::string withoutJsonTag(const std::string& what) {
    const auto tag = what.find("] ");
    return what.rfind("[json.exception", 0) == 0 && tag != std::string::npos ? what.substr(tag + 2) : what;
}

std::string dumpJson(const Json& j, int indent) {
    return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

Json readJsonFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError("file", "cannot read '" + path + "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parseJson(ss.str(), "'" + path + "'");
}

Json toJson(const sc::RuleSet& r) {
    Json j;
    j["id"] = r.id;
    j["name"] = r.name;
    j["source"] = r.source;
    j["lake_card_points"] = r.lakeCardPoints;
    j["nertz_card_points"] = r.nertzCardPoints;
    j["penalty_payers"] = sc::toString(r.penaltyPayers);
    j["caller_bonus"] = r.callerBonus;
    j["false_call_points"] = r.falseCallPoints;
    j["target"] = r.target;
    j["at_target"] = sc::toString(r.atTarget);
    j["settlement"] = sc::toString(r.settlement);
    j["pile_size"] = r.pileSize;
    j["min_team_size"] = r.minTeamSize;
    j["max_team_size"] = r.maxTeamSize;
    j["deck"] = sc::deckKindName(r.deck);
    j["idle"] = {
        {"stock_action", sc::toString(r.idle.stockAction)},
        {"stock_actions_before_nertz_burn", optToJson(r.idle.stockActionsBeforeNertzBurn)},
        {"stock_actions_before_hand_ends", optToJson(r.idle.stockActionsBeforeHandEnds)},
        {"scope", sc::toString(r.idle.scope)},
    };
    return j;
}

sc::RuleSet ruleSetFromJson(const Json& j) {
    requireObject(j, "");
    rejectUnknown(j, "",
                  {"base", "id", "name", "source", "lake_card_points", "nertz_card_points",
                   "penalty_payers", "caller_bonus", "false_call_points", "target", "at_target",
                   "settlement", "pile_size", "min_team_size", "max_team_size", "deck", "idle"});
    sc::RuleSet r;
    const bool hasBase = j.contains("base");
    if (hasBase) {
        r = sc::preset(stringField(j["base"], "base"));
        r.source.clear();
    }
    // Without a base every field must be given, so nothing is silently defaulted.
    auto field = [&](const char* key) -> const Json* {
        if (j.contains(key)) return &j[key];
        if (!hasBase && std::string(key) != "name" && std::string(key) != "source") {
            throw InputError(key,
                             "missing (give every field, or \"base\": a preset to start from)");
        }
        return nullptr;
    };
    if (auto v = field("id")) r.id = stringField(*v, "id");
    if (auto v = field("name")) r.name = stringField(*v, "name");
    if (auto v = field("source")) r.source = stringField(*v, "source");
    if (auto v = field("lake_card_points")) r.lakeCardPoints = intField(*v, "lake_card_points");
    if (auto v = field("nertz_card_points")) r.nertzCardPoints = intField(*v, "nertz_card_points");
    if (auto v = field("penalty_payers")) {
        r.penaltyPayers =
            enumField<sc::PenaltyPayers>(*v, "penalty_payers", sc::parsePenaltyPayers,
                                         "non_callers, everyone, non_callers_or_all_if_stuck");
    }
    if (auto v = field("caller_bonus")) r.callerBonus = intField(*v, "caller_bonus");
    if (auto v = field("false_call_points")) r.falseCallPoints = intField(*v, "false_call_points");
    if (auto v = field("target")) r.target = intField(*v, "target");
    if (auto v = field("at_target")) {
        r.atTarget = enumField<sc::AtTarget>(*v, "at_target", sc::parseAtTarget,
                                             "highest_wins, play_on_while_tied");
    }
    if (auto v = field("settlement")) {
        r.settlement = enumField<sc::Settlement>(*v, "settlement", sc::parseSettlement,
                                                 "none, winner_collects_difference");
    }
    if (auto v = field("pile_size")) r.pileSize = intField(*v, "pile_size");
    if (auto v = field("min_team_size")) r.minTeamSize = intField(*v, "min_team_size");
    if (auto v = field("max_team_size")) r.maxTeamSize = intField(*v, "max_team_size");
    if (auto v = field("deck")) {
        r.deck = enumField<sc::DeckKind>(*v, "deck", sc::parseDeckKind, "standard, nertz_colour");
    }
    if (auto v = field("idle")) {
        requireObject(*v, "idle");
        rejectUnknown(*v, "idle",
                      {"stock_action", "stock_actions_before_nertz_burn",
                       "stock_actions_before_hand_ends", "scope"});
        auto sub = [&](const char* key) -> const Json* {
            if (v->contains(key)) return &(*v)[key];
            if (!hasBase) throw InputError(join("idle", key), "missing");
            return nullptr;
        };
        if (auto s = sub("stock_action")) {
            r.idle.stockAction = enumField<sc::StockAction>(
                *s, "idle.stock_action", sc::parseStockAction,
                "burn_stream_card, recycle_and_burn, flip_through, burn_dealer_card, none");
        }
        if (auto s = sub("stock_actions_before_nertz_burn")) {
            r.idle.stockActionsBeforeNertzBurn =
                optIntField(*s, "idle.stock_actions_before_nertz_burn");
        }
        if (auto s = sub("stock_actions_before_hand_ends")) {
            r.idle.stockActionsBeforeHandEnds =
                optIntField(*s, "idle.stock_actions_before_hand_ends");
        }
        if (auto s = sub("scope")) {
            r.idle.scope = enumField<sc::StuckScope>(*s, "idle.scope", sc::parseStuckScope,
                                                     "since_last_play, per_hand");
        }
    }
    r.validate();
    return r;
}

sc::RuleSet ruleSetFromFile(const std::string& path) {
    const Json j = readJsonFile(path);
    try {
        return ruleSetFromJson(j);
    } catch (const InputError& e) {
        throw InputError(
            e.field(), std::string(e.what()).substr(e.field().empty() ? 0 : e.field().size() + 2) +
                           " (in '" + path + "')");
    }
}

sc::HandResult handFromJson(const Json& j, const std::string& field) {
    requireObject(j, field);
    rejectUnknown(j, field, {"players", "teams", "end", "lake_tops", "closed_piles"});
    const char* key = j.contains("teams") ? "teams" : "players";
    if (!j.contains(key)) throw InputError(join(field, "players"), "missing");
    const Json& list = j[key];
    if (!list.is_array())
        throw InputError(join(field, key), "must be an array, got " + typeName(list));
    sc::HandResult hand;
    bool anyCaller = false;
    for (std::size_t i = 0; i < list.size(); ++i) {
        const std::string f = join(field, std::string(key) + "[" + std::to_string(i) + "]");
        const Json& p = list[i];
        requireObject(p, f);
        rejectUnknown(p, f, {"name", "lake", "nertz_left", "called", "false_calls", "pile_size"});
        sc::SideHand s;
        if (!p.contains("name")) throw InputError(join(f, "name"), "missing");
        s.name = stringField(p["name"], join(f, "name"));
        if (!p.contains("lake")) throw InputError(join(f, "lake"), "missing");
        s.lake = intField(p["lake"], join(f, "lake"));
        if (!p.contains("nertz_left")) throw InputError(join(f, "nertz_left"), "missing");
        s.nertzLeft = intField(p["nertz_left"], join(f, "nertz_left"));
        if (p.contains("called")) s.called = boolField(p["called"], join(f, "called"));
        if (p.contains("false_calls"))
            s.falseCalls = intField(p["false_calls"], join(f, "false_calls"));
        if (p.contains("pile_size")) s.pileSize = intField(p["pile_size"], join(f, "pile_size"));
        anyCaller = anyCaller || s.called;
        hand.sides.push_back(std::move(s));
    }
    if (j.contains("end")) {
        hand.end =
            enumField<sc::HandEnd>(j["end"], join(field, "end"), sc::parseHandEnd, "nertz, stuck");
    } else {
        hand.end = anyCaller ? sc::HandEnd::Nertz : sc::HandEnd::Stuck;
    }
    return hand;
}

Json toJson(const sc::HandResult& hand) {
    Json players = Json::array();
    for (const sc::SideHand& s : hand.sides) {
        Json p{{"name", s.name}, {"lake", s.lake}, {"nertz_left", s.nertzLeft}};
        if (s.called) p["called"] = true;
        if (s.falseCalls) p["false_calls"] = s.falseCalls;
        if (s.pileSize) p["pile_size"] = *s.pileSize;
        players.push_back(std::move(p));
    }
    return Json{{"players", std::move(players)}, {"end", sc::toString(hand.end)}};
}

Json toJson(const sc::HandScore& score) {
    Json players = Json::array();
    for (const sc::SideScore& s : score.sides) {
        players.push_back({{"name", s.name},
                           {"lake_points", s.lakePoints},
                           {"penalty", s.penalty},
                           {"bonus", s.bonus},
                           {"false_call", s.falseCall},
                           {"score", s.score}});
    }
    return Json{{"players", std::move(players)}};
}

std::vector<sc::Side> sidesFromJson(const Json& j) {
    requireObject(j, "");
    std::vector<sc::Side> sides;
    if (j.contains("teams") && j.contains("players")) {
        throw InputError("teams", "give either \"players\" or \"teams\", not both");
    }
    if (j.contains("teams")) {
        const Json& teams = j["teams"];
        if (!teams.is_array())
            throw InputError("teams", "must be an array, got " + typeName(teams));
        for (std::size_t i = 0; i < teams.size(); ++i) {
            const std::string f = "teams[" + std::to_string(i) + "]";
            requireObject(teams[i], f);
            rejectUnknown(teams[i], f, {"name", "members", "pile_size"});
            sc::Side side;
            if (!teams[i].contains("name")) throw InputError(f + ".name", "missing");
            side.name = stringField(teams[i]["name"], f + ".name");
            if (!teams[i].contains("members")) throw InputError(f + ".members", "missing");
            const Json& members = teams[i]["members"];
            if (!members.is_array() || members.empty()) {
                throw InputError(f + ".members", "must be a non-empty array of names");
            }
            for (std::size_t m = 0; m < members.size(); ++m) {
                side.members.push_back(
                    stringField(members[m], f + ".members[" + std::to_string(m) + "]"));
            }
            if (teams[i].contains("pile_size"))
                side.pileSize = intField(teams[i]["pile_size"], f + ".pile_size");
            sides.push_back(std::move(side));
        }
    } else {
        if (!j.contains("players")) throw InputError("players", "missing (or give \"teams\")");
        const Json& players = j["players"];
        if (!players.is_array())
            throw InputError("players", "must be an array of names, got " + typeName(players));
        for (std::size_t i = 0; i < players.size(); ++i) {
            sides.push_back(
                {stringField(players[i], "players[" + std::to_string(i) + "]"), {}, {}});
        }
    }
    if (j.contains("pile_sizes")) {
        const Json& ps = j["pile_sizes"];
        requireObject(ps, "pile_sizes");
        for (const auto& [name, value] : ps.items()) {
            auto it = std::find_if(sides.begin(), sides.end(),
                                   [&](const sc::Side& s) { return s.name == name; });
            if (it == sides.end())
                throw InputError("pile_sizes." + name, "no such player or team in this game");
            it->pileSize = intField(value, "pile_sizes." + name);
        }
    }
    return sides;
}

Json sidesToJson(const std::vector<sc::Side>& sides) {
    const bool teams = std::any_of(sides.begin(), sides.end(),
                                   [](const sc::Side& s) { return !s.members.empty(); });
    Json j;
    Json list = Json::array();
    Json piles = Json::object();
    for (const sc::Side& s : sides) {
        if (teams) {
            list.push_back(
                {{"name", s.name},
                 {"members", s.members.empty() ? Json::array({s.name}) : Json(s.members)}});
        } else {
            list.push_back(s.name);
        }
        if (s.pileSize) piles[s.name] = *s.pileSize;
    }
    j[teams ? "teams" : "players"] = std::move(list);
    if (!piles.empty()) j["pile_sizes"] = std::move(piles);
    return j;
}

sc::Game gameFromJson(const Json& j, sc::RuleSet rules) {
    requireObject(j, "");
    rejectUnknown(j, "", {"players", "teams", "pile_sizes", "hands"});
    sc::Game game(std::move(rules), sidesFromJson(j));
    if (j.contains("hands")) {
        const Json& hands = j["hands"];
        if (!hands.is_array())
            throw InputError("hands", "must be an array, got " + typeName(hands));
        for (std::size_t h = 0; h < hands.size(); ++h) {
            const std::string f = "hands[" + std::to_string(h) + "]";
            sc::HandResult hand = handFromJson(hands[h], f);
            game.addHand(std::move(hand));
        }
    }
    return game;
}

Json gameResultJson(const sc::Game& game) {
    const auto totals = game.totals();
    const sc::GameOutcome out = game.outcome();
    Json t = Json::array();
    for (std::size_t i = 0; i < totals.size(); ++i)
        t.push_back({{"name", game.sides()[i].name}, {"total", totals[i]}});
    Json settlement = Json::array();
    for (const sc::Transfer& tr : out.settlement) {
        settlement.push_back({{"from", tr.from}, {"to", tr.to}, {"amount", tr.amount}});
    }
    Json hands = Json::array();
    for (const sc::HandScore& s : game.scores()) hands.push_back(toJson(s)["players"]);
    Json j{{"totals", std::move(t)},
           {"over", out.over},
           {"winner", out.winner ? Json(*out.winner) : Json(nullptr)},
           {"settlement", std::move(settlement)},
           {"tied", out.tiedLeaders},
           {"target", game.rules().target},
           {"hands", std::move(hands)}};
    return j;
}

}  // namespace nertz::io
