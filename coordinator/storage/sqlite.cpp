#include "coordinator/storage/sqlite.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sparring::coordinator {

namespace {

// Returns whether the database file or its write-ahead log has reached the process's limit on
// the size of files it writes (RLIMIT_FSIZE, as systemd's LimitFSIZE= sets): SQLite reports a
// write refused there as an I/O error, and the errno it keeps may be a later call's.
bool at_file_size_limit(sqlite3* db) {
    rlimit limit{};
    const char* path = sqlite3_db_filename(db, "main");
    if (getrlimit(RLIMIT_FSIZE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY || !path || !*path)
        return false;
    for (const std::string& file : {std::string(path), std::string(path) + "-wal"}) {
        struct stat status {};
        if (stat(file.c_str(), &status) == 0 && rlim_t(status.st_size) >= limit.rlim_cur)
            return true;
    }
    return false;
}

// Returns the kind of fault of the last failure on a connection.
StorageFault fault_of(sqlite3* db, int sqlite_code) {
    const StorageFault fault = storage_fault_of(sqlite_code, sqlite3_system_errno(db));
    return fault == StorageFault::unwritable && at_file_size_limit(db) ? StorageFault::full : fault;
}

// Throws a StorageError naming the operation and SQLite's message.
[[noreturn]] void fail(sqlite3* db, std::string_view what) {
    throw StorageError("sqlite: " + std::string(what) + ": " + sqlite3_errmsg(db),
                       fault_of(db, sqlite3_errcode(db)));
}

}  // namespace

StorageFault storage_fault_of(int sqlite_code, int system_errno) {
    // A write past RLIMIT_FSIZE or a quota fails with EFBIG or EDQUOT: SQLite reports an I/O
    // error, but for an operator it is a full disk.
    if (system_errno == ENOSPC || system_errno == EFBIG || system_errno == EDQUOT)
        return StorageFault::full;
    switch (sqlite_code & 0xff) {
        case SQLITE_FULL:
            return StorageFault::full;
        case SQLITE_READONLY:
        case SQLITE_IOERR:
        case SQLITE_CANTOPEN:
        case SQLITE_PERM:
            return StorageFault::unwritable;
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
        case SQLITE_NOMEM:
        case SQLITE_PROTOCOL:
            return StorageFault::busy;
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
            return StorageFault::damaged;
        default:
            return StorageFault::none;
    }
}

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

Database::Database(const std::string& path, Access access) {
    const bool write = access != Access::ReadOnly;
    // SQLite would create the file with the umask's mode (often world-readable) and follow a
    // symbolic link planted in its place; its -wal and -shm files copy the file's mode.
    if (write) create_private_file(path);
    const int mode = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    if (sqlite3_open_v2(path.c_str(), &db_, mode | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                        nullptr) != SQLITE_OK) {
        const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
        const StorageFault fault =
            db_ ? storage_fault_of(sqlite3_errcode(db_), sqlite3_system_errno(db_))
                : StorageFault::busy;
        sqlite3_close(db_);
        throw StorageError("cannot open database " + path + ": " + message, fault);
    }
    sqlite3_busy_timeout(db_, 5000);
    if (access == Access::ReadWrite)
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
        throw StorageError("sqlite: " + text, fault_of(db_, rc));
    }
}

Statement& Database::prepare(std::string_view sql) {
    if (observer_) observer_(sql);
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

int64_t Database::copy_to(Database& target) {
    sqlite3_backup* backup = sqlite3_backup_init(target.db_, "main", db_, "main");
    if (!backup) fail(target.db_, "backup");
    int rc = SQLITE_OK;
    while ((rc = sqlite3_backup_step(backup, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED)
        sqlite3_sleep(50);
    const int64_t pages = sqlite3_backup_pagecount(backup);
    sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE)
        throw StorageError("sqlite: backup: " + std::string(sqlite3_errstr(rc)), fault_of(db_, rc));
    // The coordinator turns WAL back on when it opens the copy.
    target.exec("PRAGMA journal_mode = DELETE");
    Statement& check = target.prepare("PRAGMA integrity_check");
    check.bind();
    const std::string verdict = check.step() ? check.text(0) : std::string();
    check.reset();
    if (verdict != "ok") throw StorageError("backup copy fails its integrity check: " + verdict);
    return pages;
}

void Database::reset_statements() {
    for (auto& [sql, entry] : statements_) entry.second.reset();
}

void Database::Finalizer::operator()(sqlite3_stmt* stmt) const {
    sqlite3_finalize(stmt);
}

}  // namespace sparring::coordinator
