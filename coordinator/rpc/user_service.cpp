// The UserService handlers: each hands its call to the UserApi (changes need a user token
// and run on the writer; queries accept any valid token and run on the reader).
#include "client/connection.h"
#include "coordinator/rpc/services.h"

namespace sparring::coordinator {

namespace {

// Runs a UserApi call with the call's bearer token and finishes the call with its status.
template <typename Request, typename Response>
grpc::ServerUnaryReactor* forward(grpc::CallbackServerContext* context, UserApi& api,
                                  UserApi::Call<Request, Response> call, const Request* request,
                                  Response* response) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    (api.*call)(Credential{bearer_token(*context), false, context->peer()}, *request, response,
                [context, reactor](absl::Status status) { finish_call(context, reactor, status); });
    return reactor;
}

}  // namespace

void finish_call(grpc::CallbackServerContext* context, grpc::ServerUnaryReactor* reactor,
                 const absl::Status& status) {
    if (const std::optional<std::chrono::milliseconds> wait = Executor::retry_after(status))
        context->AddTrailingMetadata(rpc::kRetryAfterKey, std::to_string(wait->count()));
    reactor->Finish(to_grpc(status));
}

grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, const absl::Status& status) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    finish_call(context, reactor, status);
    return reactor;
}

std::string bearer_token(const grpc::CallbackServerContext& context) {
    const auto& metadata = context.client_metadata();
    const auto it = metadata.find("authorization");
    if (it == metadata.end()) return {};
    const std::string_view value(it->second.data(), it->second.size());
    constexpr std::string_view prefix = "Bearer ";
    if (value.substr(0, prefix.size()) != prefix) return {};
    return std::string(value.substr(prefix.size()));
}

grpc::ServerUnaryReactor* UserServiceImpl::AddVersion(grpc::CallbackServerContext* context,
                                                      const v1::AddVersionRequest* request,
                                                      v1::Version* response) {
    return forward(context, api_, &UserApi::add_version, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::ListVersions(grpc::CallbackServerContext* context,
                                                        const v1::ListVersionsRequest* request,
                                                        v1::ListVersionsResponse* response) {
    return forward(context, api_, &UserApi::list_versions, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::GetVersion(grpc::CallbackServerContext* context,
                                                      const v1::GetVersionRequest* request,
                                                      v1::Version* response) {
    return forward(context, api_, &UserApi::get_version, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::SubmitRun(grpc::CallbackServerContext* context,
                                                     const v1::SubmitRunRequest* request,
                                                     v1::RunStatus* response) {
    return forward(context, api_, &UserApi::submit_run, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::ListRuns(grpc::CallbackServerContext* context,
                                                    const v1::ListRunsRequest* request,
                                                    v1::ListRunsResponse* response) {
    return forward(context, api_, &UserApi::list_runs, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::GetRun(grpc::CallbackServerContext* context,
                                                  const v1::GetRunRequest* request,
                                                  v1::RunStatus* response) {
    return forward(context, api_, &UserApi::get_run, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::StopRun(grpc::CallbackServerContext* context,
                                                   const v1::StopRunRequest* request,
                                                   v1::RunStatus* response) {
    return forward(context, api_, &UserApi::stop_run, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::ListWorkers(grpc::CallbackServerContext* context,
                                                       const v1::ListWorkersRequest* request,
                                                       v1::ListWorkersResponse* response) {
    return forward(context, api_, &UserApi::list_workers, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::ExportGames(grpc::CallbackServerContext* context,
                                                       const v1::ExportGamesRequest* request,
                                                       v1::ExportGamesResponse* response) {
    return forward(context, api_, &UserApi::export_games, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::GetTuneHistory(grpc::CallbackServerContext* context,
                                                          const v1::GetTuneHistoryRequest* request,
                                                          v1::TuneHistory* response) {
    return forward(context, api_, &UserApi::get_tune_history, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::ExportPositions(
    grpc::CallbackServerContext* context, const v1::ExportPositionsRequest* request,
    v1::ExportPositionsResponse* response) {
    return forward(context, api_, &UserApi::export_positions, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::ImportPositions(
    grpc::CallbackServerContext* context, const v1::ImportPositionsRequest* request,
    v1::ImportPositionsResponse* response) {
    return forward(context, api_, &UserApi::import_positions, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::GetLlrHistory(grpc::CallbackServerContext* context,
                                                         const v1::GetLlrHistoryRequest* request,
                                                         v1::LlrHistory* response) {
    return forward(context, api_, &UserApi::get_llr_history, request, response);
}

grpc::ServerUnaryReactor* UserServiceImpl::PurgeWorker(grpc::CallbackServerContext* context,
                                                       const v1::PurgeWorkerRequest* request,
                                                       v1::RunStatus* response) {
    return forward(context, api_, &UserApi::purge_worker, request, response);
}

}  // namespace sparring::coordinator
