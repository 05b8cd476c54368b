#include "coordinator/ops/http_server.h"

#include <atomic>
#include <charconv>
#include <stdexcept>
#include <utility>

namespace sparring::coordinator {

namespace {

// Splits "HOST:PORT" (or "[V6]:PORT"); throws std::runtime_error unless the port is a number.
std::pair<std::string, int> split_address(const std::string& listen) {
    const size_t colon = listen.rfind(':');
    const std::string error = "--metrics-listen needs HOST:PORT, not '" + listen + "'";
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

}  // namespace

HttpServer::HttpServer(Options options) : options_(std::move(options)) {
    const int threads = options_.threads;
    server_.new_task_queue = [threads] { return new httplib::ThreadPool(size_t(threads)); };
    server_.set_read_timeout(options_.read_timeout);
    server_.set_write_timeout(options_.write_timeout);
    server_.set_keep_alive_timeout(options_.keep_alive.count());
    server_.set_payload_max_length(options_.max_body_bytes);
    // Answered before any body is read: httplib refuses a POST without a length with 400.
    server_.set_pre_routing_handler([this](const httplib::Request& request,
                                           httplib::Response& response) {
        size_t header_bytes = request.target.size();
        for (const auto& [name, value] : request.headers)
            header_bytes += name.size() + value.size();
        if (header_bytes > options_.max_header_bytes) {
            response.status = 431;
            return httplib::Server::HandlerResponse::Handled;
        }
        if (request.method == "GET" || request.method == "HEAD" || !get_paths_.count(request.path))
            return httplib::Server::HandlerResponse::Unhandled;
        response.status = 405;
        response.set_header("Allow", "GET, HEAD");
        response.set_content("use GET\n", "text/plain");
        return httplib::Server::HandlerResponse::Handled;
    });
}

HttpServer::~HttpServer() {
    server_.stop();
    if (thread_.joinable()) thread_.join();
}

void HttpServer::get(const std::string& path, Handler handler) {
    server_.Get(path, std::move(handler));
    get_paths_.insert(path);
}

void HttpServer::start() {
    const auto [host, port] = split_address(options_.listen);
    port_ = port == 0                          ? server_.bind_to_any_port(host)
            : server_.bind_to_port(host, port) ? port
                                               : -1;
    if (port_ <= 0) {
        port_ = 0;
        throw std::runtime_error("cannot listen for HTTP on " + options_.listen +
                                 " (address in use or malformed?)");
    }
    std::atomic<bool> returned{false};
    thread_ = std::thread([this, &returned] {
        server_.listen_after_bind();
        returned = true;
    });
    // stop() only takes effect once the loop runs, so the destructor must not race ahead of it.
    while (!server_.is_running() && !returned)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

}  // namespace sparring::coordinator
