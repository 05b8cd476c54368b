// A library the fault tests preload into the coordinator (LD_PRELOAD): while the file named by
// SPARRING_WRITE_FAULT_FLAG exists, its writes to files whose path starts with
// SPARRING_WRITE_FAULT_PATH fail with EROFS, as on a file system the kernel remounted
// read-only after an I/O error. Every other call goes through unchanged.
#include <dlfcn.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

// Returns the next definition of a libc function after this library's.
template <typename Function>
Function next(const char* name) {
    return reinterpret_cast<Function>(dlsym(RTLD_NEXT, name));
}

// Returns whether a write to fd must fail now; leaves errno as it was.
bool refused(int fd) {
    const int saved = errno;
    const char* flag = std::getenv("SPARRING_WRITE_FAULT_FLAG");
    const char* prefix = std::getenv("SPARRING_WRITE_FAULT_PATH");
    bool refuse = false;
    if (flag && prefix && access(flag, F_OK) == 0) {
        char link[64];
        std::snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        char path[4096];
        const ssize_t size = readlink(link, path, sizeof path - 1);
        refuse = size > 0 && std::strncmp(path, prefix, std::strlen(prefix)) == 0;
    }
    errno = saved;
    return refuse;
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* data, size_t size) {
    static const auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
    if (refused(fd)) {
        errno = EROFS;
        return -1;
    }
    return real(fd, data, size);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off64_t offset) {
    static const auto real = next<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
    if (refused(fd)) {
        errno = EROFS;
        return -1;
    }
    return real(fd, data, size, offset);
}

int ftruncate64(int fd, off64_t length) {
    static const auto real = next<int (*)(int, off64_t)>("ftruncate64");
    if (refused(fd)) {
        errno = EROFS;
        return -1;
    }
    return real(fd, length);
}

}  // extern "C"
