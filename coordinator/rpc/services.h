// The gRPC services: thin callback-API adapters that parse a request, run the core on a
// storage executor, and turn the outcome into a response and a status.
#pragma once

#include <grpcpp/grpcpp.h>

#include <optional>

#include "coordinator/domain/core.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/engine_transfer.h"
#include "coordinator/rpc/user_api.h"
#include "coordinator/storage/executor.h"
#include "sparring/v1/user.grpc.pb.h"
#include "sparring/v1/worker.grpc.pb.h"

namespace sparring::coordinator {

// Returns the bearer token of a call's `authorization` metadata, or an empty string.
std::string bearer_token(const grpc::CallbackServerContext& context);

// Finishes a call at once with a status.
grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, const absl::Status& status);

// Queues fn(storage, caller) on the executor after authenticating the call (with the given
// role, if any; the caller carries the call's peer), and finishes the call with its status
// once fn's transaction has committed.
template <typename Fn>
grpc::ServerUnaryReactor* run_authenticated(grpc::CallbackServerContext* context, Core& core,
                                            Executor& executor, std::optional<Role> role, Fn fn) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    executor.submit(
        [&core, token = bearer_token(*context), peer = context->peer(), role,
         fn = std::move(fn)](Storage& storage) {
            absl::StatusOr<Caller> caller = core.authenticate(storage, token, role);
            if (!caller.ok()) return caller.status();
            caller->peer = peer;
            return fn(storage, *caller);
        },
        [reactor](absl::Status status) { reactor->Finish(to_grpc(status)); });
    return reactor;
}

class WorkerServiceImpl final : public v1::WorkerService::CallbackService {
  public:
    WorkerServiceImpl(Core& core, Executor& writer, EngineTransfers& engines)
        : core_(core), writer_(writer), engines_(engines) {}

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
    grpc::ServerWriteReactor<v1::EngineChunk>* FetchEngine(
        grpc::CallbackServerContext* context, const v1::FetchEngineRequest* request) override {
        return engines_.fetch(context, request);
    }

  private:
    Core& core_;
    Executor& writer_;
    EngineTransfers& engines_;
};

class UserServiceImpl final : public v1::UserService::CallbackService {
  public:
    UserServiceImpl(UserApi& api, EngineTransfers& engines) : api_(api), engines_(engines) {}

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
    grpc::ServerReadReactor<v1::UploadEngineRequest>* UploadEngine(
        grpc::CallbackServerContext* context, v1::UploadEngineResponse* response) override {
        return engines_.upload(context, response);
    }

  private:
    UserApi& api_;
    EngineTransfers& engines_;
};

}  // namespace sparring::coordinator
