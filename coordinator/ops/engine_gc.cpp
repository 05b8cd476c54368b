#include "coordinator/ops/engine_gc.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <limits>
#include <set>
#include <stdexcept>

#include "coordinator/storage/engine_store.h"

namespace sparring::coordinator {

namespace {

namespace fs = std::filesystem;

// Removes a file, or a link (never what it points to), if it has not changed since `before`,
// adding it to *result.
void remove_if_older(const std::string& path, int64_t before, EngineFilesResult* result) {
    struct stat info {};
    if (lstat(path.c_str(), &info) != 0) return;
    const int64_t modified = int64_t(info.st_mtim.tv_sec) * 1000 + info.st_mtim.tv_nsec / 1'000'000;
    if (modified >= before) return;
    std::error_code error;
    if (fs::remove(path, error)) {
        ++result->files;
        result->bytes += S_ISREG(info.st_mode) ? int64_t(info.st_size) : 0;
    }
}

// Returns whether a directory entry is a file or a link (not followed), which the engine
// directory holds only when planted.
bool is_file_or_link(const fs::directory_entry& entry) {
    std::error_code error;
    const fs::file_type type = entry.symlink_status(error).type();
    return !error && (type == fs::file_type::regular || type == fs::file_type::symlink);
}

// Copies a stored file of one store into another through the target's temporary file and
// install, so nothing is written through a link; false with *error.
bool copy_engine(const EngineStore& source, const EngineStore& target, const std::string& sha256,
                 std::string* error) {
    const int from = source.open_file(sha256);
    if (from < 0) {
        *error = "no regular file " + sha256 + " in " + source.directory();
        return false;
    }
    std::optional<EngineStore::Temporary> to = target.create_temporary(error);
    bool copied = to.has_value();
    std::string buffer(1 << 20, '\0');
    for (ssize_t n = 0; copied && (n = read(from, buffer.data(), buffer.size())) != 0;)
        copied = n > 0 && write(to->fd, buffer.data(), size_t(n)) == n;
    close(from);
    if (!to) return false;
    if (copied)
        copied = target.install(*to, sha256, error);
    else
        *error = "cannot copy " + sha256 + " into " + target.directory();
    close(to->fd);
    if (!copied) target.remove_temporary(to->name);
    return copied;
}

}  // namespace

EngineFilesResult collect_engines(Storage& storage, const std::string& dir, int64_t min_age_ms,
                                  int64_t now_ms) {
    const int64_t before = now_ms - min_age_ms;
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
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        if (is_file_or_link(entry) && !known.count(name))
            remove_if_older(entry.path(), before, &result);
    }
    for (const auto& entry : fs::directory_iterator(dir + "/tmp", error))
        if (is_file_or_link(entry)) remove_if_older(entry.path(), before, &result);
    return result;
}

EngineFilesResult backup_engines(Storage& backup, const std::string& from_db,
                                 const std::string& to_db) {
    // Each recorded file, with whether a version refers to it.
    std::vector<std::pair<std::string, bool>> files;
    backup.begin(false);
    std::set<std::string> unreferenced;
    for (const EngineFile& file : backup.unreferenced_engines(std::numeric_limits<int64_t>::max()))
        unreferenced.insert(file.sha256);
    for (const EngineFile& file : backup.list_engines())
        files.emplace_back(file.sha256, !unreferenced.count(file.sha256));
    backup.commit();
    EngineFilesResult result;
    if (files.empty()) return result;
    try {
        const EngineStore source(from_db);
        const EngineStore target(to_db);
        for (const auto& [sha256, referenced] : files) {
            // A file of the backup's already there is kept when its bytes are what its name says.
            if (target.holds(sha256)) continue;
            std::string error;
            if (!copy_engine(source, target, sha256, &error)) {
                if (referenced)
                    throw StorageError("cannot copy engine file " + sha256 + ": " + error);
                continue;
            }
            const int copied = target.open_file(sha256);
            struct stat info {};
            if (copied >= 0 && fstat(copied, &info) == 0) result.bytes += int64_t(info.st_size);
            if (copied >= 0) close(copied);
            ++result.files;
        }
    } catch (const StorageError&) {
        throw;
    } catch (const std::runtime_error& error) {  // an engine directory that cannot be used
        throw StorageError(error.what());
    }
    return result;
}

}  // namespace sparring::coordinator
