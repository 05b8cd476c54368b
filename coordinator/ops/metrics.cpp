#include "coordinator/ops/metrics.h"

#include <prometheus/gauge.h>
#include <prometheus/text_serializer.h>

#include <algorithm>

#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

namespace {

// Upper bounds of the latency buckets: 0.25 ms to 10 s.
const prometheus::Histogram::BucketBoundaries kBounds = {
    0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10};

constexpr const char* kKinds[] = {"read", "write"};

// Registers a counter family on the registry.
prometheus::Family<prometheus::Counter>& counter(prometheus::Registry& registry,
                                                 const std::string& name, const std::string& help) {
    return prometheus::BuildCounter().Name(name).Help(help).Register(registry);
}

// Registers a histogram family on the registry.
prometheus::Family<prometheus::Histogram>& histogram(prometheus::Registry& registry,
                                                     const std::string& name,
                                                     const std::string& help) {
    return prometheus::BuildHistogram().Name(name).Help(help).Register(registry);
}

// Registers a gauge family on the registry.
prometheus::Family<prometheus::Gauge>& gauge(prometheus::Registry& registry,
                                             const std::string& name, const std::string& help) {
    return prometheus::BuildGauge().Name(name).Help(help).Register(registry);
}

// Returns the labels of an active run's gauges.
prometheus::Labels run_labels(const Run& run) {
    return {{"run", std::to_string(run.id)},
            {"kind", std::string(run_kind_name(run.spec.kind))},
            {"test", run.spec.test_version},
            {"base", run.spec.base_version}};
}

// Returns the gauges of one scrape, from what the database said.
std::vector<prometheus::MetricFamily> database_gauges(const MetricsSnapshot& snapshot) {
    prometheus::Registry registry;
    gauge(registry, "sparring_workers_connected",
          "Workers that called the coordinator within three heartbeat intervals.")
        .Add({})
        .Set(double(snapshot.workers_connected));
    int64_t leases = 0;
    for (const Run& run : snapshot.active_runs) leases += run.active_leases;
    gauge(registry, "sparring_leases_outstanding", "Leases held by workers, not yet over.")
        .Add({})
        .Set(double(leases));
    gauge(registry, "sparring_runs_active", "Runs that are still playing.")
        .Add({})
        .Set(double(snapshot.active_runs.size()));
    gauge(registry, "sparring_engine_uploads", "Engine uploads in progress.")
        .Add({})
        .Set(double(snapshot.engine_uploads));

    auto& waiting = gauge(registry, "sparring_runs_waiting",
                          "Active runs without a lease out, by why the connected workers do not "
                          "play them (a run waiting for several reasons counts under each).");
    for (const auto& [reason, runs] : snapshot.runs_waiting)
        waiting.Add({{"reason", reason}}).Set(double(runs));

    // The work waiting, for autoscalers: read from the runs' rows above, no scan of games.
    auto& pairs_free =
        gauge(registry, "sparring_run_pairs_free", "Game pairs of an active run left to lease.");
    auto& cores =
        gauge(registry, "sparring_run_cores_wanted",
              "Cores it takes to play an active run's pairs now: its leases' plus a game's for "
              "each lease share of its free pairs.");
    uint64_t pairs_free_total = 0;
    int64_t cores_total = 0;
    for (const Run& run : snapshot.active_runs) {
        const prometheus::Labels labels = run_labels(run);
        const int64_t wanted = cores_wanted(run, snapshot.sizing);
        pairs_free.Add(labels).Set(double(run.pairs_available()));
        cores.Add(labels).Set(double(wanted));
        pairs_free_total += run.pairs_available();
        cores_total += wanted;
    }
    gauge(registry, "sparring_pairs_free", "Game pairs of all active runs left to lease.")
        .Add({})
        .Set(double(pairs_free_total));
    gauge(registry, "sparring_cores_wanted",
          "Cores it takes to play the active runs' pairs now (the sum of "
          "sparring_run_cores_wanted): what a worker autoscaler scales on.")
        .Add({})
        .Set(double(cores_total));

    auto& games = gauge(registry, "sparring_run_games", "Games counted in an active run.");
    auto& games_max =
        gauge(registry, "sparring_run_games_max", "Games an active run plays at most.");
    auto& pairs_leased =
        gauge(registry, "sparring_run_pairs_leased", "Game pairs of an active run out on leases.");
    auto& run_leases = gauge(registry, "sparring_run_leases", "Leases of an active run.");
    auto& elo = gauge(registry, "sparring_run_elo",
                      "Logistic Elo estimate of an active run (test minus base).");
    auto& llr = gauge(registry, "sparring_run_llr",
                      "SPRT log-likelihood ratio of an active regression run.");
    for (const Run& run : snapshot.active_runs) {
        const prometheus::Labels labels = run_labels(run);
        games.Add(labels).Set(double(run.counts.wins + run.counts.draws + run.counts.losses));
        games_max.Add(labels).Set(double(run.spec.games));
        pairs_leased.Add(labels).Set(double(run.pairs_leased));
        run_leases.Add(labels).Set(double(run.active_leases));
        elo.Add(labels).Set(run.elo.elo);
        if (run_kind(run.spec.kind).decided_by_sprt()) llr.Add(labels).Set(run.sprt.llr);
    }
    return registry.Collect();
}

}  // namespace

int64_t cores_wanted(const Run& run, const LeaseSizing& sizing) {
    const uint64_t unleased = run.pairs_available();
    const int64_t held = std::max(run.active_cores, 0);
    if (unleased == 0) return held;
    const int per_thread =
        run.spec.pairs_per_thread > 0 ? run.spec.pairs_per_thread : sizing.pairs_per_thread;
    const uint64_t share = std::max<uint64_t>(
        1, std::min<uint64_t>(
               uint64_t(std::max(per_thread, 1)),
               run_kind(run.spec.kind).max_pairs_per_lease(sizing.max_pairs_per_lease)));
    const uint64_t games = (unleased + share - 1) / share;
    return held + int64_t(games) * std::max(run.spec.threads, 1);
}

Metrics::Metrics()
    : registry_(std::make_shared<prometheus::Registry>()),
      games_(counter(*registry_, "sparring_games_total",
                     "Games in result reports counted since start.")
                 .Add({})),
      reports_(counter(
          *registry_, "sparring_reports_total",
          "Result reports acknowledged since start, by whether they were counted or repeats.")),
      reports_counted_(reports_.Add({{"outcome", "counted"}})),
      reports_duplicate_(reports_.Add({{"outcome", "duplicate"}})),
      notifications_(counter(*registry_, "sparring_notifications_total",
                             "Notifications of runs' ends, by what became of each attempt.")),
      engine_fetches_(counter(*registry_, "sparring_engine_fetches_total",
                              "Engine file fetches answered, by transport (grpc, http).")),
      engine_fetch_bytes_(counter(*registry_, "sparring_engine_fetch_bytes_total",
                                  "Bytes of engine files answered (ranges' lengths), by "
                                  "transport.")),
      rpc_calls_(counter(*registry_, "sparring_rpc_requests_total",
                         "gRPC calls finished, by method and status.")),
      rpc_seconds_(histogram(*registry_, "sparring_rpc_duration_seconds",
                             "Time from a call's arrival to its status, by method.")) {
    auto& transactions =
        histogram(*registry_, "sparring_sqlite_transaction_duration_seconds",
                  "SQLite transactions of the storage executors, begin to commit, by kind.");
    auto& jobs =
        counter(*registry_, "sparring_sqlite_jobs_total",
                "Requests' storage jobs run in those transactions (several share one commit).");
    for (int write = 0; write < 2; ++write) {
        transaction_seconds_[write] = &transactions.Add({{"kind", kKinds[write]}}, kBounds);
        transaction_jobs_[write] = &jobs.Add({{"kind", kKinds[write]}});
    }
    // Served at 0 from the start, so that a rate is defined before the first notification.
    for (const char* outcome : {"delivered", "retried", "failed", "dropped"})
        notifications_.Add({{"outcome", outcome}});
    for (const char* transport : {"grpc", "http"}) {
        engine_fetches_.Add({{"transport", transport}});
        engine_fetch_bytes_.Add({{"transport", transport}});
    }
}

void Metrics::observe_rpc(std::string_view method, std::string_view code, double seconds) {
    const std::string name(method);
    rpc_seconds_.Add({{"method", name}}, kBounds).Observe(seconds);
    rpc_calls_.Add({{"method", name}, {"code", std::string(code)}}).Increment();
}

void Metrics::observe_transaction(bool write, size_t jobs, double seconds) {
    transaction_seconds_[write]->Observe(seconds);
    transaction_jobs_[write]->Increment(double(jobs));
}

void Metrics::count_report(int64_t games, bool duplicate) {
    if (duplicate) {
        reports_duplicate_.Increment();
        return;
    }
    reports_counted_.Increment();
    games_.Increment(double(games));
}

void Metrics::count_notification(std::string_view outcome) {
    notifications_.Add({{"outcome", std::string(outcome)}}).Increment();
}

void Metrics::count_engine_fetch(std::string_view transport, uint64_t bytes) {
    engine_fetches_.Add({{"transport", std::string(transport)}}).Increment();
    engine_fetch_bytes_.Add({{"transport", std::string(transport)}}).Increment(double(bytes));
}

std::string Metrics::render(const MetricsSnapshot& snapshot) const {
    std::vector<prometheus::MetricFamily> families = database_gauges(snapshot);
    for (prometheus::MetricFamily& family : registry_->Collect())
        families.push_back(std::move(family));
    return prometheus::TextSerializer().Serialize(families);
}

}  // namespace sparring::coordinator
