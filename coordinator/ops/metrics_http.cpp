#include "coordinator/ops/metrics_http.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string_view>

#include "common/log.h"

namespace sparring::coordinator {

namespace {

// Splits "HOST:PORT" (or "[V6]:PORT"); throws std::runtime_error if there is no port.
std::pair<std::string, std::string> split_address(const std::string& listen) {
    const size_t colon = listen.rfind(':');
    if (colon == std::string::npos || colon + 1 == listen.size())
        throw std::runtime_error("--metrics-listen needs HOST:PORT, not '" + listen + "'");
    std::string host = listen.substr(0, colon);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    return {host, listen.substr(colon + 1)};
}

// Opens a listening TCP socket on the address; throws std::runtime_error naming it.
int listen_on(const std::string& listen) {
    const auto [host, port] = split_address(listen);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found) != 0)
        throw std::runtime_error("cannot resolve metrics address " + listen);
    int fd = -1;
    for (addrinfo* a = found; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd < 0) continue;
        const int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 16) != 0) {
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(found);
    if (fd < 0)
        throw std::runtime_error("cannot listen for metrics on " + listen + ": " +
                                 std::strerror(errno));
    return fd;
}

// Returns the port a socket is bound to.
int bound_port(int fd) {
    sockaddr_storage address{};
    socklen_t size = sizeof address;
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
    if (address.ss_family == AF_INET6)
        return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
    return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

// Writes all of a buffer unless the peer goes away.
void write_all(int fd, std::string_view data) {
    while (!data.empty()) {
        const ssize_t n = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
        if (n <= 0) return;
        data.remove_prefix(size_t(n));
    }
}

// Returns a complete HTTP response with a plain-text body.
std::string response(std::string_view status, std::string_view content_type, std::string_view body,
                     std::string_view extra_header = {}) {
    std::string out =
        "HTTP/1.1 " + std::string(status) + "\r\nContent-Type: " + std::string(content_type) +
        "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n";
    out.append(extra_header);
    out += "\r\n";
    out.append(body);
    return out;
}

}  // namespace

MetricsEndpoint::MetricsEndpoint(const std::string& listen, std::function<std::string()> render)
    : render_(std::move(render)), listen_fd_(listen_on(listen)), port_(bound_port(listen_fd_)) {
    if (pipe2(stop_pipe_, O_CLOEXEC) != 0) {
        close(listen_fd_);
        throw std::runtime_error("cannot create a pipe for the metrics endpoint");
    }
    thread_ = std::thread([this] { serve(); });
}

MetricsEndpoint::~MetricsEndpoint() {
    const char byte = 0;
    [[maybe_unused]] const ssize_t n = write(stop_pipe_[1], &byte, 1);
    thread_.join();
    close(listen_fd_);
    close(stop_pipe_[0]);
    close(stop_pipe_[1]);
}

void MetricsEndpoint::serve() {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_pipe_[0], POLLIN, 0}};
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            log_event(LogLevel::Error, "metrics_poll_failed", {{"error", std::strerror(errno)}});
            return;
        }
        if (fds[1].revents) return;
        if (!(fds[0].revents & POLLIN)) continue;
        const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) continue;
        // A client that sends nothing holds the endpoint up for two seconds at most.
        const timeval timeout{2, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        answer(fd);
        close(fd);
    }
}

void MetricsEndpoint::answer(int fd) const {
    std::string request;
    char buffer[2048];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16384) {
        const ssize_t n = recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) return;
        request.append(buffer, size_t(n));
    }
    const std::string_view line = std::string_view(request).substr(0, request.find("\r\n"));
    const size_t first = line.find(' ');
    const size_t second = line.find(' ', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) {
        write_all(fd, response("400 Bad Request", "text/plain", "malformed request\n"));
        return;
    }
    const std::string_view method = line.substr(0, first);
    std::string_view target = line.substr(first + 1, second - first - 1);
    target = target.substr(0, target.find('?'));
    if (target != "/metrics") {
        write_all(fd, response("404 Not Found", "text/plain", "only /metrics is served here\n"));
        return;
    }
    if (method != "GET" && method != "HEAD") {
        write_all(fd, response("405 Method Not Allowed", "text/plain", "use GET\n",
                               "Allow: GET, HEAD\r\n"));
        return;
    }
    std::string body;
    try {
        body = render_();
    } catch (const std::exception& e) {
        write_all(fd, response("503 Service Unavailable", "text/plain",
                               std::string("metrics unavailable: ") + e.what() + "\n"));
        return;
    }
    std::string out = response("200 OK", "text/plain; version=0.0.4; charset=utf-8", body);
    if (method == "HEAD") out.resize(out.size() - body.size());
    write_all(fd, out);
}

}  // namespace sparring::coordinator
