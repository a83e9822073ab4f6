// nertz::scoring — the Nertz rules engine: cards, rule sets and presets, hand scoring, games,
// the referee's checks and the OpenSkill ratings. Pure C++20, no third-party dependency.
//
//   auto rules = nertz::scoring::preset("nna");
//   nertz::scoring::Game game(rules, {{"Ann"}, {"Bo"}});
//   game.addHand({{{"Ann", 14, 0, true}, {"Bo", 9, 3}}, nertz::scoring::HandEnd::Nertz});
//   game.totals();   // {24, 3}
#pragma once

#include "nertz/scoring/card.hpp"
#include "nertz/scoring/error.hpp"
#include "nertz/scoring/game.hpp"
#include "nertz/scoring/hand.hpp"
#include "nertz/scoring/ratings.hpp"
#include "nertz/scoring/referee.hpp"
#include "nertz/scoring/rules.hpp"
