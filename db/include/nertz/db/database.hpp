// A thin RAII wrapper over the SQLite C API: Database (one connection, opened in WAL mode with
// foreign keys and a busy timeout, schema migrated), Statement (prepared, typed binds and
// columns) and Transaction (BEGIN IMMEDIATE ... COMMIT, rolled back unless committed).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "nertz/scoring/error.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace nertz::db {

// A mistake a user can cause against the database (unknown or duplicate name, a file that is
// not a league database, one made by a newer version). Derives from scoring::InputError.
class DbInputError : public scoring::InputError {
public:
    using scoring::InputError::InputError;
};

// SQLite failed for a reason that is not the user's input (disk full, I/O error ...).
class SqliteError : public std::runtime_error {
public:
    SqliteError(int code, const std::string& message) : std::runtime_error(message), code_(code) {}
    int code() const noexcept { return code_; }

private:
    int code_;
};

class Statement {
public:
    Statement(sqlite3* db, std::string_view sql);
    ~Statement();
    Statement(Statement&& other) noexcept;
    Statement& operator=(Statement&& other) noexcept;
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    // Binds parameter `i` (1-based). nullopt binds NULL.
    Statement& bind(int i, std::int64_t v);
    Statement& bind(int i, int v) { return bind(i, static_cast<std::int64_t>(v)); }
    Statement& bind(int i, bool v) { return bind(i, static_cast<std::int64_t>(v ? 1 : 0)); }
    Statement& bind(int i, double v);
    Statement& bind(int i, std::string_view v);
    Statement& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
    Statement& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
    Statement& bind(int i, const std::vector<std::uint8_t>& blob);
    Statement& bind(int i, std::nullopt_t);
    template <typename T>
    Statement& bind(int i, const std::optional<T>& v) {
        return v ? bind(i, *v) : bind(i, std::nullopt);
    }
    // Binds every argument in order from parameter 1.
    template <typename... A>
    Statement& bindAll(const A&... args) {
        int i = 0;
        (bind(++i, args), ...);
        return *this;
    }

    // Advances; true while a row is available.
    bool step();
    // Steps to the end (for writes), then resets.
    void run();
    // Resets and clears the bindings so the statement can run again.
    void reset();

    std::int64_t getInt(int col) const;
    double getDouble(int col) const;
    std::string getText(int col) const;
    std::vector<std::uint8_t> getBlob(int col) const;
    bool isNull(int col) const;
    std::optional<std::int64_t> getOptInt(int col) const;
    std::optional<std::string> getOptText(int col) const;

private:
    sqlite3* db_ = nullptr;
    sqlite3_stmt* stmt_ = nullptr;
};

struct OpenOptions {
    // Migrate to this schema version (tests build files at older versions); default: latest.
    std::optional<int> targetVersion;
    // PRAGMA synchronous in WAL mode. "NORMAL" (default): a commit survives any crash of the
    // program (kill -9 included) and the file is never corrupted, but an OS crash or power cut
    // may roll back the last commits; no fsync per commit. "FULL": an fsync per commit (survives
    // power loss; costs one disk flush per hand). "OFF": bulk loads only.
    std::string synchronous = "NORMAL";
    int busyTimeoutMs = 30000;
};

class Database {
public:
    // Opens (creating it and its folder when missing) and migrates the file. Throws
    // DbInputError when the file is not SQLite or was made by a newer schema version.
    explicit Database(const std::string& path, OpenOptions options = {});
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // A fresh prepared statement.
    Statement prepare(std::string_view sql);
    // A prepared statement kept for the life of the connection, reset and ready to bind.
    Statement& cached(const std::string& sql);
    // Runs one or more statements without results (schema, pragmas).
    void exec(const std::string& sql);

    std::int64_t lastInsertId() const;
    int changes() const;
    int schemaVersion();
    const std::string& path() const noexcept { return path_; }
    sqlite3* handle() const noexcept { return db_; }

private:
    std::string path_;
    sqlite3* db_ = nullptr;
    std::unordered_map<std::string, std::unique_ptr<Statement>> cache_;
};

// A write transaction: BEGIN IMMEDIATE takes the write lock up front (waiting out other
// writers through the busy timeout), so a write never fails half way on a lock. Rolls back
// in the destructor unless commit() was called. Inside another transaction it is a SAVEPOINT,
// so repository calls compose into one atomic unit (import, bulk generation).
class Transaction {
public:
    explicit Transaction(Database& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    Database& db_;
    bool open_ = false;
    bool nested_ = false;
};

// The club's league file when none is named: $XDG_DATA_HOME/nertzref/club.sqlite, else
// ~/.local/share/nertzref/club.sqlite. The CLI and the app both open this one.
std::string defaultDatabasePath();

// Helpers used across the repositories.
std::string utcNow();      // "2024-05-01T20:15:03Z"
std::string localToday();  // "2024-05-01"
// Throws DbInputError(field, ...) unless `date` is a real YYYY-MM-DD date.
void checkDate(const std::string& date, const std::string& field = "date");

}  // namespace nertz::db
