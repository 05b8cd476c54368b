// When a run will end: its throughput over its latest reports, the games it has left, and for
// a regression run what its SPRT will decide (stats/forecast.h). Shown by GetRun and ListRuns
// (RunStatus.forecast) and updated live on the run page (docs/statistics.md, "A forecast for
// every test").
#pragma once

#include <cstdint>
#include <vector>

#include "coordinator/domain/types.h"
#include "sparring/v1/common.pb.h"
#include "stats/forecast.h"

namespace sparring::coordinator {

// The latest reports read for a run's throughput, at most, and the window they are taken over.
inline constexpr int kThroughputReports = 64;
inline constexpr int64_t kThroughputWindowMs = 15 * 60'000;

struct Throughput {
    double games_per_second = 0;  // 0: no games counted in the window
    double pairs_per_report = 1;  // over the reports read
};

// Returns the throughput of a run begun at started_ms from its latest reports, newest first,
// as storage.recent_reports reads them (at most kThroughputReports): the games counted over
// the last kThroughputWindowMs before now_ms (since the run began, if later), or since the
// oldest report read when all of them are within it.
Throughput throughput_of(const std::vector<ReportRecord>& newest_first, int64_t started_ms,
                         int64_t now_ms);

// What a forecast is made of: the run's totals and hypotheses, and its throughput.
struct ForecastInput {
    int64_t run_id = 0;  // the forecasts of the SPRT are kept per run and count
    bool sprt = false;   // a regression run: forecast its SPRT
    stats::SprtParams params;
    stats::Pentanomial penta;
    int64_t pairs = 0;
    uint64_t pairs_total = 0;
    Throughput throughput;
};

// Returns the input of an active regression, fixed-games or tuning run's forecast, or nothing
// for another run.
std::optional<ForecastInput> forecast_input(const Run& run, const Throughput& throughput);

// Writes the forecast: the games left and the time to the end at the throughput, and for an
// SPRT with pairs counted, its probabilities, remaining games and the error rates of stopping
// now (the SPRT's forecast computed once per run and count, about a millisecond, and kept).
void forecast_to_proto(const ForecastInput& input, v1::Forecast* out);

class Core;
class Storage;

// Writes the forecast of a run as Core::forecast makes it, if it has one.
void run_forecast_to_proto(const Core& core, Storage& storage, const Run& run, v1::RunStatus* out);

// Writes a run status's forecast again from its counts (the run page's live updates): its
// hypotheses from its spec, its throughput and total as the forecast already says.
void refresh_forecast(v1::RunStatus* status);

}  // namespace sparring::coordinator
