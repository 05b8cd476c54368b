// The coordinator's WorkerService behind the lease session's interface: each call gets the
// bearer token and a deadline, and its status is classified for retrying.
#pragma once

#include <chrono>
#include <string>

#include "sparring/v1/worker.grpc.pb.h"
#include "worker/lease_session.h"
#include "worker/retry.h"

namespace sparring::worker {

// Returns whether a call failed because a message exceeded a size limit (the worker's
// receive limit or the coordinator's): repeating it unchanged cannot help.
bool is_message_too_large(const grpc::Status& status);

// Returns how a finished gRPC call ended, as the worker's retry logic sees it, with the wait
// a busy coordinator asked for in the call's trailing metadata (when context is given).
CallOutcome outcome_of(const grpc::Status& status, const grpc::ClientContext* context = nullptr);

class GrpcCoordinator final : public LeaseCoordinator {
  public:
    GrpcCoordinator(v1::WorkerService::Stub& stub, std::string token,
                    std::chrono::milliseconds timeout);

    CallOutcome report(const v1::ReportResultsRequest& request,
                       v1::ReportResultsResponse* response) override;
    CallOutcome heartbeat(const v1::HeartbeatRequest& request,
                          v1::HeartbeatResponse* response) override;
    CallOutcome release(const v1::ReleaseLeaseRequest& request,
                        v1::ReleaseLeaseResponse* response) override;

  private:
    v1::WorkerService::Stub& stub_;
    std::string token_;
    std::chrono::milliseconds timeout_;
};

}  // namespace sparring::worker
