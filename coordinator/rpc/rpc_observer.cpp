#include "coordinator/rpc/rpc_observer.h"

#include <grpcpp/server_context.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "common/log.h"
#include "coordinator/domain/text.h"

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

// Lets at most kLinesPerSecond lines of refused credentials into the log each second and counts
// the rest: a flood of calls without a valid token cannot fill the disk with log lines (the
// metrics still count every call).
class RefusalLogBudget {
  public:
    static constexpr int kLinesPerSecond = 20;

    // Returns whether a line may be logged now; if so, *dropped is how many were not since the
    // last one that was.
    bool take(uint64_t* dropped) {
        std::lock_guard lock(mutex_);
        const auto now = std::chrono::steady_clock::now();
        if (now - window_start_ >= std::chrono::seconds(1)) {
            window_start_ = now;
            used_ = 0;
        }
        if (used_ >= kLinesPerSecond) {
            ++dropped_;
            return false;
        }
        ++used_;
        *dropped = std::exchange(dropped_, 0);
        return true;
    }

  private:
    std::mutex mutex_;
    std::chrono::steady_clock::time_point window_start_{};
    int used_ = 0;
    uint64_t dropped_ = 0;
};

RefusalLogBudget refusal_log_budget;
// The same for calls shed by an overloaded coordinator (RESOURCE_EXHAUSTED): under overload a
// line per shed call was a twentieth of the coordinator's CPU (issue 53's profile at 50,000
// workers), spent while it had least to spare; sparring_rpc_requests_total counts every one.
RefusalLogBudget shed_log_budget;

class RpcObserver final : public grpc::experimental::Interceptor {
  public:
    RpcObserver(grpc::experimental::ServerRpcInfo* info, Metrics& metrics)
        : info_(info),
          metrics_(metrics),
          method_(short_method(info->method())),
          start_(std::chrono::steady_clock::now()) {}

    // Observes the call at its status.
    void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
        if (methods->QueryInterceptionHookPoint(Hook::PRE_SEND_STATUS))
            observe(methods->GetSendStatus());
        methods->Proceed();
    }

  private:
    // Records the call in the metrics and logs why it failed, if it did.
    void observe(const grpc::Status& status) {
        const double seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        metrics_.observe_rpc(method_, status_name(status.error_code()), seconds);
        if (!status.ok()) log_failure(status);
    }

    // Logs a failed call: refused credentials as warnings, server faults as errors.
    void log_failure(const grpc::Status& status) const {
        const grpc::StatusCode code = status.error_code();
        uint64_t shed_dropped = 0;
        if (code == grpc::StatusCode::RESOURCE_EXHAUSTED && !shed_log_budget.take(&shed_dropped))
            return;
        LogLevel level = LogLevel::Info;
        std::vector<LogField> fields = {{"method", method_},
                                        {"code", std::string(status_name(code))},
                                        {"message", excerpt(status.error_message(), 256)},
                                        {"peer", info_->server_context()->peer()}};
        if (shed_dropped > 0) fields.emplace_back("suppressed", std::to_string(shed_dropped));
        if (code == grpc::StatusCode::UNAUTHENTICATED ||
            code == grpc::StatusCode::PERMISSION_DENIED) {
            level = LogLevel::Warn;
            uint64_t dropped = 0;
            if (!refusal_log_budget.take(&dropped)) return;
            if (dropped > 0) fields.emplace_back("suppressed", std::to_string(dropped));
        } else if (code == grpc::StatusCode::INTERNAL || code == grpc::StatusCode::UNAVAILABLE ||
                   code == grpc::StatusCode::DATA_LOSS || code == grpc::StatusCode::UNKNOWN) {
            level = LogLevel::Error;
        }
        log_event(level, "rpc_failed", fields);
    }

    grpc::experimental::ServerRpcInfo* info_;
    Metrics& metrics_;
    std::string method_;
    std::chrono::steady_clock::time_point start_;
};

}  // namespace

grpc::experimental::Interceptor* RpcObserverFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
    return new RpcObserver(info, metrics_);
}

}  // namespace sparring::coordinator
