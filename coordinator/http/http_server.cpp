#include "coordinator/http/http_server.h"

#include <sys/resource.h>

#include <algorithm>
#include <future>
#include <stdexcept>
#include <utility>

#include "common/log.h"
#include "coordinator/http/server_impl.h"
#include "coordinator/http/text.h"

namespace sparring::coordinator {

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
