// Engines fetched by URL (issue 53): the coordinator's HTTP server serves each uploaded engine
// file at /engines/<sha256>, GET and HEAD, one byte range at a time (a broken download resumes
// where it stopped), behind the worker token; the ETag is the SHA-256, since a name only ever
// holds the bytes it names. The bytes are read from the file a chunk at a time on the HTTP
// server's handler threads, never held whole.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "coordinator/domain/core.h"
#include "coordinator/http/http_server.h"
#include "coordinator/storage/engine_store.h"
#include "coordinator/storage/executor.h"

namespace sparring::coordinator {

// A Range header read against a file's size (RFC 7233, one range of bytes only).
struct ByteRange {
    enum class Kind {
        Whole,          // no Range header: the whole file (200)
        Part,           // bytes first..last, both within the file (206)
        Unsatisfiable,  // a well-formed range that starts past the end (416)
        Malformed,      // not "bytes=A-B", "bytes=A-" or "bytes=-N", or several ranges (400)
    };
    Kind kind = Kind::Whole;
    uint64_t first = 0;
    uint64_t last = 0;  // inclusive
    std::string error;  // why a Malformed range is refused
};

// Reads a Range header's value (empty: no header) against a file of `size` bytes: a last byte
// past the end is the end, "bytes=-N" the last N bytes (all when N passes the size), and a
// first byte past the end (or any range of an empty file) unsatisfiable.
ByteRange parse_byte_range(std::string_view header, uint64_t size);

// Serves /engines/<sha256> on a server: the bearer token must be a worker token (401 without
// one, or with one unknown; 403 for another role) before the path or any other header is
// looked at; then a path that is not 64 lowercase hex digits is 400, a file the store does not
// hold 404. `served` is told of each answer that sends bytes (range or whole), with their
// count and the hash, as the bytes start to go (HEAD: not told).
struct EngineFileRoutes {
    Core& core;
    Executor& reader;  // authenticates the token
    const EngineStore& store;
    std::function<void(std::string_view sha256, uint64_t first, uint64_t bytes)> served;
};
void serve_engine_files(HttpServer& server, EngineFileRoutes routes);

}  // namespace sparring::coordinator
