#include "coordinator/storage/sqlite.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sparring::coordinator {

namespace {

// Throws a StorageError naming the operation and SQLite's message.
[[noreturn]] void fail(sqlite3* db, std::string_view what) {
    throw StorageError("sqlite: " + std::string(what) + ": " + sqlite3_errmsg(db),
                       sqlite3_errcode(db) & 0xff);
}

}  // namespace

bool Statement::step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(sqlite3_db_handle(stmt_), sqlite3_sql(stmt_));
}

void Statement::run() {
    while (step()) {
    }
}

int64_t Statement::int64(int column) const {
    return sqlite3_column_int64(stmt_, column);
}

double Statement::real(int column) const {
    return sqlite3_column_double(stmt_, column);
}

std::string Statement::text(int column) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
    return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, column))) : std::string();
}

std::string Statement::blob(int column) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
    return p ? std::string(p, size_t(sqlite3_column_bytes(stmt_, column))) : std::string();
}

bool Statement::is_null(int column) const {
    return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

void Statement::reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
}

void Statement::bind_one(int index, int64_t value) {
    if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK)
        fail(sqlite3_db_handle(stmt_), "bind");
}

void Statement::bind_one(int index, double value) {
    if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK)
        fail(sqlite3_db_handle(stmt_), "bind");
}

void Statement::bind_one(int index, std::string_view value) {
    if (sqlite3_bind_text64(stmt_, index, value.data(), value.size(), SQLITE_TRANSIENT,
                            SQLITE_UTF8) != SQLITE_OK)
        fail(sqlite3_db_handle(stmt_), "bind");
}

void Statement::bind_one(int index, std::nullopt_t) {
    if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(sqlite3_db_handle(stmt_), "bind");
}

void Statement::bind_one(int index, const Blob& value) {
    if (sqlite3_bind_blob64(stmt_, index, value.bytes.data(), value.bytes.size(),
                            SQLITE_TRANSIENT) != SQLITE_OK)
        fail(sqlite3_db_handle(stmt_), "bind");
}

void create_private_file(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0) {
        ::close(fd);
        return;
    }
    if (errno == EEXIST) {
        struct stat info {};
        if (::lstat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode)) return;
        throw StorageError(path + " exists and is not a regular file (a symbolic link?)");
    }
    throw StorageError("cannot create " + path + ": " + std::strerror(errno));
}

Database::Database(const std::string& path) {
    // SQLite would create the file with the umask's mode (often world-readable) and follow a
    // symbolic link planted in its place; its -wal and -shm files copy the file's mode.
    create_private_file(path);
    if (sqlite3_open_v2(
            path.c_str(), &db_,
            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
            nullptr) != SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
        const int code = db_ ? sqlite3_errcode(db_) & 0xff : SQLITE_NOMEM;
        sqlite3_close(db_);
        throw StorageError("cannot open database " + path + ": " + message, code);
    }
    sqlite3_busy_timeout(db_, 5000);
    exec(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; "
        "PRAGMA cache_size = -65536;");
}

Database::~Database() {
    statements_.clear();
    sqlite3_close(db_);
}

void Database::exec(std::string_view sql) {
    char* message = nullptr;
    if (const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
        rc != SQLITE_OK) {
        const std::string text = message ? message : sqlite3_errmsg(db_);
        sqlite3_free(message);
        throw StorageError("sqlite: " + text, rc & 0xff);
    }
}

Statement& Database::prepare(std::string_view sql) {
    if (auto it = statements_.find(sql); it != statements_.end()) return it->second.second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v3(db_, sql.data(), int(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt,
                           nullptr) != SQLITE_OK)
        fail(db_, "prepare " + std::string(sql));
    auto [it, _] = statements_.emplace(
        std::string(sql),
        std::pair{std::unique_ptr<sqlite3_stmt, Finalizer>(stmt), Statement(stmt)});
    return it->second.second;
}

int64_t Database::last_insert_rowid() const {
    return sqlite3_last_insert_rowid(db_);
}

int Database::changes() const {
    return sqlite3_changes(db_);
}

void Database::checkpoint() {
    if (sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr) !=
        SQLITE_OK)
        fail(db_, "checkpoint");
}

void Database::reset_statements() {
    for (auto& [sql, entry] : statements_) entry.second.reset();
}

void Database::Finalizer::operator()(sqlite3_stmt* stmt) const {
    sqlite3_finalize(stmt);
}

}  // namespace sparring::coordinator
