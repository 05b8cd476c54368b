#include "coordinator/storage/engine_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

#include "common/sha256.h"

namespace sparring::coordinator {

namespace {

// Creates a directory (mode 0700) at dir_fd/name if it is missing and opens it, refusing a
// link in its place; throws std::runtime_error naming path.
int open_private_directory(int dir_fd, const std::string& name, const std::string& path) {
    if (mkdirat(dir_fd, name.c_str(), 0700) != 0 && errno != EEXIST)
        throw std::runtime_error("cannot create the engine directory " + path + ": " +
                                 std::strerror(errno));
    const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error("cannot open the engine directory " + path + ": " +
                                 (errno == ELOOP || errno == ENOTDIR
                                      ? "it is a symbolic link or not a directory"
                                      : std::strerror(errno)));
    return fd;
}

}  // namespace

EngineStore::EngineStore(const std::string& db_path) : dir_(directory_of(db_path)) {
    dir_fd_ = open_private_directory(AT_FDCWD, dir_, dir_);
    try {
        tmp_fd_ = open_private_directory(dir_fd_, "tmp", dir_ + "/tmp");
    } catch (...) {
        close(dir_fd_);
        throw;
    }
}

EngineStore::~EngineStore() {
    close(tmp_fd_);
    close(dir_fd_);
}

int EngineStore::open_file(std::string_view sha256) const {
    if (!is_sha256_hex(sha256)) return -1;
    const int fd = openat(dir_fd_, std::string(sha256).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat info {};
    if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
        close(fd);
        return -1;
    }
    return fd;
}

bool EngineStore::holds(std::string_view sha256) const {
    const int fd = open_file(sha256);
    if (fd < 0) return false;
    Sha256 digest;
    std::string buffer(1 << 20, '\0');
    ssize_t n = 0;
    while ((n = read(fd, buffer.data(), buffer.size())) > 0)
        digest.update(std::string_view(buffer.data(), size_t(n)));
    close(fd);
    return n == 0 && digest.hex() == sha256;
}

std::optional<EngineStore::Temporary> EngineStore::create_temporary(std::string* error) const {
    std::random_device random;
    for (int attempt = 0; attempt < 16; ++attempt) {
        char name[32];
        std::snprintf(name, sizeof name, "upload-%08x%08x", random(), random());
        // O_EXCL: a name taken, by a file or a link, is never opened.
        const int fd =
            openat(tmp_fd_, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) return Temporary{fd, name};
        if (errno != EEXIST) break;
    }
    *error = "cannot create a file in " + dir_ + "/tmp: " + std::strerror(errno);
    return std::nullopt;
}

void EngineStore::remove_temporary(const std::string& name) const {
    unlinkat(tmp_fd_, name.c_str(), 0);
}

bool EngineStore::install(const Temporary& temporary, std::string_view sha256,
                          std::string* error) const {
    if (!is_sha256_hex(sha256) || fsync(temporary.fd) != 0 ||
        renameat(tmp_fd_, temporary.name.c_str(), dir_fd_, std::string(sha256).c_str()) != 0 ||
        fsync(dir_fd_) != 0) {
        *error = "cannot store the engine file in " + dir_ + ": " + std::strerror(errno);
        remove_temporary(temporary.name);
        return false;
    }
    return true;
}

}  // namespace sparring::coordinator
