// The dashboard's pure parts: escaping on every page, the plots' data series, the runs
// list's filters and paging, and the JSON mapping of the REST API.
#include <gtest/gtest.h>

#include "coordinator/domain/core.h"
#include "coordinator/domain/run_history.h"
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
    v1::ListVersionsResponse versions;
    for (const char* suffix : {"1", "2"}) {
        v1::Version* v = versions.add_versions();
        v->set_name(std::string(kScript) + suffix);
        v->set_description(kScript);
        v->mutable_uci()->set_command(kScript);
        (*v->mutable_uci()->mutable_options())[kScript] = kScript;
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

TEST(RunsList, ActiveRunsComeFirstByPriorityThenTheRestNewestFirst) {
    v1::ListRunsResponse runs;
    const auto add = [&runs](int64_t id, v1::RunState state, int priority) {
        v1::RunStatus* run = runs.add_runs();
        run->set_id(id);
        run->set_state(state);
        run->mutable_spec()->set_priority(priority);
        run->mutable_spec()->set_kind(id % 2 ? v1::RUN_KIND_TUNE : v1::RUN_KIND_REGRESSION);
        run->mutable_spec()->set_test_version(id == 3 ? "knight" : "x");
        run->mutable_spec()->set_base_version("base");
        run->mutable_spec()->set_description(id == 4 ? "try the new king safety" : "");
    };
    add(5, v1::RUN_STATE_FINISHED, 9);
    add(4, v1::RUN_STATE_ACTIVE, 0);
    add(3, v1::RUN_STATE_ACTIVE, 2);
    add(2, v1::RUN_STATE_STOPPED, 0);
    add(1, v1::RUN_STATE_ACTIVE, 0);
    const auto ids = [&runs](const RunsQuery& query, size_t* matching) {
        std::vector<int64_t> out;
        for (const v1::RunStatus* run : select_runs(runs, query, matching))
            out.push_back(run->id());
        return out;
    };
    size_t matching = 0;
    EXPECT_EQ(ids({}, &matching), (std::vector<int64_t>{3, 4, 1, 5, 2}));
    EXPECT_EQ(matching, 5u);

    RunsQuery page2;
    page2.per_page = 2;
    page2.page = 2;
    EXPECT_EQ(ids(page2, &matching), (std::vector<int64_t>{1, 5}));
    EXPECT_EQ(matching, 5u);
    page2.page = 4;
    EXPECT_TRUE(ids(page2, &matching).empty());

    EXPECT_EQ(ids(parse_runs_query({{"state", "active"}, {"kind", "tune"}}), &matching),
              (std::vector<int64_t>{3, 1}));
    EXPECT_EQ(ids(parse_runs_query({{"version", "knight"}}), &matching), (std::vector<int64_t>{3}));
    EXPECT_EQ(ids(parse_runs_query({{"q", "king safety"}}), &matching), (std::vector<int64_t>{4}));
    EXPECT_EQ(ids(parse_runs_query({{"version", "base"}}), &matching).size(), 5u);
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
    EXPECT_EQ(time_control_text(tc), "10+0.10");
}

}  // namespace
}  // namespace sparring::coordinator::web
