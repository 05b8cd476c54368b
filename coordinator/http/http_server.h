// The coordinator's one HTTP server implementation, behind --metrics-listen and --http-listen
// alike, built for hostile clients (issue 32): Boost.Beast on a few I/O threads serves every
// connection asynchronously, so a slow or idle client holds a socket and a few KiB, never a
// thread. A request is read whole under explicit bounds (head bytes, header count, line length,
// body bytes — chunked bodies included — and one deadline for head and body) before a handler
// sees it; handlers run on a small pool of their own, since they may block on the database.
// Streaming responses are written as they are produced: a pull source (a handler-pool thread
// makes each chunk) or a push stream (any thread queues chunks; live pages), neither holding a
// thread while the client reads. Connections are capped per client address and overall; extra
// ones are closed at once. With a certificate it serves HTTPS. Routes are registered before
// start().
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace sparring::coordinator {

// Header names compare without regard to case.
struct HeaderNameLess {
    bool operator()(const std::string& a, const std::string& b) const;
};
using HttpHeaders = std::multimap<std::string, std::string, HeaderNameLess>;

// A request as handlers see it: read whole, path and query decoded.
struct HttpRequest {
    std::string method;                              // "GET", "HEAD", "POST"...
    std::string target;                              // as sent: path and query, undecoded
    std::string path;                                // the target's path, percent-decoded
    std::smatch matches;                             // the route's captures, over path
    std::multimap<std::string, std::string> params;  // the query, decoded
    HttpHeaders headers;
    std::string body;
    std::string client_address;  // the peer's IP address ("127.0.0.1", "::1")
    int client_port = 0;

    // Returns the first value of a header, or an empty string.
    std::string get_header_value(const std::string& name) const;
    // Returns the first value of a query parameter, or an empty string.
    std::string get_param_value(const std::string& name) const;
};

// Fills a request's path and params from its target (percent-decoded; '+' in the query is a
// space); false when it is malformed: a bad %XX escape, or a path not starting with '/'.
namespace http_detail {
bool parse_target(HttpRequest& request);
}  // namespace http_detail

// A streaming response's connection, as seen by whoever feeds it. Thread-safe; cheap to call
// from any thread: write() only queues the chunk and asks the connection's I/O thread to send.
class HttpStream {
  public:
    virtual ~HttpStream() = default;
    // Queues a chunk; returns false once the stream is closed (client gone, server stopping, or
    // the client reads so slowly that the queue passed its bound, which closes it).
    // The chunk is shared, not copied: one update goes to thousands of viewers.
    virtual bool write(std::shared_ptr<const std::string> chunk) = 0;
    bool write(std::string chunk) {
        return write(std::make_shared<const std::string>(std::move(chunk)));
    }
    // Ends the stream and its connection.
    virtual void close() = 0;
    virtual bool closed() const = 0;
};

struct HttpResponse {
    int status = 200;
    std::string content_type;
    HttpHeaders headers;
    std::string body;

    // Pull streaming: called on a handler thread for each next chunk. Returns false to abort the
    // connection (the response stays unfinished); an empty chunk ends the response.
    using Pull = std::function<bool(std::string* chunk)>;
    Pull pull;
    // A pulled body of known length (a file's bytes): sent with this Content-Length instead
    // of chunked, its chunks unframed, and HEAD answered with the length alone. The pull must
    // give exactly this many bytes; the connection is closed when it gives fewer.
    std::optional<uint64_t> pull_length;
    // With pull_length: the same bytes as a file's, from file_offset; on a plaintext connection
    // they are sent from it with sendfile(2), no copy through the process (the pull serves
    // HTTPS). file_owner keeps the descriptor open until the answer is done.
    int file_fd = -1;
    uint64_t file_offset = 0;
    std::shared_ptr<void> file_owner;
    // Push streaming: called once the response's head is sent, with the stream to write to; the
    // response is chunked and ends when the stream closes. on_closed runs once when it does.
    // Every heartbeat_interval without a write, heartbeat is sent (SSE comments keep proxies
    // and browsers from dropping a quiet stream).
    struct Push {
        std::function<void(std::shared_ptr<HttpStream>)> on_open;
        std::function<void()> on_closed;
        std::string heartbeat;
        std::chrono::milliseconds heartbeat_interval{0};
    };
    std::shared_ptr<Push> push;

    void set_content(std::string content, std::string type) {
        body = std::move(content);
        content_type = std::move(type);
    }
    void set_header(const std::string& name, const std::string& value) {
        headers.emplace(name, value);
    }
    bool has_header(const std::string& name) const { return headers.count(name) > 0; }
    void set_pull(std::string type, Pull source) {
        content_type = std::move(type);
        pull = std::move(source);
    }
    void set_push(std::string type, Push stream) {
        content_type = std::move(type);
        push = std::make_shared<Push>(std::move(stream));
    }
};

class HttpServer {
  public:
    struct Options {
        std::string listen;                     // HOST:PORT ("[V6]:PORT"); port 0 picks a free port
        std::string flag = "--metrics-listen";  // names the address in errors
        int io_threads = 1;                     // serve every connection's reads and writes
        int threads = 4;                        // run handlers (they may block on the database)
        // One deadline for a request's head and body from its first byte (or the connection's
        // accept and TLS handshake): a client that trickles is cut off here, not per read.
        std::chrono::seconds request_timeout{30};
        std::chrono::seconds write_timeout{30};  // per write of a response (not a stream's idle)
        std::chrono::seconds keep_alive{5};      // an idle connection is closed after this
        size_t max_body_bytes = 64 * 1024;       // larger bodies, chunked or not, get 413
        // Request line and headers together (431), any one line (400), and header count (431).
        size_t max_header_bytes = 16 * 1024;
        size_t max_line_bytes = 8 * 1024;
        size_t max_header_count = 100;
        // Open connections at most, from one client address and overall; extra ones are closed
        // as soon as they are accepted, before anything is read from them.
        size_t max_connections = 4096;
        size_t max_connections_per_address = 256;
        // A push stream whose client has this much queued and unread is closed.
        size_t max_stream_queue_bytes = 4 << 20;
        // Sent with every answer, errors included, unless the handler set a header of the name:
        // by default a browser neither guesses types, nor frames the answer, nor runs or loads
        // anything from it (a server of pages loosens the policy for its own files).
        HttpHeaders headers = {
            {"X-Content-Type-Options", "nosniff"},
            {"X-Frame-Options", "DENY"},
            {"Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"}};
        std::string tls_cert_file;  // with tls_key_file: serve HTTPS
        std::string tls_key_file;
        // How much lower than the rest of the process the server's threads run (added to their
        // nice value): under load, pages, live updates and scrapes wait for the CPU, not the
        // workers' reports.
        int nice = 10;
    };
    using Handler = std::function<void(const HttpRequest&, HttpResponse&)>;
    // Answers a request that found no route or failed before one (404, 405, 413, 400...);
    // returns whether it did.
    using ErrorHandler = std::function<bool(const HttpRequest&, HttpResponse&)>;

    // Throws std::runtime_error when the certificate or key cannot be loaded.
    explicit HttpServer(Options options);
    // Stops listening, closes every connection, finishes the handlers in flight and joins the
    // threads.
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Serves GET and HEAD on a path (a regular expression; captures in request.matches);
    // methods a path has no route for get 405 Method Not Allowed.
    void get(const std::string& path, Handler handler);
    // Serves POST on a path (a regular expression).
    void post(const std::string& path, Handler handler);
    // Sets what answers errors that carry no body yet.
    void on_error(ErrorHandler handler);
    // Binds the address and serves on threads of its own; returns the port. Throws
    // std::runtime_error naming the address if it cannot listen.
    int start();
    // Stops accepting, closes every connection and finishes the handlers in flight; safe to
    // call twice.
    void stop();
    // Returns the port bound, 0 before start().
    int port() const { return port_; }
    // Returns the connections open now.
    size_t connections() const;

    struct Impl;

  private:
    std::unique_ptr<Impl> impl_;
    int port_ = 0;
};

}  // namespace sparring::coordinator
