#include "fixture.h"

#include <future>
#include <random>

#include "coordinator/kinds/registry.h"

namespace sparring::coordinator::testing {

Core::Options with_run_kinds(Core::Options options) {
    options.kinds = all_run_kinds();
    return options;
}

TempDatabase::TempDatabase() {
    std::random_device random;
    dir_ = std::filesystem::temp_directory_path() /
           ("sparring-test-" + std::to_string(random()) + std::to_string(random()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / "coordinator.db").string();
}

TempDatabase::~TempDatabase() {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
}

CoreFixture::CoreFixture() {
    auto connection = std::make_unique<SqliteStorage>(db.path());
    storage = std::make_unique<SqliteStorage>(db.path());
    Executor::Options write;
    write.write = true;
    executor = std::make_unique<Executor>(std::move(connection), write);
    Core::Options options = with_run_kinds();
    options.lease_ms = 10'000;
    options.pairs_per_thread = 2;
    core = std::make_unique<Core>(options, [this] { return now.load(); });
}

absl::Status CoreFixture::execute(Executor::Job job) {
    std::promise<absl::Status> done;
    std::future<absl::Status> finished = done.get_future();
    executor->submit(std::move(job), [&done](absl::Status status) { done.set_value(status); });
    return finished.get();
}

Version CoreFixture::add_version(const std::string& name, int knight_mg) {
    Version v;
    v.name = name;
    v.preset = "default";
    if (knight_mg) v.overrides["KnightValueMg"] = knight_mg;
    v.bench = 123456;
    auto added = transact([&](Storage& s) { return core->add_version(s, v); });
    EXPECT_TRUE(added.ok()) << added.status();
    return added.value_or(Version{});
}

RunSpec CoreFixture::spec(RunKind kind, uint64_t games, const std::string& test,
                          const std::string& base) const {
    RunSpec s;
    s.kind = kind;
    s.test_version = test;
    s.base_version = base;
    s.time_control.kind = TimeControl::Kind::Nodes;
    s.time_control.nodes = 500;
    for (int i = 0; i < 5; ++i)
        s.book.openings.push_back({"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                                   {i % 2 ? "e2e4" : "d2d4"}});
    s.book.source = "test.epd";
    s.games = games;
    s.sprt.elo0 = 0;
    s.sprt.elo1 = 10;
    s.sprt.alpha = 0.05;
    s.sprt.beta = 0.05;
    s.sprt.model = stats::Model::Logistic;
    return s;
}

coordinator::Run CoreFixture::submit(const RunSpec& s) {
    auto run = transact([&](Storage& st) { return core->submit_run(st, s); });
    EXPECT_TRUE(run.ok()) << run.status();
    return run.value_or(coordinator::Run{});
}

int64_t CoreFixture::add_token(Role role, const std::string& name) {
    int64_t id = 0;
    EXPECT_TRUE(execute([&](Storage& s) {
                    core->create_token(s, role, name);
                    id = s.list_tokens().back().id;
                    return absl::OkStatus();
                }).ok());
    return id;
}

std::pair<Caller, int64_t> CoreFixture::add_worker(int concurrency) {
    std::string secret;
    EXPECT_TRUE(execute([&](Storage& s) {
                    secret = core->create_token(s, Role::Worker, "w");
                    return absl::OkStatus();
                }).ok());
    auto caller = transact([&](Storage& s) { return core->authenticate(s, secret, Role::Worker); });
    EXPECT_TRUE(caller.ok());
    Worker w;
    w.name = "worker";
    w.cores = 4;
    w.memory_mb = 4096;
    w.concurrency = concurrency;
    auto registered = transact([&](Storage& s) { return core->register_worker(s, *caller, w); });
    EXPECT_TRUE(registered.ok()) << registered.status();
    return {*caller, registered->id};
}

Report CoreFixture::report(const LeaseGrant& lease, uint32_t sequence,
                           std::vector<uint32_t> indices, Outcome first, Outcome second) const {
    Report r;
    r.worker_id = lease.lease.worker_id;
    r.lease_id = lease.lease.id;
    r.sequence = sequence;
    for (uint32_t i : indices) {
        PairRecord p;
        p.index = i;
        p.games[0].outcome = first;
        p.games[0].test_white = true;
        p.games[0].pgn = "[Event \"pair " + std::to_string(i) + " a\"]\n\n1-0\n";
        p.games[1].outcome = second;
        p.games[1].test_white = false;
        p.games[1].pgn = "[Event \"pair " + std::to_string(i) + " b\"]\n\n1/2-1/2\n";
        r.pairs.push_back(p);
    }
    return r;
}

}  // namespace sparring::coordinator::testing
