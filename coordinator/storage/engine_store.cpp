#include "coordinator/storage/engine_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <stdexcept>

namespace sparring::coordinator {

namespace {

// Creates a directory with mode 0700 if it does not exist; throws std::runtime_error.
void make_private_directory(const std::string& path) {
    if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create the engine directory " + path);
}

// Flushes a file or a directory's entries to stable storage; false when it cannot.
bool sync_path(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool synced = fsync(fd) == 0;
    close(fd);
    return synced;
}

}  // namespace

EngineStore::EngineStore(const std::string& db_path) : dir_(directory_of(db_path)) {
    make_private_directory(dir_);
    make_private_directory(dir_ + "/tmp");
}

std::string EngineStore::path_of(std::string_view sha256) const {
    return dir_ + "/" + std::string(sha256);
}

bool EngineStore::contains(std::string_view sha256) const {
    struct stat info {};
    return stat(path_of(sha256).c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

std::optional<std::string> EngineStore::create_temporary(int* fd, std::string* error) const {
    std::string path = dir_ + "/tmp/upload-XXXXXX";
    *fd = mkostemp(path.data(), O_CLOEXEC);
    if (*fd < 0) {
        *error = "cannot create a file in " + dir_ + "/tmp";
        return std::nullopt;
    }
    fchmod(*fd, 0600);
    return path;
}

bool EngineStore::install(const std::string& temporary, std::string_view sha256,
                          std::string* error) const {
    std::error_code ignored;
    if (contains(sha256)) {
        std::filesystem::remove(temporary, ignored);
        return true;
    }
    if (!sync_path(temporary) || rename(temporary.c_str(), path_of(sha256).c_str()) != 0 ||
        !sync_path(dir_)) {
        *error = "cannot store the engine file in " + dir_;
        std::filesystem::remove(temporary, ignored);
        return false;
    }
    return true;
}

}  // namespace sparring::coordinator
