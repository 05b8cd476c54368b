// Engines fetched by URL (issue 53): where a worker fetches uploaded engine files over HTTP,
// and the fetch itself with cpp-httplib, resumable with a Range from the bytes already there.
// The engine cache tries it first and falls back to the coordinator's gRPC FetchEngine.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "sparring/v1/worker.pb.h"
#include "worker/engine_cache.h"

namespace sparring::worker {

// A base URL holding engine files at <url>/<sha256>.
struct EngineBase {
    std::string url;          // scheme://host[:port][/path], no trailing '/'
    bool send_token = false;  // the coordinator itself: the worker token goes with the requests
};

// Returns where this worker fetches engine files by URL, nullopt when by gRPC only:
// - the worker's --engine-url "grpc": nowhere;
// - another --engine-url: that base, with the token only when it is the coordinator's own
//   base as the coordinator announced it (same scheme, host and port);
// - else the base the coordinator announced (RegisterResponse.engine_base_url), with the token
//   only when it says the base is itself;
// - else the coordinator's own HTTP server (engine_http_port) at the host the worker reaches
//   its gRPC by (coordinator_address, HOST:PORT), with the token;
// - else nowhere.
std::optional<EngineBase> engine_base(const v1::RegisterResponse& registered,
                                      std::string_view coordinator_address,
                                      std::string_view override_url);

// Splits a URL into "scheme://authority" and its path (no trailing '/'); false when it is not
// an http:// or https:// URL with a host.
bool split_url(std::string_view url, std::string* origin, std::string* path);

// Fetches engine files from a base by URL; the base is set once the coordinator has said it.
class EngineUrlFetcher {
  public:
    // token: the worker token, sent only to a base with send_token; tls_ca_file: the CAs of the
    // coordinator's own HTTPS (its --tls-ca; empty: the system's, as for an external base).
    EngineUrlFetcher(std::string token, std::string tls_ca_file)
        : token_(std::move(token)), tls_ca_file_(std::move(tls_ca_file)) {}

    // Sets (or clears) the base; thread-safe.
    void set_base(std::optional<EngineBase> base);
    std::optional<EngineBase> base() const;

    // Streams a file's bytes from offset to write (EngineCache::Fetch): a Range request from
    // the offset; a 200 from a server that ignores ranges has its first offset bytes skipped.
    // Unavailable when there is no base; any other failure is returned as it is (4xx, 5xx, no
    // answer), transient when it broke off after some bytes came.
    EngineCache::FetchResult fetch(const std::string& sha256, uint64_t offset,
                                   const std::function<bool(std::string_view)>& write) const;

  private:
    static constexpr std::chrono::seconds kConnectTimeout{5};
    static constexpr std::chrono::seconds kReadTimeout{60};  // a stalled download is cut, resumed
    std::string token_;
    std::string tls_ca_file_;
    mutable std::mutex mutex_;
    std::optional<EngineBase> base_;
};

}  // namespace sparring::worker
