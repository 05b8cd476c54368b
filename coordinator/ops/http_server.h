// The coordinator's HTTP endpoint (--metrics-listen): a cpp-httplib server on a thread pool,
// so a slow client holds one thread and never delays the others. Routes are registered
// before start().
#pragma once

#include <httplib.h>

#include <chrono>
#include <functional>
#include <set>
#include <string>
#include <thread>

namespace sparring::coordinator {

class HttpServer {
  public:
    struct Options {
        std::string listen;  // HOST:PORT ("[V6]:PORT"); port 0 picks a free port
        int threads = 8;
        std::chrono::seconds read_timeout{5};   // per read of a request
        std::chrono::seconds write_timeout{5};  // per write of a response
        std::chrono::seconds keep_alive{2};     // an idle connection holds a thread this long
        size_t max_body_bytes = 64 * 1024;
        // Request line and headers together; httplib itself stops any one line at 8 KiB.
        size_t max_header_bytes = 16 * 1024;
    };
    using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;

    explicit HttpServer(Options options);
    // Stops listening, finishes the requests in flight and joins the threads.
    ~HttpServer();
    HttpServer(const HttpServer&) = delete;
    HttpServer& operator=(const HttpServer&) = delete;

    // Serves GET and HEAD on a path; other methods there get 405 Method Not Allowed.
    void get(const std::string& path, Handler handler);
    // Binds the address and serves on a thread of its own; throws std::runtime_error naming
    // the address if it cannot listen.
    void start();
    // Returns the port bound, 0 before start().
    int port() const { return port_; }

  private:
    Options options_;
    httplib::Server server_;
    std::set<std::string> get_paths_;  // written before start() only
    int port_ = 0;
    std::thread thread_;
};

}  // namespace sparring::coordinator
