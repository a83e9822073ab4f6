// JSON forms of the scoring values (rule sets, hands, scores, games), shared by the CLI and the
// app. Every reader validates field by field and throws scoring::InputError naming the bad field.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "nertz/scoring.hpp"

namespace nertz::io {

using Json = nlohmann::ordered_json;

// Parses text as JSON; throws InputError("json", ...) with the parser's position on failure.
Json parseJson(const std::string& text, const std::string& what = "input");
// Reads and parses a whole file; throws InputError naming the file when it can't be read.
Json readJsonFile(const std::string& path);

// An exception's message without the JSON library's "[json.exception.type.NNN] " tag ("key 'quad'
// not found"); any other message as it is.
std::string withoutJsonTag(const std::string& what);

// JSON text for output (indent -1: one line). Bytes that are not UTF-8 in a string (a file name in
// Latin-1, a name stored by an older version) become U+FFFD, where Json::dump would throw and
// print nothing.
std::string dumpJson(const Json& j, int indent = -1);

// Rule sets. A custom file may name a preset to start from ("base": "nna") and override any
// field; unknown fields are errors.
Json toJson(const scoring::RuleSet& rules);
scoring::RuleSet ruleSetFromJson(const Json& j);
scoring::RuleSet ruleSetFromFile(const std::string& path);

// A hand: {"players":[{"name","lake","nertz_left","called"?,"false_calls"?,"pile_size"?}],
// "end":"nertz"|"stuck"}. `end` defaults to "nertz" when somebody called, else "stuck".
scoring::HandResult handFromJson(const Json& j, const std::string& field = "");
Json toJson(const scoring::HandResult& hand);
Json toJson(const scoring::HandScore& score);

// A game's set-up: {"players":["Ann","Bo"]} or {"teams":[{"name","members":[..]}]}, optional
// "pile_sizes":{"Ann":10} handicaps. Hands come from "hands":[hand, ...].
std::vector<scoring::Side> sidesFromJson(const Json& j);
Json sidesToJson(const std::vector<scoring::Side>& sides);
// Builds the game and plays every hand of j["hands"] (field names "hands[i]...").
scoring::Game gameFromJson(const Json& j, scoring::RuleSet rules);
// {"totals":[{"name","total"}],"over","winner","settlement":[{"from","to","amount"}],...}
Json gameResultJson(const scoring::Game& game);

}  // namespace nertz::io
