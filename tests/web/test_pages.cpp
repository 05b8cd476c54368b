// The dashboard's pure parts: escaping on every page, the plots' data series, the runs
// list's filters and paging, and the JSON mapping of the REST API.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <nlohmann/json.hpp>

#include "common/json_text.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/run_history.h"
#include "coordinator/web/assets.h"
#include "coordinator/web/html.h"
#include "coordinator/web/json.h"
#include "coordinator/web/pages.h"

namespace sparring::coordinator::web {
namespace {

constexpr const char* kScript = "<script>alert(1)</script>";

// Returns a finished SPRT run whose every user-supplied string is a script.
v1::RunStatus hostile_run(int64_t id) {
    v1::RunStatus run;
    run.set_id(id);
    run.set_state(v1::RUN_STATE_FINISHED);
    run.set_result(std::string("H1 accepted ") + kScript);
    run.set_sprt_outcome(v1::SPRT_OUTCOME_H1);
    v1::RunSpec* spec = run.mutable_spec();
    spec->set_kind(v1::RUN_KIND_REGRESSION);
    spec->set_test_version(std::string("t\"'") + kScript);
    spec->set_base_version(kScript);
    spec->set_description(kScript);
    spec->mutable_book()->set_source(kScript);
    spec->mutable_time_control()->set_nodes(300);
    spec->mutable_sprt()->set_elo0(0);
    spec->mutable_sprt()->set_elo1(5);
    run.set_games(100);
    run.set_llr(1.5);
    run.set_llr_lower(-2.94);
    run.set_llr_upper(2.94);
    v1::BenchMismatch* mismatch = run.add_bench_mismatches();
    mismatch->set_version(kScript);
    run.mutable_tune()->add_params()->set_name(kScript);
    run.mutable_tune()->set_tuned_version(kScript);
    v1::ChainGeneration* generation = run.mutable_chain()->add_generations();
    generation->set_version(kScript);
    generation->set_trained_version(kScript);
    generation->set_verify_result(kScript);
    run.mutable_generate()->mutable_spec()->set_filters(kScript);
    v1::WorkerFit* fit = run.add_workers();
    fit->set_worker_id(4);
    fit->set_name(kScript);
    v1::Purge* purge = run.add_purges();
    purge->set_worker_id(5);
    purge->set_worker_name(kScript);
    purge->set_purged_by(kScript);
    v1::OutputWarningCount* warning = run.add_output_warnings();
    warning->set_line(kScript);
    warning->set_example(kScript);
    warning->set_go(kScript);
    return run;
}

TEST(Escaping, ReplacesEveryCharacterThatEndsTextOrAnAttribute) {
    EXPECT_EQ(escape_html("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
    EXPECT_EQ(escape_html("plain text 1.5"), "plain text 1.5");
    EXPECT_EQ(escape_url("a b/<c>?&=é"), "a%20b%2F%3Cc%3E%3F%26%3D%C3%A9");
}

TEST(Escaping, NoSuppliedStringReachesAPageUnescaped) {
    v1::ListRunsResponse runs;
    *runs.add_runs() = hostile_run(1);
    RunsQuery query;
    query.text = std::string("\"><") + kScript;
    query.version = kScript;
    for (const std::string& page :
         {runs_page(runs, RunsQuery{}), run_page(hostile_run(1), RunExtras{}),
          error_page(404, kScript)}) {
        EXPECT_EQ(page.find(kScript), std::string::npos) << page;
        EXPECT_EQ(page.find("t\"'"), std::string::npos);
        EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    }
    v1::ListWorkersResponse workers;
    v1::WorkerStatus* worker = workers.add_workers();
    worker->set_name(kScript);
    worker->set_build(kScript);
    worker->add_uci_engines(kScript);
    worker->mutable_fit()->set_name(kScript);
    v1::ListVersionsResponse versions;
    for (const char* suffix : {"1", "2"}) {
        v1::Version* v = versions.add_versions();
        v->set_name(std::string(kScript) + suffix);
        v->set_description(kScript);
        v->mutable_uci()->set_command(kScript);
        (*v->mutable_uci()->mutable_options())[kScript] = kScript;
        v1::EngineOption* option = v->add_options();
        option->set_name(kScript);
        option->set_type(kScript);
        option->set_default_value(kScript);
    }
    v1::Version builtin;
    builtin.set_name(kScript);
    builtin.mutable_builtin()->set_preset(kScript);
    builtin.mutable_builtin()->set_params_json(R"({"KnightValueMg": 330, "<b>": "<i>"})");
    (*builtin.mutable_builtin()->mutable_overrides())[kScript] = 1;
    for (const std::string& page :
         {workers_page(workers), versions_page(versions), version_page(versions.versions(0)),
          version_page(builtin), compare_page(versions.versions(0), builtin)}) {
        EXPECT_EQ(page.find(kScript), std::string::npos) << page;
        EXPECT_EQ(page.find("<b>"), std::string::npos) << page;
        EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    }
    // The filter form echoes the query into attribute values.
    const std::string filtered = runs_page(runs, query);
    EXPECT_EQ(filtered.find(kScript), std::string::npos);
    EXPECT_EQ(filtered.find("value=\"\"><"), std::string::npos);
    EXPECT_NE(filtered.find("value=\"&quot;&gt;&lt;&lt;script&gt;"), std::string::npos);
}

TEST(Pages, RunPageLeadsWithEloAndTheLlrBetweenItsBounds) {
    v1::RunStatus run = hostile_run(7);
    run.set_elo(3.456);
    run.set_elo_low(-1.0);
    run.set_elo_high(7.9);
    const std::string page = run_page(run, {});
    const size_t elo = page.find("data-field=\"elo\">+3.46<");
    const size_t llr = page.find("data-field=\"llr\">1.50<");
    const size_t spec = page.find("<h2>Specification");
    ASSERT_NE(elo, std::string::npos) << page;
    ASSERT_NE(llr, std::string::npos);
    EXPECT_LT(elo, spec);
    EXPECT_LT(llr, spec);
    EXPECT_NE(page.find("data-field=\"llr_bounds\">[-2.94, 2.94]<"), std::string::npos);
    EXPECT_NE(page.find("± 4.45"), std::string::npos);
    EXPECT_NE(page.find("section class=\"decide h1\""), std::string::npos);
}

TEST(Pages, ARunsColourIsWhatItsSprtDecidedNotTheTextOfItsResult) {
    v1::RunStatus run = hostile_run(7);
    const auto decides = [&run](const std::string& colour) {
        return run_page(run, {}).find("section class=\"decide " + colour + "\"") !=
               std::string::npos;
    };
    run.set_sprt_outcome(v1::SPRT_OUTCOME_H0);  // the result's text still says H1
    EXPECT_TRUE(decides("h0"));
    run.set_sprt_outcome(v1::SPRT_OUTCOME_UNSPECIFIED);
    EXPECT_TRUE(decides("neutral"));
    run.set_state(v1::RUN_STATE_ACTIVE);
    EXPECT_TRUE(decides("active"));
}

TEST(Pages, AVersionPageListsTheOptionsItsEngineDeclares) {
    v1::Version v;
    v.set_name("sf");
    v.mutable_uci()->set_command("/usr/games/stockfish");
    v1::EngineOption* hash = v.add_options();
    hash->set_name("Hash");
    hash->set_type("spin");
    hash->set_default_value("16");
    hash->set_min(1);
    hash->set_max(33554432);
    v1::EngineOption* ponder = v.add_options();
    ponder->set_name("Ponder");
    ponder->set_type("check");
    ponder->set_default_value("false");
    const std::string page = version_page(v);
    EXPECT_NE(page.find("<h2>Engine options</h2>"), std::string::npos) << page;
    EXPECT_NE(page.find("<tr><td>Hash</td><td>spin</td><td class=\"num\">16</td><td "
                        "class=\"num\">1</td><td class=\"num\">33554432</td></tr>"),
              std::string::npos)
        << page;
    EXPECT_NE(page.find("<tr><td>Ponder</td><td>check</td><td class=\"num\">false</td><td "
                        "class=\"num\"></td><td class=\"num\"></td></tr>"),
              std::string::npos)
        << page;
    v.clear_options();
    EXPECT_EQ(version_page(v).find("Engine options"), std::string::npos);
}

TEST(Pages, AVersionPageListsItsBuildsPerInstructionSet) {
    v1::Version v;
    v.set_name("sf");
    v1::UploadedEngine& u = *v.mutable_uploaded();
    u.set_sha256(std::string(64, 'a'));
    u.set_size(1000);
    u.set_level("x86-64-v4");
    v1::EngineBuild* portable = u.add_builds();
    portable->set_sha256(std::string(64, 'b'));
    portable->set_size(900);
    const std::string page = version_page(v);
    EXPECT_NE(page.find("<tr><th>builds</th><td>x86-64-v4: <code title=\"" + std::string(64, 'a') +
                        "\">aaaaaaaaaaaa</code>, 1000 bytes<br>portable: <code title=\"" +
                        std::string(64, 'b') + "\">bbbbbbbbbbbb</code>, 900 bytes</td></tr>"),
              std::string::npos)
        << page;
    // A version of one file with no level states none: no builds row.
    u.clear_builds();
    u.clear_level();
    EXPECT_EQ(version_page(v).find("<th>builds</th>"), std::string::npos);
}

TEST(Pages, CompareListsTheDifferencesFirstWithTheirChange) {
    v1::Version a;
    a.set_name("a");
    a.mutable_builtin()->set_params_json(R"({"BishopValueMg": 330, "KnightValueMg": 300})");
    v1::Version b;
    b.set_name("b");
    b.mutable_builtin()->set_params_json(R"({"BishopValueMg": 330, "KnightValueMg": 325})");
    const std::string page = compare_page(a, b);
    EXPECT_NE(page.find("1 of 2 parameters differ"), std::string::npos) << page;
    const size_t knight = page.find("<tr class=\"differs\"><td>KnightValueMg</td>");
    ASSERT_NE(knight, std::string::npos) << page;
    EXPECT_LT(knight, page.find("<td>BishopValueMg</td>"));
    EXPECT_NE(page.find("<td class=\"num\">+25</td>"), std::string::npos);
    EXPECT_EQ(version_parameters(a).at("KnightValueMg"), "300");
}

TEST(PlotSeries, HistoryHasTheStartAndEveryReportUpToTheLimit) {
    coordinator::Run run;
    run.spec.kind = RunKind::Regression;
    run.spec.sprt = {0, 5, 0.05, 0.05, stats::Model::Normalized};
    run.created_ms = 1000;
    std::vector<ReportRecord> reports(10);
    for (size_t i = 0; i < reports.size(); ++i) {
        reports[i].counts.pairs = 2;
        reports[i].counts.penta.counts = {0, 0, 1, 1, 0};  // one DD+WL, one WD
        reports[i].received_ms = int64_t(2000 + i);
    }
    const RunHistory all = history_of(run, reports, 500);
    ASSERT_EQ(all.points.size(), 11u);
    EXPECT_EQ(all.points[0].games, 0);
    EXPECT_EQ(all.points[0].unix_ms, 1000);
    EXPECT_NEAR(all.points[0].llr, 0, 1e-3);
    EXPECT_EQ(all.points[10].games, 40);
    EXPECT_EQ(all.points[10].unix_ms, 2009);
    EXPECT_LT(all.llr_lower, 0);
    EXPECT_GT(all.llr_upper, 0);
    // The run's final LLR is what refresh_statistics makes of all its counts.
    coordinator::Run whole = run;
    for (const ReportRecord& r : reports) whole.counts.add(r.counts);
    refresh_statistics(whole);
    EXPECT_DOUBLE_EQ(all.points[10].llr, whole.sprt.llr);
    EXPECT_GT(all.points[10].llr, all.points[1].llr);

    // Thinned out: the start, then points spread evenly, the last report always kept.
    const RunHistory thin = history_of(run, reports, 4);
    ASSERT_EQ(thin.points.size(), 4u);
    EXPECT_EQ(thin.points[1].games, 16);
    EXPECT_EQ(thin.points[2].games, 28);
    EXPECT_EQ(thin.points[3].games, 40);
    EXPECT_DOUBLE_EQ(thin.points[3].llr, whole.sprt.llr);
    EXPECT_EQ(history_of(run, {}, 500).points.size(), 1u);
}

TEST(PlotSeries, JsonRowsAreWhatThePlotsDraw) {
    v1::LlrHistory history;
    history.set_llr_lower(-2.94);
    history.set_llr_upper(2.94);
    for (int i = 0; i < 3; ++i) {
        v1::LlrPoint* p = history.add_points();
        p->set_games(uint64_t(10 * i));
        p->set_llr(0.5 * i);
        p->set_elo(i);
        p->set_elo_low(i - 1);
        p->set_elo_high(i + 1);
    }
    EXPECT_EQ(llr_series_json(history),
              "[[0,0.0000,-2.9400,2.9400],[10,0.5000,-2.9400,2.9400],[20,1.0000,-2.9400,2.9400]]");
    // No Elo before the first game.
    EXPECT_EQ(elo_series_json(history), "[[10,[0.000,1.000,2.000]],[20,[1.000,2.000,3.000]]]");
    const std::string svg = llr_svg(history);
    EXPECT_NE(svg.find("<polyline"), std::string::npos);
    EXPECT_EQ(std::count(svg.begin(), svg.end(), ','), 3);  // one x,y pair per point
}

TEST(PlotSeries, TuneSeriesGiveValuesAndTheirChangeOverC) {
    v1::RunStatus run;
    v1::TuneParam* knight = run.mutable_tune()->add_params();
    knight->set_name("KnightValueMg");
    knight->set_start(300);
    knight->set_c_end(20);
    v1::TuneHistory history;
    history.add_names("KnightValueMg");
    for (const auto& [pairs, value] : {std::pair{0, 300.0}, {50, 310.0}, {100, 290.0}}) {
        v1::TunePoint* point = history.add_points();
        point->set_pairs(uint64_t(pairs));
        point->add_values(value);
    }
    EXPECT_EQ(tune_series_json(run, history),
              R"({"names":["KnightValueMg"],"raw":[[0,300.0],[100,310.0],[200,290.0]],)"
              R"("share":[[0,0.0],[100,0.5],[200,-0.5]]})");
}

TEST(RunsList, TheQueryBecomesTheRequestOfOnePageInTheListsOrder) {
    const v1::ListRunsRequest all = runs_request({});
    EXPECT_TRUE(all.active_first());
    EXPECT_EQ(all.offset(), 0u);
    EXPECT_EQ(all.limit(), 50u);
    EXPECT_EQ(all.states_size(), 0);
    EXPECT_EQ(all.kind(), v1::RUN_KIND_UNSPECIFIED);

    const v1::ListRunsRequest some = runs_request(parse_runs_query({{"state", "stopped"},
                                                                    {"kind", "fixed_games"},
                                                                    {"version", "knight"},
                                                                    {"q", "king"},
                                                                    {"page", "3"},
                                                                    {"per_page", "20"}}));
    ASSERT_EQ(some.states_size(), 1);
    EXPECT_EQ(some.states(0), v1::RUN_STATE_STOPPED);
    EXPECT_EQ(some.kind(), v1::RUN_KIND_FIXED_GAMES);
    EXPECT_EQ(some.version(), "knight");
    EXPECT_EQ(some.text(), "king");
    EXPECT_EQ(some.offset(), 40u);
    EXPECT_EQ(some.limit(), 20u);
    // A kind the API does not know is sent as such, to be refused, not dropped.
    EXPECT_FALSE(v1::RunKind_IsValid(runs_request(parse_runs_query({{"kind", "nope"}})).kind()));
}

TEST(RunsList, PagingLinksFollowTheTotal) {
    v1::ListRunsResponse runs;
    runs.add_runs()->set_id(7);
    runs.set_total(120);
    RunsQuery query;
    query.page = 2;
    const std::string page = runs_page(runs, query);
    EXPECT_NE(page.find("120 runs"), std::string::npos) << page;
    EXPECT_NE(page.find("page 2 of 3"), std::string::npos);
    EXPECT_NE(page.find("href=\"/?page=3\""), std::string::npos);
    EXPECT_NE(page.find("href=\"/?\">newer"), std::string::npos);
    query.page = 3;
    EXPECT_EQ(runs_page(runs, query).find("rel=\"next\""), std::string::npos);
}

TEST(RunPage, WorkersAreTabledWithTheirFitAQuarantinedOneMarkedAndLeasesListed) {
    v1::RunStatus run = hostile_run(3);
    run.clear_workers();
    run.clear_purges();
    v1::WorkerFit* good = run.add_workers();
    good->set_worker_id(1);
    good->set_name(kScript);
    good->set_games(88);
    good->mutable_pentanomial()->set_ll(3);
    good->mutable_pentanomial()->set_ld(10);
    good->mutable_pentanomial()->set_dd_wl(20);
    good->mutable_pentanomial()->set_wd(9);
    good->mutable_pentanomial()->set_ww(2);
    good->set_chi2(1.73);
    good->set_df(2);
    good->set_p_value(0.4211);
    good->set_residual(0.44);
    v1::WorkerFit* bad = run.add_workers();
    bad->set_worker_id(2);
    bad->set_chi2(31.2);
    bad->set_df(3);
    bad->set_p_value(7.7e-7);
    bad->set_residual(5.47);
    bad->set_quarantined(true);
    v1::WorkerFit* sparse = run.add_workers();
    sparse->set_worker_id(6);
    v1::Purge* purge = run.add_purges();
    purge->set_worker_id(7);
    purge->set_worker_name("forger");
    purge->set_games(40);
    purge->set_wins(40);
    purge->set_purged_by("alice");
    const std::string workers = workers_table(run);
    EXPECT_EQ(workers.find(kScript), std::string::npos);
    EXPECT_NE(workers.find("3 / 10 / 20 / 9 / 2"), std::string::npos) << workers;
    EXPECT_NE(workers.find("1.7 (2)"), std::string::npos);
    // The fit reads as `sparring show` prints it.
    EXPECT_NE(workers.find("p 0.421, residual +0.4"), std::string::npos);
    EXPECT_NE(workers.find("p 7.7e-07, residual +5.5 <span class=\"badge h0\">quarantined"),
              std::string::npos);
    EXPECT_NE(workers.find("<td>too few pairs</td>"), std::string::npos);
    EXPECT_EQ(workers.find("<tr class=\"outlier\"><td>1 "), std::string::npos);
    EXPECT_NE(workers.find("<tr class=\"outlier\"><td>2 "), std::string::npos);
    EXPECT_EQ(workers.find("<tr class=\"outlier\"><td>6 "), std::string::npos);
    EXPECT_NE(workers.find("Purged: worker 7 forger, 40 games (W / D / L 40 / 0 / 0), by alice"),
              std::string::npos);

    v1::LlrHistory history;
    v1::LeaseOut* lease = history.add_leases();
    lease->set_lease_id(9);
    lease->set_worker_id(1);
    lease->set_worker_name(kScript);
    lease->set_games(16);
    lease->set_games_reported(4);
    const std::string leases = leases_table(history);
    EXPECT_EQ(leases.find(kScript), std::string::npos);
    EXPECT_NE(leases.find("<td class=\"num\">16</td><td class=\"num\">4</td>"), std::string::npos)
        << leases;
    RunExtras extras;
    extras.history = history;
    const std::string page = run_page(run, extras);
    EXPECT_NE(page.find("<h2>Workers</h2>"), std::string::npos);
    EXPECT_NE(page.find("<h2>Leases out</h2>"), std::string::npos);
    EXPECT_EQ(workers_table(v1::RunStatus{}), "");
    EXPECT_EQ(leases_table(v1::LlrHistory{}), "");

    // The workers page shows each worker's fit in its run too.
    v1::ListWorkersResponse list;
    v1::WorkerStatus* status = list.add_workers();
    status->set_id(2);
    *status->mutable_fit() = *bad;
    status->mutable_fit()->set_run_id(3);
    list.add_workers()->set_id(8);
    const std::string workers_list = workers_page(list);
    EXPECT_NE(workers_list.find("quarantined</span> (<a href=\"/runs/3\">3</a>)"),
              std::string::npos)
        << workers_list;
}

// Returns the bytes of a page and of every embedded file it loads (src= and href= /static/).
size_t page_weight(const std::string& page) {
    size_t total = page.size();
    for (const char* attribute : {"src=\"/static/", "href=\"/static/"}) {
        for (size_t at = page.find(attribute); at != std::string::npos;
             at = page.find(attribute, at + 1)) {
            const size_t start = at + std::string_view(attribute).size();
            const std::string name = page.substr(start, page.find('"', start) - start);
            const Asset* asset = find_asset(name);
            EXPECT_NE(asset, nullptr) << name;
            if (asset) total += asset->body.size();
        }
    }
    return total;
}

TEST(RunPage, ItsResultPerCpuClassAndTheClassFindingsAreShownEscaped) {
    v1::RunStatus run = hostile_run(4);
    // Only workers that reported no machine: no section (the whole run is the one class).
    run.add_classes()->set_cpu_class("unknown");
    EXPECT_EQ(run_page(run, {}).find("id=\"classes\""), std::string::npos);
    run.clear_classes();
    v1::ClassResult* zen5 = run.add_classes();
    zen5->set_cpu_class("zen5-avx512");
    zen5->set_workers(3);
    zen5->set_games(1200);
    zen5->set_wins(300);
    zen5->set_draws(620);
    zen5->set_losses(280);
    zen5->set_elo(2);
    zen5->set_elo_low(-1);
    zen5->set_elo_high(5);
    zen5->set_time_losses(4);
    v1::ClassResult* other = run.add_classes();
    other->set_cpu_class(kScript);  // a class is [a-z0-9-]; escaped all the same
    other->set_workers(1);
    other->set_games(400);
    other->set_elo(12);
    other->set_elo_low(4);
    other->set_elo_high(20);
    v1::ClassFinding* finding = run.add_class_findings();
    *finding->mutable_group() = *other;
    finding->set_text(std::string(kScript) + ": +12.0 \u00b1 8.0 Elo, the rest +2.0 \u00b1 3.0");
    run.clear_workers();
    v1::WorkerFit* worker = run.add_workers();
    worker->set_worker_id(5);
    worker->set_cpu_class("zen5-avx512");
    worker->set_games(400);
    v1::WorkerFit* alone = run.add_workers();
    alone->set_worker_id(6);
    alone->set_cpu_class(kScript);
    alone->set_games(400);
    const std::string page = run_page(run, {});
    const size_t banner = page.find(
        "<p class=\"warning class-finding\"><strong>Class finding:"
        "</strong> &lt;script&gt;alert(1)&lt;/script&gt;: +12.0 "
        "\u00b1 8.0 Elo, the rest +2.0 \u00b1 3.0 ");
    const size_t section = page.find("<h2 id=\"classes\">CPU classes</h2>");
    ASSERT_NE(banner, std::string::npos) << page;
    ASSERT_NE(section, std::string::npos) << page;
    EXPECT_LT(banner, section);
    EXPECT_LT(section, page.find("<div id=\"workers\">"));
    EXPECT_NE(page.find("<tr><td>zen5-avx512</td><td class=\"num\">3</td><td class=\"num\">"
                        "1\u2009200</td><td class=\"num\">300 / 620 / 280</td><td class=\"num\">"
                        "+2.0 \u00b1 3.0</td><td class=\"num\">4</td></tr>"),
              std::string::npos)
        << page;
    EXPECT_NE(page.find("<tr><td>&lt;script&gt;alert(1)&lt;/script&gt;</td>"), std::string::npos);
    // Each worker's row names its class; one alone in its class says so.
    EXPECT_NE(page.find("<td>5 </td><td>zen5-avx512</td>"), std::string::npos) << page;
    EXPECT_NE(page.find("alone in its class"), std::string::npos);
    EXPECT_EQ(page.find(kScript), std::string::npos);
}

TEST(RunPage, WeighsUnder300KilobytesWithEverythingItLoads) {
    // A long SPRT run at the series' limit, with many workers and leases, and a tuning run
    // of twenty parameters with a point per report of a long run.
    v1::RunStatus sprt = hostile_run(1);
    RunExtras extras;
    extras.history.set_llr_lower(-2.94);
    extras.history.set_llr_upper(2.94);
    for (int i = 0; i < 500; ++i) {
        v1::LlrPoint* p = extras.history.add_points();
        p->set_games(uint64_t(400 * i));
        p->set_llr(-2.5 + 0.01 * i);
        p->set_elo(1.234567);
        p->set_elo_low(-3.21);
        p->set_elo_high(5.4321);
    }
    for (int i = 0; i < 100; ++i) {
        v1::WorkerShare* w = extras.history.add_workers();
        w->set_worker_id(i);
        w->set_name("worker-with-a-long-host-name-" + std::to_string(i));
        w->set_games(2000);
        v1::LeaseOut* l = extras.history.add_leases();
        l->set_worker_id(i);
        l->set_worker_name(w->name());
    }
    const size_t sprt_weight = page_weight(run_page(sprt, extras));
    EXPECT_LT(sprt_weight, 300'000u);

    v1::RunStatus tune;
    tune.set_id(2);
    tune.mutable_spec()->set_kind(v1::RUN_KIND_TUNE);
    tune.mutable_spec()->set_games(100'000);
    RunExtras tuned;
    for (int i = 0; i < 20; ++i) {
        v1::TuneParam* p = tune.mutable_tune()->add_params();
        p->set_name("Parameter" + std::to_string(i));
        p->set_start(100);
        p->set_c_end(4);
        tuned.tune.add_names(p->name());
    }
    for (int i = 0; i < 25'000; ++i) {
        v1::TunePoint* point = tuned.tune.add_points();
        point->set_pairs(uint64_t(4 * i));
        for (int j = 0; j < 20; ++j) point->add_values(100 + 0.001 * i * j);
    }
    const std::string tune_page = run_page(tune, tuned);
    EXPECT_LT(page_weight(tune_page), 300'000u);
    // Thinned for the plot, the last point kept.
    EXPECT_NE(tune_page.find("[199992,"), std::string::npos);
}

TEST(LivePage, UpdateCarriesTheWorkersTableEscaped) {
    v1::RunStatus run = hostile_run(3);
    run.set_state(v1::RUN_STATE_ACTIVE);
    run.mutable_workers(0)->set_games(42);
    const nlohmann::json update = nlohmann::json::parse(live_update_json(run));
    ASSERT_TRUE(update.contains("workers"));
    const std::string workers = update["workers"];
    EXPECT_EQ(workers, workers_table(run));
    EXPECT_NE(workers.find("<td class=\"num\">42</td>"), std::string::npos) << workers;
    EXPECT_EQ(workers.find(kScript), std::string::npos);
    EXPECT_TRUE(update["active"]);
    // A large cluster's table stays as the page was loaded: every viewer gets every update.
    for (int i = 0; i < 64; ++i) run.add_workers()->set_worker_id(100 + i);
    EXPECT_FALSE(nlohmann::json::parse(live_update_json(run)).contains("workers"));
    // The page holds the table where the updates put it.
    EXPECT_NE(run_page(run, RunExtras{}).find("<div id=\"workers\"><h2>Workers</h2>"),
              std::string::npos);
}

TEST(LivePage, InvalidUtf8BecomesReplacementCharactersNotAnException) {
    // Issue 32: a stop message cut inside a character, as stored before the cut was fixed.
    v1::RunStatus run = hostile_run(3);
    run.set_result("stopped: " + std::string(511, 'a') + "\xc3");
    run.mutable_workers(0)->set_name("box\xff\xfe");
    std::string text;
    ASSERT_NO_THROW(text = live_update_json(run));
    const nlohmann::json update = nlohmann::json::parse(text);
    EXPECT_EQ(update["fields"]["state"], "stopped: " + std::string(511, 'a') + "\xef\xbf\xbd");
    EXPECT_EQ(json_text(nlohmann::json("\xc0\xaf")), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
}

TEST(LivePage, UpdateCarriesTheLeasesTableEscapedUntilItIsLarge) {
    v1::RunStatus run = hostile_run(3);
    run.set_state(v1::RUN_STATE_ACTIVE);
    v1::LlrHistory history;
    v1::LeaseOut* lease = history.add_leases();
    lease->set_lease_id(77);
    lease->set_worker_id(5);
    lease->set_worker_name(kScript);
    lease->set_games(8);
    lease->set_games_reported(6);
    const nlohmann::json update = nlohmann::json::parse(live_update_json(run, &history));
    ASSERT_TRUE(update.contains("leases"));
    const std::string leases = update["leases"];
    EXPECT_EQ(leases, leases_table(history));
    EXPECT_NE(leases.find("<td>77</td>"), std::string::npos) << leases;
    EXPECT_EQ(leases.find(kScript), std::string::npos);
    // No lease out: the table goes away; without the series, the update says nothing of it.
    EXPECT_EQ(nlohmann::json::parse(live_update_json(run, &v1::LlrHistory::default_instance()))
                  .at("leases"),
              "");
    EXPECT_FALSE(nlohmann::json::parse(live_update_json(run)).contains("leases"));
    for (int i = 0; i < 64; ++i) history.add_leases()->set_lease_id(100 + i);
    EXPECT_FALSE(nlohmann::json::parse(live_update_json(run, &history)).contains("leases"));
    // The page holds the table where the updates put it.
    RunExtras extras;
    extras.history = history;
    EXPECT_NE(run_page(run, extras).find("<div id=\"leases\"><h2>Leases out</h2>"),
              std::string::npos);
}

TEST(RunHistory, WorkerResidualIsItsFitAgainstTheRestOfTheRun) {
    // One worker reports only won pairs, two others a spread of results.
    std::vector<coordinator::ReportRecord> reports;
    const auto add = [&reports](int64_t worker, std::array<int64_t, 5> penta) {
        coordinator::ReportRecord& r = reports.emplace_back();
        r.id = int64_t(reports.size());
        r.worker_id = worker;
        for (size_t i = 0; i < 5; ++i) {
            r.counts.penta.counts[i] = penta[i];
            r.counts.pairs += penta[i];
        }
        r.counts.wins = 2 * penta[4] + penta[3];
        r.counts.losses = 2 * penta[0] + penta[1];
        r.counts.draws = 2 * r.counts.pairs - r.counts.wins - r.counts.losses;
    };
    for (int i = 0; i < 4; ++i) {
        add(1, {2, 6, 10, 6, 2});
        add(2, {3, 5, 11, 5, 2});
        add(3, {0, 0, 0, 0, 26});
    }
    coordinator::Run run;
    run.spec.kind = coordinator::RunKind::FixedGames;
    const coordinator::RunHistory history = coordinator::history_of(run, reports, 10);
    ASSERT_EQ(history.workers.size(), 3u);
    coordinator::Counts all;
    for (const coordinator::ReportRecord& r : reports) all.add(r.counts);
    for (const coordinator::WorkerShare& w : history.workers) {
        // The test of its pentanomial counts against those of the other workers together.
        stats::Pentanomial rest;
        for (size_t i = 0; i < 5; ++i)
            rest.counts[i] = all.penta.counts[i] - w.counts.penta.counts[i];
        EXPECT_DOUBLE_EQ(w.residual, stats::homogeneity(w.counts.penta, rest).residual)
            << w.worker_id;
    }
    EXPECT_GT(history.workers[2].residual, 5);  // far more won pairs than the others
    EXPECT_LT(history.workers[0].residual, 0);
    EXPECT_LT(history.workers[1].residual, 0);
}

TEST(RunsList, QueryRoundTripsThroughTheUrlAndBadValuesFallBack) {
    const RunsQuery query = parse_runs_query(
        {{"state", "finished"}, {"q", "a&b c"}, {"page", "3"}, {"per_page", "20"}});
    EXPECT_EQ(query.state, "finished");
    EXPECT_EQ(query.text, "a&b c");
    EXPECT_EQ(query.page, 3);
    EXPECT_EQ(runs_query_url(query, 4), "?state=finished&q=a%26b%20c&per_page=20&page=4");
    const RunsQuery bad = parse_runs_query(
        {{"state", "exploded"}, {"page", "-1"}, {"per_page", "100000"}, {"page", "x"}});
    EXPECT_EQ(bad.state, "");
    EXPECT_EQ(bad.page, 1);
    EXPECT_EQ(bad.per_page, 50);
    EXPECT_EQ(parse_runs_query({{"page", "99999999999999999999"}}).page, 1);
}

TEST(Json, RequestsAreReadStrictly) {
    v1::ListRunsRequest list;
    ASSERT_TRUE(
        from_params(
            {{"states", "RUN_STATE_ACTIVE"}, {"states", "RUN_STATE_STOPPED"}, {"limit", "7"}},
            &list)
            .ok());
    EXPECT_EQ(list.states_size(), 2);
    EXPECT_EQ(list.limit(), 7u);
    EXPECT_EQ(from_params({{"colour", "blue"}}, &list).code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(from_params({{"limit", "many"}}, &list).code(), absl::StatusCode::kInvalidArgument);
    v1::ListWorkersRequest workers;
    ASSERT_TRUE(from_params({{"include_inactive", "true"}}, &workers).ok());
    EXPECT_TRUE(workers.include_inactive());

    v1::SubmitRunRequest submit;
    EXPECT_TRUE(from_json(R"({"spec": {"test_version": "a", "games": "10"}})", &submit).ok());
    EXPECT_EQ(submit.spec().games(), 10u);
    EXPECT_EQ(from_json(R"({"spec": {"tset_version": "a"}})", &submit).code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(from_json("{\"spec\": ", &submit).code(), absl::StatusCode::kInvalidArgument);

    v1::GetRunRequest get;
    EXPECT_TRUE(set_field("run_id", "42", &get).ok());
    EXPECT_EQ(get.run_id(), 42);
    EXPECT_EQ(set_field("run_id", "99999999999999999999", &get).code(),
              absl::StatusCode::kInvalidArgument);
}

TEST(Json, ErrorsCarryTheGrpcStatusNameAndTheHttpCode) {
    EXPECT_EQ(error_json(absl::NotFoundError("no run 9")),
              R"({"error":{"code":404,"message":"no run 9","status":"NOT_FOUND"}})");
    EXPECT_EQ(http_status(absl::StatusCode::kUnauthenticated), 401);
    EXPECT_EQ(http_status(absl::StatusCode::kPermissionDenied), 403);
    EXPECT_EQ(http_status(absl::StatusCode::kInvalidArgument), 400);
    EXPECT_EQ(http_status(absl::StatusCode::kFailedPrecondition), 409);
    EXPECT_EQ(http_status(absl::StatusCode::kAlreadyExists), 409);
}

TEST(Format, NumbersReadAsOnTheCli) {
    EXPECT_EQ(signed_fixed(3.456, 2), "+3.46");
    EXPECT_EQ(signed_fixed(-0.001, 2), "0.00");
    EXPECT_EQ(signed_fixed(-1.5, 1), "-1.5");
    EXPECT_EQ(grouped(1234567), "1\u2009234\u2009567");
    EXPECT_EQ(grouped(999), "999");
    EXPECT_EQ(utc_time(0), "");
    EXPECT_EQ(utc_time(86'400'000), "1970-01-02 00:00:00 UTC");
    EXPECT_EQ(kind_name(v1::RUN_KIND_FIXED_GAMES), "fixed_games");
    v1::TimeControl tc;
    tc.mutable_clock()->set_base_ms(10'000);
    tc.mutable_clock()->set_increment_ms(100);
    EXPECT_EQ(time_control_text(tc), "10+0.1");
}

}  // namespace
}  // namespace sparring::coordinator::web
