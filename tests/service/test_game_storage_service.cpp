// A game in 400 bytes (issue 53, part 3) with real coordinator, worker and CLI processes: the
// games of fixed-games, SPRT and tuning runs, of the built-in engine at nodes and of Debian's
// Stockfish at a clock (its own scores, mates and times in the comments), are all stored in the
// compact form, and read back through the coordinator as the worker wrote them (the compact form
// is stored only when it decodes to the worker's text byte for byte). A generation run's games
// carry positions and no PGN.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "cluster.h"
#include "needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kStockfish = "/usr/games/stockfish";

TEST(GameStorageService, EveryRunKindsGamesAreStoredCompactly) {
    if (access(kStockfish, X_OK) != 0) SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    Cluster cluster({"--heartbeat-seconds", "1", "--pairs-per-thread", "1"});
    cluster.add_version("a");
    cluster.add_version("b", "PawnValueMg=90");
    ASSERT_EQ(cluster.cli({"versions", "add", "sf", "--uci", kStockfish, "--no-options"}).status,
              0);
    std::vector<int64_t> runs;
    const auto submit = [&](std::vector<std::string> args) {
        args.insert(args.begin(), "submit");
        const CommandResult r = cluster.cli(args);
        ASSERT_EQ(r.status, 0) << r.err;
        const size_t at = r.out.find("run ");
        ASSERT_NE(at, std::string::npos) << r.out;
        runs.push_back(std::stoll(r.out.substr(at + 4)));
    };
    submit({"a", "b", "--kind", "fixed", "--games", "4", "--tc", "nodes=300"});
    submit({"sf", "a", "--kind", "fixed", "--games", "2", "--tc", "0.5+0.01"});
    submit({"b", "a", "--games", "2", "--tc", "depth=3"});
    submit({"tune", "a", "--params", "PawnValueMg", "--games", "4", "--tc", "nodes=300"});
    ASSERT_EQ(runs.size(), 4u);
    cluster.start_worker("w", 2, {"--uci-engines", kStockfish});
    for (int64_t run : runs)
        ASSERT_NE(cluster.wait_for_run(run, 90s).state(), v1::RUN_STATE_ACTIVE) << run;

    const int64_t games = cluster.query("SELECT count(*) FROM games");
    EXPECT_GE(games, 12);
    EXPECT_EQ(cluster.query("SELECT count(*) FROM games WHERE substr(pgn, 1, 1) = x'01'"), games);
    EXPECT_EQ(cluster.query("SELECT count(DISTINCT run_id) FROM games"), 4);
    // Stockfish's games, at a clock with its own scores, among them.
    EXPECT_EQ(cluster.query("SELECT count(*) FROM games WHERE run_id = " + std::to_string(runs[1])),
              2);
    EXPECT_LT(cluster.query("SELECT max(length(pgn)) FROM games"), 1200);

    // Read back through the coordinator (decode_pgn): each run's games, whole, with their tags
    // and results.
    for (int64_t run : runs) {
        const CommandResult r = cluster.cli({"export", std::to_string(run)});
        ASSERT_EQ(r.status, 0) << r.err;
        const std::string id = std::to_string(run);
        EXPECT_EQ(int64_t(count_in_text(r.out, "[Event \"Sparring run " + id + "\"]")),
                  cluster.query("SELECT count(*) FROM games WHERE run_id = " + id))
            << r.out;
        EXPECT_EQ(count_in_text(r.out, "[Event "), count_in_text(r.out, "[PlyCount ")) << r.out;
    }
    if (HasFailure()) cluster.dump_logs();
}

}  // namespace
}  // namespace sparring::testing
