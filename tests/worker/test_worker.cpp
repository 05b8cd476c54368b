// The worker's pieces that need no coordinator: bench output parsing, turning a lease into a
// runner configuration and jobs, and finished pairs into report entries.
#include <gtest/gtest.h>

#include "engine/params.h"
#include "worker/capabilities.h"
#include "worker/match_setup.h"
#include "worker/signature.h"

namespace sparring::worker {
namespace {

// Returns a lease of two pairs: a built-in test version against a UCI base version.
v1::Lease lease() {
    v1::Lease l;
    l.set_lease_id(7);
    l.set_run_id(3);
    l.mutable_test()->set_name("knight-250");
    ParamSet params;
    params.set("KnightValueMg", 250);
    l.mutable_test()->mutable_builtin()->set_params_json(params.to_json());
    l.mutable_test()->mutable_builtin()->set_hash_mb(8);
    l.mutable_base()->set_name("sf");
    l.mutable_base()->mutable_uci()->set_command("/usr/games/stockfish");
    (*l.mutable_base()->mutable_uci()->mutable_options())["Hash"] = "32";
    l.mutable_time_control()->mutable_clock()->set_base_ms(10000);
    l.mutable_time_control()->mutable_clock()->set_increment_ms(100);
    l.set_first_pair(40);
    for (const char* move : {"e2e4", "d2d4"}) {
        v1::Opening* o = l.add_openings();
        o->set_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        o->add_moves(move);
    }
    return l;
}

TEST(WorkerSignature, ParsesTheLastNodesSearchedLine) {
    EXPECT_EQ(parse_bench_output("Nodes searched: 2441213\nNodes/second: 2133927\n"), 2441213u);
    EXPECT_EQ(parse_bench_output("====\nTotal time (ms) : 4797\nNodes searched  : 3467381\n"),
              3467381u);
    EXPECT_EQ(parse_bench_output("Nodes searched: 1\nNodes searched: 22\n"), 22u);
    EXPECT_FALSE(parse_bench_output("Total time (ms) : 4797\n"));
    EXPECT_FALSE(parse_bench_output("Nodes searched:\nNodes/second: 5\n"));
}

TEST(WorkerSignature, BuiltinSignatureDependsOnTheParameters) {
    v1::Version a;
    a.mutable_builtin()->set_params_json(ParamSet().to_json());
    v1::Version b = a;
    ParamSet other;
    other.set("KnightValueMg", 200);
    b.mutable_builtin()->set_params_json(other.to_json());
    std::string error;
    const auto sa = compute_signature(a, &error);
    const auto sb = compute_signature(b, &error);
    ASSERT_TRUE(sa && sb) << error;
    EXPECT_NE(*sa, *sb);
    v1::Version broken;
    broken.mutable_builtin()->set_params_json("{\"NoSuchParameter\": 1}");
    EXPECT_FALSE(compute_signature(broken, &error));
    EXPECT_FALSE(error.empty());
}

TEST(WorkerMatchSetup, LeaseBecomesRunnerConfigurationAndJobs) {
    std::string error;
    const auto config = match_config(lease(), 3, "box", &error);
    ASSERT_TRUE(config) << error;
    EXPECT_EQ(config->concurrency, 3);
    EXPECT_EQ(config->first.name, "knight-250");
    const auto& builtin = std::get<match::BuiltinSpec>(config->first.engine);
    EXPECT_EQ(builtin.params.get("KnightValueMg"), 250);
    EXPECT_EQ(builtin.hash_mb, 8);
    const auto& uci = std::get<match::UciSpec>(config->second.engine);
    EXPECT_EQ(uci.command, "/usr/games/stockfish");
    // The run's threads (1) are always sent: a version does not set them (issue 49).
    ASSERT_EQ(uci.options.size(), 2u);
    EXPECT_EQ(uci.options[0], (std::pair<std::string, std::string>{"Hash", "32"}));
    EXPECT_EQ(uci.options[1], (std::pair<std::string, std::string>{"Threads", "1"}));
    EXPECT_EQ(config->time_control.kind, TimeControl::Kind::Clock);
    EXPECT_EQ(config->time_control.base_ms, 10000);
    EXPECT_EQ(config->time_control.inc_ms, 100);
    EXPECT_TRUE(config->pgn.record);
    EXPECT_EQ(config->pgn.site, "box");

    const auto jobs = pair_jobs(lease());
    ASSERT_EQ(jobs.size(), 2u);
    EXPECT_EQ(jobs[0].index, 40u);
    EXPECT_EQ(jobs[1].index, 41u);
    EXPECT_EQ(jobs[1].opening.moves, std::vector<std::string>{"d2d4"});

    v1::Lease bad = lease();
    bad.mutable_test()->mutable_builtin()->set_params_json("not json");
    EXPECT_FALSE(match_config(bad, 1, "box", &error));
    EXPECT_NE(error.find("knight-250"), std::string::npos);
}

TEST(WorkerMatchSetup, FinishedPairBecomesAReportEntry) {
    match::PairResult pair;
    pair.index = 41;
    pair.games[0].outcome = Outcome::Win;  // test had white: a win
    pair.games[0].pgn = "game one";
    pair.games[1].outcome = Outcome::Win;  // base had white: a loss
    pair.games[1].pgn = "game two";
    v1::GamePair out;
    pair_to_proto(pair, 40, &out);
    EXPECT_EQ(out.index(), 1u);
    EXPECT_EQ(out.first().outcome(), v1::GAME_OUTCOME_WIN);
    EXPECT_TRUE(out.first().test_white());
    EXPECT_EQ(out.first().pgn(), "game one");
    EXPECT_EQ(out.second().outcome(), v1::GAME_OUTCOME_LOSS);
    EXPECT_FALSE(out.second().test_white());
    pair.games[1].outcome = Outcome::Draw;
    pair_to_proto(pair, 40, &out);
    EXPECT_EQ(out.second().outcome(), v1::GAME_OUTCOME_DRAW);
}

TEST(WorkerCapabilities, FindsCommandsAndMemory) {
    EXPECT_TRUE(is_executable_command("sh"));
    EXPECT_TRUE(is_executable_command("/bin/sh"));
    EXPECT_FALSE(is_executable_command("/nonexistent/engine"));
    EXPECT_FALSE(is_executable_command("no-such-engine-anywhere"));
    EXPECT_FALSE(is_executable_command(""));
    EXPECT_GT(available_memory_mb(), 0);
    EXPECT_FALSE(host_name().empty());
}

}  // namespace
}  // namespace sparring::worker
