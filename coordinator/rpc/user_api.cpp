#include "coordinator/rpc/user_api.h"

#include <google/protobuf/field_mask.pb.h>
#include <google/protobuf/util/field_mask_util.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string_view>

#include "common/printable.h"
#include "coordinator/domain/forecast.h"
#include "coordinator/domain/run_history.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/version_options.h"
#include "coordinator/rpc/convert.h"

namespace sparring::coordinator {

namespace {

using google::protobuf::util::FieldMaskUtil;

// The RunSpec fields a run submitted like another may change; the rest are the coordinator's
// (the owner, the origin) or settings of kinds that are not copied.
constexpr std::array<std::string_view, 15> kLikeFields = {
    "kind",        "test_version", "base_version", "time_control",  "book",
    "sprt",        "games",        "priority",     "throughput",    "pairs_per_thread",
    "description", "adjudication", "threads",      "reference_nps", "follow_up"};

// Returns whether the request's overrides name a field or one of its parts.
bool overrides(const v1::SubmitRunRequest& request, std::string_view field) {
    for (const std::string& path : request.overrides())
        if (path == field ||
            (path.size() > field.size() && path.starts_with(field) && path[field.size()] == '.'))
            return true;
    return false;
}

// Returns the spec of a run submitted like `origin` (a regression or fixed-games run): the
// origin's with the fields the request's overrides name taken from its spec. Another kind
// takes its default games and drops or gains the SPRT; a new time control or new versions drop
// the origin's reference speed; the core copies the openings.
absl::StatusOr<v1::RunSpec> spec_like(const v1::RunStatus& origin,
                                      const v1::SubmitRunRequest& request) {
    const v1::RunKind kind = origin.spec().kind();
    const auto copied = [](v1::RunKind k) {
        return k == v1::RUN_KIND_REGRESSION || k == v1::RUN_KIND_FIXED_GAMES;
    };
    if (!copied(kind)) {
        const absl::StatusOr<const RunKindModule*> module = run_kind_from_proto(kind);
        return absl::InvalidArgumentError(
            "like copies regression and fixed-games runs; run " + std::to_string(origin.id()) +
            " is a " + std::string(module.ok() ? (*module)->name() : "other") + " run");
    }
    google::protobuf::FieldMask mask;
    for (const std::string& path : request.overrides()) {
        const std::string_view top = std::string_view(path).substr(0, path.find('.'));
        if (std::find(kLikeFields.begin(), kLikeFields.end(), top) == kLikeFields.end() ||
            !FieldMaskUtil::IsValidPath<v1::RunSpec>(path))
            return absl::InvalidArgumentError(
                "'" + excerpt(path) +
                "' is not a RunSpec field a run submitted like another "
                "may change");
        mask.add_paths(path);
    }
    v1::RunSpec spec = origin.spec();
    FieldMaskUtil::MergeOptions replace;
    replace.set_replace_message_fields(true);
    replace.set_replace_repeated_fields(true);
    FieldMaskUtil::MergeMessageTo(request.spec(), mask, replace, &spec);
    spec.set_origin_run_id(origin.id());
    spec.clear_owner();
    if (!copied(spec.kind()))
        return absl::InvalidArgumentError(
            "a run submitted like another is a regression or fixed-games run");
    const bool regression = spec.kind() == v1::RUN_KIND_REGRESSION;
    if (spec.kind() != kind) {
        if (!overrides(request, "games")) spec.set_games(regression ? 20000 : 1000);
        if (regression) *spec.mutable_sprt() = request.spec().sprt();
    }
    if (!regression) {
        if (overrides(request, "sprt"))
            return absl::InvalidArgumentError("SPRT settings need a regression run");
        if (overrides(request, "follow_up"))
            return absl::InvalidArgumentError("a follow-up goes with a regression run");
        spec.clear_sprt();
        spec.clear_follow_up();
    }
    // A follow-up's bounds given, where the origin's follow-up has no SPRT of its own, change
    // the new run's SPRT.
    if (regression && overrides(request, "follow_up.sprt") &&
        !origin.spec().follow_up().has_sprt()) {
        v1::Sprt sprt = spec.sprt();
        const v1::Sprt& given = request.spec().follow_up().sprt();
        if (overrides(request, "follow_up.sprt.elo0")) sprt.set_elo0(given.elo0());
        if (overrides(request, "follow_up.sprt.elo1")) sprt.set_elo1(given.elo1());
        *spec.mutable_follow_up()->mutable_sprt() = sprt;
    }
    if (overrides(request, "follow_up") && !spec.follow_up().has_time_control())
        return absl::InvalidArgumentError(
            "a follow-up needs a time control: the time control of the second run");
    if (!overrides(request, "reference_nps") &&
        (overrides(request, "time_control") || overrides(request, "test_version") ||
         overrides(request, "base_version")))
        spec.clear_reference_nps();
    return spec;
}

}  // namespace

void UserApi::authenticate(const Credential& credential, std::optional<Role> role, Done done) {
    reader_.submit(
        [this, credential, role](Storage& storage) {
            if (!role && credential.public_queries && credential.token.empty())
                return absl::OkStatus();
            return core_.authenticate(storage, credential.token, role).status();
        },
        std::move(done));
}

void UserApi::identify(const std::string& token, std::function<void(absl::StatusOr<Caller>)> done) {
    auto caller = std::make_shared<absl::StatusOr<Caller>>(absl::UnknownError("not run"));
    reader_.submit(
        [this, token, caller](Storage& storage) {
            *caller = core_.authenticate(storage, token, Role::User);
            return caller->status();
        },
        [caller, done = std::move(done)](absl::Status status) {
            if (!status.ok()) return done(std::move(status));
            done(std::move(*caller));
        });
}

void UserApi::change(const Credential& credential, Prepare prepare, Done done) {
    auto prepared = std::make_shared<Change>();
    reader_.submit(
        [this, token = credential.token, prepare = std::move(prepare), prepared](Storage& storage) {
            absl::StatusOr<Caller> caller = core_.authenticate(storage, token, Role::User);
            if (!caller.ok()) return caller.status();
            absl::StatusOr<Change> job = prepare(storage);
            if (!job.ok()) return job.status();
            *prepared = std::move(*job);
            return absl::OkStatus();
        },
        [this, token = credential.token, peer = credential.peer, prepared,
         done = std::move(done)](absl::Status status) mutable {
            if (!status.ok()) return done(std::move(status));
            writer_.offer(
                [this, token, peer, prepared](Storage& storage) {
                    absl::StatusOr<Caller> caller = core_.authenticate(storage, token, Role::User);
                    if (!caller.ok()) return caller.status();
                    caller->peer = peer;
                    return (*prepared)(storage, *caller);
                },
                std::move(done));
        });
}

void UserApi::query(const Credential& credential, Executor::Job job, Done done) {
    reader_.offer(
        [this, credential, job = std::move(job)](Storage& storage) {
            if (!credential.public_queries) {
                absl::StatusOr<Caller> caller =
                    core_.authenticate(storage, credential.token, std::nullopt);
                if (!caller.ok()) return caller.status();
            }
            return job(storage);
        },
        std::move(done));
}

void UserApi::add_version(const Credential& credential, const v1::AddVersionRequest& request,
                          v1::Version* response, Done done) {
    change(
        credential,
        [this, &request, response](Storage& reader) -> absl::StatusOr<Change> {
            if (request.from_run() != 0) return version_from_run(reader, request, response);
            absl::StatusOr<Version> version = version_from_proto(request.version());
            if (!version.ok()) return version.status();
            return Change([this, version = std::move(*version), response](
                              Storage& storage, const Caller& caller) mutable {
                version.owner = caller.user;
                absl::StatusOr<Version> added = core_.add_version(storage, version);
                if (!added.ok()) return added.status();
                version_to_proto(*added, response);
                return absl::OkStatus();
            });
        },
        std::move(done));
}

absl::StatusOr<UserApi::Change> UserApi::version_from_run(Storage& storage,
                                                          const v1::AddVersionRequest& request,
                                                          v1::Version* response) {
    const v1::Version& given = request.version();
    const bool engine_given = given.has_uci() || given.has_uploaded() ||
                              (given.has_builtin() && (!given.builtin().preset().empty() ||
                                                       given.builtin().overrides_size() > 0));
    if (engine_given || given.options_size() > 0 || given.bench() != 0)
        return absl::InvalidArgumentError(
            "a version from a run takes its engine from the run: give it only a name, a "
            "description, a reference speed and (built-in) a hash size");
    if (given.builtin().hash_mb() > 65536)
        return absl::InvalidArgumentError("hash must be in 0..65536 MiB");
    // Made here, on the reader, from the run as it stands: a built-in version's bench
    // signature is a search, which must not hold the writer's transaction.
    const int64_t run_id = request.from_run();
    absl::StatusOr<Version> made = core_.version_of_run(storage, run_id);
    if (!made.ok()) return made.status();
    const int hash_mb = int(given.builtin().hash_mb());
    if (hash_mb != 0 && made->kind != Version::Kind::Builtin)
        return absl::InvalidArgumentError("run " + std::to_string(run_id) +
                                          " tunes an external engine: a hash size is the "
                                          "built-in engine's (set its Hash option instead)");
    made->name = valid_utf8(given.name());
    if (!given.description().empty()) made->description = valid_utf8(given.description());
    if (given.reference_nps() != 0) made->reference_nps = given.reference_nps();
    if (hash_mb != 0) made->hash_mb = hash_mb;
    return Change([this, version = std::move(*made), response](Storage& writer,
                                                               const Caller& caller) mutable {
        version.owner = caller.user;
        absl::StatusOr<Version> added = core_.add_version(writer, std::move(version));
        if (!added.ok()) return added.status();
        version_to_proto(*added, response);
        return absl::OkStatus();
    });
}

void UserApi::list_versions(const Credential& credential, const v1::ListVersionsRequest&,
                            v1::ListVersionsResponse* response, Done done) {
    query(
        credential,
        [this, response](Storage& storage) {
            for (const Version& v : core_.list_versions(storage))
                version_to_proto(v, response->add_versions());
            return absl::OkStatus();
        },
        std::move(done));
}

void UserApi::get_version(const Credential& credential, const v1::GetVersionRequest& request,
                          v1::Version* response, Done done) {
    query(
        credential,
        [this, name = request.name(), response](Storage& storage) {
            absl::StatusOr<Version> version = core_.get_version(storage, name);
            if (!version.ok()) return version.status();
            version_to_proto(*version, response);
            // A built-in version's options are its parameters, not stored with it: listed
            // here, with its values as their defaults, as an external engine's are.
            if (version->kind == Version::Kind::Builtin)
                for (const match::EngineOption& o : version_options(*version))
                    engine_option_to_proto(o, response->add_options());
            return absl::OkStatus();
        },
        std::move(done));
}

void UserApi::submit_run(const Credential& credential, const v1::SubmitRunRequest& request,
                         v1::RunStatus* response, Done done) {
    change(
        credential,
        [this, &request, response](Storage& storage) -> absl::StatusOr<Change> {
            v1::RunSpec submitted;
            if (request.like() != 0) {
                absl::StatusOr<Run> origin = core_.get_run(storage, request.like());
                if (absl::IsNotFound(origin.status()))
                    return absl::NotFoundError("no run " + std::to_string(request.like()) +
                                               " to submit like (see `sparring runs`)");
                if (!origin.ok()) return origin.status();
                v1::RunStatus status;
                run_to_proto(*origin, &status);
                absl::StatusOr<v1::RunSpec> like = spec_like(status, request);
                if (!like.ok()) return like.status();
                submitted = std::move(*like);
            } else if (!request.overrides().empty()) {
                return absl::InvalidArgumentError("overrides go with like: the run to submit like");
            }
            absl::StatusOr<RunSpec> spec =
                run_spec_from_proto(request.like() != 0 ? submitted : request.spec());
            if (!spec.ok()) return spec.status();
            return Change(
                // Mutable: the spec (with its book) moves into the run without a copy.
                [this, spec = std::move(*spec), response](Storage& writer,
                                                          const Caller& caller) mutable {
                    absl::StatusOr<Run> run = core_.submit_run(writer, caller, std::move(spec));
                    if (!run.ok()) return run.status();
                    run_to_proto(*run, response);
                    run_details_to_proto(*run, core_.run_details(writer, *run), response);
                    // Whether a connected worker can play it: submit warns at once if none.
                    const std::vector<Run> new_runs = {*run};
                    waiting_to_proto(core_.waiting_board(writer, &new_runs).of(run->id), response);
                    return absl::OkStatus();
                });
        },
        std::move(done));
}

void UserApi::list_runs(const Credential& credential, const v1::ListRunsRequest& request,
                        v1::ListRunsResponse* response, Done done) {
    query(
        credential,
        [this, request, response](Storage& storage) {
            absl::StatusOr<RunQuery> selection = run_query_from_proto(request);
            if (!selection.ok()) return selection.status();
            int64_t total = 0;
            const std::vector<Run> runs = core_.find_runs(storage, *selection, &total);
            const WaitingBoard waiting = core_.waiting_board(storage, &runs);
            for (const Run& run : runs) {
                v1::RunStatus* status = response->add_runs();
                run_to_proto(run, status);
                waiting_to_proto(waiting.of(run.id), status);
                run_forecast_to_proto(core_, storage, run, status);
            }
            response->set_total(uint64_t(total));
            return absl::OkStatus();
        },
        std::move(done));
}

void UserApi::get_run(const Credential& credential, const v1::GetRunRequest& request,
                      v1::RunStatus* response, Done done) {
    query(
        credential,
        [this, id = request.run_id(), offset = request.changes_offset(),
         response](Storage& storage) {
            RunDetails details;
            absl::StatusOr<Run> run = core_.get_run(storage, id, &details, offset);
            if (!run.ok()) return run.status();
            run_to_proto(*run, response);
            run_details_to_proto(*run, details, response);
            const std::vector<Run> shown = {*run};
            waiting_to_proto(core_.waiting_board(storage, &shown).of(id), response);
            run_forecast_to_proto(core_, storage, *run, response);
            return absl::OkStatus();
        },
        std::move(done));
}

void UserApi::stop_run(const Credential& credential, const v1::StopRunRequest& request,
                       v1::RunStatus* response, Done done) {
    change(
        credential,
        [this, &request, response](Storage&) -> absl::StatusOr<Change> {
            return Change(
                [this, id = request.run_id(), response](Storage& storage, const Caller& caller) {
                    absl::StatusOr<Run> run = core_.stop_run(storage, caller, id);
                    if (!run.ok()) return run.status();
                    run_to_proto(*run, response);
                    run_details_to_proto(*run, core_.run_details(storage, *run), response);
                    return absl::OkStatus();
                });
        },
        std::move(done));
}

void UserApi::set_notify_url(const Credential& credential, const v1::SetNotifyUrlRequest& request,
                             v1::SetNotifyUrlResponse* response, Done done) {
    change(
        credential,
        [&request, response, this](Storage&) -> absl::StatusOr<Change> {
            std::optional<std::string> url;
            if (request.has_url()) url = request.url();
            return Change(
                [this, url = std::move(url), response](Storage& storage, const Caller& caller) {
                    absl::StatusOr<std::string> now = core_.set_notify_url(storage, caller, url);
                    if (!now.ok()) return now.status();
                    response->set_user(caller.user);
                    response->set_url(*now);
                    return absl::OkStatus();
                });
        },
        std::move(done));
}

void UserApi::modify_run(const Credential& credential, const v1::ModifyRunRequest& request,
                         v1::RunStatus* response, Done done) {
    change(
        credential,
        [&request, response, this](Storage&) -> absl::StatusOr<Change> {
            absl::StatusOr<RunModification> change = run_modification_from_proto(request);
            if (!change.ok()) return change.status();
            return Change([this, change = std::move(*change), response](Storage& storage,
                                                                        const Caller& caller) {
                absl::StatusOr<Run> run = core_.modify_run(storage, caller, change);
                if (!run.ok()) return run.status();
                run_to_proto(*run, response);
                run_details_to_proto(*run, core_.run_details(storage, *run), response);
                return absl::OkStatus();
            });
        },
        std::move(done));
}

void UserApi::resume_run(const Credential& credential, const v1::ResumeRunRequest& request,
                         v1::RunStatus* response, Done done) {
    change(
        credential,
        [&request, response, this](Storage&) -> absl::StatusOr<Change> {
            std::optional<FaultBound> bound;
            if (request.has_fault_bound()) bound = fault_bound_from_proto(request.fault_bound());
            return Change([this, id = request.run_id(), bound, response](Storage& storage,
                                                                         const Caller& caller) {
                absl::StatusOr<Run> run = core_.resume_run(storage, caller, id, bound);
                if (!run.ok()) return run.status();
                run_to_proto(*run, response);
                run_details_to_proto(*run, core_.run_details(storage, *run), response);
                return absl::OkStatus();
            });
        },
        std::move(done));
}

void UserApi::list_workers(const Credential& credential, const v1::ListWorkersRequest& request,
                           v1::ListWorkersResponse* response, Done done) {
    query(
        credential,
        [this, all = request.include_inactive(), response](Storage& storage) {
            for (const WorkerSummary& w : core_.list_workers(storage, all))
                worker_to_proto(w, core_.is_active(w.worker.last_seen_ms), response->add_workers());
            return absl::OkStatus();
        },
        std::move(done));
}

void UserApi::export_games(const Credential& credential, const v1::ExportGamesRequest& request,
                           v1::ExportGamesResponse* response, Done done) {
    query(
        credential,
        [this, request, response](Storage& storage) {
            absl::StatusOr<GamesPage> page = core_.export_games(
                storage, request.run_id(), request.start_game(), request.max_games());
            if (!page.ok()) return page.status();
            response->set_pgn(std::move(page->pgn));
            response->set_games(page->games);
            response->set_next_start_game(page->next_start_game);
            response->set_done(page->done);
            return absl::OkStatus();
        },
        std::move(done));
}

void UserApi::get_tune_history(const Credential& credential,
                               const v1::GetTuneHistoryRequest& request, v1::TuneHistory* response,
                               Done done) {
    query(
        credential,
        [run_id = request.run_id(), response](Storage& storage) {
            return tune_history_to_proto(storage, run_id, response);
        },
        std::move(done));
}

void UserApi::export_positions(const Credential& credential,
                               const v1::ExportPositionsRequest& request,
                               v1::ExportPositionsResponse* response, Done done) {
    query(
        credential,
        [request, response](Storage& storage) {
            return positions_to_proto(storage, request.run_id(), request.start_game(),
                                      request.max_games(), response);
        },
        std::move(done));
}

void UserApi::import_positions(const Credential& credential,
                               const v1::ImportPositionsRequest& request,
                               v1::ImportPositionsResponse* response, Done done) {
    change(
        credential,
        [this, &request, response](Storage&) -> absl::StatusOr<Change> {
            absl::StatusOr<ImportChunk> chunk = import_chunk_from_proto(request);
            if (!chunk.ok()) return chunk.status();
            return Change([this, chunk = std::move(*chunk), response](
                              Storage& storage, const Caller& caller) mutable {
                chunk.owner = caller.user;
                absl::StatusOr<ImportAck> ack = core_.import_positions(storage, chunk);
                if (!ack.ok()) return ack.status();
                response->set_run_id(ack->run_id);
                response->set_positions(ack->positions);
                response->set_duplicate(ack->duplicate);
                response->set_next_chunk(ack->next_chunk);
                return absl::OkStatus();
            });
        },
        std::move(done));
}

void UserApi::get_llr_history(const Credential& credential, const v1::GetLlrHistoryRequest& request,
                              v1::LlrHistory* response, Done done) {
    query(
        credential,
        [this, run_id = request.run_id(),
         max = request.max_points() ? std::min(request.max_points(), 10'000u) : 500u,
         response](Storage& storage) {
            absl::StatusOr<RunHistory> history = history_.history(storage, run_id, max);
            if (!history.ok()) return history.status();
            llr_history_to_proto(*history, response);
            return absl::OkStatus();
        },
        std::move(done));
}

void UserApi::purge_worker(const Credential& credential, const v1::PurgeWorkerRequest& request,
                           v1::RunStatus* response, Done done) {
    change(
        credential,
        [this, &request, response](Storage&) -> absl::StatusOr<Change> {
            if (request.worker_id() <= 0)
                return absl::InvalidArgumentError(
                    "a purge needs worker_id: the worker whose games to remove (see `sparring "
                    "workers --all`)");
            return Change([this, run_id = request.run_id(), worker_id = request.worker_id(),
                           response](Storage& storage, const Caller& caller) {
                absl::StatusOr<Run> run = core_.purge_worker(storage, caller, run_id, worker_id);
                if (!run.ok()) return run.status();
                run_to_proto(*run, response);
                run_details_to_proto(*run, core_.run_details(storage, *run), response);
                return absl::OkStatus();
            });
        },
        [this, run_id = request.run_id(), done = std::move(done)](absl::Status status) {
            if (status.ok()) history_.forget(run_id);
            done(std::move(status));
        });
}

}  // namespace sparring::coordinator
