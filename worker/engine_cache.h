// The worker's cache of uploaded engine files: fetched the first time a lease needs one
// (resuming a broken download from where it stopped) from its sources in order — by URL, then
// the coordinator's gRPC when the URL fails or gives other bytes — kept only once its SHA-256
// matches, unpacked safely when it is an archive, and evicted least recently used first when
// the cache would exceed its size.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sparring/v1/common.pb.h"

namespace sparring::worker {

class EngineCache {
  public:
    struct Options {
        std::string dir;                            // created (0700) if missing
        uint64_t max_bytes = uint64_t(2048) << 20;  // the cached engines together
        int attempts = 4;                           // downloads before giving up on a file
    };
    // How a fetch went: ok, or an error and whether a later attempt may succeed.
    struct FetchResult {
        bool ok = false;
        bool transient = false;
        std::string error;
        bool unavailable = false;  // the source has nothing to offer now (no URL): skipped
    };
    // Streams a file's bytes from offset to write (which returns false to stop early).
    using Fetch = std::function<FetchResult(const std::string& sha256, uint64_t offset,
                                            const std::function<bool(std::string_view)>& write)>;
    using Log = std::function<void(const std::string&)>;
    // Where files come from, tried in order: a download is resumed from the same source while
    // it makes progress; a source that fails otherwise, or whose bytes do not match the
    // SHA-256, hands over to the next one (the last gets every attempt of its own).
    struct Source {
        std::string name;  // for the log: "HTTP", "gRPC"
        Fetch fetch;
    };

    // Creates the cache directory; throws std::runtime_error when it cannot.
    EngineCache(Options options, std::vector<Source> sources, Log log);
    // One source, the coordinator.
    EngineCache(Options options, Fetch fetch, Log log)
        : EngineCache(std::move(options), {Source{"gRPC", std::move(fetch)}}, std::move(log)) {}

    // Returns the path of an uploaded engine's executable, fetching, verifying and unpacking
    // it first if it is not cached; nullopt with *error when it cannot (a file whose SHA-256
    // does not match is never kept, let alone run).
    std::optional<std::string> executable(const v1::UploadedEngine& engine, std::string* error);

    // Returns the directory of a cached engine's files (whether or not it is there).
    std::string files_of(std::string_view sha256) const;

  private:
    // Downloads a file into partial, resuming what is there, until its SHA-256 matches.
    bool download(const v1::UploadedEngine& engine, const std::string& partial, std::string* error);
    // Moves a verified download into the cache as the engine's directory.
    bool install(const v1::UploadedEngine& engine, const std::string& partial, std::string* error);
    // Removes least recently used engines until `needed` more bytes fit; false if they
    // cannot.
    bool make_room(uint64_t needed, std::string* error);
    // Returns the bytes the cached engines take.
    uint64_t cached_bytes() const;
    // Returns whether a cached engine's files are still exactly what was verified: every file
    // of an engine unpacked or checked by this process digested again (an engine runs as this
    // worker's user and could rewrite another version's files); a single file cached before
    // this process started is checked against its SHA-256, an archive so cached is not trusted.
    bool unchanged(const v1::UploadedEngine& engine);

    Options options_;
    std::vector<Source> sources_;
    Log log_;
    // The digest of each cached engine's files as installed or last checked, kept where no
    // engine can change it.
    std::map<std::string, std::string> verified_;
};

}  // namespace sparring::worker
