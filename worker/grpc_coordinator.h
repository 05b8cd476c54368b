// The worker's one client of the coordinator's WorkerService: it owns the channel, and every
// call gets the bearer token and a deadline and has its status classified for retrying. The
// lease session sees it through LeaseCoordinator; the worker makes its other calls with it.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "client/connection.h"
#include "sparring/v1/worker.grpc.pb.h"
#include "worker/engine_cache.h"
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
    // A unary call of the service's stub.
    template <typename Request, typename Response>
    using Method = grpc::Status (v1::WorkerService::Stub::*)(grpc::ClientContext*, const Request&,
                                                             Response*);

    // Connects to the endpoint; throws std::runtime_error if it is unusable (unreadable CA
    // file). Each unary call may take up to timeout.
    GrpcCoordinator(const rpc::Endpoint& endpoint, std::chrono::milliseconds timeout);

    // Makes one unary call; returns its status, and how it ended for retrying in *outcome.
    template <typename Request, typename Response>
    grpc::Status call(Method<Request, Response> method, const Request& request, Response* response,
                      CallOutcome* outcome = nullptr);

    CallOutcome report(const v1::ReportResultsRequest& request,
                       v1::ReportResultsResponse* response) override;
    CallOutcome heartbeat(const v1::HeartbeatRequest& request,
                          v1::HeartbeatResponse* response) override;
    CallOutcome release(const v1::ReleaseLeaseRequest& request,
                        v1::ReleaseLeaseResponse* response) override;

    // Streams an engine file from an offset into write (EngineCache::Fetch); a whole file may
    // take a while, so the stream has a deadline of its own.
    EngineCache::FetchResult fetch_engine(const v1::FetchEngineRequest& request,
                                          const std::function<bool(std::string_view)>& write);

  private:
    std::string token_;
    std::chrono::milliseconds timeout_;
    std::shared_ptr<grpc::Channel> channel_;
    std::unique_ptr<v1::WorkerService::Stub> stub_;
};

template <typename Request, typename Response>
grpc::Status GrpcCoordinator::call(Method<Request, Response> method, const Request& request,
                                   Response* response, CallOutcome* outcome) {
    grpc::ClientContext context;
    rpc::prepare(context, token_, timeout_);
    const grpc::Status status = ((*stub_).*method)(&context, request, response);
    if (outcome) *outcome = outcome_of(status, &context);
    return status;
}

}  // namespace sparring::worker
