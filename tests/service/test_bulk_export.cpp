// Bulk export across runs (issue 53, part 3) with real coordinator, worker and CLI processes:
// three small runs (fixed games a vs b, fixed games Stockfish vs a, an SPRT b vs a, at two time
// controls) are played; `sparring export` with each selection (--version, --tc, --kind,
// --result, --since/--until, runs) and GET /api/v1/games.pgn.gz with the same give one .pgn.gz
// holding exactly the games the database says; bad selections are refused with a clear error
// before any work, and the REST route refuses a caller without a token.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cluster.h"
#include "coordinator/storage/gzip_stream.h"
#include "needs.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

constexpr const char* kStockfish = "/usr/games/stockfish";

// Returns the bytes of a gzip stream, or "<damaged>".
std::string unzipped(const std::string& gz) {
    return coordinator::gunzip(gz).value_or("<damaged>");
}

// Returns the games of a PGN text: the count of its Event tags.
size_t games_in(const std::string& pgn) {
    return count_in_text(pgn, "[Event ");
}

class BulkExportTest : public ::testing::Test {
  protected:
    void SetUp() override {
        if (access(kStockfish, X_OK) != 0)
            SPARRING_SKIP_WITHOUT("needs Debian's stockfish package");
    }
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Submits a run with the CLI; returns its id.
    int64_t submit(const std::vector<std::string>& args) const {
        std::vector<std::string> argv = {"submit"};
        argv.insert(argv.end(), args.begin(), args.end());
        const CommandResult r = cluster->cli(argv);
        EXPECT_EQ(r.status, 0) << r.err;
        const size_t at = r.out.find("run ");
        return at == std::string::npos ? 0 : std::stoll(r.out.substr(at + 4));
    }

    // Runs `sparring export ARGS --out -` and returns the PGN it wrote, checking the summary.
    std::string cli_export(std::vector<std::string> args) const {
        args.insert(args.begin(), "export");
        args.insert(args.end(), {"--out", "-"});
        const CommandResult r = cluster->cli(args);
        EXPECT_EQ(r.status, 0) << r.err;
        const std::string pgn = unzipped(r.out);
        EXPECT_NE(r.err.find(std::to_string(games_in(pgn)) + " game"), std::string::npos) << r.err;
        return pgn;
    }

    // Returns the games of a REST export with the user's token.
    std::string rest_export(const std::string& query) const {
        httplib::Client http("127.0.0.1", port);
        http.set_read_timeout(20s);
        const httplib::Result r = http.Get("/api/v1/games.pgn.gz?" + query,
                                           {{"Authorization", "Bearer " + cluster->user_token}});
        EXPECT_TRUE(r && r->status == 200) << (r ? r->body : "no answer");
        if (!r) return "";
        EXPECT_EQ(r->get_header_value("Content-Type"), "application/gzip");
        EXPECT_EQ(r->get_header_value("Transfer-Encoding"), "chunked");
        return unzipped(r->body);
    }

    // Returns a count of games from the database.
    size_t games_where(const std::string& condition) const {
        return size_t(
            cluster->query("SELECT count(*) FROM games g JOIN runs r ON r.id = g.run_id "
                           "WHERE " +
                           condition));
    }

    std::unique_ptr<Cluster> cluster;
    int port = 0;
};

TEST_F(BulkExportTest, EverySelectionGivesExactlyItsGamesOverTheCliAndRest) {
    const std::string port_file =
        ::testing::TempDir() + "sparring-export-" + std::to_string(getpid()) + ".port";
    std::filesystem::remove(port_file);
    cluster = std::make_unique<Cluster>(std::vector<std::string>{
        "--heartbeat-seconds", "1", "--pairs-per-thread", "1", "--http-listen", "127.0.0.1:0",
        "--http-port-file", port_file, "--http-require-token"});
    port = wait_for_port_file(port_file);
    std::filesystem::remove(port_file);
    ASSERT_GT(port, 0);
    cluster->add_version("a");
    cluster->add_version("b");
    ASSERT_EQ(cluster->cli({"versions", "add", "sf", "--uci", kStockfish, "--no-options"}).status,
              0);
    const int64_t fixed =
        submit({"a", "b", "--kind", "fixed", "--games", "4", "--tc", "nodes=300"});
    const int64_t stockfish =
        submit({"sf", "a", "--kind", "fixed", "--games", "2", "--tc", "nodes=2000"});
    const int64_t sprt = submit({"b", "a", "--games", "2", "--tc", "nodes=300"});
    ASSERT_GT(fixed * stockfish * sprt, 0);
    cluster->start_worker("w", 2, {"--uci-engines", kStockfish});
    for (int64_t run : {fixed, stockfish, sprt})
        ASSERT_NE(cluster->wait_for_run(run, 60s).state(), v1::RUN_STATE_ACTIVE) << run;
    const size_t total = games_where("1");
    ASSERT_EQ(total, 8u);

    // Everything, in run then game order.
    const std::string all = cli_export({});
    EXPECT_EQ(games_in(all), total);
    EXPECT_LT(all.find("Sparring run " + std::to_string(fixed)),
              all.find("Sparring run " + std::to_string(sprt)));
    EXPECT_EQ(rest_export(""), all);
    // Each selection, over both.
    struct Case {
        std::vector<std::string> flags;
        std::string query;
        std::string where;
    };
    const std::string sf = std::to_string(stockfish);
    const std::vector<Case> cases = {
        {{"--version", "sf"}, "version=sf", "r.id = " + sf},
        {{"--version", "b"}, "version=b", "r.id != " + sf},
        {{"--version", "sf", "--version", "b"}, "version=sf,b", "1"},
        {{"--tc", "nodes=300"}, "tc=nodes%3D300", "r.time_control = 'nodes=300'"},
        {{"--kind", "sprt"}, "kind=sprt", "r.kind = 'regression'"},
        {{"--kind", "fixed", "--version", "a"}, "kind=fixed&version=a", "r.kind = 'fixed_games'"},
        {{"--result", "draw"}, "result=draw", "g.outcome = 'draw'"},
        {{"--result", "1-0", "--tc", "nodes=300"},
         "result=1-0&tc=nodes%3D300",
         "r.time_control = 'nodes=300' AND ((g.outcome = 'win' AND g.test_white) OR "
         "(g.outcome = 'loss' AND NOT g.test_white))"},
        {{std::to_string(fixed), sf},
         "run=" + std::to_string(fixed) + "&run=" + sf,
         "r.id != " + std::to_string(sprt)},
        {{"--since", "2020-01-01", "--until", "2999-12-31T23:59"},
         "since=2020-01-01&until=2999-12-31T23:59",
         "1"},
        {{"--until", "2020-01-01"}, "until=2020-01-01", "0"},
        {{"--since", "2999-01-01T00:00:00Z"}, "since=2999-01-01T00:00:00Z", "0"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.query);
        const std::string cli = cli_export(c.flags);
        EXPECT_EQ(games_in(cli), games_where(c.where));
        EXPECT_EQ(rest_export(c.query), cli);
    }
    // What the games say matches what was asked: Stockfish plays each of its games, and the
    // white side won each of the 1-0 games.
    const std::string with_sf = cli_export({"--version", "sf"});
    EXPECT_EQ(count_in_text(with_sf, "\"sf\"]"), games_in(with_sf));
    const std::string white_won = cli_export({"--result", "1-0"});
    EXPECT_EQ(count_in_text(white_won, "[Result \"1-0\"]"), games_in(white_won));

    // A file of its own, and plain PGN of one run as before.
    const std::string file = cluster->dir + "/sf.pgn.gz";
    ASSERT_EQ(cluster->cli({"export", "--version", "sf", "--out", file}).status, 0);
    EXPECT_EQ(unzipped(slurp(file)), with_sf);
    const CommandResult one = cluster->cli({"export", sf});
    EXPECT_EQ(one.status, 0);
    EXPECT_EQ(one.out, with_sf);

    // Bad selections: a usage error (status 2) before any work, or the coordinator's refusal.
    const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
        {{"--tc", "fast"}, "--tc 'fast'"},
        {{"--kind", "blitz"}, "--kind must be sprt"},
        {{"--result", "won"}, "--result must be win, draw, loss"},
        {{"--since", "2026-13-01"}, "--since takes a UTC time"},
        {{"--since", "2026-12-08", "--until", "2026-12-01"}, "--since must be before --until"},
        {{"x7"}, "x7"},
    };
    for (const auto& [flags, text] : bad) {
        std::vector<std::string> args = {"export"};
        args.insert(args.end(), flags.begin(), flags.end());
        args.insert(args.end(), {"--out", cluster->dir + "/bad.pgn.gz"});
        const CommandResult r = cluster->cli(args);
        EXPECT_EQ(r.status, 2) << text << ": " << r.err;
        EXPECT_NE(r.err.find(text), std::string::npos) << r.err;
        EXPECT_FALSE(std::filesystem::exists(cluster->dir + "/bad.pgn.gz")) << text;
    }
    const CommandResult unknown = cluster->cli({"export", "--version", "nosuch", "--out", "-"});
    EXPECT_NE(unknown.status, 0);
    EXPECT_NE(unknown.err.find("no version 'nosuch'"), std::string::npos) << unknown.err;
    EXPECT_TRUE(unknown.out.empty());
    const CommandResult no_run = cluster->cli({"export", "999", "--out", "x.pgn.gz"});
    EXPECT_NE(no_run.err.find("no run 999"), std::string::npos) << no_run.err;

    httplib::Client http("127.0.0.1", port);
    http.set_read_timeout(20s);
    const httplib::Headers auth = {{"Authorization", "Bearer " + cluster->user_token}};
    for (const auto& [query, text] : std::vector<std::pair<std::string, std::string>>{
             {"tc=fast", "tc: 'fast' is no time control"},
             {"kind=blitz", "kind: 'blitz' is no run kind"},
             {"result=won", "result: 'won' is no result"},
             {"since=2026-13-01", "since: '2026-13-01' is no UTC time"},
             {"run=abc", "run: 'abc' is no run id"},
             {"colour=white", "unknown parameter 'colour'"},
             {"version=nosuch", "no version 'nosuch'"}}) {
        const httplib::Result r = http.Get("/api/v1/games.pgn.gz?" + query, auth);
        ASSERT_TRUE(r);
        EXPECT_EQ(r->status, query == "version=nosuch" ? 404 : 400) << query;
        EXPECT_NE(r->body.find(text), std::string::npos) << r->body;
    }
    // No token, or a bad one: refused like every REST read of this dashboard.
    const httplib::Result anonymous = http.Get("/api/v1/games.pgn.gz");
    ASSERT_TRUE(anonymous);
    EXPECT_EQ(anonymous->status, 401) << anonymous->body;
    const httplib::Result forged =
        http.Get("/api/v1/games.pgn.gz?version=sf", {{"Authorization", "Bearer nope"}});
    ASSERT_TRUE(forged);
    EXPECT_EQ(forged->status, 401) << forged->body;
}

}  // namespace
}  // namespace sparring::testing
