#include "coordinator/ops/metrics.h"

#include <cmath>
#include <cstdio>

#include "coordinator/domain/text.h"
#include "coordinator/kinds/run_kind.h"

namespace sparring::coordinator {

namespace {

// Upper bounds of the latency buckets: 0.25 ms to 10 s.
constexpr double kBounds[] = {0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                              0.05,    0.1,    0.25,  0.5,    1,     2.5,  10};

constexpr std::string_view kKinds[] = {"read", "write"};

// Returns a number as the text format writes it (integers without a fraction, NaN, +Inf).
std::string number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

// Returns a label value escaped as the text format requires (backslash, quote, newline).
std::string escape(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') out += '\\';
        if (c == '\n') {
            out += "\\n";
            continue;
        }
        out += c;
    }
    return out;
}

// Appends the HELP and TYPE lines of a metric family.
void family(std::string& out, std::string_view name, std::string_view type, std::string_view help) {
    out.append("# HELP ").append(name).append(" ").append(help).append("\n");
    out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
}

// Appends one sample line.
void sample(std::string& out, std::string_view name, std::string_view labels, double value) {
    out.append(name);
    if (!labels.empty()) out.append("{").append(labels).append("}");
    out.append(" ").append(number(value)).append("\n");
}

}  // namespace

Histogram::Histogram() : counts_(std::size(kBounds) + 1, 0) {}

void Histogram::observe(double value) {
    size_t i = 0;
    while (i < std::size(kBounds) && value > kBounds[i]) ++i;
    ++counts_[i];
    sum_ += value;
    ++count_;
}

void Histogram::render(std::string& out, std::string_view name, std::string_view labels) const {
    const std::string bucket = std::string(name) + "_bucket";
    const std::string prefix = labels.empty() ? "" : std::string(labels) + ",";
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= std::size(kBounds); ++i) {
        cumulative += counts_[i];
        const std::string le = i < std::size(kBounds) ? number(kBounds[i]) : "+Inf";
        sample(out, bucket, prefix + "le=\"" + le + "\"", double(cumulative));
    }
    sample(out, std::string(name) + "_sum", labels, sum_);
    sample(out, std::string(name) + "_count", labels, double(count_));
}

void Metrics::observe_rpc(std::string_view method, std::string_view code, double seconds) {
    std::lock_guard lock(mutex_);
    auto it = rpc_seconds_.find(method);
    if (it == rpc_seconds_.end()) it = rpc_seconds_.emplace(std::string(method), Histogram()).first;
    it->second.observe(seconds);
    ++rpc_calls_[{std::string(method), std::string(code)}];
}

void Metrics::observe_transaction(bool write, size_t jobs, double seconds) {
    std::lock_guard lock(mutex_);
    transaction_seconds_[write].observe(seconds);
    transaction_jobs_[write] += jobs;
}

void Metrics::count_report(int64_t games, bool duplicate) {
    std::lock_guard lock(mutex_);
    if (duplicate) {
        ++reports_duplicate_;
        return;
    }
    ++reports_counted_;
    games_ += uint64_t(games);
}

std::string Metrics::render(const MetricsSnapshot& snapshot) const {
    std::string out;
    family(out, "sparring_workers_connected", "gauge",
           "Workers that called the coordinator within three heartbeat intervals.");
    sample(out, "sparring_workers_connected", "", double(snapshot.workers_connected));

    int64_t leases = 0;
    for (const Run& run : snapshot.active_runs) leases += run.active_leases;
    family(out, "sparring_leases_outstanding", "gauge", "Leases held by workers, not yet over.");
    sample(out, "sparring_leases_outstanding", "", double(leases));
    family(out, "sparring_runs_active", "gauge", "Runs that are still playing.");
    sample(out, "sparring_runs_active", "", double(snapshot.active_runs.size()));

    const std::pair<std::string_view, std::string_view> run_families[] = {
        {"sparring_run_games", "Games counted in an active run."},
        {"sparring_run_games_max", "Games an active run plays at most."},
        {"sparring_run_pairs_leased", "Game pairs of an active run out on leases."},
        {"sparring_run_leases", "Leases of an active run."},
        {"sparring_run_elo", "Logistic Elo estimate of an active run (test minus base)."},
        {"sparring_run_llr", "SPRT log-likelihood ratio of an active regression run."},
    };
    for (size_t f = 0; f < std::size(run_families); ++f) {
        family(out, run_families[f].first, "gauge", run_families[f].second);
        for (const Run& run : snapshot.active_runs) {
            if (f == 5 && !run_kind(run.spec.kind).decided_by_sprt()) continue;
            const std::string labels = "run=\"" + std::to_string(run.id) + "\",kind=\"" +
                                       std::string(run_kind_name(run.spec.kind)) + "\",test=\"" +
                                       escape(run.spec.test_version) + "\",base=\"" +
                                       escape(run.spec.base_version) + "\"";
            const double values[] = {double(run.counts.wins + run.counts.draws + run.counts.losses),
                                     double(run.spec.games),
                                     double(run.pairs_leased),
                                     double(run.active_leases),
                                     run.elo.elo,
                                     run.sprt.llr};
            sample(out, run_families[f].first, labels, values[f]);
        }
    }

    std::lock_guard lock(mutex_);
    family(out, "sparring_games_total", "counter", "Games in result reports counted since start.");
    sample(out, "sparring_games_total", "", double(games_));
    family(out, "sparring_reports_total", "counter",
           "Result reports acknowledged since start, by whether they were counted or repeats.");
    sample(out, "sparring_reports_total", "outcome=\"counted\"", double(reports_counted_));
    sample(out, "sparring_reports_total", "outcome=\"duplicate\"", double(reports_duplicate_));

    family(out, "sparring_rpc_requests_total", "counter",
           "gRPC calls finished, by method and status.");
    for (const auto& [key, count] : rpc_calls_)
        sample(out, "sparring_rpc_requests_total",
               "method=\"" + escape(key.first) + "\",code=\"" + escape(key.second) + "\"",
               double(count));
    family(out, "sparring_rpc_duration_seconds", "histogram",
           "Time from a call's arrival to its status, by method.");
    for (const auto& [method, histogram] : rpc_seconds_)
        histogram.render(out, "sparring_rpc_duration_seconds", "method=\"" + escape(method) + "\"");

    family(out, "sparring_sqlite_transaction_duration_seconds", "histogram",
           "SQLite transactions of the storage executors, begin to commit, by kind.");
    for (int write = 0; write < 2; ++write)
        transaction_seconds_[write].render(out, "sparring_sqlite_transaction_duration_seconds",
                                           "kind=\"" + std::string(kKinds[write]) + "\"");
    family(out, "sparring_sqlite_jobs_total", "counter",
           "Requests' storage jobs run in those transactions (several share one commit).");
    for (int write = 0; write < 2; ++write)
        sample(out, "sparring_sqlite_jobs_total", "kind=\"" + std::string(kKinds[write]) + "\"",
               double(transaction_jobs_[write]));
    return out;
}

}  // namespace sparring::coordinator
