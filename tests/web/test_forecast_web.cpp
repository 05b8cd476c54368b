// The forecast of a run in the coordinator (coordinator/domain/forecast.h) and on the dashboard:
// a run's throughput from its latest reports, the forecast written and recomputed from a
// status's counts, the run page's rows and their live updates, and the runs list's ETA.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coordinator/domain/forecast.h"
#include "coordinator/web/live_runs.h"
#include "coordinator/web/pages.h"

namespace sparring::coordinator {
namespace {

// Returns a report of `pairs` pairs received at a time.
ReportRecord report_at(int64_t received_ms, int64_t pairs) {
    ReportRecord r;
    r.received_ms = received_ms;
    r.counts.pairs = pairs;
    return r;
}

TEST(ForecastThroughput, IsTheGamesOfTheLastFifteenMinutesOverTheirTime) {
    const int64_t now = 100 * 60'000;
    // Two reports in the window (4 pairs each), one before it: 16 games over 15 minutes.
    const Throughput t = throughput_of(
        {report_at(now - 1000, 4), report_at(now - 60'000, 4), report_at(now - 20 * 60'000, 8)}, 0,
        now);
    EXPECT_NEAR(t.games_per_second, 16.0 / 900, 1e-9);
    EXPECT_NEAR(t.pairs_per_report, 16.0 / 3, 1e-9);
    // A run begun 2 minutes ago: over those 2 minutes.
    const Throughput young =
        throughput_of({report_at(now - 1000, 4), report_at(now - 60'000, 4)}, now - 120'000, now);
    EXPECT_NEAR(young.games_per_second, 16.0 / 120, 1e-9);
    // Nothing for 20 minutes: no throughput, no time to give.
    EXPECT_EQ(throughput_of({report_at(now - 20 * 60'000, 8)}, 0, now).games_per_second, 0);
    EXPECT_EQ(throughput_of({}, 0, now).games_per_second, 0);
    // As many reports as are read, all within the window: since the oldest, without its games.
    std::vector<ReportRecord> many;
    for (int i = 0; i < kThroughputReports; ++i) many.push_back(report_at(now - 1000 * i, 1));
    EXPECT_NEAR(throughput_of(many, 0, now).games_per_second,
                2.0 * (kThroughputReports - 1) / (kThroughputReports - 1), 1e-9);
}

// Returns an active regression run's status with counts, and its forecast as GetRun writes it.
v1::RunStatus sprt_status(const std::array<int64_t, 5>& penta) {
    v1::RunStatus run;
    run.set_id(7);
    run.set_state(v1::RUN_STATE_ACTIVE);
    v1::RunSpec& spec = *run.mutable_spec();
    spec.set_kind(v1::RUN_KIND_REGRESSION);
    spec.set_test_version("new");
    spec.set_base_version("old");
    spec.set_games(20000);
    v1::Sprt& sprt = *spec.mutable_sprt();
    sprt.set_elo0(0);
    sprt.set_elo1(10);
    sprt.set_alpha(0.05);
    sprt.set_beta(0.05);
    sprt.set_model(v1::SPRT_MODEL_LOGISTIC);
    run.set_games(uint64_t(2 * (penta[0] + penta[1] + penta[2] + penta[3] + penta[4])));
    v1::Pentanomial& p = *run.mutable_pentanomial();
    p.set_ll(uint64_t(penta[0]));
    p.set_ld(uint64_t(penta[1]));
    p.set_dd_wl(uint64_t(penta[2]));
    p.set_wd(uint64_t(penta[3]));
    p.set_ww(uint64_t(penta[4]));
    ForecastInput in;
    in.run_id = run.id();
    in.sprt = true;
    in.params = {0, 10, 0.05, 0.05, stats::Model::Logistic};
    in.penta.counts = penta;
    in.pairs = int64_t(run.games() / 2);
    in.pairs_total = 10000;
    in.throughput = {2.0, 4};
    forecast_to_proto(in, run.mutable_forecast());
    return run;
}

TEST(ForecastProto, GivesTheSprtsChancesGamesLeftAndTime) {
    const v1::RunStatus run = sprt_status({20, 80, 200, 80, 20});
    const v1::Forecast& f = run.forecast();
    EXPECT_TRUE(f.sprt());
    EXPECT_NEAR(f.p_h1() + f.p_h0() + f.p_undecided(), 1, 1e-9);
    EXPECT_GT(f.p_h1(), 0.05);  // right between the hypotheses' scores' sides
    EXPECT_GT(f.p_h0(), 0.05);
    EXPECT_EQ(f.games_total(), 20000u);
    EXPECT_LT(f.games_left_low(), f.games_left_median());
    EXPECT_LT(f.games_left_median(), f.games_left_high());
    EXPECT_NEAR(f.eta_seconds(), f.games_left() / 2.0, 1e-6);
    EXPECT_NEAR(f.eta_high_seconds(), double(f.games_left_high()) / 2.0, 1e-6);
    EXPECT_TRUE(f.stop_accepts() == "H1" || f.stop_accepts() == "H0");

    // A fixed-games run: the games left exactly, and no SPRT.
    ForecastInput fixed;
    fixed.pairs = 100;
    fixed.pairs_total = 500;
    fixed.throughput = {4.0, 2};
    v1::Forecast g;
    forecast_to_proto(fixed, &g);
    EXPECT_FALSE(g.sprt());
    EXPECT_EQ(g.games_left(), 800);
    EXPECT_EQ(g.eta_seconds(), 200);
    EXPECT_TRUE(g.stop_accepts().empty());
}

TEST(ForecastProto, IsRecomputedFromAStatussNewCounts) {
    v1::RunStatus run = sprt_status({20, 80, 200, 80, 20});
    const double before = run.forecast().p_h1();
    // Many more pairs leaning to the test version: H1 is now far likelier.
    run.set_games(run.games() + 2 * 300);
    v1::Pentanomial& p = *run.mutable_pentanomial();
    p.set_wd(p.wd() + 150);
    p.set_dd_wl(p.dd_wl() + 150);
    refresh_forecast(&run);
    EXPECT_GT(run.forecast().p_h1(), before + 0.2);
    EXPECT_EQ(run.forecast().games_per_second(), 2.0);  // kept from the whole read
    EXPECT_EQ(run.forecast().games_total(), 20000u);
}

TEST(ForecastPages, TheRunPageShowsItLiveAndTheRunsListGivesTheEta) {
    const v1::RunStatus run = sprt_status({20, 80, 200, 80, 20});
    const std::string page = web::run_page(run, web::RunExtras{});
    for (const char* field : {"forecast_p", "forecast_games", "forecast_eta", "forecast_stop"})
        EXPECT_NE(page.find("data-field=\"" + std::string(field) + "\""), std::string::npos)
            << field;
    EXPECT_NE(page.find("Stopping now"), std::string::npos);
    v1::ListRunsResponse runs;
    *runs.add_runs() = run;
    runs.set_total(1);
    const std::string list = web::runs_page(runs, web::RunsQuery{});
    EXPECT_NE(list.find("<th>ETA</th>"), std::string::npos);
    EXPECT_NE(list.find("<td class=\"num eta\">~"), std::string::npos) << list;

    // The live page: a report's event recomputes the forecast from the new counts.
    web::LiveRuns live(
        [&run](int64_t, v1::RunStatus* out, std::optional<v1::LlrHistory>*) {
            *out = run;
            return true;
        },
        std::chrono::milliseconds(60'000));
    bool again = false;
    const std::optional<std::string> first = live.update(run.id(), &again);
    ASSERT_TRUE(first);
    RunProgressed event;
    event.run_id = run.id();
    event.worker_id = 1;
    event.counts.pairs = 400 + 300;
    event.counts.penta.counts = {20, 80, 350, 230, 20};
    event.reported.pairs = 300;
    live.apply(Event{event});
    const std::optional<std::string> next = live.update(run.id(), &again);
    ASSERT_TRUE(next);
    const nlohmann::json update = nlohmann::json::parse(next->substr(6));  // after "data: "
    const std::string before = nlohmann::json::parse(first->substr(6))["fields"]["forecast_p"];
    const std::string after = update["fields"]["forecast_p"];
    EXPECT_NE(before, after);
    EXPECT_EQ(after.rfind("H1 ", 0), 0u) << after;
}

}  // namespace
}  // namespace sparring::coordinator
