// Shared by the db tests: a fresh temporary database path, hands that are valid under a preset,
// and a raw-SQL reader for checks that must not go through the code under test.
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "nertz/scoring/hand.hpp"

namespace nertz::testing {

// A new empty folder under the temp dir, removed when the object dies.
struct TempDir {
    std::filesystem::path path;
    TempDir() {
        static int n = 0;
        path = std::filesystem::temp_directory_path() /
               ("nertz-db-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
        std::filesystem::remove_all(path);
        std::filesystem::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string file(const std::string& name = "league.sqlite") const { return (path / name).string(); }
};

// A random hand for `names` in which the first side... a random side calls Nertz (nertz left 0).
inline scoring::HandResult randomHand(std::mt19937& rng, const std::vector<std::string>& names) {
    scoring::HandResult h;
    std::uniform_int_distribution<int> lake(0, 20), left(1, 13);
    const std::size_t caller = std::uniform_int_distribution<std::size_t>(0, names.size() - 1)(rng);
    for (std::size_t i = 0; i < names.size(); ++i) {
        scoring::SideHand s;
        s.name = names[i];
        s.lake = lake(rng);
        s.nertzLeft = i == caller ? 0 : left(rng);
        s.called = i == caller;
        h.sides.push_back(s);
    }
    h.end = scoring::HandEnd::Nertz;
    return h;
}

// Runs a query with plain sqlite3 and returns every row as "a|b|c".
inline std::vector<std::string> rawRows(const std::string& file, const std::string& sql) {
    sqlite3* db = nullptr;
    sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt* st = nullptr;
    std::vector<std::string> rows;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            std::string row;
            for (int c = 0; c < sqlite3_column_count(st); ++c) {
                const auto* t = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
                row += (c ? "|" : "") + std::string(t ? t : "NULL");
            }
            rows.push_back(row);
        }
    } else {
        rows.push_back(std::string("ERROR: ") + sqlite3_errmsg(db));
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return rows;
}

inline std::string rawValue(const std::string& file, const std::string& sql) {
    const auto rows = rawRows(file, sql);
    return rows.empty() ? "" : rows.front();
}

}  // namespace nertz::testing
