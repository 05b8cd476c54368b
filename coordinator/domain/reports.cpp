// Core: the exactly-once accounting of a lease's reports: a retry is told from a forgery by
// its digest, a report is checked whole before anything of it is counted, and its games, counts
// and the run's statistics change in the writer's one transaction.
#include <algorithm>
#include <cmath>
#include <vector>

#include "common/printable.h"
#include "coordinator/domain/auth.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/evidence.h"
#include "coordinator/domain/lease_parts.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

namespace {

// Returns the digest that identifies a report's content, for telling retries from forgeries.
std::string digest_of(const Report& report) {
    std::string text = std::to_string(report.sequence);
    // Only reports of scaled clocks carry a factor; other digests stay as they were.
    if (report.clock_factor != 0 || report.nps != 0)
        text += "@" + std::to_string(report.nps) + "/" + std::to_string(report.clock_factor);
    for (const PairRecord& pair : report.pairs) {
        text += "|" + std::to_string(pair.index);
        for (const GameRecord& game : pair.games) {
            text += "," + std::to_string(int(game.outcome)) + (game.test_white ? "w" : "b") +
                    std::to_string(game.pgn.size()) + ":" + game.pgn;
            // Only generation reports carry positions; other digests stay as they were.
            if (game.position_count || !game.positions.empty())
                text += "#" + std::to_string(game.position_count) + ":" + game.positions;
        }
    }
    return sha256_hex(text);
}

// Adds a game pair to counts.
void count_pair(Counts& counts, const PairRecord& pair) {
    ++counts.pairs;
    for (const GameRecord& game : pair.games) {
        counts.wins += game.outcome == Outcome::Win;
        counts.draws += game.outcome == Outcome::Draw;
        counts.losses += game.outcome == Outcome::Loss;
    }
    ++counts.penta
          .counts[size_t(half_points(pair.games[0].outcome) + half_points(pair.games[1].outcome))];
}

// Returns the number of games a report carries.
int64_t games_of(const Report& report) {
    int64_t games = 0;
    for (const PairRecord& pair : report.pairs) games += int64_t(std::size(pair.games));
    return games;
}

// Returns why a lease that is no longer leased takes no report.
std::string why_over(const Lease& lease, const Run& run) {
    return lease.state == LeaseState::Expired    ? "expired and its pairs went back to the pool"
           : lease.state == LeaseState::Released ? "was released"
           : lease.state == LeaseState::Done     ? "is complete"
           : run.state == RunState::Paused
               ? "was stopped: run " + std::to_string(run.id) + " is " + run.result
               : "was stopped: run " + std::to_string(run.id) + " is " +
                     (run.result.empty() ? "over" : run.result);
}

// Checks a report's pairs before any is counted: each inside the lease and reported once, as
// the run's kind wants it, and no game's PGN over max_pgn_bytes.
absl::Status check_pairs(const RunKindModule& kind, const Lease& lease, const Report& report,
                         size_t max_pgn_bytes) {
    std::vector<bool> seen(lease.pairs, false);
    for (const PairRecord& pair : report.pairs) {
        const std::string pair_name = "pair " + std::to_string(pair.index);
        if (pair.index >= lease.pairs)
            return absl::InvalidArgumentError(pair_name + " is outside " + lease_name(lease.id) +
                                              " (pairs 0-" + std::to_string(lease.pairs - 1) + ")");
        if (seen[pair.index] || lease.is_reported(pair.index))
            return absl::InvalidArgumentError(pair_name + " of " + lease_name(lease.id) +
                                              " was already reported");
        seen[pair.index] = true;
        if (absl::Status status = kind.check_pair(pair, pair_name); !status.ok()) return status;
        for (const GameRecord& game : pair.games)
            if (game.pgn.size() > max_pgn_bytes)
                return absl::InvalidArgumentError(pair_name + ": a game's PGN is over " +
                                                  std::to_string(max_pgn_bytes) + " bytes");
    }
    return absl::OkStatus();
}

// Stores a checked report's games, marks their pairs reported in the lease and lets the run's
// kind count each pair; returns the report's record with its counts.
ReportRecord store_pairs(Storage& storage, const RunKindModule& kind, const Run& run, Lease& lease,
                         const Report& report, int64_t now) {
    ReportRecord record;
    record.lease_id = lease.id;
    record.sequence = report.sequence;
    record.run_id = run.id;
    record.worker_id = report.worker_id;
    record.digest = digest_of(report);
    record.received_ms = now;
    record.clock_factor = report.clock_factor;
    record.nps = report.nps;
    for (const PairRecord& pair : report.pairs) {
        count_pair(record.counts, pair);
        lease.mark_reported(pair.index);
        for (int g = 0; g < 2; ++g) {
            StoredGame game;
            game.run_id = run.id;
            game.game = 2 * (lease.first_pair + pair.index) + uint64_t(g);
            game.lease_id = lease.id;
            game.worker_id = report.worker_id;
            game.outcome = pair.games[g].outcome;
            game.test_white = pair.games[g].test_white;
            game.pgn = pair.games[g].pgn;
            game.stored_pgn = pair.games[g].stored_pgn;
            game.ending = pair.games[g].ending;
            storage.insert_game(game);
            keep_evidence(storage, run, game.game, pair.games[g]);
            storage.add_output_warnings(run.id, game.game, pair.games[g].output_warnings);
        }
        kind.count_pair(storage, run, lease, pair);
    }
    return record;
}

}  // namespace

absl::StatusOr<ReportAck> Core::report_results(Storage& storage, const Caller& caller,
                                               const Report& report) const {
    if (absl::StatusOr<Worker> worker = holder(storage, caller, report.worker_id); !worker.ok())
        return worker.status();
    absl::StatusOr<Lease> lease = held_lease(storage, report.worker_id, report.lease_id);
    if (!lease.ok()) return lease.status();
    const std::string name =
        "report " + std::to_string(report.sequence) + " of " + lease_name(report.lease_id);
    if (report.sequence == 0)
        return absl::InvalidArgumentError("report sequence numbers start at 1");

    // A sequence number already used: a retry if the content is the same, else a forgery.
    if (report.sequence <= lease->last_sequence) {
        const std::optional<std::string> digest =
            storage.find_report_digest(lease->id, report.sequence);
        if (!digest || *digest != digest_of(report))
            return absl::AlreadyExistsError(name + " was already recorded with other content");
        const bool over = lease->state != LeaseState::Leased && lease->state != LeaseState::Done;
        publish(storage, ReportCounted{report.worker_id, lease->id, lease->run_id, report.sequence,
                                       games_of(report), true});
        return ReportAck{true, over, lease->expires_ms};
    }

    Run run = *storage.find_run(lease->run_id);
    const int64_t now = now_ms_();
    if (lease->state == LeaseState::Leased && lease->expires_ms < now)
        end_lease(storage, run, *lease, LeaseState::Expired);
    if (lease->state != LeaseState::Leased)
        return absl::FailedPreconditionError(lease_name(lease->id) + " " + why_over(*lease, run) +
                                             "; discard its results");
    if (report.sequence != lease->last_sequence + 1)
        return absl::FailedPreconditionError(name + " came before report " +
                                             std::to_string(lease->last_sequence + 1) +
                                             "; send reports in order");
    if (report.pairs.empty()) return absl::InvalidArgumentError(name + " has no game pairs");
    if (absl::Status status = check_clock(run, report, name); !status.ok()) return status;
    const RunKindModule& kind = run_kind(run.spec.kind);
    if (absl::Status status = kind.check_report(report, name); !status.ok()) return status;
    if (absl::Status status = check_pairs(kind, *lease, report, options_.max_pgn_bytes);
        !status.ok())
        return status;

    if (report.nps > 0)
        storage.upsert_worker_speed(worker_speed(report.worker_id, run.test_id, report.nps,
                                                 lease->cores / std::max(1, run.spec.threads),
                                                 now));
    const ReportRecord record = store_pairs(storage, kind, run, *lease, report, now);
    storage.insert_report(record);
    if (report.sequence == 1 && (!report.test_build.empty() || !report.base_build.empty()))
        storage.set_lease_builds(lease->id, report.test_build, report.base_build);
    storage.add_worker_games(report.worker_id, 2 * record.counts.pairs);
    apply(storage, kind.count_report(storage, run, *lease, report, now));

    lease->pairs_reported += uint32_t(report.pairs.size());
    lease->last_sequence = report.sequence;
    lease->expires_ms = now + options_.lease_ms;
    run.counts.add(record.counts);
    run.pairs_leased -= report.pairs.size();
    refresh_statistics(run);
    if (lease->pairs_reported == lease->pairs) {
        end_lease(storage, run, *lease, LeaseState::Done);
    } else {
        storage.update_lease(*lease);
        storage.update_run(run);
    }
    publish(storage, ReportCounted{report.worker_id, lease->id, run.id, report.sequence,
                                   games_of(report), false});
    publish(storage, RunProgressed{run.id, run.counts, run.elo, run.sprt.llr, run.pairs_leased,
                                   run.active_leases, report.worker_id, record.counts});

    // A run its faults paused ends with no verdict: its result would be the faults'.
    if (count_faults(storage, run, report)) return ReportAck{false, true, lease->expires_ms};
    if (std::optional<std::string> verdict = kind.verdict(run)) {
        end_run(storage, run, RunState::Finished, std::move(*verdict));
    }
    const bool over = lease->state != LeaseState::Leased && lease->state != LeaseState::Done;
    return ReportAck{false, over, lease->expires_ms};
}

absl::Status Core::check_clock(const Run& run, const Report& report,
                               const std::string& name) const {
    const bool scaled =
        run.spec.reference_nps > 0 && run.spec.time_control.kind == TimeControl::Kind::Clock;
    if (!scaled) {
        if (report.clock_factor != 0 || report.nps != 0)
            return absl::InvalidArgumentError(name + " carries a clock factor, but run " +
                                              std::to_string(run.id) + " plays raw clocks");
        return absl::OkStatus();
    }
    if (report.nps == 0 || !(report.clock_factor > 0))
        return absl::InvalidArgumentError(name + " carries no clock factor, but run " +
                                          std::to_string(run.id) + " scales clocks to " +
                                          std::to_string(run.spec.reference_nps) +
                                          " nodes per second: update the worker");
    const double expected = double(run.spec.reference_nps) / double(report.nps);
    if (std::abs(report.clock_factor - expected) > 1e-9 * expected)
        return absl::InvalidArgumentError(
            name + ": a clock factor of " + std::to_string(report.clock_factor) + " is not " +
            std::to_string(run.spec.reference_nps) + " / " + std::to_string(report.nps));
    if (!factor_allowed(report.clock_factor))
        return absl::InvalidArgumentError(name + ": a clock factor of " +
                                          std::to_string(report.clock_factor) +
                                          " is outside the coordinator's bounds");
    return absl::OkStatus();
}

}  // namespace sparring::coordinator
