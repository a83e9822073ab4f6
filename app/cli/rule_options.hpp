// The --rules ID / --rules-file F option pair that every scoring command takes.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "nertz/scoring/rules.hpp"

namespace nertz::cli {

struct RuleChoice {
    std::string id;
    std::string file;
    // Adds --rules and --rules-file to `cmd`.
    void addTo(CLI::App* cmd);
    // The chosen rule set; InputError when neither or both were given, or the file is bad.
    scoring::RuleSet resolve() const;
};

}  // namespace nertz::cli
