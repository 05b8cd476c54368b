// Conversions of the worker side between the protocol and the domain: workers, their fits and
// speeds, leases, reports with their games, and releases.
#include <algorithm>
#include <cmath>

#include "common/engine_builds.h"
#include "common/printable.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/positions.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"
#include "coordinator/rpc/convert.h"
#include "coordinator/rpc/convert_controls.h"
#include "coordinator/rpc/convert_evidence.h"
#include "coordinator/rpc/convert_identity.h"
#include "coordinator/rpc/convert_warnings.h"
#include "coordinator/storage/compression.h"
#include "match/pgn.h"
#include "proto/time_control.h"

namespace sparring::coordinator {

namespace {

// Returns white's outcome by the Result of a worker's PGN, which must hold exactly one game;
// INVALID_ARGUMENT otherwise.
absl::StatusOr<Outcome> pgn_outcome(const std::string& pgn, uint32_t pair) {
    const std::string where = "pair " + std::to_string(pair) + ": a game's PGN ";
    std::istringstream in(pgn);
    match::PgnReader reader(in, "report");
    match::PgnGame game;
    std::string error;
    if (reader.next(&game, &error) != match::PgnReader::Status::Game)
        return absl::InvalidArgumentError(where + "holds no game: " + excerpt(error, 200));
    match::PgnGame extra;
    if (reader.next(&extra, &error) != match::PgnReader::Status::End)
        return absl::InvalidArgumentError(where + "holds more than one game");
    const std::string tag = game.tag("Result");
    const std::optional<Outcome> white = parse_pgn_result(tag.empty() ? game.result : tag);
    if (!white || (!tag.empty() && tag != game.result && game.result != "*"))
        return absl::InvalidArgumentError(where + "has no definite Result (1-0, 0-1, 1/2-1/2)");
    return *white;
}

// Returns the domain outcome of a message; INVALID_ARGUMENT when unspecified.
absl::StatusOr<GameRecord> game_from_proto(const v1::Game& in, uint32_t pair) {
    GameRecord game;
    switch (in.outcome()) {
        case v1::GAME_OUTCOME_WIN:
            game.outcome = Outcome::Win;
            break;
        case v1::GAME_OUTCOME_DRAW:
            game.outcome = Outcome::Draw;
            break;
        case v1::GAME_OUTCOME_LOSS:
            game.outcome = Outcome::Loss;
            break;
        default:
            return absl::InvalidArgumentError("pair " + std::to_string(pair) +
                                              ": a game has no outcome");
    }
    game.test_white = in.test_white();
    if (!v1::GameEnding_IsValid(in.ending()))
        return absl::InvalidArgumentError("pair " + std::to_string(pair) +
                                          ": a game has an unknown ending " +
                                          std::to_string(int(in.ending())));
    game.ending = GameEnding(int(in.ending()));
    if (is_fault(game.ending) && game.outcome == Outcome::Draw)
        return absl::InvalidArgumentError("pair " + std::to_string(pair) + ": a game lost by " +
                                          std::string(game_ending_name(game.ending)) +
                                          " cannot be a draw");
    game.pgn = valid_utf8(in.pgn());
    if (!game.pgn.empty()) {
        absl::StatusOr<Outcome> white = pgn_outcome(game.pgn, pair);
        if (!white.ok()) return white.status();
        game.pgn_white_outcome = *white;
        game.stored_pgn = encode_pgn(game.pgn);
    }
    game.positions = in.positions();
    game.position_count = in.position_count();
    if (in.has_evidence()) {
        absl::StatusOr<GameEvidence> evidence =
            evidence_from_proto(in.evidence(), game.ending, pair);
        if (!evidence.ok()) return evidence.status();
        game.evidence = std::move(*evidence);
    }
    if (absl::Status s = output_warnings_from_proto(in, pair, &game.output_warnings); !s.ok())
        return s;
    return game;
}

}  // namespace

void worker_fit_to_proto(const WorkerFit& in, v1::WorkerFit* out) {
    out->set_run_id(in.run_id);
    out->set_worker_id(in.worker_id);
    out->set_name(in.name);
    out->set_games(uint64_t(2 * in.counts.pairs));
    pentanomial_to_proto(in.counts.penta, out->mutable_pentanomial());
    out->set_chi2(in.fit.chi2);
    out->set_df(uint32_t(in.fit.df));
    out->set_p_value(in.fit.p_value);
    out->set_residual(in.fit.residual);
    out->set_quarantined(in.quarantined);
    out->set_time_losses(uint64_t(in.time_losses));
    out->set_time_loss_p(in.time_loss_p);
    out->set_faults(uint64_t(in.faults));
    out->set_fault_p(in.fault_p);
    out->set_cpu_class(in.cpu_class);
    out->set_class_rest_games(uint64_t(2 * in.class_rest_pairs));
}
Worker worker_from_proto(const v1::RegisterRequest& in) {
    Worker w;
    w.name = valid_utf8(in.name());
    w.cores = int(std::min<uint32_t>(in.cores(), 1'000'000));
    w.memory_mb = int64_t(std::min<uint64_t>(in.memory_mb(), uint64_t(1) << 40));
    w.concurrency = int(std::min<uint32_t>(in.concurrency(), 1'000'000));
    for (const std::string& engine : in.uci_engines()) w.uci_engines.push_back(valid_utf8(engine));
    w.build = valid_utf8(in.build());
    w.accept_uploaded_engines = in.accept_uploaded_engines();
    w.controls = worker_controls_from_proto(in.controls());
    w.identity = worker_identity_from_proto(in.identity());
    return w;
}

void worker_to_proto(const WorkerSummary& in, bool active, v1::WorkerStatus* out) {
    const Worker& w = in.worker;
    out->set_id(w.id);
    out->set_name(w.name);
    out->set_cores(uint32_t(w.cores));
    out->set_memory_mb(uint64_t(w.memory_mb));
    out->set_concurrency(uint32_t(w.concurrency));
    for (const std::string& e : w.uci_engines) out->add_uci_engines(e);
    out->set_build(w.build);
    out->set_accept_uploaded_engines(w.accept_uploaded_engines);
    worker_controls_to_proto(w.controls, out->mutable_controls());
    if (!w.identity.empty()) worker_identity_to_proto(w.identity, out->mutable_identity());
    out->set_cpu_class(w.cpu_class);
    out->set_registered_unix_ms(w.registered_ms);
    out->set_last_seen_unix_ms(w.last_seen_ms);
    out->set_active(active);
    if (in.run_id) out->add_run_ids(in.run_id);
    out->set_games(uint64_t(w.games));
    if (in.fit) worker_fit_to_proto(*in.fit, out->mutable_fit());
    for (const WorkerSpeed& speed : in.speeds) {
        v1::WorkerSpeed* o = out->add_speeds();
        o->set_version_id(speed.version_id);
        o->set_version(speed.version);
        o->set_nps(speed.nps);
        o->set_games_at_once(uint32_t(speed.games_at_once));
        o->set_measured_unix_ms(speed.measured_ms);
    }
    for (const DeclinedRun& d : in.declined) {
        v1::DeclinedRun* o = out->add_declined();
        o->set_run_id(d.run_id);
        o->set_reason(d.reason);
        o->set_text(d.text);
    }
}

void waiting_to_proto(const RunWaiting& in, v1::RunStatus* out) {
    for (const WaitingReason& r : in.reasons) {
        v1::WaitingReason* o = out->add_waiting();
        o->set_reason(wait_reason_name(r.reason));
        o->set_text(r.text);
        o->set_workers(r.workers);
        o->set_fix(r.fix);
        o->set_line(waiting_line(r, in.connected));
    }
    out->set_connected_workers(in.connected);
    out->set_unplayable(in.unplayable);
}

void lease_to_proto(const LeaseGrant& in, v1::Lease* out) {
    out->set_lease_id(in.lease.id);
    out->set_run_id(in.run.id);
    version_to_proto(in.test, out->mutable_test());
    version_to_proto(in.base, out->mutable_base());
    time_control_to_proto(in.run.spec.time_control, out->mutable_time_control());
    out->set_first_pair(in.lease.first_pair);
    out->set_expires_unix_ms(in.lease.expires_ms);
    const RunKindModule& kind = run_kind(in.run.spec.kind);
    if (kind.adjudicates())
        adjudication_to_proto(in.run.spec.adjudication, out->mutable_adjudication());
    out->set_threads(uint32_t(in.run.spec.threads));
    if (in.run.spec.reference_nps > 0 &&
        in.run.spec.time_control.kind == TimeControl::Kind::Clock) {
        out->set_reference_nps(in.run.spec.reference_nps);
        out->set_min_clock_factor(in.min_clock_factor);
        out->set_max_clock_factor(in.max_clock_factor);
    }
    kind.lease_to_proto(in, out);
}

absl::StatusOr<Report> report_from_proto(const v1::ReportResultsRequest& in) {
    Report report;
    report.worker_id = in.worker_id();
    report.lease_id = in.lease_id();
    report.sequence = in.sequence();
    report.clock_factor = in.clock_factor();
    report.nps = in.nps();
    if (!std::isfinite(report.clock_factor) || report.clock_factor < 0)
        return absl::InvalidArgumentError("a report's clock factor must be a positive number");
    for (const v1::GamePair& p : in.pairs()) {
        PairRecord pair;
        pair.index = p.index();
        absl::StatusOr<GameRecord> first = game_from_proto(p.first(), p.index());
        if (!first.ok()) return first.status();
        absl::StatusOr<GameRecord> second = game_from_proto(p.second(), p.index());
        if (!second.ok()) return second.status();
        pair.games[0] = std::move(*first);
        pair.games[1] = std::move(*second);
        report.pairs.push_back(std::move(pair));
    }
    if (!in.pairs().empty()) {
        const v1::GameBuilds& builds = in.pairs(0).first().builds();
        for (const std::string* level : {&builds.test(), &builds.base()})
            if (!level->empty() && *level != "portable" && !build_level_error(*level).empty())
                return absl::InvalidArgumentError("a game's build: " + build_level_error(*level));
        report.test_build = builds.test();
        report.base_build = builds.base();
    }
    // Positions are checked here, on the calling thread, not on the writer.
    if (absl::Status positions = check_report_positions(report); !positions.ok()) return positions;
    return report;
}

absl::StatusOr<Release> release_from_proto(const v1::ReleaseLeaseRequest& in) {
    Release r;
    r.worker_id = in.worker_id();
    r.lease_id = in.lease_id();
    switch (in.reason()) {
        case v1::RELEASE_REASON_SHUTDOWN:
            r.reason = Release::Reason::Shutdown;
            break;
        case v1::RELEASE_REASON_BENCH_MISMATCH:
            r.reason = Release::Reason::BenchMismatch;
            break;
        case v1::RELEASE_REASON_ENGINE_FAILURE:
            r.reason = Release::Reason::EngineFailure;
            break;
        case v1::RELEASE_REASON_TOO_SLOW:
            r.reason = Release::Reason::TooSlow;
            break;
        case v1::RELEASE_REASON_CPU_UNSUPPORTED:
            r.reason = Release::Reason::CpuUnsupported;
            break;
        default:
            return absl::InvalidArgumentError("a release needs a reason");
    }
    r.version_id = in.version_id();
    r.computed_bench = in.computed_bench();
    r.measured_nps = in.measured_nps();
    r.build_level = utf8_prefix(valid_utf8(in.build_level()), 64);
    r.message = utf8_prefix(valid_utf8(in.message()), kMaxStatusBytes);
    return r;
}

}  // namespace sparring::coordinator
