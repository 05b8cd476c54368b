// A run's forecast (RunStatus.forecast) as `sparring show`, `sparring runs` and the dashboard
// all write it (docs/statistics.md, "A forecast for every test").
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sparring/v1/common.pb.h"

namespace sparring {

// Returns a duration readably: "45 s", "12 min", "3 h 05 min", "2 d 04 h".
std::string duration_text(double seconds);

// Returns the time a run has left as the runs list gives it: "~1 h 20 min", "-" for none
// (no forecast, or no games counted lately).
std::string eta_text(const v1::RunStatus& run);

// Returns the forecast's rows, each a label and its text, with a key for the dashboard's live
// fields: the SPRT's probabilities ("forecast_p"), the games left ("forecast_games"), the time
// ("forecast_eta") and stopping now ("forecast_stop"). None for a run without a forecast.
struct ForecastRow {
    std::string key;
    std::string label;
    std::string text;
};
std::vector<ForecastRow> forecast_rows(const v1::RunStatus& run);

}  // namespace sparring
