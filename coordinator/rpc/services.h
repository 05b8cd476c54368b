// The gRPC services: thin callback-API adapters that parse a request, run the core on a
// storage executor, and turn the outcome into a response and a status.
#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>

#include "coordinator/domain/core.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/user_api.h"
#include "coordinator/storage/executor.h"
#include "sparring/v1/user.grpc.pb.h"
#include "sparring/v1/worker.grpc.pb.h"

namespace sparring::coordinator {

// Returns the bearer token of a call's `authorization` metadata, or an empty string.
std::string bearer_token(const grpc::CallbackServerContext& context);

// Finishes a call with a status; a shed call's retry-after goes in the trailing metadata
// (client/connection.h's kRetryAfterKey).
void finish_call(grpc::CallbackServerContext* context, grpc::ServerUnaryReactor* reactor,
                 const absl::Status& status);

// Finishes a call at once with a status.
grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, const absl::Status& status);

// Queues fn(storage, caller) on the executor after authenticating the call (with the given
// role, if any; the caller carries the call's peer), and finishes the call with its status
// once fn's transaction has committed.
template <typename Fn>
grpc::ServerUnaryReactor* run_authenticated(grpc::CallbackServerContext* context, Core& core,
                                            Executor& executor, std::optional<Role> role, Fn fn) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    executor.offer(
        [&core, token = bearer_token(*context), peer = context->peer(), role,
         fn = std::move(fn)](Storage& storage) {
            absl::StatusOr<Caller> caller = core.authenticate(storage, token, role);
            if (!caller.ok()) return caller.status();
            caller->peer = peer;
            return fn(storage, *caller);
        },
        [context, reactor](absl::Status status) { finish_call(context, reactor, status); });
    return reactor;
}

class WorkerServiceImpl final : public v1::WorkerService::CallbackService {
  public:
    WorkerServiceImpl(Core& core, Executor& writer) : core_(core), writer_(writer) {}

    grpc::ServerUnaryReactor* Register(grpc::CallbackServerContext* context,
                                       const v1::RegisterRequest* request,
                                       v1::RegisterResponse* response) override;
    grpc::ServerUnaryReactor* RequestWork(grpc::CallbackServerContext* context,
                                          const v1::RequestWorkRequest* request,
                                          v1::RequestWorkResponse* response) override;
    grpc::ServerUnaryReactor* ReportResults(grpc::CallbackServerContext* context,
                                            const v1::ReportResultsRequest* request,
                                            v1::ReportResultsResponse* response) override;
    grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* context,
                                        const v1::HeartbeatRequest* request,
                                        v1::HeartbeatResponse* response) override;
    grpc::ServerUnaryReactor* ReleaseLease(grpc::CallbackServerContext* context,
                                           const v1::ReleaseLeaseRequest* request,
                                           v1::ReleaseLeaseResponse* response) override;

  private:
    Core& core_;
    Executor& writer_;
};

class UserServiceImpl final : public v1::UserService::CallbackService {
  public:
    explicit UserServiceImpl(UserApi& api) : api_(api) {}

    grpc::ServerUnaryReactor* AddVersion(grpc::CallbackServerContext* context,
                                         const v1::AddVersionRequest* request,
                                         v1::Version* response) override;
    grpc::ServerUnaryReactor* ListVersions(grpc::CallbackServerContext* context,
                                           const v1::ListVersionsRequest* request,
                                           v1::ListVersionsResponse* response) override;
    grpc::ServerUnaryReactor* GetVersion(grpc::CallbackServerContext* context,
                                         const v1::GetVersionRequest* request,
                                         v1::Version* response) override;
    grpc::ServerUnaryReactor* SubmitRun(grpc::CallbackServerContext* context,
                                        const v1::SubmitRunRequest* request,
                                        v1::RunStatus* response) override;
    grpc::ServerUnaryReactor* ListRuns(grpc::CallbackServerContext* context,
                                       const v1::ListRunsRequest* request,
                                       v1::ListRunsResponse* response) override;
    grpc::ServerUnaryReactor* GetRun(grpc::CallbackServerContext* context,
                                     const v1::GetRunRequest* request,
                                     v1::RunStatus* response) override;
    grpc::ServerUnaryReactor* StopRun(grpc::CallbackServerContext* context,
                                      const v1::StopRunRequest* request,
                                      v1::RunStatus* response) override;
    grpc::ServerUnaryReactor* ListWorkers(grpc::CallbackServerContext* context,
                                          const v1::ListWorkersRequest* request,
                                          v1::ListWorkersResponse* response) override;
    grpc::ServerUnaryReactor* ExportGames(grpc::CallbackServerContext* context,
                                          const v1::ExportGamesRequest* request,
                                          v1::ExportGamesResponse* response) override;
    grpc::ServerUnaryReactor* GetTuneHistory(grpc::CallbackServerContext* context,
                                             const v1::GetTuneHistoryRequest* request,
                                             v1::TuneHistory* response) override;
    grpc::ServerUnaryReactor* ExportPositions(grpc::CallbackServerContext* context,
                                              const v1::ExportPositionsRequest* request,
                                              v1::ExportPositionsResponse* response) override;
    grpc::ServerUnaryReactor* ImportPositions(grpc::CallbackServerContext* context,
                                              const v1::ImportPositionsRequest* request,
                                              v1::ImportPositionsResponse* response) override;
    grpc::ServerUnaryReactor* GetLlrHistory(grpc::CallbackServerContext* context,
                                            const v1::GetLlrHistoryRequest* request,
                                            v1::LlrHistory* response) override;
    grpc::ServerUnaryReactor* PurgeWorker(grpc::CallbackServerContext* context,
                                          const v1::PurgeWorkerRequest* request,
                                          v1::RunStatus* response) override;

  private:
    UserApi& api_;
};

}  // namespace sparring::coordinator
