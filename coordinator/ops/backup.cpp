#include "coordinator/ops/backup.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

namespace {

struct Closer {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Connection = std::unique_ptr<sqlite3, Closer>;

// Opens a connection with the given flags; throws StorageError naming the file.
Connection open(const std::string& path, int flags) {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(path.c_str(), &db, flags, nullptr);
    Connection connection(db);
    if (rc != SQLITE_OK)
        throw StorageError("cannot open " + path + ": " +
                           (db ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
    sqlite3_busy_timeout(db, 10'000);
    return connection;
}

// Runs statements that return no rows; throws StorageError with SQLite's message.
void exec(sqlite3* db, const char* sql) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &message) != SQLITE_OK) {
        const std::string text = message ? message : sqlite3_errmsg(db);
        sqlite3_free(message);
        throw StorageError(std::string(sql) + ": " + text);
    }
}

// Returns the first column of the first row of a query as text.
std::string scalar(sqlite3* db, const char* sql) {
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK)
        throw StorageError(std::string(sql) + ": " + sqlite3_errmsg(db));
    std::string value;
    if (sqlite3_step(stmt) == SQLITE_ROW && sqlite3_column_text(stmt, 0))
        value = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
    sqlite3_finalize(stmt);
    return value;
}

// Flushes a file (or a directory's entries) to stable storage.
void sync_path(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        if (fd >= 0) close(fd);
        throw StorageError("cannot sync " + path);
    }
    close(fd);
}

// Copies every page in one step: in WAL mode the source read transaction blocks no writer,
// whereas a copy in small steps restarts each time the coordinator commits and might never end.
BackupResult copy(const std::string& from, const std::string& partial) {
    Connection source = open(from, SQLITE_OPEN_READWRITE);
    Connection target = open(partial, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW);
    sqlite3_backup* backup = sqlite3_backup_init(target.get(), "main", source.get(), "main");
    if (!backup) throw StorageError("backup of " + from + ": " + sqlite3_errmsg(target.get()));
    int rc = SQLITE_OK;
    while ((rc = sqlite3_backup_step(backup, -1)) == SQLITE_BUSY || rc == SQLITE_LOCKED)
        sqlite3_sleep(50);
    const BackupResult result{sqlite3_backup_pagecount(backup), 0};
    sqlite3_backup_finish(backup);
    if (rc != SQLITE_DONE) throw StorageError("backup of " + from + ": " + sqlite3_errstr(rc));
    // The copy is a single self-contained file; the coordinator turns WAL back on when it opens it.
    exec(target.get(), "PRAGMA journal_mode = DELETE");
    const std::string check = scalar(target.get(), "PRAGMA integrity_check");
    if (check != "ok") throw StorageError("backup copy fails its integrity check: " + check);
    return result;
}

}  // namespace

BackupResult backup_database(const std::string& from, const std::string& to) {
    namespace fs = std::filesystem;
    if (!fs::exists(from)) throw StorageError("no database " + from);
    std::error_code ignored;
    if (fs::exists(to) && fs::equivalent(from, to, ignored))
        throw StorageError("the backup must not overwrite the database itself");
    const std::string partial = to + ".partial";
    // Removes a stale partial file or a link planted in its place (never what it points to);
    // the new one is created exclusively, 0600, so a link made in between is refused.
    fs::remove(partial, ignored);
    const int fd =
        ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        throw StorageError("cannot create " + partial + " exclusively: " + std::strerror(errno));
    ::close(fd);
    try {
        BackupResult result = copy(from, partial);
        sync_path(partial);
        fs::rename(partial, to);
        const fs::path parent = fs::absolute(to).parent_path();
        sync_path(parent.string());
        result.bytes = int64_t(fs::file_size(to));
        return result;
    } catch (...) {
        fs::remove(partial, ignored);
        throw;
    }
}

}  // namespace sparring::coordinator
