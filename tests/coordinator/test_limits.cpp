// The core's bounds (issue 16) on a temporary SQLite file with a fake clock: memory figures
// with checked arithmetic, per-token caps on workers and leases, the life of a lease without
// reports, and the back-off from a run whose leases keep failing.
#include <gtest/gtest.h>

#include <climits>
#include <map>
#include <vector>

#include "coordinator/domain/scheduler.h"
#include "coordinator/domain/validation.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

// Returns a UCI version of /bin/engine with the given options.
Version uci_version(const std::string& name, std::map<std::string, std::string> options) {
    Version v;
    v.name = name;
    v.kind = Version::Kind::Uci;
    v.uci_command = "/bin/engine";
    v.uci_options = std::move(options);
    return v;
}

class LimitsTest : public CoreFixture {
  protected:
    // Replaces the core by one with the options changed by fn.
    template <typename Fn>
    void configure(Fn fn) {
        Core::Options options = core->options();
        fn(options);
        core = std::make_unique<Core>(options, [this] { return now.load(); });
    }

    // Registers a worker under the caller's token; returns the status of the registration.
    absl::StatusOr<Worker> register_as(const Caller& caller, int64_t memory_mb = 4096,
                                       std::vector<std::string> engines = {}) {
        Worker w;
        w.name = "w";
        w.cores = 1;
        w.concurrency = 1;
        w.memory_mb = memory_mb;
        w.uci_engines = std::move(engines);
        return transact([&](Storage& s) { return core->register_worker(s, caller, w); });
    }

    // Returns a new worker token's caller.
    Caller worker_token() { return Caller{add_token(Role::Worker, "fleet"), Role::Worker, {}, {}}; }

    absl::StatusOr<std::optional<LeaseGrant>> work(const Caller& caller, int64_t worker) {
        return transact([&](Storage& s) { return core->request_work(s, caller, worker); });
    }

    absl::StatusOr<uint32_t> fail(const Caller& caller, int64_t worker, int64_t lease) {
        Release r;
        r.worker_id = worker;
        r.lease_id = lease;
        r.reason = Release::Reason::EngineFailure;
        r.message = "engine exited: bad FEN";
        return transact([&](Storage& s) { return core->release_lease(s, caller, r); });
    }

    // Registers a worker with memory_mb and /bin/engine; returns whether it is given a lease.
    bool leased(const Caller& caller, int64_t memory_mb) {
        const absl::StatusOr<Worker> worker = register_as(caller, memory_mb, {"/bin/engine"});
        EXPECT_TRUE(worker.ok()) << worker.status();
        if (!worker.ok()) return false;
        const auto lease = work(caller, worker->id);
        EXPECT_TRUE(lease.ok()) << lease.status();
        return lease.ok() && lease->has_value();
    }

    coordinator::Run run_now(int64_t id) {
        return *transact([&](Storage& s) { return core->get_run(s, id); });
    }
    // Returns what is shown of a run alone, as GetRun reads it beside the run.
    RunDetails details_now(int64_t id) {
        RunDetails details;
        EXPECT_TRUE(transact([&](Storage& s) { return core->get_run(s, id, &details); }).ok());
        return details;
    }
};

TEST_F(LimitsTest, TwoHashIntMaxVersionsGetNoLeaseOnAOneMebibyteWorker) {
    // As stored before the bound: straight into storage, past the checks.
    storage->begin(true);
    for (const char* name : {"huge-a", "huge-b"})
        storage->insert_version(uci_version(name, {{"Hash", "9223372036854775807"}}));
    storage->commit();
    RunSpec s = spec(RunKind::FixedGames, 10, "huge-a", "huge-b");
    submit(s);
    EXPECT_FALSE(leased(worker_token(), 1));

    // The new bound refuses such a version, and the memory check cannot overflow.
    Version v = uci_version("huge-c", {{"Hash", "9223372036854775807"}});
    EXPECT_EQ(check_version(v).code(), absl::StatusCode::kInvalidArgument);
    RunCandidate run;
    run.memory_mb_per_game = INT64_MAX / 2 + 1;
    WorkerProfile worker;
    worker.concurrency = 4;
    worker.memory_mb = 1;
    EXPECT_FALSE(incapability(run, worker).empty());
}

TEST_F(LimitsTest, HashInAnySpellingCountsAgainstTheWorkersMemory) {
    // "hash" is Hash to an engine: 800 MiB for each engine, so 1600 MiB a game.
    for (const auto& [name, hash] : {std::pair{"lower", "hash"}, std::pair{"upper", "HASH"}}) {
        Version v = uci_version(name, {{hash, "800"}});
        ASSERT_TRUE(check_version(v).ok()) << check_version(v);
        storage->begin(true);
        storage->insert_version(v);
        storage->commit();
    }
    submit(spec(RunKind::FixedGames, 10, "lower", "upper"));
    const Caller caller = worker_token();
    EXPECT_FALSE(leased(caller, 100));
    EXPECT_TRUE(leased(caller, 1600));
}

TEST(UciVersionChecks, OptionNamesAreComparedAsEnginesCompareThem) {
    const auto refusal = [](std::map<std::string, std::string> options) {
        Version with = uci_version("uci-a", std::move(options));
        const absl::Status status = check_version(with);
        EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
        return std::string(status.message());
    };
    EXPECT_NE(refusal({{"Debug  Log  File", "/tmp/x"}}).find("write files"), std::string::npos);
    EXPECT_NE(refusal({{"debug log file", "/tmp/x"}}).find("write files"), std::string::npos);
    EXPECT_NE(refusal({{"LogFile", "/tmp/x"}}).find("write files"), std::string::npos);
    // Padding is refused as before, whatever the name.
    EXPECT_NE(refusal({{" Debug Log File ", "/tmp/x"}}).find("start or end with a space"),
              std::string::npos);
    EXPECT_NE(refusal({{"hash", "800000"}}).find("Hash must be"), std::string::npos);
    EXPECT_NE(refusal({{"HASH", "lots"}}).find("Hash must be"), std::string::npos);
    EXPECT_NE(refusal({{"Hash", "16"}, {"hash", "800"}}).find("are one option"), std::string::npos);
    // The engine splits a name at the word "value", wherever it stands.
    EXPECT_NE(refusal({{"Hash value", "1"}}).find("'value'"), std::string::npos);
    Version fine = uci_version("uci-a", {{"hash", "800"}, {"Ha sh", "800000"}});
    EXPECT_TRUE(check_version(fine).ok()) << check_version(fine);
    // A run gives its engines their threads, 1 included: a version may set none, in any
    // spelling (issue 49).
    for (const char* threads : {"Threads", "threads", "THREADS"}) {
        const std::string why = refusal({{threads, "1"}});
        EXPECT_NE(why.find("may not set them"), std::string::npos) << threads << ": " << why;
    }
}

// The book is stored one opening a line with a tab before its moves: a FEN or move holding a
// line break or a tab would split or shift openings when the book is read back.
TEST(TextChecks, ABookLineCannotBeSplitOrShifted) {
    const std::string start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    EXPECT_TRUE(check_opening({start, {"e2e4"}}, 1).ok());
    for (const Opening& bad : {Opening{start + "\n" + start, {}}, Opening{start + "\te2e4", {}},
                               Opening{start, {"e2e4\ne7e5"}}, Opening{start, {"e2e4\t"}}}) {
        const absl::Status status = check_opening(bad, 3);
        EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << bad.fen;
        EXPECT_NE(status.message().find("control character"), std::string::npos) << status;
    }
}

// Names and descriptions are shown in terminals and pages: no character may reorder what
// follows it or break a line unseen (a right-to-left override can make "exe.txt" read
// "txt.exe"), while ordinary text in any script passes.
TEST(TextChecks, NamesAndDescriptionsRefuseBidiOverridesAndLineSeparators) {
    EXPECT_TRUE(check_description("Grünfeld tweak — Ш, 王, שלום\nsecond line").ok());
    const std::vector<std::string> refused = {
        "run \xe2\x80\xae"
        "txt.exe",  // U+202E
        "a\xe2\x80\xa8"
        "b",  // U+2028
        "a\xe2\x81\xa6"
        "b",  // U+2066
        "a\xc2\x85"
        "b"};  // U+0085
    for (const std::string& bad : refused)
        EXPECT_EQ(check_description(bad).code(), absl::StatusCode::kInvalidArgument) << bad;
    Worker worker;
    worker.name =
        "box\xe2\x80\xae"
        "eno";
    worker.concurrency = worker.cores = 1;
    EXPECT_EQ(check_worker(worker).code(), absl::StatusCode::kInvalidArgument);
    worker.name = "box-one";
    EXPECT_TRUE(check_worker(worker).ok()) << check_worker(worker);
    Version version = uci_version("uci-a", {});
    version.description = "fine\xe2\x80\xa9then not";
    EXPECT_NE(check_version(version).message().find("bidirectional override"), std::string::npos);
}

TEST(UploadedVersionChecks, OptionsAndArgumentsAreCheckedAsAUciVersionsAre) {
    Version v;
    v.name = "build-a";
    v.kind = Version::Kind::Uploaded;
    v.engine_sha256 = std::string(64, 'a');
    v.uci_options["Hash"] = "16";
    EXPECT_TRUE(check_version(v).ok()) << check_version(v);
    Version threads = v;
    threads.uci_options["Threads"] = "64";
    EXPECT_NE(std::string(check_version(threads).message()).find("may not set them"),
              std::string::npos);

    Version smuggled = v;
    smuggled.uci_options["Hash"] = "16\nsetoption name Debug Log File value /tmp/x\nquit";
    EXPECT_NE(std::string(check_version(smuggled).message()).find("control character"),
              std::string::npos);
    Version log_file = v;
    log_file.uci_options["Debug Log File"] = "/tmp/engine.log";
    EXPECT_NE(std::string(check_version(log_file).message()).find("write files"),
              std::string::npos);
    Version huge_hash = v;
    huge_hash.uci_options["Hash"] = "9223372036854775807";
    EXPECT_NE(std::string(check_version(huge_hash).message()).find("Hash must be"),
              std::string::npos);
    Version argument = v;
    argument.engine_args = {"--net\nquit"};
    EXPECT_NE(std::string(check_version(argument).message()).find("control character"),
              std::string::npos);
}

TEST_F(LimitsTest, OneTokenRegistersAtMostItsCapOfActiveWorkers) {
    configure([](Core::Options& o) { o.max_workers_per_token = 2; });
    const Caller caller = worker_token();
    EXPECT_TRUE(register_as(caller).ok());
    EXPECT_TRUE(register_as(caller).ok());
    const absl::StatusOr<Worker> third = register_as(caller);
    EXPECT_EQ(third.status().code(), absl::StatusCode::kResourceExhausted);
    EXPECT_NE(third.status().message().find("--max-workers-per-token"), std::string::npos);
    EXPECT_TRUE(register_as(worker_token()).ok());         // another token has its own cap
    now += 3 * core->options().heartbeat_interval_ms + 1;  // the first two went quiet
    EXPECT_TRUE(register_as(caller).ok());
}

TEST_F(LimitsTest, OneTokenHoldsAtMostItsCapOfLeases) {
    add_version("test");
    add_version("base", 250);
    configure([](Core::Options& o) { o.max_leases_per_token = 1; });
    submit(spec(RunKind::FixedGames, 100));
    const Caller caller = worker_token();
    const int64_t first = register_as(caller)->id;
    const int64_t second = register_as(caller)->id;
    const auto held = work(caller, first);
    ASSERT_TRUE(held.ok() && held->has_value());
    const auto refused = work(caller, second);
    ASSERT_TRUE(refused.ok());
    EXPECT_FALSE(refused->has_value());
    const Caller other = worker_token();
    const auto elsewhere = work(other, register_as(other)->id);
    EXPECT_TRUE(elsewhere.ok() && elsewhere->has_value());
}

TEST_F(LimitsTest, ALeaseThatEndsGivesItsPlaceUnderTheCapBack) {
    add_version("test");
    add_version("base", 250);
    configure([](Core::Options& o) { o.max_leases_per_token = 2; });
    submit(spec(RunKind::FixedGames, 100));
    const Caller caller = worker_token();
    int64_t workers[3];
    for (int64_t& w : workers) w = register_as(caller)->id;
    const auto first = work(caller, workers[0]);
    ASSERT_TRUE(first.ok() && first->has_value());
    ASSERT_TRUE(work(caller, workers[1]).ok());
    const auto refused = work(caller, workers[2]);
    ASSERT_TRUE(refused.ok());
    EXPECT_FALSE(refused->has_value());
    Release shutdown;
    shutdown.worker_id = workers[0];
    shutdown.lease_id = (*first)->lease.id;
    ASSERT_TRUE(
        transact([&](Storage& s) { return core->release_lease(s, caller, shutdown); }).ok());
    const auto granted = work(caller, workers[2]);
    ASSERT_TRUE(granted.ok());
    EXPECT_TRUE(granted->has_value());
    const auto full = work(caller, workers[0]);  // two out again
    ASSERT_TRUE(full.ok());
    EXPECT_FALSE(full->has_value());
}

TEST_F(LimitsTest, HeartbeatsAloneCannotKeepALeaseForever) {
    add_version("test");
    add_version("base", 250);
    configure([](Core::Options& o) { o.max_lease_silence_ms = 30'000; });
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 100));
    const Caller caller = worker_token();
    const int64_t worker = register_as(caller)->id;
    const auto lease = work(caller, worker);
    ASSERT_TRUE(lease.ok() && lease->has_value());
    const int64_t id = (*lease)->lease.id;
    bool stopped = false;
    for (int beat = 1; beat <= 10 && !stopped; ++beat) {
        now += 5'000;
        auto ack = transact([&](Storage& s) { return core->heartbeat(s, caller, worker, {id}); });
        ASSERT_TRUE(ack.ok());
        stopped = !ack->stop_leases.empty();
        EXPECT_EQ(stopped, beat > 6) << "heartbeat at " << 5 * beat << " s";
    }
    EXPECT_TRUE(stopped);
    EXPECT_EQ(run_now(run.id).pairs_leased, 0u);
    EXPECT_EQ(run_now(run.id).free_pairs, (*lease)->lease.pairs);
}

TEST_F(LimitsTest, AWorkerBacksOffARunItKeepsFailingAndTheRunStopsAfterSeveralWorkers) {
    add_version("test");
    add_version("base", 250);
    configure([](Core::Options& o) {
        o.lease_failures_per_worker = 2;
        o.lease_failure_workers = 2;
    });
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 100));
    const Caller caller = worker_token();
    const int64_t a = register_as(caller)->id;
    for (int i = 0; i < 2; ++i) {
        const auto lease = work(caller, a);
        ASSERT_TRUE(lease.ok() && lease->has_value());
        ASSERT_TRUE(fail(caller, a, (*lease)->lease.id).ok());
    }
    const auto backed_off = work(caller, a);
    ASSERT_TRUE(backed_off.ok());
    EXPECT_FALSE(backed_off->has_value());
    coordinator::Run shown = run_now(run.id);
    EXPECT_EQ(shown.state, RunState::Active);
    const RunDetails details = details_now(run.id);
    ASSERT_EQ(details.lease_failures.size(), 1u);
    EXPECT_EQ(details.lease_failures[0].worker_id, a);
    EXPECT_EQ(details.lease_failures[0].count, 2);
    EXPECT_EQ(details.lease_failures[0].message, "engine exited: bad FEN");

    const int64_t b = register_as(caller)->id;
    const auto lease = work(caller, b);
    ASSERT_TRUE(lease.ok() && lease->has_value());
    ASSERT_TRUE(fail(caller, b, (*lease)->lease.id).ok());
    shown = run_now(run.id);
    EXPECT_EQ(shown.state, RunState::Stopped);
    EXPECT_NE(shown.result.find("failed on 2 workers"), std::string::npos) << shown.result;
    EXPECT_NE(shown.result.find("bad FEN"), std::string::npos) << shown.result;
    EXPECT_EQ(run_now(run.id).pairs_leased, 0u);
}

}  // namespace
}  // namespace sparring::coordinator::testing
