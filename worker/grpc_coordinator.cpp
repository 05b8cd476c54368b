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

GrpcCoordinator::GrpcCoordinator(const rpc::Endpoint& endpoint, std::chrono::milliseconds timeout)
    : token_(endpoint.token),
      timeout_(timeout),
      channel_(rpc::make_channel(endpoint)),
      stub_(v1::WorkerService::NewStub(channel_)) {}

CallOutcome GrpcCoordinator::report(const v1::ReportResultsRequest& request,
                                    v1::ReportResultsResponse* response) {
    CallOutcome outcome;
    call(&v1::WorkerService::Stub::ReportResults, request, response, &outcome);
    return outcome;
}

CallOutcome GrpcCoordinator::heartbeat(const v1::HeartbeatRequest& request,
                                       v1::HeartbeatResponse* response) {
    CallOutcome outcome;
    call(&v1::WorkerService::Stub::Heartbeat, request, response, &outcome);
    return outcome;
}

CallOutcome GrpcCoordinator::release(const v1::ReleaseLeaseRequest& request,
                                     v1::ReleaseLeaseResponse* response) {
    CallOutcome outcome;
    call(&v1::WorkerService::Stub::ReleaseLease, request, response, &outcome);
    return outcome;
}

EngineCache::FetchResult GrpcCoordinator::fetch_engine(
    const v1::FetchEngineRequest& request, const std::function<bool(std::string_view)>& write) {
    grpc::ClientContext context;
    // A stalled stream is cut and resumed from where it stopped.
    rpc::prepare(context, token_, std::chrono::minutes(10));
    std::unique_ptr<grpc::ClientReader<v1::EngineChunk>> reader =
        stub_->FetchEngine(&context, request);
    v1::EngineChunk chunk;
    uint64_t at = request.offset();
    while (reader->Read(&chunk)) {
        if (chunk.offset() != at || !write(chunk.data())) {
            context.TryCancel();
            while (reader->Read(&chunk)) {
            }
            reader->Finish();
            return {false, false, "the coordinator sent bytes out of order or too many"};
        }
        at += chunk.data().size();
    }
    const grpc::Status status = reader->Finish();
    if (status.ok()) return {true, false, ""};
    return {false, rpc::is_transient(status), rpc::describe(status)};
}

}  // namespace sparring::worker
