#include "coordinator/ops/engine_gc.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>
#include <set>

#include "coordinator/storage/engine_store.h"
#include "coordinator/storage/sqlite.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {

namespace {

namespace fs = std::filesystem;

// Returns a file's modification time in milliseconds since the Unix epoch (0 if missing).
int64_t modified_ms(const std::string& path) {
    struct stat info {};
    if (stat(path.c_str(), &info) != 0) return 0;
    return int64_t(info.st_mtim.tv_sec) * 1000 + info.st_mtim.tv_nsec / 1'000'000;
}

// Removes a file if it has not changed since `before`, adding it to *result.
void remove_if_older(const std::string& path, int64_t before, EngineFilesResult* result) {
    const int64_t modified = modified_ms(path);
    if (modified == 0 || modified >= before) return;
    std::error_code error;
    const uintmax_t size = fs::file_size(path, error);
    if (fs::remove(path, error)) {
        ++result->files;
        result->bytes += error ? 0 : int64_t(size);
    }
}

// Returns the engine files a database records, each with whether a version refers to it
// (none for a database older than the engines table). Reads the file without changing it.
std::vector<std::pair<std::string, bool>> recorded_engines(const std::string& path) {
    sqlite3* db = nullptr;
    std::vector<std::pair<std::string, bool>> files;
    if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
        sqlite3_close(db);
        throw StorageError("cannot open " + path);
    }
    const char* sql =
        "SELECT sha256, EXISTS (SELECT 1 FROM versions v WHERE v.engine_sha256 = e.sha256) "
        "FROM engines e ORDER BY sha256";
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE name = 'engines'", -1, &stmt,
                           nullptr) == SQLITE_OK &&
        sqlite3_step(stmt) == SQLITE_ROW) {
        sqlite3_finalize(stmt);
        stmt = nullptr;
        if (sqlite3_prepare_v2(db, sql, -1, &stmt, nullptr) != SQLITE_OK) {
            sqlite3_close(db);
            throw StorageError("cannot read the engines of " + path);
        }
        while (sqlite3_step(stmt) == SQLITE_ROW)
            files.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0)),
                               sqlite3_column_int(stmt, 1) != 0);
    }
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return files;
}

}  // namespace

EngineFilesResult collect_engines(const std::string& db_path, int64_t min_age_ms, int64_t now_ms) {
    if (!fs::exists(db_path)) throw StorageError("no database " + db_path);
    const int64_t before = now_ms - min_age_ms;
    SqliteStorage storage(db_path);
    storage.begin(true);
    std::set<std::string> removed;
    for (const EngineFile& file : storage.unreferenced_engines(before)) {
        storage.delete_engine(file.sha256);
        removed.insert(file.sha256);
    }
    std::set<std::string> known;
    for (const EngineFile& file : storage.list_engines()) known.insert(file.sha256);
    storage.commit();

    // A file is removed only once its record is gone and it has not been written since: an
    // upload of the same bytes after the commit writes it anew and records it again.
    EngineFilesResult result;
    const std::string dir = EngineStore::directory_of(db_path);
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && !known.count(name))
            remove_if_older(entry.path(), before, &result);
    }
    for (const auto& entry : fs::directory_iterator(dir + "/tmp", error))
        if (entry.is_regular_file()) remove_if_older(entry.path(), before, &result);
    return result;
}

EngineFilesResult backup_engines(const std::string& from, const std::string& to) {
    const std::string source = EngineStore::directory_of(from);
    const std::string target = EngineStore::directory_of(to);
    const std::vector<std::pair<std::string, bool>> files = recorded_engines(to);
    EngineFilesResult result;
    if (files.empty()) return result;
    fs::create_directories(target);
    fs::permissions(target, fs::perms::owner_all, fs::perm_options::replace);
    for (const auto& [sha256, referenced] : files) {
        const std::string to_path = target + "/" + sha256;
        if (fs::exists(to_path)) continue;
        std::error_code error;
        const std::string partial = to_path + ".partial";
        fs::copy_file(source + "/" + sha256, partial, fs::copy_options::overwrite_existing, error);
        if (!error) fs::rename(partial, to_path, error);
        if (error) {
            fs::remove(partial, error);
            if (referenced)
                throw StorageError("cannot copy engine file " + sha256 + " into " + target);
            continue;
        }
        ++result.files;
        result.bytes += int64_t(fs::file_size(to_path));
    }
    return result;
}

}  // namespace sparring::coordinator
