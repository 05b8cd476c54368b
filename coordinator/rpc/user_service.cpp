// The UserService handlers: each hands its call to the UserApi (changes need a user token
// and run on the writer; queries accept any valid token and run on the reader).
#include <google/protobuf/descriptor.h>
#include <grpcpp/impl/codegen/server_callback_handlers.h>

#include "client/connection.h"
#include "coordinator/rpc/game_export.h"
#include "coordinator/rpc/services.h"

namespace sparring::coordinator {

namespace {

// Returns a gated method running a UserApi call with the call's bearer token; changes need a
// user token, queries any valid one.
template <typename Request, typename Response>
GatedMethod forward(UserApi& api, UserApi::Call<Request, Response> call, bool change) {
    return {change ? std::optional<Role>(Role::User) : std::nullopt,
            typed<Request, Response>([&api, call](grpc::CallbackServerContext* context,
                                                  const Request& request, Response* response,
                                                  Done done) {
                (api.*call)(Credential{bearer_token(*context), false, context->peer()}, request,
                            response, std::move(done));
            })};
}

}  // namespace

UserServiceImpl::UserServiceImpl(UserApi& api, Gate& gate, EngineTransfers& engines)
    : api_(api), engines_(engines) {
    const std::map<std::string, GatedMethod> methods = {
        {"AddVersion", forward(api_, &UserApi::add_version, true)},
        {"ListVersions", forward(api_, &UserApi::list_versions, false)},
        {"GetVersion", forward(api_, &UserApi::get_version, false)},
        {"SubmitRun", forward(api_, &UserApi::submit_run, true)},
        {"ListRuns", forward(api_, &UserApi::list_runs, false)},
        {"GetRun", forward(api_, &UserApi::get_run, false)},
        {"StopRun", forward(api_, &UserApi::stop_run, true)},
        {"ModifyRun", forward(api_, &UserApi::modify_run, true)},
        {"SetNotifyUrl", forward(api_, &UserApi::set_notify_url, true)},
        {"ListWorkers", forward(api_, &UserApi::list_workers, false)},
        {"ExportGames", forward(api_, &UserApi::export_games, false)},
        {"GetTuneHistory", forward(api_, &UserApi::get_tune_history, false)},
        {"ExportPositions", forward(api_, &UserApi::export_positions, false)},
        {"ImportPositions", forward(api_, &UserApi::import_positions, true)},
        {"GetLlrHistory", forward(api_, &UserApi::get_llr_history, false)},
        {"PurgeWorker", forward(api_, &UserApi::purge_worker, true)},
        {"ListFaults", forward(api_, &UserApi::list_faults, false)},
        {"GetFault", forward(api_, &UserApi::get_fault, false)},
        {"ResumeRun", forward(api_, &UserApi::resume_run, true)},
    };
    gate.install(v1::UserService::service_full_name(), methods,
                 [this](int index, grpc::internal::MethodHandler* handler) {
                     MarkMethodRawCallback(index, handler);
                 });
    const google::protobuf::ServiceDescriptor* service =
        google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
            v1::UserService::service_full_name());
    for (int index = 0; index < service->method_count(); ++index)
        if (service->method(index)->name() == "ExportGamesStream")
            MarkMethodRawCallback(
                index,
                new grpc::internal::CallbackServerStreamingHandler<grpc::ByteBuffer,
                                                                   grpc::ByteBuffer>(
                    [this](grpc::CallbackServerContext* context, const grpc::ByteBuffer* request) {
                        return export_games_stream(api_, context, request);
                    }));
}

}  // namespace sparring::coordinator
