// A gRPC server interceptor that observes every call once it has its status: it feeds the
// metrics (latency and status by method, result reports, games) and logs the calls that
// change workers, leases and runs.
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
