#include "coordinator/rpc/rpc_observer.h"

#include <grpcpp/server_context.h>

#include <chrono>
#include <string>

#include "common/log.h"
#include "sparring/v1/user.pb.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::coordinator {

namespace {

using Hook = grpc::experimental::InterceptionHookPoints;

constexpr std::string_view kStatusNames[] = {
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED"};

// Returns a status code's canonical name.
std::string_view status_name(grpc::StatusCode code) {
    const auto index = size_t(code);
    return index < std::size(kStatusNames) ? kStatusNames[index] : "UNKNOWN";
}

// Returns "Service/Method" of a full method name "/package.Service/Method".
std::string short_method(const char* full) {
    std::string name = full ? full : "";
    const size_t slash = name.rfind('/');
    const size_t dot = name.rfind('.', slash);
    return dot == std::string::npos ? name : name.substr(dot + 1);
}

// Returns the name of a lease release reason as the log shows it.
std::string_view reason_name(v1::ReleaseReason reason) {
    switch (reason) {
        case v1::RELEASE_REASON_SHUTDOWN:
            return "shutdown";
        case v1::RELEASE_REASON_BENCH_MISMATCH:
            return "bench_mismatch";
        case v1::RELEASE_REASON_ENGINE_FAILURE:
            return "engine_failure";
        default:
            return "unspecified";
    }
}

class RpcObserver final : public grpc::experimental::Interceptor {
  public:
    RpcObserver(grpc::experimental::ServerRpcInfo* info, Metrics& metrics)
        : info_(info),
          metrics_(metrics),
          method_(short_method(info->method())),
          ours_(
              std::string_view(info->method() ? info->method() : "").starts_with("/sparring.v1.")),
          start_(std::chrono::steady_clock::now()) {}

    // Keeps the request and the response of the call, and observes it at its status. Only
    // Sparring's own services are known to carry protobuf messages (health checking does not).
    void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
        if (ours_ && methods->QueryInterceptionHookPoint(Hook::POST_RECV_MESSAGE))
            request_ = static_cast<const google::protobuf::Message*>(methods->GetRecvMessage());
        if (ours_ && methods->QueryInterceptionHookPoint(Hook::PRE_SEND_MESSAGE))
            response_ = static_cast<const google::protobuf::Message*>(methods->GetSendMessage());
        if (methods->QueryInterceptionHookPoint(Hook::PRE_SEND_STATUS))
            observe(methods->GetSendStatus());
        methods->Proceed();
    }

  private:
    // Records the call in the metrics and logs what it changed, or why it failed.
    void observe(const grpc::Status& status) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        metrics_.observe_rpc(method_, status_name(status.error_code()), seconds);
        if (!status.ok()) {
            log_failure(status);
            return;
        }
        if (method_ == "WorkerService/ReportResults") {
            const auto* request = as<v1::ReportResultsRequest>(request_);
            const auto* response = as<v1::ReportResultsResponse>(response_);
            if (!request || !response) return;
            int64_t games = 0;
            for (const v1::GamePair& pair : request->pairs())
                games += int64_t(pair.has_first()) + int64_t(pair.has_second());
            metrics_.count_report(games, response->duplicate());
            log_event(LogLevel::Debug, "report",
                      {{"worker", std::to_string(request->worker_id())},
                       {"lease", std::to_string(request->lease_id())},
                       {"sequence", std::to_string(request->sequence())},
                       {"games", std::to_string(games)},
                       {"duplicate", response->duplicate() ? "true" : "false"}});
        } else if (method_ == "WorkerService/Register") {
            const auto* request = as<v1::RegisterRequest>(request_);
            const auto* response = as<v1::RegisterResponse>(response_);
            if (!request || !response) return;
            log_event(LogLevel::Info, "worker_registered",
                      {{"worker", std::to_string(response->worker_id())},
                       {"name", request->name()},
                       {"concurrency", std::to_string(request->concurrency())},
                       {"cores", std::to_string(request->cores())},
                       {"memory_mb", std::to_string(request->memory_mb())},
                       {"build", request->build()},
                       {"peer", info_->server_context()->peer()}});
        } else if (method_ == "WorkerService/RequestWork") {
            const auto* request = as<v1::RequestWorkRequest>(request_);
            const auto* response = as<v1::RequestWorkResponse>(response_);
            if (!request || !response || !response->has_lease()) return;
            log_event(LogLevel::Debug, "lease_granted",
                      {{"worker", std::to_string(request->worker_id())},
                       {"lease", std::to_string(response->lease().lease_id())},
                       {"run", std::to_string(response->lease().run_id())},
                       {"pairs", std::to_string(response->lease().openings_size())}});
        } else if (method_ == "WorkerService/ReleaseLease") {
            const auto* request = as<v1::ReleaseLeaseRequest>(request_);
            const auto* response = as<v1::ReleaseLeaseResponse>(response_);
            if (!request || !response) return;
            const bool shutdown = request->reason() == v1::RELEASE_REASON_SHUTDOWN;
            log_event(shutdown ? LogLevel::Info : LogLevel::Warn, "lease_released",
                      {{"worker", std::to_string(request->worker_id())},
                       {"lease", std::to_string(request->lease_id())},
                       {"reason", std::string(reason_name(request->reason()))},
                       {"pairs_returned", std::to_string(response->pairs_returned())},
                       {"message", request->message()}});
        } else if (method_ == "UserService/AddVersion") {
            if (const auto* version = as<v1::Version>(response_))
                log_event(
                    LogLevel::Info, "version_added",
                    {{"version", version->name()}, {"bench", std::to_string(version->bench())}});
        } else if (method_ == "UserService/SubmitRun") {
            if (const auto* run = as<v1::RunStatus>(response_))
                log_event(LogLevel::Info, "run_submitted",
                          {{"run", std::to_string(run->id())},
                           {"test", run->spec().test_version()},
                           {"base", run->spec().base_version()},
                           {"games", std::to_string(run->spec().games())}});
        } else if (method_ == "UserService/StopRun") {
            if (const auto* run = as<v1::RunStatus>(response_))
                log_event(LogLevel::Info, "run_stop_requested",
                          {{"run", std::to_string(run->id())},
                           {"peer", info_->server_context()->peer()}});
        }
    }

    // Logs a failed call: refused credentials as warnings, server faults as errors.
    void log_failure(const grpc::Status& status) const {
        const grpc::StatusCode code = status.error_code();
        LogLevel level = LogLevel::Info;
        if (code == grpc::StatusCode::UNAUTHENTICATED ||
            code == grpc::StatusCode::PERMISSION_DENIED)
            level = LogLevel::Warn;
        else if (code == grpc::StatusCode::INTERNAL || code == grpc::StatusCode::UNAVAILABLE ||
                 code == grpc::StatusCode::DATA_LOSS || code == grpc::StatusCode::UNKNOWN)
            level = LogLevel::Error;
        log_event(level, "rpc_failed",
                  {{"method", method_},
                   {"code", std::string(status_name(code))},
                   {"message", status.error_message()},
                   {"peer", info_->server_context()->peer()}});
    }

    // Returns the message as the expected type, or nullptr when it is something else.
    template <typename T>
    static const T* as(const google::protobuf::Message* message) {
        return message && message->GetDescriptor() == T::descriptor()
                   ? static_cast<const T*>(message)
                   : nullptr;
    }

    grpc::experimental::ServerRpcInfo* info_;
    Metrics& metrics_;
    std::string method_;
    bool ours_;
    std::chrono::steady_clock::time_point start_;
    const google::protobuf::Message* request_ = nullptr;
    const google::protobuf::Message* response_ = nullptr;
};

}  // namespace

grpc::experimental::Interceptor* RpcObserverFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
    return new RpcObserver(info, metrics_);
}

}  // namespace sparring::coordinator
