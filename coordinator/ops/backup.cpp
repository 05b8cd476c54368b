#include "coordinator/ops/backup.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

namespace {

// Flushes a file (or a directory's entries) to stable storage.
void sync_path(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        if (fd >= 0) close(fd);
        throw StorageError("cannot sync " + path);
    }
    close(fd);
}

// Copies the database `from` into the new file `partial` and checks the copy.
BackupResult copy(const std::string& from, const std::string& partial) {
    Database source(from);
    Database target(partial, Database::Access::Copy);
    return BackupResult{source.copy_to(target), 0};
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
