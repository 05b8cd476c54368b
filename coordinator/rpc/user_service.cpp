// The UserService handlers: changes need a user token and run on the writer; queries accept
// any valid token and run on the reader.
#include "coordinator/rpc/convert.h"
#include "coordinator/kinds/generate_run.h"
#include "coordinator/rpc/services.h"

namespace sparring::coordinator {

namespace {

// Runs fn(storage) as run_authenticated does, for handlers that do not need the caller.
template <typename Fn>
grpc::ServerUnaryReactor* run_as(grpc::CallbackServerContext* context, Core& core,
                                 Executor& executor, std::optional<Role> role, Fn fn) {
    return run_authenticated(
        context, core, executor, role,
        [fn = std::move(fn)](Storage& storage, const Caller&) { return fn(storage); });
}

}  // namespace

grpc::ServerUnaryReactor* finish(grpc::CallbackServerContext* context, const absl::Status& status) {
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    reactor->Finish(to_grpc(status));
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
    absl::StatusOr<Version> version = version_from_proto(request->version());
    if (!version.ok()) return finish(context, version.status());
    return run_as(context, core_, writer_, Role::User,
                  [this, version = std::move(*version), response](Storage& storage) {
                      absl::StatusOr<Version> added = core_.add_version(storage, version);
                      if (!added.ok()) return added.status();
                      version_to_proto(*added, response);
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::ListVersions(grpc::CallbackServerContext* context,
                                                        const v1::ListVersionsRequest*,
                                                        v1::ListVersionsResponse* response) {
    return run_as(context, core_, reader_, std::nullopt, [this, response](Storage& storage) {
        for (const Version& v : core_.list_versions(storage))
            version_to_proto(v, response->add_versions());
        return absl::OkStatus();
    });
}

grpc::ServerUnaryReactor* UserServiceImpl::GetVersion(grpc::CallbackServerContext* context,
                                                      const v1::GetVersionRequest* request,
                                                      v1::Version* response) {
    return run_as(context, core_, reader_, std::nullopt,
                  [this, name = request->name(), response](Storage& storage) {
                      absl::StatusOr<Version> version = core_.get_version(storage, name);
                      if (!version.ok()) return version.status();
                      version_to_proto(*version, response);
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::SubmitRun(grpc::CallbackServerContext* context,
                                                     const v1::SubmitRunRequest* request,
                                                     v1::RunStatus* response) {
    absl::StatusOr<RunSpec> spec = run_spec_from_proto(request->spec());
    if (!spec.ok()) return finish(context, spec.status());
    return run_as(context, core_, writer_, Role::User,
                  [this, spec = std::move(*spec), response](Storage& storage) {
                      absl::StatusOr<Run> run = core_.submit_run(storage, spec);
                      if (!run.ok()) return run.status();
                      run_to_proto(*run, response);
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::ListRuns(grpc::CallbackServerContext* context,
                                                    const v1::ListRunsRequest* request,
                                                    v1::ListRunsResponse* response) {
    return run_as(context, core_, reader_, std::nullopt,
                  [this, states = run_states_from_proto(request->states()),
                   limit = request->limit(), response](Storage& storage) {
                      for (const Run& run : core_.list_runs(storage, states, limit))
                          run_to_proto(run, response->add_runs());
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::GetRun(grpc::CallbackServerContext* context,
                                                  const v1::GetRunRequest* request,
                                                  v1::RunStatus* response) {
    return run_as(context, core_, reader_, std::nullopt,
                  [this, id = request->run_id(), response](Storage& storage) {
                      absl::StatusOr<Run> run = core_.get_run(storage, id);
                      if (!run.ok()) return run.status();
                      run_to_proto(*run, response);
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::StopRun(grpc::CallbackServerContext* context,
                                                   const v1::StopRunRequest* request,
                                                   v1::RunStatus* response) {
    return run_authenticated(
        context, core_, writer_, Role::User,
        [this, id = request->run_id(), response](Storage& storage, const Caller& caller) {
            absl::StatusOr<Run> run = core_.stop_run(storage, id, caller.peer);
            if (!run.ok()) return run.status();
            run_to_proto(*run, response);
            return absl::OkStatus();
        });
}

grpc::ServerUnaryReactor* UserServiceImpl::ListWorkers(grpc::CallbackServerContext* context,
                                                       const v1::ListWorkersRequest* request,
                                                       v1::ListWorkersResponse* response) {
    return run_as(context, core_, reader_, std::nullopt,
                  [this, all = request->include_inactive(), response](Storage& storage) {
                      for (const WorkerSummary& w : core_.list_workers(storage, all))
                          worker_to_proto(w, core_.is_active(w.worker.last_seen_ms),
                                          response->add_workers());
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::ExportGames(grpc::CallbackServerContext* context,
                                                       const v1::ExportGamesRequest* request,
                                                       v1::ExportGamesResponse* response) {
    return run_as(context, core_, reader_, std::nullopt,
                  [this, request = *request, response](Storage& storage) {
                      absl::StatusOr<GamesPage> page = core_.export_games(
                          storage, request.run_id(), request.start_game(), request.max_games());
                      if (!page.ok()) return page.status();
                      response->set_pgn(std::move(page->pgn));
                      response->set_games(page->games);
                      response->set_next_start_game(page->next_start_game);
                      response->set_done(page->done);
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::GetTuneHistory(grpc::CallbackServerContext* context,
                                                          const v1::GetTuneHistoryRequest* request,
                                                          v1::TuneHistory* response) {
    return run_as(context, core_, reader_, std::nullopt,
                  [run_id = request->run_id(), response](Storage& storage) {
                      absl::StatusOr<TuneHistory> history = tune_history(storage, run_id);
                      if (!history.ok()) return history.status();
                      tune_history_to_proto(*history, response);
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::ExportPositions(
    grpc::CallbackServerContext* context, const v1::ExportPositionsRequest* request,
    v1::ExportPositionsResponse* response) {
    return run_as(context, core_, reader_, std::nullopt,
                  [request = *request, response](Storage& storage) {
                      absl::StatusOr<PositionsPage> page = export_positions(
                          storage, request.run_id(), request.start_game(), request.max_games());
                      if (!page.ok()) return page.status();
                      response->set_positions(std::move(page->data));
                      response->set_count(page->count);
                      response->set_games(page->games);
                      response->set_next_start_game(page->next_start_game);
                      response->set_done(page->done);
                      return absl::OkStatus();
                  });
}

grpc::ServerUnaryReactor* UserServiceImpl::ImportPositions(
    grpc::CallbackServerContext* context, const v1::ImportPositionsRequest* request,
    v1::ImportPositionsResponse* response) {
    absl::StatusOr<ImportChunk> chunk = import_chunk_from_proto(*request);
    if (!chunk.ok()) return finish(context, chunk.status());
    return run_as(context, core_, writer_, Role::User,
                  [this, chunk = std::move(*chunk), response](Storage& storage) {
                      absl::StatusOr<ImportAck> ack = core_.import_positions(storage, chunk);
                      if (!ack.ok()) return ack.status();
                      response->set_run_id(ack->run_id);
                      response->set_positions(ack->positions);
                      response->set_duplicate(ack->duplicate);
                      return absl::OkStatus();
                  });
}

}  // namespace sparring::coordinator
