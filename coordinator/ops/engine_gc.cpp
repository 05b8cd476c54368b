#include "coordinator/ops/engine_gc.h"

#include <sys/stat.h>

#include <filesystem>
#include <limits>
#include <set>

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
        if (entry.is_regular_file() && !known.count(name))
            remove_if_older(entry.path(), before, &result);
    }
    for (const auto& entry : fs::directory_iterator(dir + "/tmp", error))
        if (entry.is_regular_file()) remove_if_older(entry.path(), before, &result);
    return result;
}

EngineFilesResult backup_engines(Storage& backup, const std::string& from_dir,
                                 const std::string& to_dir) {
    const std::string& source = from_dir;
    const std::string& target = to_dir;
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
