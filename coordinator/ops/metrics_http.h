// A minimal HTTP/1.1 endpoint for Prometheus: answers GET /metrics on its own port, one
// connection at a time, with whatever the render function returns.
#pragma once

#include <functional>
#include <string>
#include <thread>

namespace sparring::coordinator {

class MetricsEndpoint {
  public:
    // Listens on HOST:PORT (port 0 picks one); throws std::runtime_error if it cannot.
    MetricsEndpoint(const std::string& listen, std::function<std::string()> render);
    // Stops listening and joins the serving thread.
    ~MetricsEndpoint();
    MetricsEndpoint(const MetricsEndpoint&) = delete;
    MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

    int port() const { return port_; }

  private:
    // Accepts and answers connections until the stop pipe is written.
    void serve();
    // Reads one request from a connection and writes the response.
    void answer(int fd) const;

    std::function<std::string()> render_;
    int listen_fd_ = -1;
    int stop_pipe_[2] = {-1, -1};
    int port_ = 0;
    std::thread thread_;
};

}  // namespace sparring::coordinator
