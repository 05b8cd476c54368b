#include "worker/grpc_coordinator.h"

#include "client/connection.h"

namespace sparring::worker {

bool is_message_too_large(const grpc::Status& status) {
    // gRPC reports both ends' limits with this code and "Received/Sent message larger than
    // max (N vs. M)"; the coordinator's own RESOURCE_EXHAUSTED (busy) stays transient.
    return status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
           status.error_message().find("larger than max") != std::string::npos;
}

CallOutcome outcome_of(const grpc::Status& status, const grpc::ClientContext* context) {
    if (status.ok()) return {};
    CallOutcome outcome;
    outcome.error = rpc::describe(status);
    if (is_message_too_large(status)) {
        outcome.kind = CallOutcome::Kind::Permanent;
        return outcome;
    }
    if (context) outcome.retry_after = rpc::retry_after(*context);
    // The coordinator answers a report or release for a lease that has ended (expired,
    // released, complete, its run stopped) with a failed precondition.
    outcome.kind = rpc::is_transient(status) ? CallOutcome::Kind::Transient
                   : status.error_code() == grpc::StatusCode::FAILED_PRECONDITION
                       ? CallOutcome::Kind::LeaseOver
                       : CallOutcome::Kind::Permanent;
    return outcome;
}

GrpcCoordinator::GrpcCoordinator(v1::WorkerService::Stub& stub, std::string token,
                                 std::chrono::milliseconds timeout)
    : stub_(stub), token_(std::move(token)), timeout_(timeout) {}

CallOutcome GrpcCoordinator::report(const v1::ReportResultsRequest& request,
                                    v1::ReportResultsResponse* response) {
    grpc::ClientContext context;
    rpc::prepare(context, token_, timeout_);
    const grpc::Status status = stub_.ReportResults(&context, request, response);
    return outcome_of(status, &context);
}

CallOutcome GrpcCoordinator::heartbeat(const v1::HeartbeatRequest& request,
                                       v1::HeartbeatResponse* response) {
    grpc::ClientContext context;
    rpc::prepare(context, token_, timeout_);
    const grpc::Status status = stub_.Heartbeat(&context, request, response);
    return outcome_of(status, &context);
}

CallOutcome GrpcCoordinator::release(const v1::ReleaseLeaseRequest& request,
                                     v1::ReleaseLeaseResponse* response) {
    grpc::ClientContext context;
    rpc::prepare(context, token_, timeout_);
    const grpc::Status status = stub_.ReleaseLease(&context, request, response);
    return outcome_of(status, &context);
}

}  // namespace sparring::worker
