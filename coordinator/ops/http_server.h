// The coordinator's one HTTP server implementation, behind --metrics-listen and --http-listen
// alike: cpp-httplib on a thread pool, so a slow client holds one thread and never delays the
// others; reads and writes time out, request headers and bodies are bounded, and with a
// certificate it serves HTTPS. Routes are registered before start().
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <thread>

namespace sparring::coordinator {

class HttpServer {
  public:
    struct Options {
        std::string listen;                     // HOST:PORT ("[V6]:PORT"); port 0 picks a free port
        std::string flag = "--metrics-listen";  // names the address in errors
        int threads = 8;                        // --metrics-listen's; the dashboard sets its own
        std::chrono::seconds read_timeout{5};   // per read of a request
        std::chrono::seconds write_timeout{5};  // per write of a response
        std::chrono::seconds keep_alive{2};     // an idle connection holds a thread this long
        size_t max_body_bytes = 64 * 1024;
        // Request line and headers together; httplib itself stops any one line at 8 KiB.
        size_t max_header_bytes = 16 * 1024;
        std::string tls_cert_file;  // with tls_key_file: serve HTTPS
        std::string tls_key_file;
        // How much lower than the rest of the process the server's threads run (added to their
        // nice value): under load, pages, live updates and scrapes wait for the CPU, not the
        // workers' reports.
        int nice = 10;
    };
    using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
    // Answers a request that found no route or failed before one (404, 405, 413, 400...);
    // returns whether it did.
    using ErrorHandler = std::function<bool(const httplib::Request&, httplib::Response&)>;

    // Throws std::runtime_error when the certificate or key cannot be loaded.
    explicit HttpServer(Options options);
    // Stops listening, finishes the requests in flight and joins the threads.
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
    // Binds the address and serves on a thread of its own; returns the port. Throws
    // std::runtime_error naming the address if it cannot listen.
    int start();
    // Stops accepting and finishes the requests in flight; safe to call twice.
    void stop();
    // Returns the port bound, 0 before start().
    int port() const { return port_; }

  private:
    Options options_;
    std::unique_ptr<httplib::Server> server_;
    std::set<std::string> get_paths_;   // written before start() only
    std::set<std::string> post_paths_;  // likewise
    int port_ = 0;
    std::atomic<bool> returned_{false};  // the serving loop has ended
    std::thread thread_;
};

}  // namespace sparring::coordinator
