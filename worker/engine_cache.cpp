#include "worker/engine_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "common/engine_archive.h"
#include "common/sha256.h"
#include "match/child_process.h"

namespace sparring::worker {

namespace {

namespace fs = std::filesystem;

// The file whose modification time says when a cached engine was last used.
constexpr const char* kUsedMarker = "used";

// Returns the bytes of the regular files under a directory.
uint64_t tree_bytes(const std::string& dir) {
    uint64_t bytes = 0;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(dir, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error))
        if (it->is_regular_file(error) && !it->is_symlink(error)) bytes += it->file_size(error);
    return bytes;
}

// Returns a digest of the files under a directory: each entry's relative path, type, mode and
// (for a regular file) content, in name order, symbolic links not followed; nullopt when one
// cannot be read.
std::optional<std::string> tree_digest(const std::string& dir) {
    std::vector<std::string> paths;
    std::error_code error;
    for (auto it = fs::recursive_directory_iterator(dir, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error))
        paths.push_back(it->path().string());
    if (error) return std::nullopt;
    std::sort(paths.begin(), paths.end());
    Sha256 digest;
    for (const std::string& path : paths) {
        struct stat info {};
        if (lstat(path.c_str(), &info) != 0) return std::nullopt;
        digest.update(path.substr(dir.size()) + '\0' + std::to_string(info.st_mode) + '\0');
        if (S_ISREG(info.st_mode)) {
            const std::optional<std::string> content = sha256_of_file(path);
            if (!content) return std::nullopt;
            digest.update(*content);
        } else if (S_ISLNK(info.st_mode)) {
            digest.update(fs::read_symlink(path, error).string());
        }
    }
    return digest.hex();
}

// Returns the size of a file, 0 when it does not exist (a link is not followed).
uint64_t file_bytes(const std::string& path) {
    struct stat info {};
    return lstat(path.c_str(), &info) == 0 ? uint64_t(info.st_size) : 0;
}

// Marks a cached engine as used now. A link planted in its place is not followed: the
// marker stays old and the entry is collected first.
void touch(const std::string& path) {
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return;
    futimens(fd, nullptr);
    close(fd);
}

}  // namespace

EngineCache::EngineCache(Options options, std::vector<Source> sources, Log log)
    : options_(std::move(options)), sources_(std::move(sources)), log_(std::move(log)) {
    if (sources_.empty()) throw std::invalid_argument("an engine cache needs a source");
    std::error_code error;
    fs::create_directories(options_.dir + "/partial", error);
    if (error) throw std::runtime_error("cannot create the engine cache " + options_.dir);
    fs::permissions(options_.dir, fs::perms::owner_all, fs::perm_options::replace, error);
    // Whatever starts a file of this cache, the process layer runs it in the sandbox or not
    // at all.
    match::mark_untrusted_directory(options_.dir);
}

std::string EngineCache::files_of(std::string_view sha256) const {
    return options_.dir + "/" + std::string(sha256) + "/files";
}

std::optional<std::string> EngineCache::executable(const v1::UploadedEngine& engine,
                                                   std::string* error) {
    if (!is_sha256_hex(engine.sha256())) {
        *error = "malformed engine SHA-256 '" + engine.sha256() + "'";
        return std::nullopt;
    }
    if (!engine.entry().empty() && !unsafe_relative_path(engine.entry()).empty()) {
        *error = "unsafe engine entry '" + engine.entry() + "'";
        return std::nullopt;
    }
    const std::string root = options_.dir + "/" + engine.sha256();
    const std::string path =
        files_of(engine.sha256()) + "/" + (engine.archive() ? engine.entry() : "engine");
    if (std::error_code no_marker;
        fs::exists(fs::symlink_status(root + "/" + kUsedMarker, no_marker))) {
        if (unchanged(engine)) {
            touch(root + "/" + kUsedMarker);
            log_("engine " + engine.sha256().substr(0, 12) + " found in the cache");
            return path;
        }
        log_("engine " + engine.sha256().substr(0, 12) +
             " in the cache differs from what was verified; fetching it again");
        std::error_code ignored;
        fs::remove_all(root, ignored);
    }
    const std::string partial = options_.dir + "/partial/" + engine.sha256();
    if (!download(engine, partial, error) || !install(engine, partial, error)) return std::nullopt;
    struct stat info {};
    if (stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode) || !(info.st_mode & S_IXUSR)) {
        *error = "the engine archive has no executable file '" + engine.entry() + "'";
        return std::nullopt;
    }
    return path;
}

bool EngineCache::download(const v1::UploadedEngine& engine, const std::string& partial,
                           std::string* error) {
    const std::string name = engine.sha256().substr(0, 12);
    size_t source = 0;  // the source in use
    int tries = 0;      // its attempts so far
    // Moves on to the next source, saying why; false when this is the last.
    const auto hand_over = [&](const std::string& why) {
        if (source + 1 >= sources_.size()) return false;
        ++source;
        tries = 0;
        log_("fetching engine " + name + " over " + sources_[source].name + " instead: " + why);
        return true;
    };
    while (tries < options_.attempts ||
           hand_over("no verified copy over " + sources_[source].name + " after " +
                     std::to_string(tries) + " attempts")) {
        ++tries;
        const Source& from = sources_[source];
        const std::string over = sources_.size() > 1 ? " over " + from.name : "";
        // Only a regular file is resumed; anything else planted there (a link to a file of
        // the worker's, a directory) is removed, never written through.
        struct stat info {};
        if (lstat(partial.c_str(), &info) == 0 && !S_ISREG(info.st_mode)) {
            std::error_code ignored;
            fs::remove_all(partial, ignored);
        }
        uint64_t offset = file_bytes(partial);
        if (offset > engine.size()) {
            fs::remove(partial);
            offset = 0;
        }
        if (offset < engine.size()) {
            const int fd =
                open(partial.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
            if (fd < 0) {
                *error = "cannot write " + partial;
                return false;
            }
            bool told = false;  // the download's first line is written once the source answers
            const auto tell = [&] {
                if (told) return;
                told = true;
                log_(offset ? "resuming the download of engine " + name + " at byte " +
                                  std::to_string(offset) + over
                            : "downloading engine " + name + " (" + std::to_string(engine.size()) +
                                  " bytes)" + over);
            };
            uint64_t written = offset;
            const FetchResult fetched =
                from.fetch(engine.sha256(), offset, [&](std::string_view bytes) {
                    tell();
                    // More bytes than the version announces are wrong already: stop there.
                    if (written + bytes.size() > engine.size() + 1) return false;
                    if (write(fd, bytes.data(), bytes.size()) != ssize_t(bytes.size()))
                        return false;
                    written += bytes.size();
                    return true;
                });
            close(fd);
            if (fetched.unavailable && source + 1 < sources_.size()) {
                ++source;  // no URL: the next source, as if there were only it
                tries = 0;
                continue;
            }
            if (!fetched.ok) {
                tell();
                // A download that made progress is resumed from the same source.
                const bool resume = fetched.transient && written > offset;
                if (!resume && hand_over(from.name + " failed (" + fetched.error + ")")) continue;
                if (!fetched.transient) {
                    *error = "cannot fetch engine " + name + ": " + fetched.error;
                    return false;
                }
                log_("download of engine " + name + " broke off at byte " +
                     std::to_string(written) + " (" + fetched.error + "); resuming");
                std::this_thread::sleep_for(std::chrono::milliseconds(200 * tries));
                continue;
            }
        }
        const uint64_t size = file_bytes(partial);
        const std::optional<std::string> computed = sha256_of_file(partial);
        if (size == engine.size() && computed == engine.sha256()) return true;
        log_("refused the download of engine " + name + over + ": " + std::to_string(size) +
             " bytes with SHA-256 " + computed.value_or("?") + ", expected " +
             std::to_string(engine.size()) + " bytes with " + engine.sha256() + "; discarding it");
        fs::remove(partial);
        hand_over(from.name + " gave other bytes than the SHA-256 names");
    }
    *error = "no verified copy of engine " + name + " after " + std::to_string(options_.attempts) +
             " downloads (SHA-256 mismatch or broken off)";
    return false;
}

bool EngineCache::install(const v1::UploadedEngine& engine, const std::string& partial,
                          std::string* error) {
    const std::string root = options_.dir + "/" + engine.sha256();
    const std::string staging = options_.dir + "/staging-" + engine.sha256();
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    fs::remove_all(root, ignored);
    const ArchiveLimits limits{.max_entries = 10'000, .max_bytes = options_.max_bytes};
    const uint64_t needed = engine.archive() ? 0 : engine.size();
    if (!make_room(needed, error)) return false;
    fs::create_directories(staging + "/files", ignored);
    fs::permissions(staging, fs::perms::owner_all, fs::perm_options::replace, ignored);
    if (engine.archive()) {
        const std::string why = unpack_archive(partial, staging + "/files", limits);
        if (!why.empty()) {
            fs::remove_all(staging, ignored);
            fs::remove(partial, ignored);
            *error = "refused engine archive " + engine.sha256().substr(0, 12) + ": " + why;
            return false;
        }
        fs::remove(partial, ignored);
        if (!make_room(tree_bytes(staging), error)) {
            fs::remove_all(staging, ignored);
            return false;
        }
    } else {
        const std::string target = staging + "/files/engine";
        if (rename(partial.c_str(), target.c_str()) != 0 || chmod(target.c_str(), 0700) != 0) {
            fs::remove_all(staging, ignored);
            *error = "cannot install the engine in " + options_.dir;
            return false;
        }
    }
    touch(staging + "/" + kUsedMarker);
    const std::optional<std::string> digest = tree_digest(staging + "/files");
    if (!digest || rename(staging.c_str(), root.c_str()) != 0) {
        fs::remove_all(staging, ignored);
        *error = "cannot install the engine in " + options_.dir;
        return false;
    }
    verified_[engine.sha256()] = *digest;
    log_("engine " + engine.sha256().substr(0, 12) + " verified and cached");
    return true;
}

bool EngineCache::unchanged(const v1::UploadedEngine& engine) {
    const std::string files = files_of(engine.sha256());
    const std::optional<std::string> digest = tree_digest(files);
    if (!digest) return false;
    const auto known = verified_.find(engine.sha256());
    if (known != verified_.end()) return known->second == *digest;
    // Cached by an earlier run of the worker: a single file can be checked against its name.
    if (engine.archive() || sha256_of_file(files + "/engine") != engine.sha256()) return false;
    verified_[engine.sha256()] = *digest;
    return true;
}

uint64_t EngineCache::cached_bytes() const {
    uint64_t bytes = 0;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(options_.dir, error))
        if (entry.is_directory() && is_sha256_hex(entry.path().filename().string()))
            bytes += tree_bytes(entry.path().string());
    return bytes;
}

bool EngineCache::make_room(uint64_t needed, std::string* error) {
    if (needed > options_.max_bytes) {
        *error = "the engine takes " + std::to_string(needed) + " bytes, more than the cache's " +
                 std::to_string(options_.max_bytes) + " (--cache-mb)";
        return false;
    }
    std::vector<std::pair<fs::file_time_type, std::string>> cached;
    std::error_code error_code;
    for (const auto& entry : fs::directory_iterator(options_.dir, error_code))
        if (entry.is_directory() && is_sha256_hex(entry.path().filename().string()))
            cached.emplace_back(fs::last_write_time(entry.path() / kUsedMarker, error_code),
                                entry.path());
    std::sort(cached.begin(), cached.end());
    uint64_t bytes = cached_bytes();
    for (const auto& [used, path] : cached) {
        if (bytes + needed <= options_.max_bytes) break;
        const uint64_t freed = tree_bytes(path);
        fs::remove_all(path, error_code);
        bytes -= std::min(bytes, freed);
        log_("evicted engine " + fs::path(path).filename().string().substr(0, 12) +
             " from the cache (least recently used)");
    }
    return true;
}

}  // namespace sparring::worker
