// The service against bad workers and cut-short imports, end to end: a real coordinator, a
// real honest worker, a simulated worker (over gRPC, from the test) that reports only wins,
// and the CLI.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <thread>

#include "cluster.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class ResilienceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Returns the run as GetRun answers it.
    v1::RunStatus get_run(int64_t id) const {
        v1::GetRunRequest request;
        request.set_run_id(id);
        v1::RunStatus run;
        const grpc::Status status =
            cluster->users()->GetRun(Cluster::context(cluster->user_token).get(), request, &run);
        EXPECT_TRUE(status.ok()) << status.error_message();
        return run;
    }

    // Purges a worker from a run over gRPC with a token; returns the status.
    grpc::Status purge(int64_t run, int64_t worker, const std::string& token) const {
        v1::PurgeWorkerRequest request;
        request.set_run_id(run);
        request.set_worker_id(worker);
        v1::RunStatus status;
        return cluster->users()->PurgeWorker(Cluster::context(token).get(), request, &status);
    }

    std::unique_ptr<Cluster> cluster;
};

// Returns a report of every pair of a lease as two wins of the test version.
v1::ReportResultsRequest only_wins(int64_t worker, const v1::Lease& lease) {
    v1::ReportResultsRequest r;
    r.set_worker_id(worker);
    r.set_lease_id(lease.lease_id());
    r.set_sequence(1);
    for (int i = 0; i < lease.openings_size(); ++i) {
        v1::GamePair* p = r.add_pairs();
        p->set_index(uint32_t(i));
        p->mutable_first()->set_outcome(v1::GAME_OUTCOME_WIN);
        p->mutable_first()->set_test_white(true);
        p->mutable_first()->set_pgn("[Result \"1-0\"]\n\n1-0\n");
        p->mutable_second()->set_outcome(v1::GAME_OUTCOME_WIN);
        p->mutable_second()->set_test_white(false);
        p->mutable_second()->set_pgn("[Result \"0-1\"]\n\n0-1\n");
    }
    return r;
}

TEST_F(ResilienceTest, WorkerReportingOnlyWinsIsQuarantinedAndPurged) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{"--quarantine-p", "1e-4"});
    cluster->add_version("a");
    cluster->add_version("b");
    v1::SubmitRunRequest submit;
    *submit.mutable_spec() = fixed_games_spec(160);
    v1::RunStatus run;
    ASSERT_TRUE(cluster->users()
                    ->SubmitRun(Cluster::context(cluster->user_token).get(), submit, &run)
                    .ok());
    Process& honest_process = cluster->start_worker("honest", 2);
    wait_until([&] { return get_run(run.id()).games() >= 60; }, 300s);
    ASSERT_GE(get_run(run.id()).games(), 60u);
    const int64_t honest = cluster->query("SELECT id FROM workers WHERE name = 'honest'");

    // The honest worker pauses while the forger plays and its fit is read, so that the counts
    // the fit is tested against hold still (the test merges thin classes as the run grows).
    honest_process.signal(SIGSTOP);
    // The forger takes leases and reports every pair won, until it is leased nothing more.
    auto workers = cluster->workers();
    const int64_t forger = register_worker(*workers, cluster->worker_token);
    ASSERT_GT(forger, 0);
    int leases = 0;
    for (; leases < 10; ++leases) {
        v1::RequestWorkResponse work;
        ASSERT_TRUE(request_work(*workers, cluster->worker_token, forger, &work).ok());
        if (!work.has_lease()) break;
        v1::ReportResultsResponse ack;
        const grpc::Status status = workers->ReportResults(
            Cluster::context(cluster->worker_token).get(), only_wins(forger, work.lease()), &ack);
        ASSERT_TRUE(status.ok()) << status.error_message();
    }
    ASSERT_LT(leases, 10) << "the forger was never quarantined";
    ASSERT_GT(leases, 0);
    const int64_t forged_pairs = cluster->query(
        "SELECT sum(pairs) FROM results WHERE worker_id = " + std::to_string(forger));
    ASSERT_GT(forged_pairs, 0);

    // Its fit shows it, in GetRun, `show` and `workers`.
    const v1::RunStatus seen = get_run(run.id());
    bool listed = false;
    for (const v1::WorkerFit& w : seen.workers())
        if (w.worker_id() == forger) {
            listed = true;
            EXPECT_TRUE(w.quarantined());
            EXPECT_LT(w.p_value(), 1e-4);
            EXPECT_GT(w.residual(), 0);
            EXPECT_EQ(w.games(), uint64_t(2 * forged_pairs));
            EXPECT_EQ(w.pentanomial().ww(), uint64_t(forged_pairs));
        } else {
            EXPECT_EQ(w.worker_id(), honest);
            EXPECT_FALSE(w.quarantined());
        }
    EXPECT_TRUE(listed);
    const CommandResult show = cluster->cli({"show", std::to_string(run.id())});
    EXPECT_NE(show.out.find("QUARANTINED"), std::string::npos) << show.out;
    const CommandResult list = cluster->cli({"workers", "--all"});
    EXPECT_NE(list.out.find("QUARANTINED"), std::string::npos) << list.out;
    honest_process.signal(SIGCONT);

    // Purging needs a user token, a worker and a purgeable run; then it removes the games.
    EXPECT_EQ(purge(run.id(), forger, cluster->worker_token).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(purge(run.id(), 999, cluster->user_token).error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(purge(999, forger, cluster->user_token).error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM purges"), 0);
    const CommandResult purged =
        cluster->cli({"purge", std::to_string(run.id()), "--worker", std::to_string(forger)});
    ASSERT_EQ(purged.status, 0) << purged.err;
    EXPECT_NE(purged.out.find(std::to_string(2 * forged_pairs) + " games of worker"),
              std::string::npos)
        << purged.out;
    EXPECT_EQ(purge(run.id(), forger, cluster->user_token).error_code(),
              grpc::StatusCode::ALREADY_EXISTS);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM purges p JOIN tokens t ON t.id = p.token_id "
                             "WHERE t.role = 'user' AND p.purged_ms > 0 AND p.pairs = " +
                             std::to_string(forged_pairs)),
              1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM purged_games"), 2 * forged_pairs);
    EXPECT_EQ(
        cluster->query("SELECT count(*) FROM games WHERE worker_id = " + std::to_string(forger)),
        0);

    // The honest worker plays the purged pairs again; the totals are its games alone.
    const v1::RunStatus done = cluster->wait_for_run(run.id(), 300s);
    ASSERT_EQ(done.state(), v1::RUN_STATE_FINISHED) << done.result();
    EXPECT_EQ(done.games(), 160u);
    EXPECT_EQ(
        cluster->query("SELECT count(*) FROM games WHERE worker_id = " + std::to_string(honest)),
        160);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games"), 160);
    EXPECT_EQ(int64_t(done.wins()),
              cluster->query("SELECT count(*) FROM games WHERE outcome = 'win'"));
    EXPECT_EQ(int64_t(done.draws()),
              cluster->query("SELECT count(*) FROM games WHERE outcome = 'draw'"));
    EXPECT_EQ(int64_t(done.losses()),
              cluster->query("SELECT count(*) FROM games WHERE outcome = 'loss'"));
    EXPECT_EQ(cluster->query("SELECT count(DISTINCT game) FROM games"), 160);
    EXPECT_EQ(cluster->query("SELECT sum(pairs) FROM results WHERE purge_id = 0"), 80);
    ASSERT_EQ(done.purges_size(), 1);
    EXPECT_EQ(done.purges(0).worker_id(), forger);
    EXPECT_EQ(done.purges(0).games(), uint64_t(2 * forged_pairs));
    EXPECT_EQ(done.purges(0).wins(), uint64_t(2 * forged_pairs));
}

TEST_F(ResilienceTest, ImportCutShortContinuesInTheSameRun) {
    cluster = std::make_unique<Cluster>();
    cluster->add_version("a");
    // 30,000 positions sent 100 a call: 300 calls, of which the first few are stored when
    // the CLI is killed.
    const std::string file = cluster->dir + "/positions.fen";
    {
        std::ofstream out(file);
        for (int i = 0; i < 30000; ++i)
            out << "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 ["
                << (i % 3 == 0   ? "1.0"
                    : i % 3 == 1 ? "0.5"
                                 : "0.0")
                << "]\n";
    }
    const std::vector<std::string> args = {binary("cli/sparring"),
                                           "positions",
                                           "import",
                                           file,
                                           "--filter",
                                           "none",
                                           "--version",
                                           "a",
                                           "--chunk-positions",
                                           "100",
                                           "--coordinator",
                                           cluster->address,
                                           "--token",
                                           cluster->user_token};
    {
        Process cut(args, cluster->dir + "/import-cut.log");
        wait_until([&] { return cluster->query("SELECT count(*) FROM training_positions") >= 3; },
                   120s, 2ms);
        cut.signal(SIGKILL);
        ASSERT_TRUE(cut.wait_exit(10s));
    }
    const int64_t stored_before = cluster->query("SELECT count(*) FROM training_positions");
    ASSERT_GE(stored_before, 3);
    ASSERT_LT(stored_before, 300) << "the import ended before it was cut short";
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(cluster->query("SELECT state = 'active' FROM runs"), 1);

    const CommandResult again = cluster->run(args);
    ASSERT_EQ(again.status, 0) << again.err;
    EXPECT_NE(again.err.find("continuing the import in run 1"), std::string::npos) << again.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 1);
    EXPECT_EQ(cluster->query("SELECT state = 'finished' FROM runs"), 1);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM training_positions"), 300);
    EXPECT_EQ(cluster->query("SELECT count(DISTINCT game) FROM training_positions"), 300);
    EXPECT_EQ(cluster->query("SELECT sum(count) FROM training_positions"), 30000);
    EXPECT_EQ(cluster->query("SELECT positions FROM generate_runs WHERE run_id = 1"), 30000);

    // Once finished, the same files make a new run: the import is not cut short any more.
    const CommandResult third = cluster->run(args);
    ASSERT_EQ(third.status, 0) << third.err;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 2);
    EXPECT_EQ(cluster->query("SELECT positions FROM generate_runs WHERE run_id = 2"), 30000);
}

}  // namespace
}  // namespace sparring::testing
