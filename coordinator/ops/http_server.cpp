#include "coordinator/ops/http_server.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <stdexcept>
#include <utility>

#include "common/log.h"
#include "common/printable.h"

namespace sparring::coordinator {

namespace {

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

// httplib's pool, whose threads lower their own CPU priority by `nice` before their first
// request (a thread's nice value is its own on Linux).
class NicedThreadPool final : public httplib::ThreadPool {
  public:
    NicedThreadPool(size_t threads, int nice) : ThreadPool(threads), nice_(nice) {}

    void enqueue(std::function<void()> task) override {
        ThreadPool::enqueue([nice = nice_, task = std::move(task)] {
            thread_local bool lowered = false;
            if (!lowered && nice > 0) {
                const auto self = id_t(syscall(SYS_gettid));
                errno = 0;
                const int current = getpriority(PRIO_PROCESS, self);
                if (errno == 0) setpriority(PRIO_PROCESS, self, std::min(19, current + nice));
            }
            lowered = true;
            task();
        });
    }

  private:
    const int nice_;
};

// Returns a plain server, or an HTTPS one when the options name a certificate.
std::unique_ptr<httplib::Server> make_server(const HttpServer::Options& options) {
    if (options.tls_cert_file.empty() != options.tls_key_file.empty())
        throw std::runtime_error("HTTPS needs both --tls-cert and --tls-key");
    if (options.tls_cert_file.empty()) return std::make_unique<httplib::Server>();
    auto secure = std::make_unique<httplib::SSLServer>(options.tls_cert_file.c_str(),
                                                       options.tls_key_file.c_str());
    if (!secure->is_valid())
        throw std::runtime_error("cannot load the TLS certificate or key for HTTPS on " +
                                 options.flag);
    return secure;
}

}  // namespace

HttpServer::HttpServer(Options options)
    : options_(std::move(options)), server_(make_server(options_)) {
    const int threads = options_.threads;
    const int nice = options_.nice;
    server_->new_task_queue = [threads, nice] {
        return new NicedThreadPool(size_t(threads), nice);
    };
    server_->set_read_timeout(options_.read_timeout);
    server_->set_write_timeout(options_.write_timeout);
    server_->set_keep_alive_timeout(options_.keep_alive.count());
    server_->set_payload_max_length(options_.max_body_bytes);
    // A handler that throws answers 500 and is logged; httplib's own answer would carry the
    // exception's message in a header.
    server_->set_exception_handler([](const httplib::Request& request, httplib::Response& response,
                                      std::exception_ptr exception) {
        log_unexpected_exception("HTTP " + request.method + " " + printable(request.path, 256),
                                 exception);
        response.status = 500;
        response.set_content("internal error\n", "text/plain");
    });
    // Answered before any body is read: httplib refuses a POST without a length with 400.
    server_->set_pre_routing_handler(
        [this](const httplib::Request& request, httplib::Response& response) {
            size_t header_bytes = request.target.size();
            for (const auto& [name, value] : request.headers)
                header_bytes += name.size() + value.size();
            if (header_bytes > options_.max_header_bytes) {
                response.status = 431;
                response.set_content("request headers too large\n", "text/plain");
                return httplib::Server::HandlerResponse::Handled;
            }
            if (request.method == "GET" || request.method == "HEAD" ||
                !get_paths_.count(request.path) ||
                (request.method == "POST" && post_paths_.count(request.path)))
                return httplib::Server::HandlerResponse::Unhandled;
            response.status = 405;
            response.set_header("Allow",
                                post_paths_.count(request.path) ? "GET, HEAD, POST" : "GET, HEAD");
            response.set_content("use GET\n", "text/plain");
            return httplib::Server::HandlerResponse::Handled;
        });
}

HttpServer::~HttpServer() {
    stop();
}

void HttpServer::get(const std::string& path, Handler handler) {
    server_->Get(path, std::move(handler));
    get_paths_.insert(path);
}

void HttpServer::post(const std::string& path, Handler handler) {
    server_->Post(path, std::move(handler));
    post_paths_.insert(path);
}

void HttpServer::on_error(ErrorHandler handler) {
    server_->set_error_handler(httplib::Server::HandlerWithResponse(
        [handler = std::move(handler)](const httplib::Request& request,
                                       httplib::Response& response) {
            if (!response.body.empty() || !handler(request, response))
                return httplib::Server::HandlerResponse::Unhandled;
            return httplib::Server::HandlerResponse::Handled;
        }));
}

int HttpServer::start() {
    const auto [host, port] = split_address(options_.listen, options_.flag);
    port_ = port == 0                           ? server_->bind_to_any_port(host)
            : server_->bind_to_port(host, port) ? port
                                                : -1;
    if (port_ <= 0) {
        port_ = 0;
        throw std::runtime_error("cannot listen for HTTP on " + options_.listen +
                                 " (address in use or malformed?)");
    }
    thread_ = std::thread([this] {
        server_->listen_after_bind();
        returned_ = true;
    });
    // stop() only takes effect once the loop runs, so the destructor must not race ahead of it.
    while (!server_->is_running() && !returned_)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return port_;
}

void HttpServer::stop() {
    server_->stop();
    if (thread_.joinable()) thread_.join();
}

}  // namespace sparring::coordinator
