#include "nertz/db/database.hpp"

#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <thread>

#include "nertz/db/schema.hpp"

namespace nertz::db {
namespace {

[[noreturn]] void fail(sqlite3* db, int rc, const std::string& what) {
    const int primary = rc & 0xff;
    const std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    if (primary == SQLITE_NOTADB) throw DbInputError("db", "the file is not a SQLite database");
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) {
        throw SqliteError(rc, "the league database stayed busy (another program kept writing to it); try again");
    }
    throw SqliteError(rc, what + ": " + msg);
}

}  // namespace

// --- Statement -------------------------------------------------------------------------------

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
    const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                      &stmt_, nullptr);
    if (rc != SQLITE_OK) fail(db, rc, "prepare '" + std::string(sql.substr(0, 60)) + "'");
}

Statement::~Statement() {
    if (stmt_) sqlite3_finalize(stmt_);
}

Statement::Statement(Statement&& o) noexcept : db_(o.db_), stmt_(o.stmt_) { o.stmt_ = nullptr; }

Statement& Statement::operator=(Statement&& o) noexcept {
    if (this != &o) {
        if (stmt_) sqlite3_finalize(stmt_);
        db_ = o.db_;
        stmt_ = o.stmt_;
        o.stmt_ = nullptr;
    }
    return *this;
}

Statement& Statement::bind(int i, std::int64_t v) {
    if (int rc = sqlite3_bind_int64(stmt_, i, v); rc != SQLITE_OK) fail(db_, rc, "bind");
    return *this;
}
Statement& Statement::bind(int i, double v) {
    if (int rc = sqlite3_bind_double(stmt_, i, v); rc != SQLITE_OK) fail(db_, rc, "bind");
    return *this;
}
Statement& Statement::bind(int i, std::string_view v) {
    if (int rc = sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT); rc != SQLITE_OK) {
        fail(db_, rc, "bind");
    }
    return *this;
}
Statement& Statement::bind(int i, const std::vector<std::uint8_t>& blob) {
    if (int rc = sqlite3_bind_blob(stmt_, i, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
        rc != SQLITE_OK) {
        fail(db_, rc, "bind");
    }
    return *this;
}
Statement& Statement::bind(int i, std::nullopt_t) {
    if (int rc = sqlite3_bind_null(stmt_, i); rc != SQLITE_OK) fail(db_, rc, "bind");
    return *this;
}

bool Statement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    const std::string sql = sqlite3_sql(stmt_) ? sqlite3_sql(stmt_) : "";
    if ((rc & 0xff) == SQLITE_CONSTRAINT) {
        sqlite3_reset(stmt_);
        throw DbInputError("db", std::string("constraint failed: ") + sqlite3_errmsg(db_));
    }
    sqlite3_reset(stmt_);
    fail(db_, rc, "step '" + sql.substr(0, 60) + "'");
}

void Statement::run() {
    while (step()) {
    }
    reset();
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

std::int64_t Statement::getInt(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::getDouble(int col) const { return sqlite3_column_double(stmt_, col); }
std::string Statement::getText(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col))) : std::string();
}
std::vector<std::uint8_t> Statement::getBlob(int col) const {
    const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(stmt_, col));
    const int n = sqlite3_column_bytes(stmt_, col);
    return p ? std::vector<std::uint8_t>(p, p + n) : std::vector<std::uint8_t>();
}
bool Statement::isNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
std::optional<std::int64_t> Statement::getOptInt(int col) const {
    if (isNull(col)) return std::nullopt;
    return getInt(col);
}
std::optional<std::string> Statement::getOptText(int col) const {
    if (isNull(col)) return std::nullopt;
    return getText(col);
}

// --- Database --------------------------------------------------------------------------------

Database::Database(const std::string& path, OpenOptions options) : path_(path) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::path p(path);
    if (p.has_parent_path() && !fs::exists(p.parent_path(), ec)) fs::create_directories(p.parent_path(), ec);
    if (fs::is_directory(p, ec)) throw DbInputError("db", "'" + path + "' is a folder, not a database file");
    int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                             nullptr);
    if (rc != SQLITE_OK) {
        const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
        sqlite3_close(db_);
        db_ = nullptr;
        throw DbInputError("db", "cannot open '" + path + "': " + msg);
    }
    try {
        sqlite3_extended_result_codes(db_, 1);
        sqlite3_busy_timeout(db_, options.busyTimeoutMs);
        // Reading the version first touches nothing: a foreign or newer file stays untouched.
        const int version = schemaVersion();
        if (version > kSchemaVersion) {
            throw DbInputError("db", "'" + path + "' was made by a newer nertzref (schema version " +
                                         std::to_string(version) + "; this build knows up to " +
                                         std::to_string(kSchemaVersion) + ")");
        }
        // Switching to WAL needs a moment with no other connection in the way; retry briefly.
        for (int attempt = 0;; ++attempt) {
            Statement wal(db_, "PRAGMA journal_mode=WAL");
            try {
                wal.step();
                break;
            } catch (const SqliteError& e) {
                if ((e.code() & 0xff) != SQLITE_BUSY || attempt > 200) throw;
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
        exec("PRAGMA foreign_keys=ON");
        const std::string sync = options.synchronous;
        exec("PRAGMA synchronous=" + std::string(sync == "FULL" || sync == "OFF" ? sync : "NORMAL"));
        migrate(*this, options.targetVersion.value_or(kSchemaVersion));
    } catch (...) {
        cache_.clear();
        sqlite3_close_v2(db_);
        db_ = nullptr;
        throw;
    }
}

Database::~Database() {
    cache_.clear();
    if (db_) sqlite3_close_v2(db_);
}

Statement Database::prepare(std::string_view sql) { return Statement(db_, sql); }

Statement& Database::cached(const std::string& sql) {
    auto it = cache_.find(sql);
    if (it == cache_.end()) it = cache_.emplace(sql, std::make_unique<Statement>(db_, sql)).first;
    it->second->reset();
    return *it->second;
}

void Database::exec(const std::string& sql) {
    char* err = nullptr;
    const int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err);
    if (rc != SQLITE_OK) {
        const std::string msg = err ? err : sqlite3_errstr(rc);
        sqlite3_free(err);
        if ((rc & 0xff) == SQLITE_NOTADB) throw DbInputError("db", "the file is not a SQLite database");
        if ((rc & 0xff) == SQLITE_BUSY) fail(db_, rc, "exec");
        throw SqliteError(rc, "sql failed: " + msg + " in '" + sql.substr(0, 60) + "'");
    }
}

std::int64_t Database::lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }

int Database::schemaVersion() {
    Statement st(db_, "PRAGMA user_version");
    st.step();
    return static_cast<int>(st.getInt(0));
}

// --- Transaction -----------------------------------------------------------------------------

Transaction::Transaction(Database& db) : db_(db) {
    nested_ = sqlite3_get_autocommit(db_.handle()) == 0;
    db_.exec(nested_ ? "SAVEPOINT nested" : "BEGIN IMMEDIATE");
    open_ = true;
}

Transaction::~Transaction() {
    if (!open_) return;
    if (nested_) {
        sqlite3_exec(db_.handle(), "ROLLBACK TO nested; RELEASE nested", nullptr, nullptr, nullptr);
    } else {
        sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
}

void Transaction::commit() {
    db_.exec(nested_ ? "RELEASE nested" : "COMMIT");
    open_ = false;
}

// --- helpers ---------------------------------------------------------------------------------

std::string defaultDatabasePath() {
    const char* xdg = std::getenv("XDG_DATA_HOME");
    if (xdg && *xdg) return std::string(xdg) + "/nertzref/club.sqlite";
    const char* home = std::getenv("HOME");
    return std::string(home && *home ? home : ".") + "/.local/share/nertzref/club.sqlite";
}

std::string utcNow() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

std::string localToday() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    localtime_r(&t, &tm);
    char buf[16];
    std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
    return buf;
}

void checkDate(const std::string& date, const std::string& field) {
    const auto bad = [&] { return DbInputError(field, "'" + date + "' is not a date (YYYY-MM-DD)"); };
    if (date.size() != 10 || date[4] != '-' || date[7] != '-') throw bad();
    for (int i : {0, 1, 2, 3, 5, 6, 8, 9}) {
        if (date[i] < '0' || date[i] > '9') throw bad();
    }
    const int y = std::stoi(date.substr(0, 4)), m = std::stoi(date.substr(5, 2)), d = std::stoi(date.substr(8, 2));
    const std::chrono::year_month_day ymd{std::chrono::year(y), std::chrono::month(static_cast<unsigned>(m)),
                                          std::chrono::day(static_cast<unsigned>(d))};
    if (!ymd.ok()) throw bad();
}

}  // namespace nertz::db
