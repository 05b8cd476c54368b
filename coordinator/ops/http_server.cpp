#include "coordinator/ops/http_server.h"

#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <future>
#include <optional>
#include <stdexcept>
#include <utility>

#include "common/log.h"
#include "common/printable.h"

namespace sparring::coordinator {

bool HeaderNameLess::operator()(const std::string& a, const std::string& b) const {
    return strcasecmp(a.c_str(), b.c_str()) < 0;
}

std::string HttpRequest::get_header_value(const std::string& name) const {
    const auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
}

std::string HttpRequest::get_param_value(const std::string& name) const {
    const auto it = params.find(name);
    return it == params.end() ? std::string() : it->second;
}

namespace http_detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using Clock = std::chrono::steady_clock;

// Splits "HOST:PORT" (or "[V6]:PORT"); throws std::runtime_error unless the port is a number.
std::pair<std::string, int> split_address(const std::string& listen, const std::string& flag) {
    const size_t colon = listen.rfind(':');
    const std::string error = flag + " needs HOST:PORT, not '" + listen + "'";
    if (colon == std::string::npos) throw std::runtime_error(error);
    int port = -1;
    const char* end = listen.data() + listen.size();
    const auto [p, ec] = std::from_chars(listen.data() + colon + 1, end, port);
    if (ec != std::errc() || p != end || port < 0 || port > 65535) throw std::runtime_error(error);
    std::string host = listen.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    // An empty host means every interface, as for the gRPC port.
    return {host.empty() ? "0.0.0.0" : host, port};
}

// Lowers the calling thread's CPU priority by `nice` (a thread's nice value is its own on Linux).
void lower_priority(int nice) {
    if (nice <= 0) return;
    const auto self = id_t(syscall(SYS_gettid));
    errno = 0;
    const int current = getpriority(PRIO_PROCESS, self);
    if (errno == 0) setpriority(PRIO_PROCESS, self, std::min(19, current + nice));
}

// Decodes %XX escapes (and '+' as a space when plus_is_space); nullopt on a malformed escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '%') {
            if (i + 2 >= text.size()) return std::nullopt;
            unsigned value = 0;
            const auto [p, ec] =
                std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
            if (ec != std::errc() || p != text.data() + i + 3) return std::nullopt;
            out += char(value);
            i += 2;
        } else {
            out += plus_is_space && c == '+' ? ' ' : c;
        }
    }
    return out;
}

// Fills a request's path and params from its target; false if it is malformed.
bool parse_target(HttpRequest& request) {
    const std::string_view target = request.target;
    const size_t question = target.find('?');
    const auto path = percent_decode(target.substr(0, question), false);
    if (!path || path->empty() || path->front() != '/') return false;
    request.path = *path;
    if (question == std::string_view::npos) return true;
    std::string_view query = target.substr(question + 1);
    while (!query.empty()) {
        const size_t amp = query.find('&');
        const std::string_view pair = query.substr(0, amp);
        query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
        if (pair.empty()) continue;
        const size_t equals = pair.find('=');
        const auto name = percent_decode(pair.substr(0, equals), true);
        const auto value = percent_decode(
            equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1), true);
        if (!name || !value) return false;
        request.params.emplace(*name, *value);
    }
    return true;
}

// A header value goes out on one line: CR and LF are dropped, so no handler can split the head.
std::string one_line(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text)
        if (c != '\r' && c != '\n') out += c;
    return out;
}

// Frames a chunk of a chunked body.
std::string chunk_frame(std::string_view data) {
    char size[20];
    const auto [end, ec] = std::to_chars(size, size + sizeof size, data.size(), 16);
    std::string out(size, end);
    out.reserve(out.size() + data.size() + 4);
    out.append("\r\n").append(data).append("\r\n");
    return out;
}

// A few threads that run handlers in order of arrival, niced.
class HandlerPool {
  public:
    HandlerPool(int threads, int nice) {
        for (int i = 0; i < std::max(1, threads); ++i)
            threads_.emplace_back([this, nice] {
                lower_priority(nice);
                run();
            });
    }
    ~HandlerPool() { stop(); }

    void submit(std::function<void()> task) {
        {
            std::lock_guard lock(mutex_);
            if (stopping_) return;
            tasks_.push_back(std::move(task));
        }
        ready_.notify_one();
    }

    // Runs what is queued, then joins the threads.
    void stop() {
        {
            std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        ready_.notify_all();
        for (std::thread& thread : threads_)
            if (thread.joinable()) thread.join();
    }

  private:
    void run() {
        std::unique_lock lock(mutex_);
        while (true) {
            ready_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
            if (tasks_.empty()) return;
            std::function<void()> task = std::move(tasks_.front());
            tasks_.pop_front();
            lock.unlock();
            try {
                task();
            } catch (...) {
                log_unexpected_exception("HTTP handler pool");
            }
            task = nullptr;
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable ready_;
    std::deque<std::function<void()>> tasks_;
    bool stopping_ = false;
    std::vector<std::thread> threads_;
};

class ConnectionBase {
  public:
    virtual ~ConnectionBase() = default;
    // Closes the connection from any thread.
    virtual void shut() = 0;
};

struct Route {
    std::regex pattern;
    HttpServer::Handler handler;
};

}  // namespace http_detail

using namespace http_detail;

struct HttpServer::Impl {
    explicit Impl(Options o) : options(std::move(o)) {}

    // Returns whether a new connection from an address may stay open, counting it if so.
    bool admit(const std::string& address) {
        std::lock_guard lock(mutex);
        if (stopping || open >= options.max_connections ||
            per_address[address] >= options.max_connections_per_address) {
            if (per_address[address] == 0) per_address.erase(address);
            return false;
        }
        ++open;
        ++per_address[address];
        return true;
    }
    void release(const std::string& address, ConnectionBase* connection) {
        std::lock_guard lock(mutex);
        --open;
        if (--per_address[address] == 0) per_address.erase(address);
        live.erase(connection);
    }

    // Finds the route of a request: its handler, or the status (404, 405) and Allow header.
    const Route* route(HttpRequest& request, int* status, std::string* allow) {
        const auto find = [&request](std::vector<Route>& routes) -> const Route* {
            for (const Route& route : routes)
                if (std::regex_match(request.path, request.matches, route.pattern)) return &route;
            return nullptr;
        };
        const bool is_get = request.method == "GET" || request.method == "HEAD";
        if (is_get)
            if (const Route* found = find(get_routes)) return found;
        if (request.method == "POST")
            if (const Route* found = find(post_routes)) return found;
        std::smatch unused;
        const auto matches = [&](std::vector<Route>& routes) {
            for (const Route& route : routes)
                if (std::regex_match(request.path, unused, route.pattern)) return true;
            return false;
        };
        const bool has_get = matches(get_routes), has_post = matches(post_routes);
        if (!has_get && !has_post) {
            *status = 404;
            return nullptr;
        }
        *status = 405;
        *allow = has_get && has_post ? "GET, HEAD, POST" : has_get ? "GET, HEAD" : "POST";
        return nullptr;
    }

    // Lets the error handler answer an error without a body.
    void answer_error(const HttpRequest& request, HttpResponse& response) {
        if (response.status < 400 || !response.body.empty() || response.pull || response.push)
            return;
        if (!error_handler) return;
        try {
            error_handler(request, response);
        } catch (...) {
            log_unexpected_exception("HTTP error handler");
        }
    }

    void accept();
    bool stopping_now() {
        std::lock_guard lock(mutex);
        return stopping;
    }

    Options options;
    std::vector<Route> get_routes;  // written before start() only
    std::vector<Route> post_routes;
    ErrorHandler error_handler;

    // Declared before the I/O context: connections destroyed with it still count themselves out.
    std::mutex mutex;
    size_t open = 0;
    std::map<std::string, size_t> per_address;
    std::map<ConnectionBase*, std::weak_ptr<ConnectionBase>> live;
    bool stopping = false;

    std::unique_ptr<ssl::context> tls;
    asio::io_context io;
    std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
    tcp::acceptor acceptor{io};
    asio::steady_timer accept_retry{io};
    // After the I/O context, so its queued handlers (holding connections) go first.
    std::unique_ptr<HandlerPool> pool;
    std::vector<std::thread> io_threads;
    bool started = false;
};

namespace http_detail {

// The most of a refused request's body the close reads and throws away.
constexpr uint64_t kMaxDrainBytes = 8 << 20;

template <typename Stream>
tcp::socket& lowest(Stream& stream) {
    if constexpr (std::is_same_v<Stream, tcp::socket>)
        return stream;
    else
        return stream.next_layer();
}

template <typename Stream>
class Connection final : public ConnectionBase,
                         public std::enable_shared_from_this<Connection<Stream>> {
    using Self = Connection<Stream>;
    using HttpServerImpl = HttpServer::Impl;

  public:
    // The push stream handed to a streaming response's feeder.
    class Push final : public HttpStream {
      public:
        Push(std::weak_ptr<Self> connection, size_t max_queue)
            : connection_(std::move(connection)), max_queue_(max_queue) {}

        using HttpStream::write;
        bool write(std::shared_ptr<const std::string> chunk) override {
            if (!chunk || chunk->empty()) return !closed();
            std::shared_ptr<Self> connection;
            {
                std::lock_guard lock(mutex_);
                if (closed_) return false;
                connection = connection_.lock();
                if (!connection) {
                    closed_ = true;
                    return false;
                }
                if (queued_bytes_ + chunk->size() > max_queue_) {
                    // The client does not read: it gets no more.
                    closed_ = true;
                    queue_.clear();
                    asio::post(connection->executor(), [connection] { connection->close(); });
                    return false;
                }
                queued_bytes_ += chunk->size();
                queue_.push_back(std::move(chunk));
                last_write_ = Clock::now();
                if (flush_posted_) return true;
                flush_posted_ = true;
            }
            asio::post(connection->executor(), [connection] { connection->flush(); });
            return true;
        }
        void close() override {
            std::shared_ptr<Self> connection;
            {
                std::lock_guard lock(mutex_);
                if (closed_) return;
                closed_ = true;
                connection = connection_.lock();
            }
            if (connection)
                asio::post(connection->executor(), [connection] { connection->close(); });
        }
        bool closed() const override {
            std::lock_guard lock(mutex_);
            return closed_;
        }

      private:
        friend class Connection;
        // Takes what is queued.
        std::deque<std::shared_ptr<const std::string>> take() {
            std::lock_guard lock(mutex_);
            flush_posted_ = false;
            queued_bytes_ = 0;
            return std::exchange(queue_, {});
        }
        Clock::time_point last_write() const {
            std::lock_guard lock(mutex_);
            return last_write_;
        }
        void mark_closed() {
            std::lock_guard lock(mutex_);
            closed_ = true;
            queue_.clear();
        }

        const std::weak_ptr<Self> connection_;
        const size_t max_queue_;
        mutable std::mutex mutex_;
        std::deque<std::shared_ptr<const std::string>> queue_;
        size_t queued_bytes_ = 0;
        bool flush_posted_ = false;
        bool closed_ = false;
        Clock::time_point last_write_ = Clock::now();
    };

    template <typename... Args>
    Connection(HttpServerImpl& server, std::string address, int port, tcp::socket socket,
               Args&&... args)
        : server_(server),
          address_(std::move(address)),
          port_(port),
          stream_(std::move(socket), std::forward<Args>(args)...),
          deadline_(lowest(stream_).get_executor()),
          heartbeat_(lowest(stream_).get_executor()) {}

    ~Connection() override { server_.release(address_, this); }

    auto executor() { return lowest(stream_).get_executor(); }

    void shut() override {
        asio::post(executor(), [self = this->shared_from_this()] { self->close(); });
    }

    void start() {
        arm(server_.options.request_timeout);
        if constexpr (std::is_same_v<Stream, tcp::socket>) {
            read_head();
        } else {
            stream_.async_handshake(ssl::stream_base::server,
                                    [self = this->shared_from_this()](beast::error_code ec) {
                                        if (ec || self->closed_) return self->close();
                                        self->read_head();
                                    });
        }
    }

  private:
    // Closes the connection when a deadline passes; replaces the one before.
    void arm(std::chrono::steady_clock::duration after) {
        deadline_.expires_after(after);
        deadline_.async_wait([self = this->shared_from_this()](beast::error_code ec) {
            if (!ec) self->close();
        });
    }

    // Waits for the next request of a kept-alive connection: idle until its first byte.
    void wait_idle() {
        if (buffer_.size() > 0) {
            arm(server_.options.request_timeout);
            return read_head();
        }
        arm(server_.options.keep_alive);
        stream_.async_read_some(buffer_.prepare(4096), [self = this->shared_from_this()](
                                                           beast::error_code ec, size_t bytes) {
            if (ec || self->closed_) return self->close();
            self->buffer_.commit(bytes);
            self->arm(self->server_.options.request_timeout);
            self->read_head();
        });
    }

    void read_head() {
        parser_.emplace();
        // Beast counts the request line, the headers and their line ends; the body separately,
        // chunked or not.
        parser_->header_limit(uint32_t(server_.options.max_header_bytes));
        // The body's bound is set once the head is read, so that a declared length over it is
        // answered (413) knowing the request's path.
        parser_->body_limit(boost::none);
        request_ = std::make_shared<HttpRequest>();
        request_->client_address = address_;
        request_->client_port = port_;
        http::async_read_header(
            stream_, buffer_, *parser_,
            [self = this->shared_from_this()](beast::error_code ec, size_t) { self->on_head(ec); });
    }

    // Returns whether an error is the client's malformed HTTP rather than the connection's end.
    static bool is_parse_error(const beast::error_code& ec) {
        return ec.category() == beast::http::make_error_code(http::error::bad_method).category() &&
               ec != http::error::end_of_stream && ec != http::error::partial_message;
    }

    void on_head(beast::error_code ec) {
        if (closed_) return;
        if (ec == http::error::header_limit)
            return refuse(431, "request headers too large\n", "text/plain");
        if (ec && is_parse_error(ec)) return refuse(400, "", "");
        if (ec) return close();
        const auto& head = parser_->get();
        HttpRequest& request = *request_;
        request.method = std::string(head.method_string());
        request.target = std::string(head.target());
        size_t count = 0;
        bool long_line =
            request.target.size() + request.method.size() + 11 > server_.options.max_line_bytes;
        for (const auto& field : head) {
            ++count;
            if (field.name_string().size() + field.value().size() + 4 >
                server_.options.max_line_bytes)
                long_line = true;
        }
        if (count > server_.options.max_header_count)
            return refuse(431, "request headers too many\n", "text/plain");
        if (long_line) return refuse(400, "", "");
        if (!parse_target(request)) return refuse(400, "", "");
        for (const auto& field : head)
            request.headers.emplace(std::string(field.name_string()), std::string(field.value()));
        // A body larger than allowed is refused before a byte of it is read.
        const auto length = parser_->content_length();
        if (length && *length > server_.options.max_body_bytes) {
            // The client sends on while the answer goes out: the close reads to the end of
            // what it announced (within its second), so that it reads the 413, not a reset.
            drain_limit_ = size_t(std::clamp<uint64_t>(*length, drain_limit_, kMaxDrainBytes));
            return refuse(413, "", "");
        }
        int status = 0;
        std::string allow;
        route_ = server_.route(request, &status, &allow);
        if (!route_) {
            HttpResponse response;
            response.status = status;
            if (!allow.empty()) response.set_header("Allow", allow);
            if (status == 405) response.set_content("use GET\n", "text/plain");
            return respond_early(std::move(response), has_body());
        }
        if (request.method == "POST" && !length && !parser_->chunked()) return refuse(400, "", "");
        parser_->body_limit(server_.options.max_body_bytes);
        if (parser_->is_done()) return dispatch();
        const auto expect = head.find(http::field::expect);
        if (expect != head.end() && beast::iequals(expect->value(), "100-continue")) {
            out_ = "HTTP/1.1 100 Continue\r\n\r\n";
            return asio::async_write(
                stream_, asio::buffer(out_),
                [self = this->shared_from_this()](beast::error_code written, size_t) {
                    if (written || self->closed_) return self->close();
                    self->read_body();
                });
        }
        read_body();
    }

    bool has_body() const {
        const auto length = parser_->content_length();
        return parser_->chunked() || (length && *length > 0);
    }

    void read_body() {
        http::async_read(stream_, buffer_, *parser_,
                         [self = this->shared_from_this()](beast::error_code ec, size_t) {
                             if (self->closed_) return;
                             if (ec == http::error::body_limit) return self->refuse(413, "", "");
                             if (ec && is_parse_error(ec)) return self->refuse(400, "", "");
                             if (ec) return self->close();
                             self->request_->body = self->parser_->release().body();
                             self->dispatch();
                         });
    }

    // Answers a request that cannot be read further, then closes the connection.
    void refuse(int status, std::string body, std::string type) {
        HttpResponse response;
        response.status = status;
        response.set_content(std::move(body), std::move(type));
        respond_early(std::move(response), true);
    }

    // Answers without a handler (on this thread: the error handler is cheap).
    void respond_early(HttpResponse response, bool close_after) {
        server_.answer_error(*request_, response);
        response_ = std::move(response);
        keep_alive_ = !close_after && parser_ && parser_->is_header_done() && parser_->keep_alive();
        write_response();
    }

    // Runs the request's handler on the pool, then writes its response here.
    void dispatch() {
        keep_alive_ = parser_->keep_alive();
        server_.pool->submit([self = this->shared_from_this()] {
            HttpResponse response;
            const HttpRequest& request = *self->request_;
            try {
                self->route_->handler(request, response);
            } catch (...) {
                // The exception's text stays in the log, not in the answer.
                log_unexpected_exception("HTTP " + request.method + " " +
                                         printable(request.path, 256));
                response = HttpResponse();
                response.status = 500;
                response.set_content("internal error\n", "text/plain");
            }
            self->server_.answer_error(request, response);
            asio::post(self->executor(), [self, response = std::move(response)]() mutable {
                self->response_ = std::move(response);
                // The client left while the handler ran: a stream it opened is ended at once.
                if (self->closed_) return self->end_push();
                self->write_response();
            });
        });
    }

    void write_response() {
        if (closed_) return;
        const HttpResponse& r = response_;
        const bool head_only = request_->method == "HEAD";
        const bool streaming = r.pull || r.push;
        if (server_.stopping_now()) keep_alive_ = false;
        if (streaming && head_only) keep_alive_ = false;
        std::string out = "HTTP/1.1 " + std::to_string(r.status) + " ";
        out += std::string(http::obsolete_reason(http::int_to_status(unsigned(r.status))));
        out += "\r\n";
        if (!r.content_type.empty()) out += "Content-Type: " + one_line(r.content_type) + "\r\n";
        for (const auto& [name, value] : r.headers)
            out += one_line(name) + ": " + one_line(value) + "\r\n";
        for (const auto& [name, value] : server_.options.headers)
            if (!r.has_header(name)) out += name + ": " + value + "\r\n";
        if (streaming)
            out += "Transfer-Encoding: chunked\r\n";
        else
            out += "Content-Length: " + std::to_string(r.body.size()) + "\r\n";
        out += keep_alive_ ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
        if (!streaming && !head_only) out += r.body;
        out_ = std::move(out);
        if (head_only && r.push) {
            // Never opened: whoever joined for it is told at once.
            end_push();
            response_.push.reset();
        }
        arm(server_.options.write_timeout);
        asio::async_write(
            stream_, asio::buffer(out_),
            [self = this->shared_from_this(), head_only](beast::error_code ec, size_t) {
                if (ec || self->closed_) return self->close();
                if (!head_only && self->response_.pull) return self->next_pull();
                if (!head_only && self->response_.push) return self->open_push();
                self->finish();
            });
    }

    // After a whole response: the next request, or the end.
    void finish() {
        response_ = HttpResponse();
        route_ = nullptr;
        if (keep_alive_ && !server_.stopping_now()) return wait_idle();
        if constexpr (std::is_same_v<Stream, tcp::socket>) {
            beast::error_code ignored;
            stream_.shutdown(tcp::socket::shutdown_send, ignored);
            // Drain what the client still sends a moment, so the close sends no reset.
            arm(std::chrono::seconds(1));
            drain();
        } else {
            arm(std::chrono::seconds(1));
            stream_.async_shutdown(
                [self = this->shared_from_this()](beast::error_code) { self->close(); });
        }
    }

    // Reads what the client still sends, a second and 256 KiB at most (a refused body's
    // announced length, up to kMaxDrainBytes), so that the close does not reset the connection
    // before the client has read the answer; a flood is not read on.
    void drain() {
        stream_.async_read_some(asio::buffer(scratch_), [self = this->shared_from_this()](
                                                            beast::error_code ec, size_t bytes) {
            self->drained_ += bytes;
            if (ec || self->closed_ || self->drained_ > self->drain_limit_) return self->close();
            self->drain();
        });
    }

    // Pull streaming: the next chunk is made on the pool and written here.
    void next_pull() {
        server_.pool->submit([self = this->shared_from_this()] {
            std::string chunk;
            bool ok = false;
            try {
                ok = !self->server_.stopping_now() && self->response_.pull(&chunk);
            } catch (...) {
                log_unexpected_exception("HTTP stream of " + printable(self->request_->path, 256));
            }
            asio::post(self->executor(), [self, ok, chunk = std::move(chunk)] {
                if (self->closed_) return;
                if (!ok) return self->close();
                const bool last = chunk.empty();
                self->out_ = last ? std::string("0\r\n\r\n") : chunk_frame(chunk);
                self->arm(self->server_.options.write_timeout);
                asio::async_write(self->stream_, asio::buffer(self->out_),
                                  [self, last](beast::error_code ec, size_t) {
                                      if (ec || self->closed_) return self->close();
                                      if (last) return self->finish();
                                      self->next_pull();
                                  });
            });
        });
    }

    // Push streaming: writes run here as chunks are queued; a read notices the client leave.
    void open_push() {
        deadline_.cancel();
        push_ =
            std::make_shared<Push>(this->weak_from_this(), server_.options.max_stream_queue_bytes);
        watch_client();
        beat();
        const auto stream = push_;
        if (response_.push->on_open) response_.push->on_open(stream);
    }

    void watch_client() {
        stream_.async_read_some(asio::buffer(scratch_), [self = this->shared_from_this()](
                                                            beast::error_code ec, size_t) {
            if (ec || self->closed_) return self->close();
            self->watch_client();  // what a viewer sends while it watches is ignored
        });
    }

    void beat() {
        const auto interval = response_.push->heartbeat_interval;
        if (interval.count() <= 0 || response_.push->heartbeat.empty()) return;
        heartbeat_.expires_after(interval);
        heartbeat_.async_wait([self = this->shared_from_this(), interval](beast::error_code ec) {
            if (ec || self->closed_ || !self->push_) return;
            if (Clock::now() - self->push_->last_write() >= interval)
                self->push_->write(self->response_.push->heartbeat);
            self->beat();
        });
    }

    void flush() {
        if (closed_ || writing_ || !push_) return;
        pieces_ = push_->take();
        if (pieces_.empty()) return;
        // Each queued chunk is framed around the shared text, which is not copied.
        frames_.clear();
        buffers_.clear();
        for (const auto& piece : pieces_) {
            char size[20];
            const auto [end, ec] = std::to_chars(size, size + sizeof size, piece->size(), 16);
            frames_.emplace_back(size, end);
            frames_.back() += "\r\n";
        }
        for (size_t i = 0; i < pieces_.size(); ++i) {
            buffers_.push_back(asio::buffer(frames_[i]));
            buffers_.push_back(asio::buffer(*pieces_[i]));
            buffers_.push_back(asio::buffer("\r\n", 2));
        }
        writing_ = true;
        arm(server_.options.write_timeout);
        asio::async_write(stream_, buffers_,
                          [self = this->shared_from_this()](beast::error_code ec, size_t) {
                              self->writing_ = false;
                              self->pieces_.clear();
                              if (ec || self->closed_) return self->close();
                              self->deadline_.cancel();
                              self->flush();
                          });
    }

    void close() {
        if (closed_) return;
        closed_ = true;
        deadline_.cancel();
        heartbeat_.cancel();
        beast::error_code ignored;
        lowest(stream_).close(ignored);
        if (push_) push_->mark_closed();
        end_push();
    }

    // Tells a push response's feeder, once, that its stream has ended (or never opens).
    void end_push() {
        if (!response_.push || !response_.push->on_closed) return;
        const auto on_closed = std::move(response_.push->on_closed);
        response_.push->on_closed = nullptr;
        try {
            on_closed();
        } catch (...) {
            log_unexpected_exception("HTTP stream end");
        }
    }

    HttpServerImpl& server_;
    const std::string address_;
    const int port_;
    Stream stream_;
    asio::steady_timer deadline_;
    asio::steady_timer heartbeat_;
    beast::flat_buffer buffer_;
    std::optional<http::request_parser<http::string_body>> parser_;
    std::shared_ptr<HttpRequest> request_;
    const Route* route_ = nullptr;
    HttpResponse response_;
    std::string out_;
    char scratch_[1024];
    std::shared_ptr<Push> push_;
    std::deque<std::shared_ptr<const std::string>> pieces_;  // being written, with:
    std::deque<std::string> frames_;                         // their chunk sizes
    std::vector<asio::const_buffer> buffers_;
    size_t drained_ = 0;
    size_t drain_limit_ = 256 * 1024;
    bool keep_alive_ = false;
    bool writing_ = false;
    bool closed_ = false;
};

}  // namespace http_detail

void HttpServer::Impl::accept() {
    acceptor.async_accept(asio::make_strand(io), [this](beast::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted || !acceptor.is_open()) return;
        if (ec) {
            // Out of descriptors, say: the backlog waits a moment rather than spinning.
            accept_retry.expires_after(std::chrono::milliseconds(50));
            accept_retry.async_wait([this](beast::error_code e) {
                if (!e) accept();
            });
            return;
        }
        beast::error_code ignored;
        const auto remote = socket.remote_endpoint(ignored);
        auto ip = remote.address();
        // A dual-stack socket's IPv4 client is that IPv4 address, for the caps and the logs.
        if (ip.is_v6() && ip.to_v6().is_v4_mapped())
            ip = asio::ip::make_address_v4(asio::ip::v4_mapped, ip.to_v6());
        const std::string address = ignored ? std::string() : ip.to_string();
        const int port = ignored ? 0 : remote.port();
        if (ignored || !admit(address)) {
            // Over a cap: closed before anything is read, so it costs no buffer and no timer.
            socket.close(ignored);
            return accept();
        }
        socket.set_option(tcp::no_delay(true), ignored);
        std::shared_ptr<ConnectionBase> connection;
        if (tls) {
            auto c = std::make_shared<Connection<ssl::stream<tcp::socket>>>(
                *this, address, port, std::move(socket), *tls);
            connection = c;
            c->start();
        } else {
            auto c =
                std::make_shared<Connection<tcp::socket>>(*this, address, port, std::move(socket));
            connection = c;
            c->start();
        }
        {
            std::lock_guard lock(mutex);
            live.emplace(connection.get(), connection);
        }
        accept();
    });
}

HttpServer::HttpServer(Options options) : impl_(std::make_unique<Impl>(std::move(options))) {
    const Options& o = impl_->options;
    if (o.tls_cert_file.empty() != o.tls_key_file.empty())
        throw std::runtime_error("HTTPS needs both --tls-cert and --tls-key");
    if (!o.tls_cert_file.empty()) {
        auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
        try {
            context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                                 ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                                 ssl::context::no_tlsv1_1);
            context->use_certificate_chain_file(o.tls_cert_file);
            context->use_private_key_file(o.tls_key_file, ssl::context::pem);
        } catch (const std::exception&) {
            throw std::runtime_error("cannot load the TLS certificate or key for HTTPS on " +
                                     o.flag);
        }
        impl_->tls = std::move(context);
    }
}

HttpServer::~HttpServer() {
    stop();
}

void HttpServer::get(const std::string& path, Handler handler) {
    impl_->get_routes.push_back({std::regex(path), std::move(handler)});
}

void HttpServer::post(const std::string& path, Handler handler) {
    impl_->post_routes.push_back({std::regex(path), std::move(handler)});
}

void HttpServer::on_error(ErrorHandler handler) {
    impl_->error_handler = std::move(handler);
}

size_t HttpServer::connections() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->open;
}

int HttpServer::start() {
    Impl& impl = *impl_;
    const auto [host, port] = split_address(impl.options.listen, impl.options.flag);
    const std::string error =
        "cannot listen for HTTP on " + impl.options.listen + " (address in use or malformed?)";
    beast::error_code ec;
    const auto address = asio::ip::make_address(host, ec);
    if (ec) throw std::runtime_error(error);
    const tcp::endpoint endpoint(address, uint16_t(port));
    impl.acceptor.open(endpoint.protocol(), ec);
    if (!ec) impl.acceptor.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) impl.acceptor.bind(endpoint, ec);
    if (!ec) impl.acceptor.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error(error);
    port_ = impl.acceptor.local_endpoint().port();
    // Thousands of viewers need thousands of descriptors: the soft limit rises to the hard one.
    rlimit files{};
    if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        setrlimit(RLIMIT_NOFILE, &files);
    }
    impl.pool = std::make_unique<HandlerPool>(impl.options.threads, impl.options.nice);
    impl.work.emplace(impl.io.get_executor());
    impl.accept();
    for (int i = 0; i < std::max(1, impl.options.io_threads); ++i)
        impl.io_threads.emplace_back([&impl] {
            lower_priority(impl.options.nice);
            while (true) {
                try {
                    impl.io.run();
                    return;
                } catch (...) {
                    // A handler's exception costs its connection, not the server.
                    log_unexpected_exception("HTTP I/O thread");
                }
            }
        });
    impl.started = true;
    return port_;
}

void HttpServer::stop() {
    Impl& impl = *impl_;
    std::vector<std::shared_ptr<ConnectionBase>> open;
    {
        std::lock_guard lock(impl.mutex);
        if (impl.stopping) return;
        impl.stopping = true;
        for (const auto& [pointer, weak] : impl.live)
            if (auto connection = weak.lock()) open.push_back(std::move(connection));
    }
    if (!impl.started) return;
    std::promise<void> closed;
    asio::post(impl.io, [&impl, &closed] {
        beast::error_code ignored;
        impl.acceptor.close(ignored);
        impl.accept_retry.cancel();
        closed.set_value();
    });
    closed.get_future().wait();
    for (const auto& connection : open) connection->shut();
    open.clear();
    // Handlers in flight finish; their answers find their connections closed.
    impl.pool->stop();
    impl.work.reset();
    for (int i = 0; i < 200 && connections() > 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    impl.io.stop();
    for (std::thread& thread : impl.io_threads)
        if (thread.joinable()) thread.join();
}

}  // namespace sparring::coordinator
