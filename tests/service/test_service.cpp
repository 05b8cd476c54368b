// The service end to end, quick cases: real coordinator, worker and CLI processes on
// 127.0.0.1 with a temporary database. Authentication, malformed specs, forged and duplicated
// reports, TLS, and a small fixed-games run played by real workers.
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <thread>

#include "cluster.h"
#include "match/bench_cache.h"

namespace sparring::testing {
namespace {

using namespace std::chrono_literals;

class ServiceTest : public ::testing::Test {
  protected:
    void TearDown() override {
        if (HasFailure() && cluster) cluster->dump_logs();
    }

    // Submits a run with the user token; returns the status and fills *run.
    grpc::Status submit(const v1::RunSpec& s, v1::RunStatus* run, const std::string& token) {
        v1::SubmitRunRequest request;
        *request.mutable_spec() = s;
        return cluster->users()->SubmitRun(Cluster::context(token).get(), request, run);
    }

    // Adds versions a and b with fixed bench numbers (no worker plays them here).
    void add_fake_versions() {
        for (const char* name : {"a", "b"}) {
            const CommandResult r = cluster->cli({"versions", "add", name, "--bench", "1"});
            ASSERT_EQ(r.status, 0) << r.err;
        }
    }

    std::unique_ptr<Cluster> cluster;
};

TEST_F(ServiceTest, CallsWithoutAValidTokenAreUnauthenticated) {
    cluster = std::make_unique<Cluster>();
    auto users = cluster->users();
    v1::ListRunsResponse runs;
    EXPECT_EQ(users->ListRuns(Cluster::context("").get(), {}, &runs).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    EXPECT_EQ(users->ListRuns(Cluster::context("spu_forged").get(), {}, &runs).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    auto workers = cluster->workers();
    EXPECT_EQ(register_worker(*workers, "spw_0000"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM workers"), 0);

    // A worker token cannot change runs; a user token cannot act as a worker.
    v1::RunStatus run;
    EXPECT_EQ(submit(fixed_games_spec(10), &run, cluster->worker_token).error_code(),
              grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(register_worker(*workers, cluster->user_token), 0);
    EXPECT_TRUE(users->ListRuns(Cluster::context(cluster->worker_token).get(), {}, &runs).ok());

    // A revoked token is refused from then on.
    const CommandResult revoke = cluster->run(
        {binary("coordinator/sparring-coordinator"), "token", "revoke", "1", "--db", cluster->db});
    ASSERT_EQ(revoke.status, 0) << revoke.err;
    EXPECT_EQ(users->ListRuns(Cluster::context(cluster->user_token).get(), {}, &runs).error_code(),
              grpc::StatusCode::UNAUTHENTICATED);
    const CommandResult cli = cluster->cli({"runs"});
    EXPECT_EQ(cli.status, 1);
    EXPECT_NE(cli.err.find("unauthenticated"), std::string::npos) << cli.err;
    EXPECT_EQ(std::count(cli.err.begin(), cli.err.end(), '\n'), 1) << cli.err;
}

TEST_F(ServiceTest, MalformedRunSpecsAreRejectedWithAClearMessage) {
    cluster = std::make_unique<Cluster>();
    add_fake_versions();
    struct Case {
        std::function<void(v1::RunSpec&)> spoil;
        grpc::StatusCode code;
        std::string words;
    };
    const std::vector<Case> cases = {
        {[](v1::RunSpec& s) { s.set_games(7); }, grpc::StatusCode::INVALID_ARGUMENT, "even"},
        {[](v1::RunSpec& s) { s.set_games(0); }, grpc::StatusCode::INVALID_ARGUMENT, "even"},
        {[](v1::RunSpec& s) { s.set_test_version("ghost"); }, grpc::StatusCode::NOT_FOUND, "ghost"},
        {[](v1::RunSpec& s) { s.clear_time_control(); }, grpc::StatusCode::INVALID_ARGUMENT,
         "time control"},
        {[](v1::RunSpec& s) { s.mutable_time_control()->set_depth(500); },
         grpc::StatusCode::INVALID_ARGUMENT, "depth"},
        {[](v1::RunSpec& s) { s.mutable_book()->clear_openings(); },
         grpc::StatusCode::INVALID_ARGUMENT, "openings"},
        {[](v1::RunSpec& s) { s.set_kind(v1::RUN_KIND_UNSPECIFIED); },
         grpc::StatusCode::INVALID_ARGUMENT, "kind"},
        {[](v1::RunSpec& s) {
             s.set_kind(v1::RUN_KIND_REGRESSION);
             s.mutable_sprt()->set_elo0(5);
             s.mutable_sprt()->set_elo1(0);
             s.mutable_sprt()->set_alpha(0.05);
             s.mutable_sprt()->set_beta(0.05);
         },
         grpc::StatusCode::INVALID_ARGUMENT, "SPRT"},
        {[](v1::RunSpec& s) {
             s.set_kind(v1::RUN_KIND_REGRESSION);
             s.mutable_sprt()->set_elo1(5);
             s.mutable_sprt()->set_alpha(0.7);
             s.mutable_sprt()->set_beta(0.05);
         },
         grpc::StatusCode::INVALID_ARGUMENT, "SPRT"},
    };
    for (size_t i = 0; i < cases.size(); ++i) {
        SCOPED_TRACE("case " + std::to_string(i));
        const Case& c = cases[i];
        v1::RunSpec s = fixed_games_spec(10);
        c.spoil(s);
        v1::RunStatus run;
        const grpc::Status status = submit(s, &run, cluster->user_token);
        EXPECT_EQ(status.error_code(), c.code) << status.error_message();
        EXPECT_NE(status.error_message().find(c.words), std::string::npos)
            << status.error_message();
    }
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);

    const CommandResult odd = cluster->cli({"submit", "a", "b", "--kind", "fixed", "--games", "9"});
    EXPECT_EQ(odd.status, 2);
    EXPECT_NE(odd.err.find("even"), std::string::npos) << odd.err;
    const CommandResult ghost = cluster->cli({"submit", "ghost", "b"});
    EXPECT_EQ(ghost.status, 1);
    EXPECT_NE(ghost.err.find("unknown test version 'ghost'"), std::string::npos) << ghost.err;
    const CommandResult bad_version = cluster->cli({"versions", "add", "x", "--set", "NoSuch=3"});
    EXPECT_NE(bad_version.status, 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 0);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM versions"), 2);
}

// Issue 31, item 3: a run submitted like another copies its spec and openings, changes only
// the flags given, and records where it came from.
TEST_F(ServiceTest, ARunSubmittedLikeAnotherCopiesItsSpecAndChangesWhatIsGiven) {
    cluster = std::make_unique<Cluster>();
    add_fake_versions();
    ASSERT_EQ(cluster->cli({"versions", "add", "c", "--bench", "1"}).status, 0);
    const CommandResult first =
        cluster->cli({"submit", "a", "b", "--elo0", "-1", "--elo1", "3", "--tc", "nodes=300",
                      "--games", "400", "--book-order", "sequential", "--maxplies", "120",
                      "--priority", "2", "--description", "the first try"});
    ASSERT_EQ(first.status, 0) << first.err;
    const auto get = [&](int64_t id) {
        v1::GetRunRequest request;
        request.set_run_id(id);
        v1::RunStatus run;
        EXPECT_TRUE(cluster->users()
                        ->GetRun(Cluster::context(cluster->user_token).get(), request, &run)
                        .ok());
        return run;
    };
    const v1::RunStatus origin = get(1);

    // The same at another time control and SPRT upper bound, against c.
    const CommandResult like = cluster->cli(
        {"submit", "--like", "1", "a", "c", "--tc", "10+0.1", "--elo1", "5", "--games", "600"});
    ASSERT_EQ(like.status, 0) << like.err;
    EXPECT_NE(like.out.find("run 2 submitted like run 1: a vs c"), std::string::npos) << like.out;
    const v1::RunStatus copy = get(2);
    EXPECT_EQ(copy.spec().origin_run_id(), 1);
    EXPECT_EQ(copy.spec().kind(), v1::RUN_KIND_REGRESSION);
    EXPECT_EQ(copy.spec().test_version(), "a");
    EXPECT_EQ(copy.spec().base_version(), "c");
    EXPECT_EQ(copy.spec().time_control().clock().base_ms(), 10000u);
    EXPECT_EQ(copy.spec().time_control().clock().increment_ms(), 100u);
    EXPECT_EQ(copy.spec().games(), 600u);
    EXPECT_EQ(copy.spec().sprt().elo0(), -1.0);  // kept
    EXPECT_EQ(copy.spec().sprt().elo1(), 5.0);   // given
    EXPECT_EQ(copy.spec().adjudication().max_plies(), 120u);
    EXPECT_EQ(copy.spec().priority(), 2);
    EXPECT_EQ(copy.spec().description(), "the first try");
    EXPECT_EQ(copy.book_size(), origin.book_size());
    EXPECT_GT(copy.book_size(), 0u);
    EXPECT_FALSE(copy.spec().book().random_order());
    EXPECT_EQ(copy.spec().book().source(), origin.spec().book().source());
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs r JOIN run_links l ON l.child = r.id "
                             "WHERE r.id = 2 AND l.parent = 1 AND l.reason = 'submitted_like' "
                             "AND r.book = (SELECT book FROM runs WHERE id = 1)"),
              1);
    const CommandResult show = cluster->cli({"show", "2"});
    ASSERT_EQ(show.status, 0) << show.err;
    EXPECT_NE(show.out.find("run 1 (submitted with `sparring submit --like 1`)"), std::string::npos)
        << show.out;

    // As a fixed-games run: the SPRT goes, the games default to a fixed run's.
    const CommandResult fixed = cluster->cli({"submit", "--like", "1", "--kind", "fixed"});
    ASSERT_EQ(fixed.status, 0) << fixed.err;
    const v1::RunStatus fixed_copy = get(3);
    EXPECT_EQ(fixed_copy.spec().kind(), v1::RUN_KIND_FIXED_GAMES);
    EXPECT_FALSE(fixed_copy.spec().has_sprt());
    EXPECT_EQ(fixed_copy.spec().games(), 1000u);
    EXPECT_EQ(fixed_copy.spec().base_version(), "b");

    // Refused, and nothing stored: a run that does not exist, one version alone, SPRT flags for
    // a fixed-games copy, and over gRPC an origin that does not exist.
    const CommandResult missing = cluster->cli({"submit", "--like", "99"});
    EXPECT_NE(missing.status, 0);
    EXPECT_NE(missing.err.find("no run 99"), std::string::npos) << missing.err;
    EXPECT_NE(cluster->cli({"submit", "--like", "1", "a"}).status, 0);
    EXPECT_NE(cluster->cli({"submit", "--like", "3", "--elo1", "4"}).status, 0);
    v1::RunSpec forged = copy.spec();
    forged.set_origin_run_id(77);
    v1::RunStatus ignored;
    const grpc::Status refused = submit(forged, &ignored, cluster->user_token);
    EXPECT_EQ(refused.error_code(), grpc::StatusCode::NOT_FOUND);
    EXPECT_NE(refused.error_message().find("no run 77 to submit like"), std::string::npos)
        << refused.error_message();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM runs"), 3);
}

// At a node or depth limit a game is decided by its opening and its engines, so a run that
// needs more openings than its book has would replay games: `submit` says so, and how big a
// book it needs. A clock lets timing vary the games; a run within its book is not warned of.
TEST_F(ServiceTest, SubmitWarnsOfARunThatWouldReplayItsBookAtANodeLimit) {
    cluster = std::make_unique<Cluster>();
    add_fake_versions();
    const std::string book =
        ::testing::TempDir() + "sparring-three-openings-" + std::to_string(getpid()) + ".epd";
    {
        std::ofstream out(book);
        out << "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
               "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n"
               "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1\n";
    }
    const auto submit_fixed = [&](const std::string& games, const std::string& tc) {
        return cluster->cli(
            {"submit", "a", "b", "--kind", "fixed", "--games", games, "--tc", tc, "--book", book});
    };
    const CommandResult replays = submit_fixed("8", "nodes=300");
    ASSERT_EQ(replays.status, 0) << replays.err;
    EXPECT_NE(replays.err.find("warning: 8 games need 4 openings, and the book has 3. At "
                               "nodes=300 a game is decided by its opening and its engines, so "
                               "the pair past the book's end would replay games already played"),
              std::string::npos)
        << replays.err;
    EXPECT_NE(replays.err.find("sparring book generate --out FILE --positions 4"),
              std::string::npos)
        << replays.err;
    EXPECT_NE(replays.out.find("run 1 submitted"), std::string::npos) << replays.out;
    for (const auto& [games, tc] :
         {std::pair{"6", "nodes=300"}, std::pair{"8", "10+0.1"}, std::pair{"8", "movetime=50"}}) {
        const CommandResult quiet = submit_fixed(games, tc);
        ASSERT_EQ(quiet.status, 0) << quiet.err;
        // No book warning (no worker is connected: submit says so, which is another warning).
        EXPECT_EQ(quiet.err.find("openings"), std::string::npos) << games << " " << tc << quiet.err;
    }
    // A regression run's games are a maximum; the shipped book holds 10,000 openings, one for
    // each pair of the default (up to 20,000 games), and not for 30,000.
    const CommandResult by_default = cluster->cli({"submit", "a", "b", "--tc", "depth=3"});
    ASSERT_EQ(by_default.status, 0) << by_default.err;
    EXPECT_EQ(by_default.err.find("openings"), std::string::npos) << by_default.err;
    const CommandResult sprt =
        cluster->cli({"submit", "a", "b", "--tc", "depth=3", "--games", "30000"});
    ASSERT_EQ(sprt.status, 0) << sprt.err;
    EXPECT_NE(sprt.err.find("warning: up to 30000 games need 15000 openings, and the book has "
                            "10000. At depth=3"),
              std::string::npos)
        << sprt.err;
    EXPECT_NE(sprt.err.find("the 5000 pairs past the book's end"), std::string::npos) << sprt.err;
    // A tuning run's verification draws its openings from the tuning run's book.
    const CommandResult tune =
        cluster->cli({"submit", "tune", "a", "--params", "PawnValueMg", "--games", "2", "--verify",
                      "--verify-fixed", "--verify-games", "10", "--book", book});
    ASSERT_EQ(tune.status, 0) << tune.err;
    EXPECT_NE(tune.err.find("warning: the verification's 10 games need 5 openings, and the book "
                            "has 3. At nodes=1000"),
              std::string::npos)
        << tune.err;
    std::remove(book.c_str());
}

TEST_F(ServiceTest, ForgedAndDuplicatedReportsChangeNothing) {
    cluster = std::make_unique<Cluster>();
    add_fake_versions();
    v1::RunStatus run;
    ASSERT_TRUE(submit(fixed_games_spec(20), &run, cluster->user_token).ok());
    auto stub = cluster->workers();
    const int64_t worker = register_worker(*stub, cluster->worker_token);
    ASSERT_NE(worker, 0);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const int64_t lease = work.lease().lease_id();
    const uint32_t pairs = uint32_t(work.lease().openings_size());
    ASSERT_GE(pairs, 2u);
    v1::ReportResultsResponse ack;
    const auto send = [&](const v1::ReportResultsRequest& r, const std::string& token) {
        ack.Clear();
        return stub->ReportResults(Cluster::context(token).get(), r, &ack).error_code();
    };

    EXPECT_EQ(send(report(worker, lease, 1, {0}), cluster->worker_token), grpc::StatusCode::OK);
    EXPECT_FALSE(ack.duplicate());
    EXPECT_EQ(send(report(worker, lease, 1, {0}), cluster->worker_token), grpc::StatusCode::OK);
    EXPECT_TRUE(ack.duplicate());
    EXPECT_EQ(send(report(worker, lease, 1, {1}), cluster->worker_token),
              grpc::StatusCode::ALREADY_EXISTS);
    EXPECT_EQ(send(report(worker, lease, 2, {0}), cluster->worker_token),
              grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(send(report(worker, lease, 2, {pairs}), cluster->worker_token),
              grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(send(report(worker, lease + 1000, 1, {0}), cluster->worker_token),
              grpc::StatusCode::NOT_FOUND);
    v1::ReportResultsRequest no_outcome = report(worker, lease, 2, {1});
    no_outcome.mutable_pairs(0)->mutable_second()->clear_outcome();
    EXPECT_EQ(send(no_outcome, cluster->worker_token), grpc::StatusCode::INVALID_ARGUMENT);

    // Another worker, with its own token, cannot report on this lease.
    const CommandResult other = cluster->run({binary("coordinator/sparring-coordinator"), "token",
                                              "create", "--db", cluster->db, "--role", "worker"});
    const std::string other_token = other.out.substr(0, other.out.find('\n'));
    const int64_t thief = register_worker(*stub, other_token);
    ASSERT_NE(thief, 0);
    EXPECT_EQ(send(report(thief, lease, 2, {1}), other_token), grpc::StatusCode::PERMISSION_DENIED);
    EXPECT_EQ(send(report(worker, lease, 2, {1}), other_token),
              grpc::StatusCode::PERMISSION_DENIED);

    v1::GetRunRequest get;
    get.set_run_id(run.id());
    ASSERT_TRUE(
        cluster->users()->GetRun(Cluster::context(cluster->user_token).get(), get, &run).ok());
    EXPECT_EQ(run.games(), 2u);
    EXPECT_EQ(run.wins(), 1u);
    EXPECT_EQ(run.draws(), 1u);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM games"), 2);
    EXPECT_EQ(cluster->query("SELECT count(*) FROM results"), 1);
}

TEST_F(ServiceTest, StoppingARunTellsItsWorkersToStop) {
    cluster = std::make_unique<Cluster>();
    add_fake_versions();
    v1::RunStatus run;
    ASSERT_TRUE(submit(fixed_games_spec(20), &run, cluster->user_token).ok());
    auto stub = cluster->workers();
    const int64_t worker = register_worker(*stub, cluster->worker_token);
    v1::RequestWorkResponse work;
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
    ASSERT_TRUE(work.has_lease());
    const int64_t lease = work.lease().lease_id();

    const CommandResult stop = cluster->cli({"stop", std::to_string(run.id())});
    ASSERT_EQ(stop.status, 0) << stop.err;
    v1::HeartbeatRequest beat;
    beat.set_worker_id(worker);
    beat.add_lease_ids(lease);
    v1::HeartbeatResponse told;
    ASSERT_TRUE(stub->Heartbeat(Cluster::context(cluster->worker_token).get(), beat, &told).ok());
    ASSERT_EQ(told.stop_lease_ids_size(), 1);
    EXPECT_EQ(told.stop_lease_ids(0), lease);
    v1::ReportResultsResponse ack;
    EXPECT_EQ(stub->ReportResults(Cluster::context(cluster->worker_token).get(),
                                  report(worker, lease, 1, {0}), &ack)
                  .error_code(),
              grpc::StatusCode::FAILED_PRECONDITION);
    work.Clear();
    ASSERT_TRUE(request_work(*stub, cluster->worker_token, worker, &work).ok());
    EXPECT_FALSE(work.has_lease());
    EXPECT_GT(work.retry_after_ms(), 0u);
    const CommandResult again = cluster->cli({"stop", std::to_string(run.id())});
    EXPECT_EQ(again.status, 1);
    EXPECT_NE(again.err.find("already stopped"), std::string::npos) << again.err;
    EXPECT_EQ(cluster->query("SELECT state = 'stopped' AND result = 'stopped by user' FROM runs"),
              1);
    EXPECT_EQ(cluster->query("SELECT games FROM run_summary"), 0);
}

TEST_F(ServiceTest, WorkerRefusesAVersionWithAnotherBenchSignature) {
    cluster = std::make_unique<Cluster>(std::vector<std::string>{"--heartbeat-seconds", "1"});
    ASSERT_EQ(cluster->cli({"versions", "add", "a", "--bench", "12345"}).status, 0);
    cluster->add_version("b");
    v1::RunStatus run;
    ASSERT_TRUE(submit(fixed_games_spec(10), &run, cluster->user_token).ok());
    cluster->start_worker("honest", 1);
    wait_until([&] { return cluster->query("SELECT count(*) FROM bench_mismatches") > 0; }, 120s,
               200ms);
    const CommandResult show = cluster->cli({"show", std::to_string(run.id())});
    EXPECT_NE(show.out.find("bench mismatch:"), std::string::npos) << show.out;
    EXPECT_NE(show.out.find("expected 12345"), std::string::npos) << show.out;
    EXPECT_EQ(cluster->query("SELECT count(*) FROM batches WHERE state = 'released'"), 1);
    EXPECT_EQ(cluster->query("SELECT games FROM run_summary"), 0);
    EXPECT_EQ(cluster->query("SELECT free_pairs FROM runs"),
              cluster->query("SELECT pairs FROM batches"));
}

TEST_F(ServiceTest, ARestartedWorkerReadsItsBenchSignaturesFromTheBenchCache) {
    // A cache of its own, so that the first computations happen here.
    const std::string cache =
        ::testing::TempDir() + "sparring-bench-cache-" + std::to_string(getpid());
    std::filesystem::remove_all(cache);
    ASSERT_EQ(setenv(kBenchCacheVariable, cache.c_str(), 1), 0);
    cluster = std::make_unique<Cluster>();
    // Versions a and b have the same parameters: the CLI computes a's bench and reads b's.
    const CommandResult a = cluster->cli({"versions", "add", "a"});
    ASSERT_EQ(a.status, 0) << a.err;
    EXPECT_NE(a.err.find("computing the bench signature"), std::string::npos) << a.err;
    const CommandResult b = cluster->cli({"versions", "add", "b"});
    ASSERT_EQ(b.status, 0) << b.err;
    EXPECT_EQ(b.err.find("computing the bench signature"), std::string::npos) << b.err;
    EXPECT_EQ(cluster->query("SELECT count(DISTINCT bench) FROM versions"), 1);
    EXPECT_GT(cluster->query("SELECT min(bench) FROM versions"), 0);

    v1::RunStatus run;
    ASSERT_TRUE(submit(fixed_games_spec(2), &run, cluster->user_token).ok());
    Process& first = cluster->start_worker("first", 1);
    EXPECT_EQ(cluster->wait_for_run(run.id(), 120s).games(), 2u);
    first.signal(SIGTERM);
    ASSERT_TRUE(first.wait_exit(30s));
    // The worker is another executable: it computes a's bench and reads b's.
    EXPECT_EQ(count_in(first.log_path(), "read from the bench cache"), 1u) << first.log_path();

    // One entry of the CLI and one of the worker, private to the user.
    size_t entries = 0;
    for (const auto& entry : std::filesystem::directory_iterator(cache)) {
        ++entries;
        EXPECT_EQ(entry.status().permissions(),
                  std::filesystem::perms::owner_read | std::filesystem::perms::owner_write)
            << entry.path();
    }
    EXPECT_EQ(entries, 2u);
    EXPECT_EQ(std::filesystem::status(cache).permissions(), std::filesystem::perms::owner_all);

    ASSERT_TRUE(submit(fixed_games_spec(2), &run, cluster->user_token).ok());
    Process& second = cluster->start_worker("second", 1);
    EXPECT_EQ(cluster->wait_for_run(run.id(), 120s).games(), 2u);
    EXPECT_EQ(count_in(second.log_path(), "read from the bench cache"), 2u) << second.log_path();
    EXPECT_EQ(cluster->query("SELECT count(*) FROM bench_mismatches"), 0);
    unsetenv(kBenchCacheVariable);
}

TEST_F(ServiceTest, HealthCheckingAnswersServing) {
    cluster = std::make_unique<Cluster>();
    grpc::GenericStub stub(
        grpc::CreateChannel(cluster->address, grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + 10s);
    const grpc::Slice empty;  // HealthCheckRequest{service: ""} encodes to no bytes
    const grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, "/grpc.health.v1.Health/Check", grpc::StubOptions(), &request,
                   &response, [&done](grpc::Status status) { done.set_value(status); });
    const grpc::Status status = done.get_future().get();
    ASSERT_TRUE(status.ok()) << status.error_message();
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(response.Dump(&slices).ok());
    std::string bytes;
    for (const grpc::Slice& slice : slices)
        bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    EXPECT_EQ(bytes, std::string("\x08\x01", 2));  // HealthCheckResponse{status: SERVING}
}

TEST_F(ServiceTest, TlsServesVerifiedClientsOnly) {
    const std::string dir = ::testing::TempDir() + "sparring-tls-" + std::to_string(getpid());
    std::filesystem::create_directories(dir);
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=localhost "
        "-addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " +
        dir + "/key.pem -out " + dir + "/cert.pem 2>/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << "openssl (Debian package openssl) is needed";
    cluster = std::make_unique<Cluster>(
        std::vector<std::string>{"--tls-cert", dir + "/cert.pem", "--tls-key", dir + "/key.pem"});
    cluster->tls_ca = dir + "/cert.pem";
    const CommandResult secure = cluster->cli({"runs"});
    EXPECT_EQ(secure.status, 0) << secure.err;
    cluster->tls_ca.clear();
    const CommandResult plain = cluster->cli({"runs", "--timeout", "2"});
    EXPECT_EQ(plain.status, 1);
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace sparring::testing
