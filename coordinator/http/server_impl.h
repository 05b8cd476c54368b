// The HTTP server's state, shared by the server object (http_server.cpp) and its connections
// (connection.cpp): routes, connection counts and caps, the I/O context and the handler pool.
#pragma once

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "common/log.h"
#include "coordinator/http/handler_pool.h"
#include "coordinator/http/http_server.h"

namespace sparring::coordinator {

namespace http_detail {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using Clock = std::chrono::steady_clock;

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

}  // namespace sparring::coordinator
