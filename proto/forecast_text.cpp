#include "proto/forecast_text.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "common/numbers.h"

namespace sparring {

namespace {

// Returns a count with thousands separators: "12,345".
std::string count_text(double value) {
    std::string digits = std::to_string(uint64_t(std::llround(std::max(0.0, value))));
    for (int i = int(digits.size()) - 3; i > 0; i -= 3) digits.insert(size_t(i), ",");
    return digits;
}

std::string percent(double p) {
    return fixed(100 * p, 1) + "%";
}

}  // namespace

std::string duration_text(double seconds) {
    const int64_t s = std::llround(std::max(0.0, seconds));
    char text[48];
    if (s < 60)
        std::snprintf(text, sizeof text, "%lld s", static_cast<long long>(s));
    else if (s < 3600)
        std::snprintf(text, sizeof text, "%lld min", static_cast<long long>((s + 30) / 60));
    else if (s < 86400)
        std::snprintf(text, sizeof text, "%lld h %02lld min", static_cast<long long>(s / 3600),
                      static_cast<long long>((s % 3600) / 60));
    else
        std::snprintf(text, sizeof text, "%lld d %02lld h", static_cast<long long>(s / 86400),
                      static_cast<long long>((s % 86400) / 3600));
    return text;
}

std::string eta_text(const v1::RunStatus& run) {
    if (!run.has_forecast() || run.forecast().eta_seconds() <= 0) return "-";
    return "~" + duration_text(run.forecast().eta_seconds());
}

std::vector<ForecastRow> forecast_rows(const v1::RunStatus& run) {
    std::vector<ForecastRow> rows;
    if (!run.has_forecast()) return rows;
    const v1::Forecast& f = run.forecast();
    const bool sprt = f.sprt() && !f.stop_accepts().empty();
    if (sprt)
        rows.push_back({"forecast_p", "Forecast",
                        "H1 " + percent(f.p_h1()) + ", H0 " + percent(f.p_h0()) +
                            (f.p_undecided() >= 0.0005
                                 ? ", undecided at " + count_text(double(f.games_total())) +
                                       " games " + percent(f.p_undecided())
                                 : "")});
    std::string games;
    if (sprt)
        games = "~" + count_text(f.games_left()) + " (90%: " + count_text(f.games_left_low()) +
                " to " + count_text(f.games_left_high()) + ", median " +
                count_text(f.games_left_median()) + ")";
    else
        games = count_text(f.games_left()) + " of " + count_text(double(f.games_total()));
    rows.push_back({"forecast_games", "Games left", games});
    std::string eta;
    if (f.games_per_second() <= 0)
        eta = "unknown: no games counted in the last 15 minutes";
    else if (f.eta_seconds() <= 0)
        eta = "-";
    else {
        eta = "~" + duration_text(f.eta_seconds());
        if (sprt)
            eta += " (90%: " + duration_text(f.eta_low_seconds()) + " to " +
                   duration_text(f.eta_high_seconds()) + ")";
        eta += " at " + fixed(f.games_per_second(), 2) + " games/s";
    }
    rows.push_back({"forecast_eta", "ETA", eta});
    if (sprt) {
        const v1::Sprt& s = run.spec().sprt();
        rows.push_back({"forecast_stop", "Stopping now",
                        "would accept " + f.stop_accepts() + " with alpha " +
                            percent(f.stop_alpha()) + ", beta " + percent(f.stop_beta()) +
                            " (the test's: " + percent(s.alpha()) + ", " + percent(s.beta()) +
                            ")"});
    }
    return rows;
}

}  // namespace sparring
