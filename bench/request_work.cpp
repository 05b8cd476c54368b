// sparring-bench-request-work: the cost of one RequestWork (a lease) against the number of
// active runs, on the core and a SQLite file as the coordinator's writer runs them: one
// transaction a call, of which the core's work is timed (not the commit's disk write, the same
// for any number of runs). Each lease is handed back (untimed) before the next request, so every
// request chooses among the same runs. Reports each size's p50 and p99 (BENCHMARKS.md, issue 49),
// and with 10,000 runs of 100 users (issue 52, fair share); and the scheduler's pool alone.
//
//   build/bench/sparring-bench-request-work --benchmark_repetitions=1
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "coordinator/domain/core.h"
#include "coordinator/domain/scheduler.h"
#include "coordinator/kinds/registry.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator {
namespace {

// A coordinator's database in a temporary directory with `runs` active regression runs between
// two built-in versions and one registered worker; removed with the object.
class Setup {
  public:
    // The runs belong to `owners` users in turn (fair share groups them per user).
    explicit Setup(int runs, int owners = 1) {
        std::random_device random;
        dir_ = std::filesystem::temp_directory_path() /
               ("sparring-bench-" + std::to_string(random()) + std::to_string(random()));
        std::filesystem::create_directories(dir_);
        storage_ = std::make_unique<SqliteStorage>((dir_ / "coordinator.db").string());
        Core::Options options;
        options.kinds = all_run_kinds();
        options.pairs_per_thread = 2;
        core_ = std::make_unique<Core>(options, [] { return int64_t(1'000'000); });
        write([&](Storage& s) {
            for (const char* name : {"test", "base"}) {
                Version v;
                v.name = name;
                v.preset = "default";
                v.bench = 123456;
                check(core_->add_version(s, v).status());
            }
            for (int i = 0; i < runs; ++i) check(core_->submit_run(s, spec(i, owners)).status());
            const std::string secret = core_->create_token(s, Role::Worker, "bench");
            absl::StatusOr<Caller> caller = core_->authenticate(s, secret, Role::Worker);
            check(caller.status());
            caller_ = *caller;
            Worker w;
            w.name = "bench";
            w.cores = 2;
            w.concurrency = 2;
            w.memory_mb = 4096;
            absl::StatusOr<Worker> worker = core_->register_worker(s, caller_, w);
            check(worker.status());
            worker_id_ = worker->id;
        });
    }

    ~Setup() {
        storage_.reset();
        std::error_code ignored;
        std::filesystem::remove_all(dir_, ignored);
    }

    // Leases work in a transaction of its own and returns its lease id; adds the time the core
    // took to *elapsed.
    int64_t request(std::chrono::steady_clock::duration* elapsed = nullptr) {
        int64_t lease = 0;
        write([&](Storage& s) {
            const auto start = std::chrono::steady_clock::now();
            absl::StatusOr<std::optional<LeaseGrant>> grant =
                core_->request_work(s, caller_, worker_id_);
            if (elapsed) *elapsed += std::chrono::steady_clock::now() - start;
            check(grant.status());
            if (!grant->has_value()) throw std::runtime_error("no work leased");
            lease = (*grant)->lease.id;
        });
        return lease;
    }

    // Hands a lease back, its pairs to their run's pool.
    void release(int64_t lease) {
        write([&](Storage& s) {
            Release r;
            r.worker_id = worker_id_;
            r.lease_id = lease;
            check(core_->release_lease(s, caller_, r).status());
        });
    }

  private:
    template <typename Fn>
    void write(Fn fn) {
        storage_->begin(true);
        fn(*storage_);
        storage_->commit();
        storage_->take_committed();
    }

    static void check(const absl::Status& status) {
        if (!status.ok()) throw std::runtime_error(std::string(status.message()));
    }

    // Returns a regression run's spec of 10,000 games at 500 nodes, priorities spread over 0..4,
    // of one of `owners` users.
    static RunSpec spec(int i, int owners) {
        RunSpec s;
        s.kind = RunKind::Regression;
        s.test_version = "test";
        s.base_version = "base";
        s.time_control.kind = TimeControl::Kind::Nodes;
        s.time_control.nodes = 500;
        s.book.openings.push_back(
            {"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", {"e2e4"}});
        s.book.source = "bench.epd";
        s.games = 10'000;
        s.priority = i % 5;
        s.sprt.elo0 = 0;
        s.sprt.elo1 = 10;
        s.sprt.alpha = 0.05;
        s.sprt.beta = 0.05;
        s.sprt.model = stats::Model::Logistic;
        s.owner = owners == 1 ? "bench" : "user" + std::to_string(i % owners);
        return s;
    }

    std::filesystem::path dir_;
    std::unique_ptr<SqliteStorage> storage_;
    std::unique_ptr<Core> core_;
    Caller caller_;
    int64_t worker_id_ = 0;
};

// Times RequestWork with state.range(0) active runs of state.range(1) users; p50 and p99 in
// microseconds as counters.
void BM_RequestWork(benchmark::State& state) {
    Setup setup(int(state.range(0)), int(state.range(1)));
    setup.release(setup.request());  // the first request reads every active run once
    std::vector<double> micros;
    for (auto _ : state) {
        std::chrono::steady_clock::duration elapsed{};
        const int64_t lease = setup.request(&elapsed);
        state.SetIterationTime(std::chrono::duration<double>(elapsed).count());
        micros.push_back(std::chrono::duration<double, std::micro>(elapsed).count());
        setup.release(lease);
    }
    std::sort(micros.begin(), micros.end());
    const auto at = [&](double q) { return micros[size_t(q * double(micros.size() - 1))]; };
    state.counters["p50_us"] = at(0.50);
    state.counters["p99_us"] = at(0.99);
}

// Times the scheduler's own work for one lease, without storage: the pool's first choice among
// state.range(0) runs of state.range(1) users, the chosen run put back with 2 more cores (the
// lease) and again with 2 fewer (its end), as the core's events make it (issue 52, fair share).
void BM_CandidatePool(benchmark::State& state) {
    CandidatePool pool;
    bool all = false;
    pool.take_touched(&all);
    std::vector<RunCandidate> runs;
    for (int i = 0; i < state.range(0); ++i) {
        RunCandidate c;
        c.run_id = i + 1;
        c.priority = i % 5;
        c.version_ids = {1, 2};
        c.memory_mb_per_game = 32;
        c.owner = "user" + std::to_string(i % state.range(1));
        runs.push_back(c);
        pool.put(c);
    }
    WorkerProfile worker;
    worker.concurrency = 2;
    worker.memory_mb = 4096;
    for (auto _ : state) {
        const std::optional<int64_t> chosen =
            pool.first([&](const RunCandidate& c) { return incapability(c, worker).empty(); });
        RunCandidate& c = runs[size_t(*chosen - 1)];
        c.active_cores += 2;
        pool.put(c);
        c.active_cores -= 2;
        c.served_pairs += 4;
        pool.put(c);
    }
}

BENCHMARK(BM_CandidatePool)->Args({10, 1})->Args({10'000, 1})->Args({10'000, 100});

BENCHMARK(BM_RequestWork)
    ->Args({10, 1})
    ->Args({10'000, 1})
    ->Args({10'000, 100})  // fair share: the runs of 100 users
    ->Iterations(5000)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace sparring::coordinator

BENCHMARK_MAIN();
