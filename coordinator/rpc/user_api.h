// The UserService's calls apart from any transport: each authenticates its caller before it
// looks at the request, runs on the writer (changes, converted and checked on the reader
// first) or the reader (queries), fills a response message and reports its status to `done`.
// The request and the response must live until `done` is called. The gRPC service and the
// dashboard's REST API both call these, so the two answer alike.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/run_history.h"
#include "coordinator/storage/executor.h"
#include "sparring/v1/user.pb.h"

namespace sparring::coordinator {

// Who calls: a bearer token, and whether queries may go without one (the dashboard's
// public pages). Changes always need a valid user token.
class GameExport;  // game_export.h

struct Credential {
    std::string token;
    bool public_queries = false;
    std::string peer;  // where the call came from, for the log; empty when unknown
};

class UserApi {
  public:
    using Done = std::function<void(absl::Status)>;
    // A call, as the gRPC service and the REST API name it.
    template <typename Request, typename Response>
    using Call = void (UserApi::*)(const Credential&, const Request&, Response*, Done);

    // history: the run histories the reader's threads share (and any other UserApi's).
    UserApi(Core& core, Executor& writer, Executor& reader, RunHistoryCache& history)
        : core_(core), writer_(writer), reader_(reader), history_(history) {}

    // Checks a credential on the reader: a token of the role (nullopt: any valid token, or
    // none when queries are public), for transports that must parse a request first.
    void authenticate(const Credential& credential, std::optional<Role> role, Done done);
    // Returns the holder of a token that may make changes (a user or an admin token) to done,
    // on the reader: the dashboard's login.
    void identify(const std::string& token, std::function<void(absl::StatusOr<Caller>)> done);

    void add_version(const Credential& credential, const v1::AddVersionRequest& request,
                     v1::Version* response, Done done);
    void list_versions(const Credential& credential, const v1::ListVersionsRequest& request,
                       v1::ListVersionsResponse* response, Done done);
    void get_version(const Credential& credential, const v1::GetVersionRequest& request,
                     v1::Version* response, Done done);
    void submit_run(const Credential& credential, const v1::SubmitRunRequest& request,
                    v1::RunStatus* response, Done done);
    void list_runs(const Credential& credential, const v1::ListRunsRequest& request,
                   v1::ListRunsResponse* response, Done done);
    void get_run(const Credential& credential, const v1::GetRunRequest& request,
                 v1::RunStatus* response, Done done);
    void stop_run(const Credential& credential, const v1::StopRunRequest& request,
                  v1::RunStatus* response, Done done);
    void modify_run(const Credential& credential, const v1::ModifyRunRequest& request,
                    v1::RunStatus* response, Done done);
    void resume_run(const Credential& credential, const v1::ResumeRunRequest& request,
                    v1::RunStatus* response, Done done);
    void set_notify_url(const Credential& credential, const v1::SetNotifyUrlRequest& request,
                        v1::SetNotifyUrlResponse* response, Done done);
    void list_workers(const Credential& credential, const v1::ListWorkersRequest& request,
                      v1::ListWorkersResponse* response, Done done);
    void export_games(const Credential& credential, const v1::ExportGamesRequest& request,
                      v1::ExportGamesResponse* response, Done done);
    // Reads the next chunk of a bulk export on the reader (game_export.h, where it is
    // defined), authenticating first as every query does; the first chunk may be shed as a
    // query is, the later ones of an export under way are not.
    void export_chunk(const Credential& credential, std::shared_ptr<GameExport> games, Done done);
    void get_tune_history(const Credential& credential, const v1::GetTuneHistoryRequest& request,
                          v1::TuneHistory* response, Done done);
    void export_positions(const Credential& credential, const v1::ExportPositionsRequest& request,
                          v1::ExportPositionsResponse* response, Done done);
    void import_positions(const Credential& credential, const v1::ImportPositionsRequest& request,
                          v1::ImportPositionsResponse* response, Done done);
    void get_llr_history(const Credential& credential, const v1::GetLlrHistoryRequest& request,
                         v1::LlrHistory* response, Done done);
    void purge_worker(const Credential& credential, const v1::PurgeWorkerRequest& request,
                      v1::RunStatus* response, Done done);
    // The evidence of faulty games (user_api_evidence.cpp).
    void list_faults(const Credential& credential, const v1::ListFaultsRequest& request,
                     v1::ListFaultsResponse* response, Done done);
    void get_fault(const Credential& credential, const v1::GetFaultRequest& request,
                   v1::FaultyGame* response, Done done);

  private:
    // A change, given the caller (with the peer of its credential).
    using Change = std::function<absl::Status(Storage&, const Caller&)>;
    // Makes a change from the request, converting and checking it off the writer; it may
    // read the reader's storage (what it reads can change before the writer runs).
    using Prepare = std::function<absl::StatusOr<Change>(Storage&)>;

    // Authenticates a user token on the reader, prepares the change there, and runs it on
    // the writer (authenticating again in its transaction).
    void change(const Credential& credential, Prepare prepare, Done done);
    // Prepares AddVersion of a version a run's result makes (AddVersionRequest.from_run).
    absl::StatusOr<Change> version_from_run(Storage& storage, const v1::AddVersionRequest& request,
                                            v1::Version* response);
    // Runs a query on the reader for any valid token, or none when queries are public.
    void query(const Credential& credential, Executor::Job job, Done done);

    Core& core_;
    Executor& writer_;
    Executor& reader_;
    RunHistoryCache& history_;
};

}  // namespace sparring::coordinator
