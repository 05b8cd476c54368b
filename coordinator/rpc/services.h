// The gRPC services: every method is served behind the gate (gate.h), which checks the
// caller's token before the request is parsed; then a thin adapter converts the request,
// runs the core on a storage executor, and turns the outcome into a response and a status.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <optional>

#include "coordinator/domain/core.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/engine_transfer.h"
#include "coordinator/rpc/gate.h"
#include "coordinator/rpc/user_api.h"
#include "coordinator/storage/executor.h"
#include "sparring/v1/user.grpc.pb.h"
#include "sparring/v1/worker.grpc.pb.h"

namespace sparring::coordinator {

using Done = std::function<void(absl::Status)>;

// Queues fn(storage, caller) on the executor after authenticating the call again inside the
// transaction (with the given role, if any; the caller carries the call's peer), and passes the
// status to done once fn's transaction has committed. The gate admitted the call before its
// request was read (GatedMethod::admitted_by), so it is not shed here; if the call's deadline
// passes while it waits in the queue, fn is not run (DEADLINE_EXCEEDED).
template <typename Fn>
void run_authenticated(grpc::CallbackServerContext* context, Core& core, Executor& executor,
                       std::optional<Role> role, Fn fn, Done done) {
    executor.submit(
        [&core, token = bearer_token(*context), peer = context->peer(), role,
         fn = std::move(fn)](Storage& storage) {
            absl::StatusOr<Caller> caller = core.authenticate(storage, token, role);
            if (!caller.ok()) return caller.status();
            caller->peer = peer;
            return fn(storage, *caller);
        },
        std::move(done), call_deadline(*context));
}

class WorkerServiceImpl final : public v1::WorkerService::CallbackService {
  public:
    // Serves every unary method behind the gate (changes run on the writer); FetchEngine
    // streams from raw bytes and authenticates in its reactor before it parses the request.
    WorkerServiceImpl(Core& core, Executor& writer, Gate& gate, EngineTransfers& engines);

  private:
    void register_worker(grpc::CallbackServerContext* context, const v1::RegisterRequest& request,
                         v1::RegisterResponse* response, Done done);
    void request_work(grpc::CallbackServerContext* context, const v1::RequestWorkRequest& request,
                      v1::RequestWorkResponse* response, Done done);
    void report_results(grpc::CallbackServerContext* context,
                        const v1::ReportResultsRequest& request,
                        v1::ReportResultsResponse* response, Done done);
    void heartbeat(grpc::CallbackServerContext* context, const v1::HeartbeatRequest& request,
                   v1::HeartbeatResponse* response, Done done);
    void release_lease(grpc::CallbackServerContext* context, const v1::ReleaseLeaseRequest& request,
                       v1::ReleaseLeaseResponse* response, Done done);

    Core& core_;
    Executor& writer_;
    EngineTransfers& engines_;
};

class UserServiceImpl final : public v1::UserService::CallbackService {
  public:
    // Serves every unary method behind the gate, through the UserApi; UploadEngine streams and
    // authenticates in its reactor before it reads a chunk; ExportGamesStream streams from raw
    // bytes and authenticates before it parses the request (game_export.h).
    UserServiceImpl(UserApi& api, Gate& gate, EngineTransfers& engines);

    grpc::ServerReadReactor<v1::UploadEngineRequest>* UploadEngine(
        grpc::CallbackServerContext* context, v1::UploadEngineResponse* response) override {
        return engines_.upload(context, response);
    }

  private:
    UserApi& api_;
    EngineTransfers& engines_;
};

}  // namespace sparring::coordinator
