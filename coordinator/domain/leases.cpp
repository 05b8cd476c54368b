// Core: workers and their leases: registration, choosing a run, granting, heartbeats, release
// and expiry (reports.cpp counts what leases report).
#include <algorithm>
#include <cmath>
#include <iterator>
#include <memory>

#include "common/printable.h"
#include "coordinator/domain/auth.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/events.h"
#include "coordinator/domain/lease_parts.h"
#include "coordinator/domain/limits.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/scheduler.h"
#include "coordinator/domain/text.h"
#include "coordinator/domain/validation.h"
#include "coordinator/domain/worker_identity.h"
#include "match/uci_options.h"

namespace sparring::coordinator {

namespace {

constexpr int kDefaultHashMb = 16;

// Returns the memory an engine of a version uses for its hash table, in MiB, at most
// kMaxHashMb (versions stored before the bound may ask for more).
int64_t hash_of(const Version& v) {
    if (v.kind == Version::Kind::Builtin)
        return std::min<int64_t>(v.hash_mb > 0 ? v.hash_mb : kDefaultHashMb, kMaxHashMb);
    // Any spelling the engine reads as Hash; the largest, should a version stored before
    // spellings were compared hold two.
    const std::vector<std::string> values = match::uci_option_values(v.uci_options, "Hash");
    if (values.empty()) return kDefaultHashMb;
    int64_t largest = 0;
    for (const std::string& value : values) {
        const std::optional<int64_t> mb = parse_int(value);
        largest = std::max(largest, !mb ? (value.empty() ? kDefaultHashMb : kMaxHashMb)
                                        : std::clamp<int64_t>(*mb, 0, kMaxHashMb));
    }
    return largest;
}

}  // namespace

WorkerSpeed worker_speed(int64_t worker_id, int64_t version_id, uint64_t nps, int games_at_once,
                         int64_t ms) {
    WorkerSpeed speed;
    speed.worker_id = worker_id;
    speed.version_id = version_id;
    speed.nps = nps;
    speed.games_at_once = games_at_once;
    speed.measured_ms = ms;
    return speed;
}

std::string lease_name(int64_t id) {
    return "lease " + std::to_string(id);
}

absl::StatusOr<Worker> Core::register_worker(Storage& storage, const Caller& caller,
                                             Worker worker) const {
    if (absl::Status status = check_worker(worker); !status.ok()) return status;
    const int64_t active_since = now_ms_() - 3 * options_.heartbeat_interval_ms;
    seed_active_workers(storage);
    if (active_->count(caller.token_id, active_since) >= options_.max_workers_per_token)
        return absl::ResourceExhaustedError(
            "this token already has " + std::to_string(options_.max_workers_per_token) +
            " active workers (the coordinator's --max-workers-per-token)");
    worker.token_id = caller.token_id;
    worker.identity = kept_identity(std::move(worker.identity));
    worker.cpu_class = cpu_class_of(worker.identity);
    worker.registered_ms = worker.last_seen_ms = now_ms_();
    worker.id = storage.insert_worker(worker);
    active_->seen(worker.id, worker.token_id, worker.last_seen_ms);
    publish(storage, WorkerRegistered{worker, caller.peer});
    return worker;
}

absl::StatusOr<Worker> Core::holder(Storage& storage, const Caller& caller,
                                    int64_t worker_id) const {
    std::optional<Worker> worker = storage.find_worker(worker_id);
    if (!worker)
        return absl::NotFoundError("no worker " + std::to_string(worker_id) + "; register again");
    if (worker->token_id != caller.token_id)
        return absl::PermissionDeniedError("worker " + std::to_string(worker_id) +
                                           " was registered with another token");
    const int64_t now = now_ms_();
    // The stored time lags at most a tenth of the active window (3 heartbeat intervals):
    // a worker's calls in quick succession (a report, then its next request) write it once.
    // The cap on a token's active workers counts the exact times, kept in memory.
    if (now - worker->last_seen_ms >= 3 * options_.heartbeat_interval_ms / 10)
        storage.touch_worker(worker_id, now);
    seed_active_workers(storage);
    active_->seen(worker_id, worker->token_id, now);
    publish(storage, WorkerSeen{worker_id, now});
    return *worker;
}

std::shared_ptr<const RunVersions::Pair> Core::versions_of(Storage& storage, const Run& run) const {
    const RunVersions::Key key(run.id, run.created_ms);
    if (std::shared_ptr<const RunVersions::Pair> kept = run_versions_->find(key);
        kept && kept->test.id == run.test_id && kept->base.id == run.base_id)
        return kept;
    auto read = std::make_shared<const RunVersions::Pair>(
        RunVersions::Pair{*storage.find_version(run.test_id), *storage.find_version(run.base_id)});
    run_versions_->insert(key, read);
    return read;
}

void Core::seed_active_workers(Storage& storage) const {
    if (active_->seeded()) return;
    for (const WorkerSummary& w :
         storage.list_workers(now_ms_() - 3 * options_.heartbeat_interval_ms))
        active_->seen(w.worker.id, w.worker.token_id, w.worker.last_seen_ms);
    active_->mark_seeded();
}

absl::StatusOr<Lease> Core::held_lease(Storage& storage, int64_t worker_id,
                                       int64_t lease_id) const {
    std::optional<Lease> lease = storage.find_lease(lease_id);
    if (!lease) return absl::NotFoundError("no " + lease_name(lease_id));
    if (lease->worker_id != worker_id)
        return absl::PermissionDeniedError(lease_name(lease_id) + " is not held by worker " +
                                           std::to_string(worker_id));
    return *lease;
}

void Core::end_lease(Storage& storage, Run& run, Lease& lease, LeaseState state) const {
    const uint32_t unreported = lease.pairs - lease.pairs_reported;
    candidates_->touch(run.id);  // its cores, and the pairs back in its pool
    lease.state = state;
    lease.ended_ms = now_ms_();
    storage.update_lease(lease);
    storage.set_worker_lease(lease.worker_id, 0, lease.id);
    if (state == LeaseState::Expired)
        publish(storage, LeaseExpired{lease.id, lease.worker_id, run.id,
                                      run.state == RunState::Active ? unreported : 0});
    if (run.state != RunState::Active) return;
    run.pairs_leased -= unreported;
    run.active_leases -= 1;
    run.active_cores -= lease.cores;
    // Unreported pairs go back to the pool as maximal contiguous ranges.
    for (uint32_t i = 0; i < lease.pairs;) {
        if (lease.is_reported(i)) {
            ++i;
            continue;
        }
        uint32_t end = i;
        while (end < lease.pairs && !lease.is_reported(end)) ++end;
        storage.insert_free_pairs(run.id, {lease.first_pair + i, end - i});
        run.free_pairs += end - i;
        i = end;
    }
    storage.update_run(run);
}

std::shared_ptr<const std::vector<Opening>> Core::openings(Storage& storage, const Run& run) {
    const BookCache::Key key(run.id, run.created_ms);
    if (BookCache::Book kept = books_.find(key)) return kept;
    const Book book = storage.load_book(run.id);
    auto ordered = std::make_shared<std::vector<Opening>>();
    const BookOrder order = book.random_order ? BookOrder::Random : BookOrder::Sequential;
    for (size_t i : opening_order(book.openings.size(), order, book.seed))
        ordered->push_back(book.openings[i]);
    return books_.insert(key, std::move(ordered));
}

LeaseGrant Core::grant(Storage& storage, Lease lease, Run run) {
    LeaseGrant g;
    const std::shared_ptr<const RunVersions::Pair> versions = versions_of(storage, run);
    g.test = versions->test;
    g.base = versions->base;
    const auto book = openings(storage, run);
    g.lease = std::move(lease);
    g.run = std::move(run);
    if (g.run.spec.reference_nps > 0) {
        g.min_clock_factor = options_.min_clock_factor;
        g.max_clock_factor = options_.max_clock_factor;
    }
    run_kind(g.run.spec.kind).fill_grant(storage, *book, g);
    return g;
}

WorkerProfile Core::profile_of(Storage& storage, const Worker& worker) const {
    WorkerProfile profile;
    profile.concurrency = worker.concurrency;
    profile.memory_mb = worker.memory_mb;
    profile.uci_engines = worker.uci_engines;
    profile.accepts_uploaded_engines = worker.accept_uploaded_engines;
    profile.refused_versions = storage.refused_versions(worker.id);
    profile.barred_runs = storage.purged_runs(worker.id);
    profile.failed_runs = storage.failed_runs(worker.id, options_.lease_failures_per_worker);
    profile.refused_builds = storage.refused_builds(worker.id);
    profile.isa_levels = worker.identity.isa_levels;
    profile.controls = worker.controls;
    return profile;
}

RunCandidate Core::candidate_of(Storage& storage, const Run& run) const {
    RunCandidate c;
    c.run_id = run.id;
    c.priority = run.spec.priority;
    c.throughput = run.spec.throughput;
    c.active_cores = run.active_cores;
    c.threads = run.spec.threads;
    c.fixed_nodes = run.spec.time_control.kind == TimeControl::Kind::Nodes ||
                    run.spec.time_control.kind == TimeControl::Kind::Depth;
    c.owner = run.spec.owner;
    c.served_pairs = run.next_pair - run.free_pairs;
    const std::shared_ptr<const RunVersions::Pair> versions = versions_of(storage, run);
    for (const Version* version : {&versions->test, &versions->base}) {
        const Version& v = *version;
        c.version_ids.push_back(v.id);
        if (v.kind == Version::Kind::Uci) c.uci_commands.push_back(v.uci_command);
        if (v.kind == Version::Kind::Uploaded) {
            c.uploaded_engines = true;
            c.builds.push_back({v.id, v.name, v.build_levels()});
        }
        c.memory_mb_per_game += hash_of(v);
    }
    return c;
}

// A run with all its pairs out but cores at work stays in the pool, not leasable, so that its
// cores count to its owner's share.
void Core::refresh_candidate(Storage& storage, int64_t run_id) {
    const std::optional<Run> run = storage.find_run(run_id);
    if (run && run->state == RunState::Active &&
        (run->pairs_available() > 0 || run->active_cores > 0)) {
        RunCandidate c = candidate_of(storage, *run);
        c.leasable = run->pairs_available() > 0;
        candidates_->put(std::move(c));
    } else {
        candidates_->remove(run_id);
    }
}

void Core::sync_candidates(Storage& storage) {
    bool all = false;
    const std::vector<int64_t> touched = candidates_->take_touched(&all);
    if (all) {
        for (const Run& run : storage.list_runs({RunState::Active}, 1'000'000))
            if (run.pairs_available() > 0 || run.active_cores > 0) {
                RunCandidate c = candidate_of(storage, run);
                c.leasable = run.pairs_available() > 0;
                candidates_->put(std::move(c));
            }
        return;
    }
    for (int64_t id : touched) refresh_candidate(storage, id);
}

std::optional<Run> Core::choose_for(Storage& storage, int64_t worker_id,
                                    const WorkerProfile& profile,
                                    const std::vector<int64_t>& avoid_runs, int64_t now) {
    sync_candidates(storage);
    for (;;) {
        std::optional<Run> chosen;
        int64_t stale = 0;
        const auto consider = [&](const RunCandidate& c) {
            if (!incapability(c, profile).empty()) return false;
            if (std::find(avoid_runs.begin(), avoid_runs.end(), c.run_id) != avoid_runs.end())
                return false;
            std::optional<Run> run = storage.find_run(c.run_id);
            // What the pool holds is checked against storage before it counts; a difference
            // (a change it was not told of) is read again and the choice made again.
            if (!run || run->state != RunState::Active || run->pairs_available() == 0 ||
                run->spec.priority != c.priority || run->spec.throughput != c.throughput ||
                run->active_cores != c.active_cores || run->spec.threads != c.threads) {
                stale = c.run_id;
                return true;
            }
            if (options_.quarantine_p > 0)
                if (std::optional<WorkerFit> fit = worker_fit(storage, *run, worker_id);
                    fit && fit->quarantined) {
                    // The smallest p of its tests: its results' fit, its time losses, its faults.
                    publish(storage, WorkerQuarantined{run->id, worker_id,
                                                       std::min({fit->fit.p_value, fit->time_loss_p,
                                                                 fit->fault_p})});
                    return false;
                }
            // A worker whose recent speed with the run's engine puts its clock factor out of
            // bounds plays none of it (it said why when it handed a lease back).
            if (run->spec.reference_nps > 0)
                if (const std::optional<WorkerSpeed> speed =
                        storage.find_worker_speed(worker_id, run->test_id);
                    speed && now - speed->measured_ms < options_.speed_max_age_ms &&
                    !factor_allowed(double(run->spec.reference_nps) / double(speed->nps)))
                    return false;
            chosen = std::move(run);
            return true;
        };
        // The preferred owner's runs first (--prefer-owner), in serving order, then the rest.
        if (!profile.controls.prefer_owner.empty())
            candidates_->first(
                [&](const RunCandidate& c) { return preferred_run(c, profile) && consider(c); });
        if (!chosen && !stale)
            candidates_->first(
                [&](const RunCandidate& c) { return !preferred_run(c, profile) && consider(c); });
        if (!stale) return chosen;
        refresh_candidate(storage, stale);
    }
}

absl::StatusOr<std::optional<LeaseGrant>> Core::request_work(
    Storage& storage, const Caller& caller, int64_t worker_id,
    const std::vector<int64_t>& avoid_runs) {
    absl::StatusOr<Worker> worker = holder(storage, caller, worker_id);
    if (!worker.ok()) return worker.status();
    const int64_t now = now_ms_();

    // A worker holds one lease at a time: a repeated request (a lost reply) gets it again.
    std::optional<Lease> current;
    if (worker->lease_id) current = storage.find_lease(worker->lease_id);
    if (current && current->state == LeaseState::Leased) {
        Run run = *storage.find_run(current->run_id);
        const int64_t expiry = renewed_expiry(storage, *current, now);
        if (current->expires_ms >= now && expiry >= now) {
            current->expires_ms = expiry;
            storage.update_lease(*current);
            return std::optional<LeaseGrant>(grant(storage, std::move(*current), std::move(run)));
        }
        end_lease(storage, run, *current, LeaseState::Expired);
    }
    if (storage.count_leases_of_token(caller.token_id, options_.max_leases_per_token) >=
        options_.max_leases_per_token)
        return std::optional<LeaseGrant>();

    const WorkerProfile profile = profile_of(storage, *worker);
    std::optional<Run> chosen = choose_for(storage, worker_id, profile, avoid_runs, now);
    if (!chosen) return std::optional<LeaseGrant>();

    Run run = std::move(*chosen);
    const RunKindModule& kind = run_kind(run.spec.kind);
    const int per_thread =
        run.spec.pairs_per_thread > 0 ? run.spec.pairs_per_thread : options_.pairs_per_thread;
    // The worker's cores, shared by games of the run's threads each (the scheduler gave it
    // the run only if one fits).
    const int games = std::max(1, games_at_once(worker->concurrency, run.spec.threads));
    const uint64_t wanted =
        std::min<uint64_t>(uint64_t(per_thread) * uint64_t(games),
                           kind.max_pairs_per_lease(options_.max_pairs_per_lease));
    PairRange range;
    if (std::optional<PairRange> free = storage.take_free_pairs(run.id, wanted)) {
        range = *free;
        run.free_pairs -= range.count;
    } else {
        range = {run.next_pair, std::min(wanted, run.pairs_total() - run.next_pair)};
        run.next_pair += range.count;
    }
    Lease lease;
    lease.run_id = run.id;
    lease.worker_id = worker_id;
    lease.first_pair = range.first;
    lease.pairs = uint32_t(range.count);
    lease.cores = games * run.spec.threads;
    lease.reported.assign((lease.pairs + 7) / 8, 0);
    lease.created_ms = now;
    lease.expires_ms = now + options_.lease_ms;
    lease.id = storage.insert_lease(lease);
    kind.on_leased(storage, lease);
    storage.set_worker_lease(worker_id, lease.id, 0);
    run.pairs_leased += lease.pairs;
    run.active_leases += 1;
    run.active_cores += lease.cores;
    storage.update_run(run);
    publish(storage, LeaseGranted{lease.id, worker_id, run.id, lease.pairs});
    return std::optional<LeaseGrant>(grant(storage, std::move(lease), std::move(run)));
}

absl::StatusOr<HeartbeatAck> Core::heartbeat(Storage& storage, const Caller& caller,
                                             int64_t worker_id,
                                             const std::vector<int64_t>& lease_ids) const {
    if (absl::StatusOr<Worker> worker = holder(storage, caller, worker_id); !worker.ok())
        return worker.status();
    const int64_t now = now_ms_();
    HeartbeatAck ack;
    ack.expires_ms = now + options_.lease_ms;
    for (int64_t id : lease_ids) {
        std::optional<Lease> lease = storage.find_lease(id);
        if (!lease || lease->worker_id != worker_id || lease->state != LeaseState::Leased) {
            ack.stop_leases.push_back(id);
            continue;
        }
        const int64_t expiry = renewed_expiry(storage, *lease, now);
        if (lease->expires_ms < now || expiry < now) {
            Run run = *storage.find_run(lease->run_id);
            end_lease(storage, run, *lease, LeaseState::Expired);
            ack.stop_leases.push_back(id);
            continue;
        }
        lease->expires_ms = expiry;
        storage.update_lease(*lease);
    }
    return ack;
}

absl::StatusOr<uint32_t> Core::release_lease(Storage& storage, const Caller& caller,
                                             const Release& release) const {
    absl::StatusOr<Worker> worker = holder(storage, caller, release.worker_id);
    if (!worker.ok()) return worker.status();
    // A worker that could not read its grant does not know the lease's id.
    const int64_t lease_id = release.lease_id ? release.lease_id : worker->lease_id;
    absl::StatusOr<Lease> lease = held_lease(storage, release.worker_id, lease_id);
    if (!lease.ok()) return lease.status();
    Run run = *storage.find_run(lease->run_id);
    if (release.reason == Release::Reason::BenchMismatch) {
        if (release.version_id != run.test_id && release.version_id != run.base_id)
            return absl::InvalidArgumentError("version " + std::to_string(release.version_id) +
                                              " is not played in " + lease_name(lease->id));
        const Version version = *storage.find_version(release.version_id);
        // A version that records its engine's options is also refused for declaring other
        // spin options than those (computed 0, the options in the message).
        const bool options_refused = !version.options.empty() && release.computed_bench == 0;
        if (!options_refused && (version.bench == 0 || version.bench == release.computed_bench))
            return absl::InvalidArgumentError("version '" + version.name + "' has bench " +
                                              std::to_string(version.bench) +
                                              ", which does not contradict the computed " +
                                              std::to_string(release.computed_bench));
        BenchMismatch m;
        m.worker_id = release.worker_id;
        m.version_id = version.id;
        m.expected = version.bench;
        m.computed = release.computed_bench;
        m.message = utf8_prefix(release.message, kMaxStatusBytes);
        m.created_ms = now_ms_();
        storage.insert_bench_mismatch(m);
    }
    if (release.reason == Release::Reason::CpuUnsupported) {
        if (absl::Status refused = refuse_build(storage, run, release); !refused.ok())
            return refused;
    }
    if (release.reason == Release::Reason::TooSlow) {
        if (run.spec.reference_nps == 0 || release.measured_nps == 0)
            return absl::InvalidArgumentError(
                "a worker is too slow only for a run with scaled clocks, with the speed it "
                "measured");
        if (release.measured_nps > kMaxReferenceNps)
            return absl::InvalidArgumentError(
                "a measured speed of " + std::to_string(release.measured_nps) +
                " nodes per second is past any engine's (at most " +
                std::to_string(kMaxReferenceNps) + "): nothing was stored");
        const double factor = double(run.spec.reference_nps) / double(release.measured_nps);
        if (factor_allowed(factor))
            return absl::InvalidArgumentError(
                "a speed of " + std::to_string(release.measured_nps) + " nodes per second gives " +
                "run " + std::to_string(run.id) + " a clock factor of " + std::to_string(factor) +
                ", which is within its bounds");
        storage.upsert_worker_speed(
            worker_speed(release.worker_id, run.test_id, release.measured_nps,
                         std::max(1, lease->cores / std::max(1, run.spec.threads)), now_ms_()));
    }
    uint32_t returned = 0;
    if (lease->state == LeaseState::Leased) {
        if (run.state == RunState::Active) returned = lease->pairs - lease->pairs_reported;
        end_lease(storage, run, *lease, LeaseState::Released);
        if (release.reason == Release::Reason::EngineFailure)
            record_failure(storage, run, *lease, release);
    }
    publish(storage, LeaseReleased{lease->id, release.worker_id, run.id, release.reason, returned,
                                   release.message});
    return returned;
}

void Core::record_failure(Storage& storage, Run& run, const Lease& lease,
                          const Release& release) const {
    LeaseFailure failure;
    failure.lease_id = lease.id;
    failure.run_id = run.id;
    failure.worker_id = release.worker_id;
    failure.message = excerpt(release.message, 512);
    failure.created_ms = now_ms_();
    storage.insert_lease_failure(failure);
    if (run.state != RunState::Active) return;
    const size_t workers = storage.lease_failures_of_run(run.id).size();
    if (workers < size_t(std::max(1, options_.lease_failure_workers))) return;
    end_run(storage, run, RunState::Stopped,
            "stopped: its leases failed on " + std::to_string(workers) +
                " workers (last: " + failure.message + ")");
}

bool Core::factor_allowed(double factor) const {
    return factor >= options_.min_clock_factor && factor <= options_.max_clock_factor;
}

int64_t Core::renewed_expiry(Storage& storage, const Lease& lease, int64_t now) const {
    const int64_t last_sign = lease.pairs_reported == 0
                                  ? lease.created_ms
                                  : storage.last_report_ms(lease.id).value_or(lease.created_ms);
    return std::min(now + options_.lease_ms, last_sign + options_.max_lease_silence_ms);
}

int Core::expire_leases(Storage& storage) const {
    int expired = 0;
    for (Lease& lease : storage.leases_expiring_before(now_ms_())) {
        Run run = *storage.find_run(lease.run_id);
        end_lease(storage, run, lease, LeaseState::Expired);
        ++expired;
    }
    return expired;
}

void Core::resume_leases(Storage& storage) const {
    storage.extend_leases(now_ms_() + options_.lease_ms);
}

}  // namespace sparring::coordinator
