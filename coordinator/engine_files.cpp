#include "coordinator/engine_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <future>
#include <memory>
#include <utility>

#include "common/sha256.h"

namespace sparring::coordinator {

namespace {

constexpr size_t kChunkBytes = 512 << 10;
constexpr std::string_view kPrefix = "/engines/";

// Reads a decimal number that is the whole of text; false when it is not one (or overflows).
bool read_number(std::string_view text, uint64_t* value) {
    if (text.empty()) return false;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
    return ec == std::errc() && end == text.data() + text.size();
}

// Answers with an error: a status and a line of text saying why.
void refuse(HttpResponse& response, int status, const std::string& why) {
    response.status = status;
    response.set_header("Cache-Control", "no-store");
    response.set_content(why + "\n", "text/plain; charset=utf-8");
}

// Returns the bearer token of a request, empty when it has none.
std::string bearer(const HttpRequest& request) {
    const std::string header = request.get_header_value("Authorization");
    constexpr std::string_view prefix = "Bearer ";
    if (header.size() <= prefix.size() || header.compare(0, prefix.size(), prefix) != 0) return "";
    return header.substr(prefix.size());
}

// A file descriptor closed when the last answer reading it is done.
struct OpenFile {
    int fd = -1;
    ~OpenFile() {
        if (fd >= 0) close(fd);
    }
};

void serve(const EngineFileRoutes& routes, const HttpRequest& request, HttpResponse& response) {
    // The token first: nothing of the request is looked at for a caller without one.
    const std::string token = bearer(request);
    if (token.empty()) {
        response.set_header("WWW-Authenticate", "Bearer");
        return refuse(response, 401,
                      "engine files need a worker token: Authorization: Bearer <worker token>");
    }
    std::promise<absl::Status> known;
    routes.reader.submit(
        [&core = routes.core, token](Storage& storage) {
            return core.authenticate(storage, token, Role::Worker).status();
        },
        [&known](absl::Status status) { known.set_value(std::move(status)); });
    if (const absl::Status status = known.get_future().get(); !status.ok()) {
        if (absl::IsPermissionDenied(status)) return refuse(response, 403, status.ToString());
        if (!absl::IsUnauthenticated(status) && !absl::IsInvalidArgument(status))
            return refuse(response, 503, "cannot check the token now: " + status.ToString());
        response.set_header("WWW-Authenticate", "Bearer error=\"invalid_token\"");
        return refuse(response, 401, "invalid or revoked worker token");
    }
    const std::string sha256 = request.path.substr(kPrefix.size());
    if (sha256.size() != 64 || !is_sha256_hex(sha256))
        return refuse(response, 400,
                      "an engine file is named by its SHA-256: 64 lowercase hex digits");
    auto file = std::make_shared<OpenFile>();
    file->fd = routes.store.open_file(sha256);
    struct stat info {};
    if (file->fd < 0 || fstat(file->fd, &info) != 0)
        return refuse(response, 404, "no engine file " + sha256 + " on this coordinator");
    const uint64_t size = uint64_t(info.st_size);

    const ByteRange range = parse_byte_range(request.get_header_value("Range"), size);
    response.set_header("ETag", "\"" + sha256 + "\"");
    response.set_header("Accept-Ranges", "bytes");
    // Its name is its content: it never changes, but it is a worker's alone to cache.
    response.set_header("Cache-Control", "private, max-age=31536000, immutable");
    switch (range.kind) {
        case ByteRange::Kind::Malformed:
            return refuse(response, 400, "bad Range header: " + range.error);
        case ByteRange::Kind::Unsatisfiable:
            response.set_header("Content-Range", "bytes */" + std::to_string(size));
            return refuse(
                response, 416,
                "the range starts past the file's end (" + std::to_string(size) + " bytes)");
        case ByteRange::Kind::Part:
            response.status = 206;
            response.set_header("Content-Range", "bytes " + std::to_string(range.first) + "-" +
                                                     std::to_string(range.last) + "/" +
                                                     std::to_string(size));
            break;
        case ByteRange::Kind::Whole:
            break;
    }
    const uint64_t first = range.kind == ByteRange::Kind::Part ? range.first : 0;
    const uint64_t bytes =
        range.kind == ByteRange::Kind::Part ? range.last - range.first + 1 : size;
    response.pull_length = bytes;
    response.file_fd = file->fd;  // sendfile(2) on a plaintext connection, the pull on HTTPS
    response.file_offset = first;
    response.file_owner = file;
    if (request.method != "HEAD" && routes.served) routes.served(sha256, first, bytes);
    response.set_pull(
        "application/octet-stream", [file, at = first, left = bytes](std::string* chunk) mutable {
            if (left == 0) return true;  // the end
            chunk->resize(size_t(std::min<uint64_t>(left, kChunkBytes)));
            const ssize_t n = pread(file->fd, chunk->data(), chunk->size(), off_t(at));
            // A file that shrank (it never should) ends the answer unfinished.
            if (n <= 0) return false;
            chunk->resize(size_t(n));
            at += uint64_t(n);
            left -= uint64_t(n);
            return true;
        });
}

}  // namespace

ByteRange parse_byte_range(std::string_view header, uint64_t size) {
    ByteRange range;
    if (header.empty()) return range;
    const auto malformed = [&range](std::string why) {
        range.kind = ByteRange::Kind::Malformed;
        range.error = std::move(why);
        return range;
    };
    constexpr std::string_view unit = "bytes=";
    if (header.substr(0, unit.size()) != unit)
        return malformed("only byte ranges are served: bytes=FIRST-LAST, bytes=FIRST- or bytes=-N");
    const std::string_view spec = header.substr(unit.size());
    if (spec.find(',') != std::string_view::npos) return malformed("one range at a time is served");
    const size_t dash = spec.find('-');
    if (dash == std::string_view::npos) return malformed("a range is FIRST-LAST, FIRST- or -N");
    const std::string_view a = spec.substr(0, dash), b = spec.substr(dash + 1);
    uint64_t first = 0, last = 0;
    if (a.empty()) {  // the last N bytes
        if (!read_number(b, &last)) return malformed("a suffix range is -N, N a number");
        if (last == 0 || size == 0) {
            range.kind = ByteRange::Kind::Unsatisfiable;
            return range;
        }
        range.kind = ByteRange::Kind::Part;
        range.first = size - std::min(last, size);
        range.last = size - 1;
        return range;
    }
    if (!read_number(a, &first)) return malformed("a range's first byte is a number");
    if (b.empty()) {
        last = size ? size - 1 : 0;
    } else {
        if (!read_number(b, &last)) return malformed("a range's last byte is a number");
        if (last < first) return malformed("a range's last byte comes before its first");
    }
    if (first >= size) {
        range.kind = ByteRange::Kind::Unsatisfiable;
        return range;
    }
    range.kind = ByteRange::Kind::Part;
    range.first = first;
    range.last = std::min(last, size - 1);
    return range;
}

void serve_engine_files(HttpServer& server, EngineFileRoutes routes) {
    server.get(std::string(kPrefix) + "(.*)",
               [routes = std::move(routes)](const HttpRequest& request, HttpResponse& response) {
                   serve(routes, request, response);
               });
}

}  // namespace sparring::coordinator
