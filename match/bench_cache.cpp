#include "match/bench_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "common/sha256.h"

namespace sparring {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxEntryBytes = 32;  // a decimal uint64 and a newline, with room to spare

// Returns the SHA-256 of the running executable, computed once; empty when unreadable.
const std::string& executable_hash() {
    static std::once_flag once;
    static std::string hash;
    std::call_once(once, [] { hash = sha256_of_file("/proc/self/exe").value_or(""); });
    return hash;
}

std::optional<uint64_t> read_entry(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    char buffer[kMaxEntryBytes + 1];
    const ssize_t size = ::read(fd, buffer, sizeof buffer);
    ::close(fd);
    if (size < 2 || size_t(size) > kMaxEntryBytes || buffer[size - 1] != '\n') return std::nullopt;
    uint64_t nodes = 0;
    for (ssize_t i = 0; i + 1 < size; ++i) {
        const char c = buffer[i];
        if (c < '0' || c > '9' || nodes > (UINT64_MAX - 9) / 10) return std::nullopt;
        nodes = nodes * 10 + uint64_t(c - '0');
    }
    if (nodes == 0) return std::nullopt;  // no bench searches zero nodes
    return nodes;
}

// Writes the entry through a private temporary file and a rename, so that a reader sees a
// whole entry or none; failures leave the cache as it was.
void write_entry(const std::string& path, uint64_t nodes) {
    static std::atomic<unsigned> serial{0};
    std::error_code error;
    const fs::path dir = fs::path(path).parent_path();
    if (!fs::exists(dir, error)) {
        if (!fs::create_directories(dir, error)) return;
        fs::permissions(dir, fs::perms::owner_all, error);
    }
    const std::string partial =
        path + ".partial." + std::to_string(::getpid()) + "." + std::to_string(serial++);
    const int fd =
        ::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    const std::string text = std::to_string(nodes) + "\n";
    const bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
    ::close(fd);
    if (!written || std::rename(partial.c_str(), path.c_str()) != 0) ::unlink(partial.c_str());
}

}  // namespace

std::optional<std::string> bench_cache_entry(const ParamSet& params, int depth) {
    const char* dir = std::getenv(kBenchCacheVariable);
    if (!dir || !*dir) return std::nullopt;
    const std::string& executable = executable_hash();
    if (executable.empty()) return std::nullopt;
    Sha256 key;
    key.update(executable);
    key.update("\n");
    key.update(std::to_string(depth));
    key.update("\n");
    key.update(params.to_json());
    return (fs::path(dir) / key.hex()).string();
}

BuiltinBench builtin_bench(const ParamSet& params, int depth, int threads) {
    const std::optional<std::string> entry = bench_cache_entry(params, depth);
    if (entry) {
        if (const std::optional<uint64_t> nodes = read_entry(*entry)) return {*nodes, true};
    }
    const uint64_t nodes = run_bench(depth, params, nullptr, threads).nodes;
    if (entry) write_entry(*entry, nodes);
    return {nodes, false};
}

uint64_t awaited_bench(const ParamSet& params) {
    const int threads = int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    return builtin_bench(params, BENCH_DEFAULT_DEPTH, threads).nodes;
}

}  // namespace sparring
