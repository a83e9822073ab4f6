// Opening the league database for a command, and small helpers the league commands share.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "commands.hpp"
#include "nertz/db/database.hpp"

namespace nertz::cli {

// Opens --db FILE (or db::defaultDatabasePath()), creating and migrating it on first use.
std::unique_ptr<db::Database> openDb(const Context& ctx);
// The default "entered by" name: $USER, else "cli".
std::string defaultUser();

// A plain text table: a header row and rows, columns padded; numbers right-aligned.
std::string textTable(const std::vector<std::string>& header, const std::vector<std::vector<std::string>>& rows);
// x rounded to one decimal, as text ("104.0").
std::string fixed1(double x);
double round1(double x);

}  // namespace nertz::cli
