// A library the fault tests preload into the coordinator (LD_PRELOAD): while the file named by
// SPARRING_WRITE_FAULT_FLAG exists, its writes to files whose path starts with
// SPARRING_WRITE_FAULT_PATH fail with EROFS, as on a file system the kernel remounted
// read-only after an I/O error. With SPARRING_WRITE_FAULT_KILL=1 such a write kills the process
// instead (SIGKILL, before the write): a crash in the middle of a transaction. And a write of
// any file holding the text SPARRING_KILL_ON_TEXT (a log line) kills it before that write: a
// crash at a chosen moment after a commit (write or fwrite). Every other call goes through
// unchanged.
#include <dlfcn.h>
#include <signal.h>
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

// Kills the process when the bytes hold SPARRING_KILL_ON_TEXT.
void kill_on_text(const void* data, size_t size) {
    const char* text = std::getenv("SPARRING_KILL_ON_TEXT");
    if (text && *text && memmem(data, size, text, std::strlen(text))) raise(SIGKILL);
}

// Returns whether a refused write kills the process rather than failing.
bool kills() {
    const char* kill = std::getenv("SPARRING_WRITE_FAULT_KILL");
    return kill && std::strcmp(kill, "1") == 0;
}

}  // namespace

extern "C" {

ssize_t write(int fd, const void* data, size_t size) {
    static const auto real = next<ssize_t (*)(int, const void*, size_t)>("write");
    kill_on_text(data, size);
    if (refused(fd)) {
        if (kills()) raise(SIGKILL);
        errno = EROFS;
        return -1;
    }
    return real(fd, data, size);
}

// The log's lines go out through fwrite, whose own write inside libc no preload can see.
size_t fwrite(const void* data, size_t size, size_t count, FILE* stream) {
    static const auto real = next<size_t (*)(const void*, size_t, size_t, FILE*)>("fwrite");
    kill_on_text(data, size * count);
    return real(data, size, count, stream);
}

ssize_t pwrite64(int fd, const void* data, size_t size, off64_t offset) {
    static const auto real = next<ssize_t (*)(int, const void*, size_t, off64_t)>("pwrite64");
    if (refused(fd)) {
        if (kills()) raise(SIGKILL);
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
