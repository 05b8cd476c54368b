#include "coordinator/rpc/convert.h"

#include <cmath>
#include <limits>
#include <sstream>

#include "common/printable.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/positions.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/version_builds.h"
#include "coordinator/rpc/convert_classes.h"
#include "coordinator/rpc/convert_warnings.h"
#include "coordinator/storage/compression.h"
#include "match/pgn.h"
#include "proto/opening.h"
#include "proto/time_control.h"

namespace sparring::coordinator {

namespace {

// Returns the domain time control of a message; INVALID_ARGUMENT when no limit is set.
absl::StatusOr<TimeControl> time_control_or_error(const v1::TimeControl& in) {
    if (std::optional<TimeControl> tc = time_control_from_proto(in)) return *tc;
    return absl::InvalidArgumentError(
        "the run has no time control (nodes, depth, movetime or clock)");
}

}  // namespace

grpc::Status to_grpc(const absl::Status& status) {
    if (status.ok()) return grpc::Status::OK;
    // A message echoing a user's input must stay far below gRPC's metadata limit.
    const std::string message = valid_utf8(std::string(status.message()));
    return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                        message.size() <= kMaxStatusBytes
                            ? message
                            : std::string(utf8_prefix(message, kMaxStatusBytes)) + "...");
}

absl::StatusOr<Version> version_from_proto(const v1::Version& in) {
    Version v;
    v.name = valid_utf8(in.name());
    v.description = valid_utf8(in.description());
    v.bench = in.bench();
    v.reference_nps = in.reference_nps();
    for (const v1::EngineOption& o : in.options())
        v.options.push_back({valid_utf8(o.name()), valid_utf8(o.type()),
                             valid_utf8(o.default_value()), o.min(), o.max()});
    switch (in.engine_case()) {
        case v1::Version::kBuiltin:
            v.kind = Version::Kind::Builtin;
            v.preset = in.builtin().preset();
            v.overrides.insert(in.builtin().overrides().begin(), in.builtin().overrides().end());
            v.hash_mb = int(std::min<uint32_t>(in.builtin().hash_mb(), 1'000'000));
            break;
        case v1::Version::kUci:
            v.kind = Version::Kind::Uci;
            v.uci_command = in.uci().command();
            v.uci_options.insert(in.uci().options().begin(), in.uci().options().end());
            break;
        case v1::Version::kUploaded:
            v.kind = Version::Kind::Uploaded;
            v.engine_sha256 = in.uploaded().sha256();
            v.engine_entry = in.uploaded().entry();
            v.engine_args.assign(in.uploaded().args().begin(), in.uploaded().args().end());
            v.uci_options.insert(in.uploaded().options().begin(), in.uploaded().options().end());
            v.engine_level = in.uploaded().level();
            if (size_t(in.uploaded().builds_size()) >= kMaxEngineBuilds)
                return absl::InvalidArgumentError("a version holds at most " +
                                                  std::to_string(kMaxEngineBuilds) + " builds");
            for (const v1::EngineBuild& b : in.uploaded().builds())
                v.engine_builds.push_back({b.level(), b.sha256(), 0, false, b.entry()});
            break;
        case v1::Version::ENGINE_NOT_SET:
            return absl::InvalidArgumentError(
                "a version needs an engine: the built-in one (preset, overrides), a UCI "
                "command or an uploaded engine file");
    }
    return v;
}

void engine_option_to_proto(const match::EngineOption& in, v1::EngineOption* out) {
    out->set_name(in.name);
    out->set_type(in.type);
    out->set_default_value(in.default_value);
    out->set_min(in.min);
    out->set_max(in.max);
}

void version_to_proto(const Version& in, v1::Version* out) {
    out->set_id(in.id);
    out->set_name(in.name);
    out->set_description(in.description);
    out->set_bench(in.bench);
    out->set_created_unix_ms(in.created_ms);
    out->set_owner(in.owner);
    out->set_reference_nps(in.reference_nps);
    for (const match::EngineOption& o : in.options) engine_option_to_proto(o, out->add_options());
    if (in.kind == Version::Kind::Builtin) {
        v1::BuiltinEngine* b = out->mutable_builtin();
        b->set_preset(in.preset);
        b->mutable_overrides()->insert(in.overrides.begin(), in.overrides.end());
        b->set_params_json(in.params_json);
        b->set_hash_mb(uint32_t(in.hash_mb));
    } else if (in.kind == Version::Kind::Uploaded) {
        v1::UploadedEngine* u = out->mutable_uploaded();
        u->set_sha256(in.engine_sha256);
        u->set_size(in.engine_size);
        u->set_archive(in.engine_archive);
        u->set_entry(in.engine_entry);
        for (const std::string& arg : in.engine_args) u->add_args(arg);
        u->mutable_options()->insert(in.uci_options.begin(), in.uci_options.end());
        u->set_level(in.engine_level);
        for (const EngineBuild& b : in.engine_builds) {
            v1::EngineBuild* build = u->add_builds();
            build->set_level(b.level);
            build->set_sha256(b.sha256);
            build->set_size(b.size);
            build->set_archive(b.archive);
            build->set_entry(b.entry);
        }
    } else {
        v1::UciEngine* u = out->mutable_uci();
        u->set_command(in.uci_command);
        u->mutable_options()->insert(in.uci_options.begin(), in.uci_options.end());
    }
}

namespace {

// Reads a submitted spec's adjudication: an empty rule takes the default, "off" none; a kind
// whose games are played out takes no rule at all.
absl::Status adjudication_from_proto(const v1::Adjudication& in, const RunKindModule& kind,
                                     match::Adjudication* out) {
    if (!kind.adjudicates()) {
        if (in.draw().empty() && in.resign().empty() && in.max_plies() == 0)
            return absl::OkStatus();
        return absl::InvalidArgumentError("a " + std::string(kind.label()) +
                                          " run plays every game out: it takes no adjudication");
    }
    for (const std::string* rule : {&in.draw(), &in.resign()})
        if (rule->size() > 256 || has_control(*rule))
            return absl::InvalidArgumentError(
                "adjudication rules are one line of at most 256 characters");
    std::string error;
    if (in.draw() != "off") {
        out->draw =
            in.draw().empty() ? kDefaultDrawRule : match::parse_draw_rule(in.draw(), &error);
        if (!out->draw) return absl::InvalidArgumentError(error);
    }
    if (in.resign() != "off") {
        out->resign = in.resign().empty() ? kDefaultResignRule
                                          : match::parse_resign_rule(in.resign(), &error);
        if (!out->resign) return absl::InvalidArgumentError(error);
    }
    if (in.max_plies() > kMaxAdjudicationPlies)
        return absl::InvalidArgumentError("adjudication max_plies is at most " +
                                          std::to_string(kMaxAdjudicationPlies) + " (0: no limit)");
    out->max_plies = int(in.max_plies());
    return absl::OkStatus();
}

}  // namespace

void adjudication_to_proto(const match::Adjudication& in, v1::Adjudication* out) {
    out->set_draw(in.draw ? match::draw_rule_text(*in.draw) : "");
    out->set_resign(in.resign ? match::resign_rule_text(*in.resign) : "");
    out->set_max_plies(uint32_t(in.max_plies));
}

absl::StatusOr<RunSpec> run_spec_from_proto(const v1::RunSpec& in) {
    absl::StatusOr<const RunKindModule*> kind = run_kind_from_proto(in.kind());
    if (!kind.ok()) return kind.status();
    // Settings of another kind would be ignored: refuse them rather than drop them silently.
    if (in.kind_spec_case() != v1::RunSpec::KIND_SPEC_NOT_SET &&
        int(in.kind_spec_case()) != (*kind)->spec_field())
        return absl::InvalidArgumentError(
            "a " + std::string((*kind)->label()) + " run takes no " +
            in.GetDescriptor()->FindFieldByNumber(int(in.kind_spec_case()))->name() + " settings");
    RunSpec spec;
    spec.kind = (*kind)->kind();
    spec.test_version = in.test_version();
    spec.base_version = in.base_version();
    // A training run plays no games: it alone may leave the time control out.
    absl::StatusOr<TimeControl> tc = time_control_or_error(in.time_control());
    if (!tc.ok() && (*kind)->needs_time_control()) return tc.status();
    if (tc.ok()) spec.time_control = *tc;
    for (const v1::Opening& o : in.book().openings())
        spec.book.openings.push_back({o.fen(), {o.moves().begin(), o.moves().end()}});
    spec.book.random_order = in.book().random_order();
    spec.book.seed = in.book().seed();
    spec.book.source = valid_utf8(in.book().source());
    spec.sprt.elo0 = in.sprt().elo0();
    spec.sprt.elo1 = in.sprt().elo1();
    spec.sprt.alpha = in.sprt().alpha();
    spec.sprt.beta = in.sprt().beta();
    spec.sprt.model = in.sprt().model() == v1::SPRT_MODEL_LOGISTIC ? stats::Model::Logistic
                                                                   : stats::Model::Normalized;
    spec.games = in.games();
    spec.priority = in.priority();
    spec.throughput = int(std::min<uint32_t>(in.throughput(), 1'000'000));
    spec.pairs_per_thread = int(std::min<uint32_t>(in.pairs_per_thread(), 1'000'000));
    spec.description = valid_utf8(in.description());
    spec.threads = in.threads() == 0 ? 1 : int(std::min<uint32_t>(in.threads(), 1'000'000));
    if (in.origin_run_id() < 0)
        return absl::InvalidArgumentError("origin_run_id must be a run's id, or 0 for none");
    spec.origin_run_id = in.origin_run_id();
    spec.reference_nps = in.reference_nps();
    if (in.has_fault_bound()) spec.fault_bound = fault_bound_from_proto(in.fault_bound());
    if (in.has_follow_up()) {
        FollowUpSpec follow_up;
        if (!in.follow_up().on_result().empty()) follow_up.on_result = in.follow_up().on_result();
        absl::StatusOr<TimeControl> next_tc = time_control_or_error(in.follow_up().time_control());
        if (!next_tc.ok())
            return absl::InvalidArgumentError("the follow-up's time control: " +
                                              std::string(next_tc.status().message()));
        follow_up.time_control = *next_tc;
        if (in.follow_up().has_sprt()) {
            const v1::Sprt& s = in.follow_up().sprt();
            follow_up.sprt = stats::SprtParams{};
            follow_up.sprt->elo0 = s.elo0();
            follow_up.sprt->elo1 = s.elo1();
            follow_up.sprt->alpha = s.alpha();
            follow_up.sprt->beta = s.beta();
            follow_up.sprt->model = s.model() == v1::SPRT_MODEL_LOGISTIC ? stats::Model::Logistic
                                                                         : stats::Model::Normalized;
        }
        follow_up.games = in.follow_up().games();
        spec.follow_up = std::move(follow_up);
    }
    if (absl::Status status =
            adjudication_from_proto(in.adjudication(), **kind, &spec.adjudication);
        !status.ok())
        return status;
    (*kind)->spec_from_proto(in, &spec);
    return spec;
}

namespace {

// Writes a run's spec as submitted, with its follow-up.
void run_spec_to_proto(const Run& in, const RunKindModule& kind, v1::RunSpec* spec) {
    spec->set_kind(kind.proto_kind());
    spec->set_test_version(in.spec.test_version);
    spec->set_base_version(in.spec.base_version);
    time_control_to_proto(in.spec.time_control, spec->mutable_time_control());
    spec->mutable_book()->set_random_order(in.spec.book.random_order);
    spec->mutable_book()->set_seed(in.spec.book.seed);
    spec->mutable_book()->set_source(in.spec.book.source);
    spec->set_games(in.spec.games);
    spec->set_priority(in.spec.priority);
    spec->set_throughput(uint32_t(in.spec.throughput));
    spec->set_pairs_per_thread(uint32_t(in.spec.pairs_per_thread));
    spec->set_description(in.spec.description);
    if (kind.adjudicates())
        adjudication_to_proto(in.spec.adjudication, spec->mutable_adjudication());
    spec->set_threads(uint32_t(in.spec.threads));
    spec->set_origin_run_id(in.spec.origin_run_id);
    spec->set_owner(in.spec.owner);
    spec->set_reference_nps(in.spec.reference_nps);
    if (in.spec.fault_bound && kind.plays_games())
        fault_bound_to_proto(*in.spec.fault_bound, spec->mutable_fault_bound());
    if (in.spec.follow_up) {
        const FollowUpSpec& f = *in.spec.follow_up;
        v1::FollowUp* follow_up = spec->mutable_follow_up();
        follow_up->set_on_result(f.on_result);
        time_control_to_proto(f.time_control, follow_up->mutable_time_control());
        if (f.sprt) {
            v1::Sprt* s = follow_up->mutable_sprt();
            s->set_elo0(f.sprt->elo0);
            s->set_elo1(f.sprt->elo1);
            s->set_alpha(f.sprt->alpha);
            s->set_beta(f.sprt->beta);
            s->set_model(f.sprt->model == stats::Model::Logistic ? v1::SPRT_MODEL_LOGISTIC
                                                                 : v1::SPRT_MODEL_NORMALIZED);
        }
        follow_up->set_games(f.games);
    }
}

}  // namespace

void pentanomial_to_proto(const stats::Pentanomial& in, v1::Pentanomial* out) {
    const auto& p = in.counts;
    out->set_ll(uint64_t(p[0]));
    out->set_ld(uint64_t(p[1]));
    out->set_dd_wl(uint64_t(p[2]));
    out->set_wd(uint64_t(p[3]));
    out->set_ww(uint64_t(p[4]));
}

void run_results_to_proto(const Run& in, v1::RunStatus* out) {
    out->set_games(uint64_t(2 * in.counts.pairs));
    out->set_wins(uint64_t(in.counts.wins));
    out->set_draws(uint64_t(in.counts.draws));
    out->set_losses(uint64_t(in.counts.losses));
    pentanomial_to_proto(in.counts.penta, out->mutable_pentanomial());
    out->set_elo(in.elo.elo);
    out->set_elo_low(in.elo.elo_low);
    out->set_elo_high(in.elo.elo_high);
    out->set_los(in.elo.los);
    out->set_nelo(in.elo.nelo);
    out->set_nelo_low(in.elo.nelo_low);
    out->set_nelo_high(in.elo.nelo_high);
    out->set_llr(in.sprt.llr);
    out->set_llr_lower(in.sprt.lower);
    out->set_llr_upper(in.sprt.upper);
    const SprtOutcome outcome = in.sprt_outcome();
    out->set_sprt_outcome(outcome == SprtOutcome::H1   ? v1::SPRT_OUTCOME_H1
                          : outcome == SprtOutcome::H0 ? v1::SPRT_OUTCOME_H0
                                                       : v1::SPRT_OUTCOME_UNSPECIFIED);
}

void run_to_proto(const Run& in, v1::RunStatus* out) {
    const RunKindModule& kind = run_kind(in.spec.kind);
    out->set_id(in.id);
    run_spec_to_proto(in, kind, out->mutable_spec());
    out->set_follow_up_run_id(in.follow_up_run_id);
    out->set_follows_run_id(in.follows_run_id);
    out->set_active_cores(uint32_t(std::max(0, in.active_cores)));
    out->set_state(in.state == RunState::Active     ? v1::RUN_STATE_ACTIVE
                   : in.state == RunState::Finished ? v1::RUN_STATE_FINISHED
                   : in.state == RunState::Paused   ? v1::RUN_STATE_PAUSED
                                                    : v1::RUN_STATE_STOPPED);
    out->set_result(in.result);
    out->set_book_size(in.book_size);
    for (std::string& warning : run_warnings(in)) out->add_warnings(std::move(warning));
    out->set_pairs_leased(in.pairs_leased);
    out->set_active_workers(uint32_t(in.active_leases));
    out->set_created_unix_ms(in.created_ms);
    out->set_finished_unix_ms(in.finished_ms);
    run_results_to_proto(in, out);
    kind.status_to_proto(in, out);
}

void run_details_to_proto(const Run& run, const RunDetails& in, v1::RunStatus* out) {
    out->set_verifies_run_id(in.verifies_run_id);
    out->set_chain_run_id(in.chain_run_id);
    for (const BenchMismatch& m : in.bench_mismatches) {
        v1::BenchMismatch* bm = out->add_bench_mismatches();
        bm->set_worker_id(m.worker_id);
        bm->set_version(m.version);
        bm->set_expected(m.expected);
        bm->set_computed(m.computed);
        bm->set_unix_ms(m.created_ms);
        bm->set_message(m.message);
    }
    for (const WorkerClock& c : in.clocks) {
        v1::WorkerClock* clock = out->add_clocks();
        clock->set_worker_id(c.worker_id);
        clock->set_worker_name(c.worker_name);
        clock->set_min_factor(c.min_factor);
        clock->set_max_factor(c.max_factor);
        clock->set_last_factor(c.last_factor);
        clock->set_last_nps(c.last_nps);
        clock->set_reports(uint32_t(c.reports));
        clock->set_pairs(uint64_t(c.pairs));
    }
    for (const LeaseFailure& f : in.lease_failures) {
        v1::LeaseFailure* failure = out->add_lease_failures();
        failure->set_worker_id(f.worker_id);
        failure->set_count(uint32_t(f.count));
        failure->set_message(f.message);
        failure->set_unix_ms(f.created_ms);
    }
    for (const WorkerFit& w : in.workers) worker_fit_to_proto(w, out->add_workers());
    classes_to_proto(in, out);
    for (const FaultCount& f : in.faults) {
        v1::FaultCount* fault = out->add_faults();
        fault->set_worker_id(f.worker_id);
        fault->set_worker_name(f.worker_name);
        fault->set_version(f.test_version ? run.spec.test_version : run.spec.base_version);
        fault->set_fault(v1::GameEnding(int(f.fault)));
        fault->set_games(uint64_t(f.games));
    }
    output_warnings_to_proto(run, in.output_warnings, out);
    for (const Purge& taken : in.purges) {
        v1::Purge* purge = out->add_purges();
        purge->set_worker_id(taken.worker_id);
        purge->set_worker_name(taken.worker_name);
        purge->set_games(uint64_t(2 * taken.counts.pairs));
        purge->set_wins(uint64_t(taken.counts.wins));
        purge->set_draws(uint64_t(taken.counts.draws));
        purge->set_losses(uint64_t(taken.counts.losses));
        purge->set_purged_by(taken.token_name);
        purge->set_unix_ms(taken.purged_ms);
    }
    if (in.fault_state) fault_state_to_proto(run, *in.fault_state, out);
    out->set_change_count(uint64_t(in.change_count));
    for (const RunChange& c : in.changes) {
        v1::RunChange* change = out->add_changes();
        change->set_changed_unix_ms(c.changed_ms);
        change->set_user(c.user);
        change->set_field(c.field);
        change->set_old_value(c.old_value);
        change->set_new_value(c.new_value);
    }
}

std::vector<RunState> run_states_from_proto(const google::protobuf::RepeatedField<int>& states) {
    std::vector<RunState> out;
    for (int s : states) {
        if (s == v1::RUN_STATE_ACTIVE) out.push_back(RunState::Active);
        if (s == v1::RUN_STATE_FINISHED) out.push_back(RunState::Finished);
        if (s == v1::RUN_STATE_STOPPED) out.push_back(RunState::Stopped);
        if (s == v1::RUN_STATE_PAUSED) out.push_back(RunState::Paused);
    }
    return out;
}

absl::StatusOr<RunQuery> run_query_from_proto(const v1::ListRunsRequest& in) {
    constexpr size_t kMaxFilter = 1000;
    RunQuery query;
    query.states = run_states_from_proto(in.states());
    if (in.kind() != v1::RUN_KIND_UNSPECIFIED) {
        absl::StatusOr<const RunKindModule*> kind = run_kind_from_proto(in.kind());
        if (!kind.ok()) return kind.status();
        query.kind = (*kind)->kind();
    }
    if (in.version().size() > kMaxFilter || in.text().size() > kMaxFilter)
        return absl::InvalidArgumentError("a runs filter's version or text is longer than " +
                                          std::to_string(kMaxFilter) + " bytes");
    if (in.offset() > uint32_t(std::numeric_limits<int>::max()))
        return absl::InvalidArgumentError("offset out of range");
    query.version = in.version();
    query.text = in.text();
    if (in.has_owner()) {
        if (in.owner().size() > kMaxFilter)
            return absl::InvalidArgumentError("a runs filter's owner is longer than " +
                                              std::to_string(kMaxFilter) + " bytes");
        query.owner = in.owner();
    }
    if (!in.time_control().empty()) {
        std::string error;
        const std::optional<TimeControl> tc =
            parse_time_control(in.time_control().substr(0, kMaxFilter), &error);
        if (!tc)
            return absl::InvalidArgumentError("a runs filter's time control: " +
                                              printable(error, kMaxFilter));
        query.time_control = tc->to_string();
    }
    if (in.result().size() > kMaxFilter)
        return absl::InvalidArgumentError("a runs filter's result is longer than " +
                                          std::to_string(kMaxFilter) + " bytes");
    query.result = in.result();
    if (in.created_from_unix_ms() < 0 || in.created_until_unix_ms() < 0)
        return absl::InvalidArgumentError("a runs filter's dates must be times after 1970");
    query.created_from_ms = in.created_from_unix_ms();
    query.created_until_ms = in.created_until_unix_ms();
    query.active_first = in.active_first();
    query.offset = int(in.offset());
    // Clamped here, to at most kMaxListedRuns by the core: the total tells how many pages.
    query.limit = int(std::min(in.limit(), 1'000'000u));
    return query;
}

absl::StatusOr<RunModification> run_modification_from_proto(const v1::ModifyRunRequest& in) {
    RunModification change;
    change.run_id = in.run_id();
    if (in.has_priority()) change.priority = in.priority();
    if (in.has_throughput())
        change.throughput = int(std::min<uint32_t>(in.throughput(), 1'000'000));
    if (in.has_games()) change.games = in.games();
    if (in.has_description()) change.description = valid_utf8(in.description());
    if (in.has_fault_bound()) change.fault_bound = fault_bound_from_proto(in.fault_bound());
    if (!in.test_version().empty()) change.fixed.push_back("test_version");
    if (!in.base_version().empty()) change.fixed.push_back("base_version");
    if (in.has_time_control()) change.fixed.push_back("time_control");
    if (in.has_book()) change.fixed.push_back("book");
    return change;
}

void llr_history_to_proto(const RunHistory& in, v1::LlrHistory* out) {
    out->set_llr_lower(in.llr_lower);
    out->set_llr_upper(in.llr_upper);
    for (const HistoryPoint& point : in.points) {
        v1::LlrPoint* p = out->add_points();
        p->set_games(uint64_t(point.games));
        p->set_unix_ms(point.unix_ms);
        p->set_llr(point.llr);
        p->set_elo(point.elo.elo);
        p->set_elo_low(point.elo.elo_low);
        p->set_elo_high(point.elo.elo_high);
    }
    for (const WorkerShare& share : in.workers) {
        v1::WorkerShare* w = out->add_workers();
        w->set_worker_id(share.worker_id);
        w->set_name(share.name);
        w->set_games(uint64_t(2 * share.counts.pairs));
        w->set_wins(uint64_t(share.counts.wins));
        w->set_draws(uint64_t(share.counts.draws));
        w->set_losses(uint64_t(share.counts.losses));
        w->set_residual(share.residual);
    }
    for (const LeaseShare& lease : in.leases) {
        v1::LeaseOut* l = out->add_leases();
        l->set_lease_id(lease.lease_id);
        l->set_worker_id(lease.worker_id);
        l->set_worker_name(lease.worker_name);
        l->set_since_unix_ms(lease.since_ms);
        l->set_games(lease.games);
        l->set_games_reported(lease.games_reported);
    }
}

}  // namespace sparring::coordinator
