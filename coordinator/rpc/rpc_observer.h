// A gRPC server interceptor that observes every call once it has its status: it feeds the
// call metrics (latency and status by method) and logs failed calls. What the calls did
// (reports, leases, runs) comes from the domain events instead (ops/event_log.h,
// ops/event_metrics.h).
#pragma once

#include <grpcpp/support/server_interceptor.h>

#include "coordinator/ops/metrics.h"

namespace sparring::coordinator {

class RpcObserverFactory final : public grpc::experimental::ServerInterceptorFactoryInterface {
  public:
    explicit RpcObserverFactory(Metrics& metrics) : metrics_(metrics) {}

    grpc::experimental::Interceptor* CreateServerInterceptor(
        grpc::experimental::ServerRpcInfo* info) override;

  private:
    Metrics& metrics_;
};

}  // namespace sparring::coordinator
