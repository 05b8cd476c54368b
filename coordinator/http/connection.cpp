// One HTTP connection (plain or TLS) from accept to close: reads a request whole under the
// server's bounds, runs its handler on the pool, writes the response, pulled or pushed.
#include <sys/sendfile.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <deque>
#include <utility>

#include "common/log.h"
#include "common/printable.h"
#include "coordinator/http/server_impl.h"
#include "coordinator/http/text.h"

namespace sparring::coordinator {

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
        const bool sized = r.pull && r.pull_length;  // a file's bytes: Content-Length
        const bool streaming = (r.pull || r.push) && !sized;
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
            out += "Content-Length: " + std::to_string(sized ? *r.pull_length : r.body.size()) +
                   "\r\n";
        out += keep_alive_ ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
        if (!streaming && !sized && !head_only) out += r.body;
        out_ = std::move(out);
        sized_left_ = sized ? *r.pull_length : 0;
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
                if (!head_only && self->response_.pull_length && self->response_.file_fd >= 0 &&
                    std::is_same_v<Stream, tcp::socket>)
                    return self->send_file();
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

    // A file's bytes on a plaintext connection: sendfile(2) from the file to the socket while
    // it takes them, then a wait until it is writable again; the connection ends unfinished if
    // the file comes up short or the socket fails.
    void send_file() {
        if constexpr (std::is_same_v<Stream, tcp::socket>) {
            beast::error_code ec;
            stream_.native_non_blocking(true, ec);
            if (ec) return close();
            while (sized_left_ > 0) {
                off_t at = off_t(response_.file_offset + (*response_.pull_length - sized_left_));
                const ssize_t n = ::sendfile(stream_.native_handle(), response_.file_fd, &at,
                                             size_t(std::min<uint64_t>(sized_left_, 1 << 20)));
                if (n > 0) {
                    sized_left_ -= uint64_t(n);
                    continue;
                }
                if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
                    arm(server_.options.write_timeout);
                    stream_.async_wait(tcp::socket::wait_write,
                                       [self = this->shared_from_this()](beast::error_code error) {
                                           if (error || self->closed_) return self->close();
                                           self->send_file();
                                       });
                    return;
                }
                if (n < 0 && errno == EINTR) continue;
                return close();
            }
            finish();
        }
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
            asio::post(self->executor(), [self, ok, chunk = std::move(chunk)]() mutable {
                if (self->closed_) return;
                if (!ok) return self->close();
                const bool last = chunk.empty();
                if (self->response_.pull_length) {
                    // Unframed bytes of a known length: exactly that many, or the connection
                    // ends unfinished.
                    if (chunk.size() > self->sized_left_ || (last && self->sized_left_ > 0))
                        return self->close();
                    if (last) return self->finish();
                    self->sized_left_ -= chunk.size();
                    self->out_ = std::move(chunk);
                } else {
                    self->out_ = last ? std::string("0\r\n\r\n") : chunk_frame(chunk);
                }
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
    uint64_t sized_left_ = 0;  // of a pulled body of known length, still to write
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

}  // namespace sparring::coordinator
