#include "coordinator/domain/forecast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "coordinator/domain/core.h"

namespace sparring::coordinator {

namespace {

// Returns the SPRT's forecast, computed once per run, counts, pairs left and report size.
stats::SprtForecast sprt_forecast(const ForecastInput& in, int64_t pairs_left) {
    // The counts themselves, not only their sum: two coordinators of one process (the tests')
    // may have runs of one id.
    using Key = std::tuple<std::array<int64_t, 5>, int64_t, double>;
    static std::mutex mutex;
    static std::map<int64_t, std::pair<Key, stats::SprtForecast>> computed;
    // The report size, to a tenth of a pair: its overshoot barely moves with it.
    const Key key{in.penta.counts, pairs_left,
                  std::round(in.throughput.pairs_per_report * 10) / 10};
    {
        const std::lock_guard lock(mutex);
        const auto it = computed.find(in.run_id);
        if (in.run_id > 0 && it != computed.end() && it->second.first == key)
            return it->second.second;
    }
    const stats::SprtForecast f =
        stats::forecast_sprt(in.penta, in.params, pairs_left, std::get<2>(key));
    const std::lock_guard lock(mutex);
    if (computed.size() >= 4096) computed.clear();
    if (in.run_id > 0) computed[in.run_id] = {key, f};
    return f;
}

}  // namespace

std::optional<ForecastInput> Core::forecast(Storage& storage, const Run& run) const {
    if (!forecast_input(run, Throughput{})) return std::nullopt;
    const int64_t now = now_ms_();
    return forecast_input(run, throughput_of(storage.recent_reports(run.id, kThroughputReports),
                                             run.created_ms, now));
}

Throughput throughput_of(const std::vector<ReportRecord>& newest_first, int64_t started_ms,
                         int64_t now_ms) {
    Throughput t;
    if (newest_first.empty()) return t;
    int64_t since = std::max(now_ms - kThroughputWindowMs, started_ms);
    size_t counted = newest_first.size();
    // Every report read within the window: the oldest only marks its start (its games were
    // played before it).
    if (newest_first.size() >= size_t(kThroughputReports) &&
        newest_first.back().received_ms > since) {
        since = newest_first.back().received_ms;
        --counted;
    }
    int64_t pairs = 0, all_pairs = 0;
    for (size_t i = 0; i < newest_first.size(); ++i) {
        all_pairs += newest_first[i].counts.pairs;
        if (i < counted && newest_first[i].received_ms > since)
            pairs += newest_first[i].counts.pairs;
    }
    t.pairs_per_report = std::max(1.0, double(all_pairs) / double(newest_first.size()));
    const double seconds = double(now_ms - since) / 1000;
    if (seconds >= 1 && pairs > 0) t.games_per_second = 2 * double(pairs) / seconds;
    return t;
}

std::optional<ForecastInput> forecast_input(const Run& run, const Throughput& throughput) {
    if (run.state != RunState::Active) return std::nullopt;
    if (run.spec.kind != RunKind::Regression && run.spec.kind != RunKind::FixedGames &&
        run.spec.kind != RunKind::Tune)
        return std::nullopt;
    ForecastInput in;
    in.run_id = run.id;
    in.sprt = run.spec.kind == RunKind::Regression;
    in.params = run.spec.sprt;
    in.penta = run.counts.penta;
    in.pairs = run.counts.pairs;
    in.pairs_total = run.pairs_total();
    in.throughput = throughput;
    return in;
}

void forecast_to_proto(const ForecastInput& in, v1::Forecast* out) {
    const double gps = in.throughput.games_per_second;
    const int64_t pairs_left = std::max<int64_t>(0, int64_t(in.pairs_total) - in.pairs);
    out->set_games_per_second(gps);
    out->set_pairs_per_report(in.throughput.pairs_per_report);
    out->set_games_total(2 * in.pairs_total);
    double left = double(2 * pairs_left), low = left, median = left, high = left;
    out->set_sprt(in.sprt);
    std::optional<stats::SprtForecast> sprt;
    if (in.sprt && in.pairs > 0) {
        try {
            sprt = sprt_forecast(in, pairs_left);
        } catch (const std::exception&) {  // counts the SPRT itself cannot take: no forecast
        }
    }
    if (sprt) {
        const stats::SprtForecast& f = *sprt;
        left = 2 * f.pairs_mean;
        low = 2 * std::round(f.pairs_low);
        median = 2 * std::round(f.pairs_median);
        high = 2 * std::round(f.pairs_high);
        out->set_p_h1(f.p_h1);
        out->set_p_h0(f.p_h0);
        out->set_p_undecided(f.p_undecided);
        out->set_stop_accepts(f.stop_accepts_h1 ? "H1" : "H0");
        out->set_stop_alpha(f.stop_alpha);
        out->set_stop_beta(f.stop_beta);
    } else {
        out->clear_p_h1();
        out->clear_p_h0();
        out->clear_p_undecided();
        out->clear_stop_accepts();
        out->clear_stop_alpha();
        out->clear_stop_beta();
    }
    // Nothing past the games left at most, and no NaN of a degenerate forecast on a page.
    const double most = double(2 * pairs_left);
    const auto bounded = [most](double games) {
        return std::isfinite(games) ? std::clamp(games, 0.0, most) : most;
    };
    left = bounded(left);
    low = bounded(low);
    median = bounded(median);
    high = bounded(high);
    out->set_games_left(left);
    out->set_games_left_low(uint64_t(low));
    out->set_games_left_median(uint64_t(median));
    out->set_games_left_high(uint64_t(high));
    out->set_eta_seconds(gps > 0 ? left / gps : 0);
    out->set_eta_low_seconds(gps > 0 ? low / gps : 0);
    out->set_eta_high_seconds(gps > 0 ? high / gps : 0);
}

void run_forecast_to_proto(const Core& core, Storage& storage, const Run& run, v1::RunStatus* out) {
    if (const std::optional<ForecastInput> input = core.forecast(storage, run))
        forecast_to_proto(*input, out->mutable_forecast());
}

void refresh_forecast(v1::RunStatus* status) {
    if (!status->has_forecast()) return;
    const v1::Forecast& previous = status->forecast();
    ForecastInput in;
    in.run_id = status->id();
    in.sprt = previous.sprt();
    const v1::Sprt& sprt = status->spec().sprt();
    in.params = {sprt.elo0(), sprt.elo1(), sprt.alpha(), sprt.beta(),
                 sprt.model() == v1::SPRT_MODEL_LOGISTIC ? stats::Model::Logistic
                                                         : stats::Model::Normalized};
    const v1::Pentanomial& p = status->pentanomial();
    in.penta.counts = {int64_t(p.ll()), int64_t(p.ld()), int64_t(p.dd_wl()), int64_t(p.wd()),
                       int64_t(p.ww())};
    in.pairs = int64_t(status->games() / 2);
    in.pairs_total = previous.games_total() / 2;
    in.throughput = {previous.games_per_second(), previous.pairs_per_report()};
    if (in.sprt && !stats::validate(in.params).empty()) in.sprt = false;
    forecast_to_proto(in, status->mutable_forecast());
}

}  // namespace sparring::coordinator
