// The domain events: what the core publishes, only for committed work, and the bus that
// delivers them in order, alone and behind the write executor.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <future>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "coordinator/domain/events.h"
#include "coordinator/storage/executor.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

using namespace std::chrono_literals;

// Returns a short text naming an event and what identifies it.
struct Label {
    std::string operator()(const VersionAdded& e) const { return "version " + e.name; }
    std::string operator()(const RunSubmitted& e) const {
        return "submitted " + std::to_string(e.run_id);
    }
    std::string operator()(const RunProgressed& e) const {
        return "progressed " + std::to_string(e.run_id) + " pairs " +
               std::to_string(e.counts.pairs);
    }
    std::string operator()(const RunStopRequested& e) const {
        return "stop requested " + std::to_string(e.run_id) + " by " + e.requested_by;
    }
    std::string operator()(const RunModified& e) const {
        return "modified " + std::to_string(e.run_id) + " by " + e.user;
    }
    std::string operator()(const RunFinished& e) const {
        return "finished " + std::to_string(e.run_id) + " " + e.result;
    }
    std::string operator()(const RunPaused& e) const {
        return "run " + std::to_string(e.run_id) + " paused";
    }
    std::string operator()(const RunResumed& e) const {
        return "run " + std::to_string(e.run_id) + " resumed";
    }
    std::string operator()(const WorkerRegistered& e) const {
        return "registered " + std::to_string(e.worker.id);
    }
    std::string operator()(const WorkerSeen& e) const {
        return "seen " + std::to_string(e.worker_id);
    }
    std::string operator()(const LeaseGranted& e) const {
        return "granted " + std::to_string(e.lease_id) + " pairs " + std::to_string(e.pairs);
    }
    std::string operator()(const LeaseExpired& e) const {
        return "expired " + std::to_string(e.lease_id) + " returned " +
               std::to_string(e.pairs_returned);
    }
    std::string operator()(const LeaseReleased& e) const {
        return "released " + std::to_string(e.lease_id) + " returned " +
               std::to_string(e.pairs_returned);
    }
    std::string operator()(const ReportCounted& e) const {
        return "report " + std::to_string(e.sequence) + " games " + std::to_string(e.games) +
               (e.duplicate ? " duplicate" : "");
    }
    std::string operator()(const TrainingEpochDone& e) const {
        return "epoch " + std::to_string(e.epoch);
    }
    std::string operator()(const WorkerPurged& e) const {
        return "purged worker " + std::to_string(e.worker_id) + " from " +
               std::to_string(e.run_id) + " games " + std::to_string(e.games) + " by " +
               e.purged_by;
    }
    std::string operator()(const WorkerQuarantined& e) const {
        return "quarantined worker " + std::to_string(e.worker_id) + " in " +
               std::to_string(e.run_id);
    }
};

// Records the labels of the events a bus delivers.
class Recorder {
  public:
    explicit Recorder(EventBus& bus)
        : subscription_(bus.subscribe_all([this](const Event& event) {
              std::lock_guard lock(mutex_);
              labels_.push_back(std::visit(Label{}, event));
          })) {}

    // Returns the labels recorded so far and forgets them.
    std::vector<std::string> take() {
        std::lock_guard lock(mutex_);
        return std::exchange(labels_, {});
    }

  private:
    std::mutex mutex_;
    std::vector<std::string> labels_;
    EventBus::Subscription subscription_;
};

class CoreEventTest : public CoreFixture {
  protected:
    CoreEventTest() {
        Core::Options options = with_run_kinds();
        options.lease_ms = 10'000;
        options.pairs_per_thread = 2;
        core = std::make_unique<Core>(
            options, [this] { return now.load(); }, &bus);
    }

    // Returns the labels of the events delivered. The write executor runs what its committed
    // transactions deferred before it answers their jobs; what the tests' own connection
    // deferred runs here, as the executor would after a commit.
    std::vector<std::string> deliver() {
        for (const std::function<void()>& fn : storage->take_committed()) fn();
        return recorder.take();
    }

    EventBus bus;
    Recorder recorder{bus};
};

TEST_F(CoreEventTest, CoreReportsWhatARunGoesThrough) {
    add_version("test");
    add_version("base", 250);
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 4));  // 2 pairs
    // Named, not bound: clang 14 (the sanitizer build) cannot capture structured bindings.
    auto worker_added = add_worker(1);
    Caller& caller = worker_added.first;
    const int64_t worker = worker_added.second;
    const std::string w = std::to_string(worker);
    EXPECT_EQ(deliver(),
              (std::vector<std::string>{"version test", "version base",
                                        "submitted " + std::to_string(run.id), "registered " + w}));

    auto lease = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
    ASSERT_TRUE(lease.ok() && lease->has_value());
    const std::string l = std::to_string((*lease)->lease.id);
    EXPECT_EQ(deliver(), (std::vector<std::string>{"seen " + w, "granted " + l + " pairs 2"}));
    // A repeated request re-sends the lease: no new grant.
    ASSERT_TRUE(transact([&](Storage& s) { return core->request_work(s, caller, worker); }).ok());
    EXPECT_EQ(deliver(), std::vector<std::string>{"seen " + w});

    const Report first = report(**lease, 1, {0});
    ASSERT_TRUE(transact([&](Storage& s) { return core->report_results(s, caller, first); }).ok());
    EXPECT_EQ(deliver(),
              (std::vector<std::string>{"seen " + w, "report 1 games 2",
                                        "progressed " + std::to_string(run.id) + " pairs 1"}));
    const Report last = report(**lease, 2, {1});
    ASSERT_TRUE(transact([&](Storage& s) { return core->report_results(s, caller, last); }).ok());
    EXPECT_EQ(deliver(),
              (std::vector<std::string>{"seen " + w, "report 2 games 2",
                                        "progressed " + std::to_string(run.id) + " pairs 2",
                                        "finished " + std::to_string(run.id) + " completed"}));
    ASSERT_TRUE(transact([&](Storage& s) { return core->report_results(s, caller, last); }).ok());
    EXPECT_EQ(deliver(), (std::vector<std::string>{"seen " + w, "report 2 games 2 duplicate"}));
}

TEST_F(CoreEventTest, LeasesExpiredReleasedAndRunsStoppedArePublished) {
    add_version("test");
    add_version("base", 250);
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    // Named, not bound: clang 14 (the sanitizer build) cannot capture structured bindings.
    auto worker_added = add_worker(1);
    Caller& caller = worker_added.first;
    const int64_t worker = worker_added.second;
    auto lease = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
    ASSERT_TRUE(lease.ok() && lease->has_value());
    deliver();

    now += 10'001;
    transact([&](Storage& s) {
        core->expire_leases(s);
        return absl::OkStatus();
    }).IgnoreError();
    EXPECT_EQ(deliver(), std::vector<std::string>{"expired " + std::to_string((*lease)->lease.id) +
                                                  " returned 2"});

    lease = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
    ASSERT_TRUE(lease.ok() && lease->has_value());
    deliver();
    Release release;
    release.worker_id = worker;
    release.lease_id = (*lease)->lease.id;
    ASSERT_TRUE(transact([&](Storage& s) { return core->release_lease(s, caller, release); }).ok());
    EXPECT_EQ(deliver(), (std::vector<std::string>{
                             "seen " + std::to_string(worker),
                             "released " + std::to_string((*lease)->lease.id) + " returned 2"}));

    ASSERT_TRUE(
        transact([&](Storage& s) { return core->stop_run(s, run.id, "ipv4:127.0.0.1:5"); }).ok());
    EXPECT_EQ(deliver(), (std::vector<std::string>{
                             "stop requested " + std::to_string(run.id) + " by ipv4:127.0.0.1:5",
                             "finished " + std::to_string(run.id) + " stopped by user"}));
}

TEST_F(CoreEventTest, AQuarantinedWorkerAndAPurgeArePublished) {
    Core::Options options = core->options();
    options.quarantine_p = 0.001;
    options.pairs_per_thread = 100;
    core = std::make_unique<Core>(
        options, [this] { return now.load(); }, &bus);
    add_version("test");
    add_version("base", 250);
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 2000));
    // Named, not bound: clang 14 (the sanitizer build) cannot capture structured bindings.
    auto honest_added = add_worker(1);
    Caller& honest_caller = honest_added.first;
    const int64_t honest = honest_added.second;
    auto forger_added = add_worker(1);
    Caller& forger_caller = forger_added.first;
    const int64_t forger = forger_added.second;
    const auto lease_of = [&](const Caller& caller, int64_t worker) {
        auto lease = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
        EXPECT_TRUE(lease.ok() && lease->has_value());
        return **lease;
    };
    const LeaseGrant honest_lease = lease_of(honest_caller, honest);
    const LeaseGrant forger_lease = lease_of(forger_caller, forger);
    // The honest worker's 100 pairs: 10 LL, 20 LD, 40 DD, 20 WD, 10 WW.
    const std::vector<std::pair<Outcome, Outcome>> classes = {{Outcome::Loss, Outcome::Loss},
                                                              {Outcome::Loss, Outcome::Draw},
                                                              {Outcome::Draw, Outcome::Draw},
                                                              {Outcome::Win, Outcome::Draw},
                                                              {Outcome::Win, Outcome::Win}};
    const std::vector<uint32_t> sizes = {10, 20, 40, 20, 10};
    uint32_t next = 0;
    for (size_t c = 0; c < classes.size(); ++c) {
        std::vector<uint32_t> indices;
        for (uint32_t i = 0; i < sizes[c]; ++i) indices.push_back(next++);
        const Report r =
            report(honest_lease, uint32_t(c + 1), indices, classes[c].first, classes[c].second);
        ASSERT_TRUE(
            transact([&](Storage& s) { return core->report_results(s, honest_caller, r); }).ok());
    }
    // The forger's 30 pairs are all won twice, and it hands the rest of its lease back.
    std::vector<uint32_t> forged(30);
    for (uint32_t i = 0; i < 30; ++i) forged[i] = i;
    const Report r = report(forger_lease, 1, forged, Outcome::Win, Outcome::Win);
    ASSERT_TRUE(
        transact([&](Storage& s) { return core->report_results(s, forger_caller, r); }).ok());
    Release release;
    release.worker_id = forger;
    release.lease_id = forger_lease.lease.id;
    ASSERT_TRUE(
        transact([&](Storage& s) { return core->release_lease(s, forger_caller, release); }).ok());
    deliver();

    const auto refused =
        transact([&](Storage& s) { return core->request_work(s, forger_caller, forger); });
    ASSERT_TRUE(refused.ok());
    EXPECT_FALSE(refused->has_value());
    const std::string w = std::to_string(forger);
    const std::string id = std::to_string(run.id);
    EXPECT_EQ(deliver(),
              (std::vector<std::string>{"seen " + w, "quarantined worker " + w + " in " + id}));

    const int64_t alice = add_token(Role::User, "alice");
    const Caller user{alice, Role::Admin, "alice", {}};  // the run has no owner
    ASSERT_TRUE(
        transact([&](Storage& s) { return core->purge_worker(s, user, run.id, forger); }).ok());
    EXPECT_EQ(deliver(),
              (std::vector<std::string>{"purged worker " + w + " from " + id + " games 60 by alice",
                                        "progressed " + id + " pairs 100"}));
}

// A worker whose games are lost on time far more often than the rest of the run's (an
// overloaded machine) is quarantined like a bad fit, though its results fit; every game lost
// by a fault is counted per worker and per version at fault.
TEST_F(CoreEventTest, AWorkerLosingFarMoreGamesOnTimeIsQuarantinedAndFaultsAreCounted) {
    Core::Options options = core->options();
    options.quarantine_p = 0.001;
    options.pairs_per_thread = 100;
    core = std::make_unique<Core>(
        options, [this] { return now.load(); }, &bus);
    add_version("test");
    add_version("base", 250);
    const coordinator::Run run = submit(spec(RunKind::FixedGames, 2000));
    auto honest_added = add_worker(1);
    const Caller honest_caller = honest_added.first;
    const int64_t honest = honest_added.second;
    auto slow_added = add_worker(1);
    const Caller slow_caller = slow_added.first;
    const int64_t slow = slow_added.second;
    const auto lease_of = [&](const Caller& caller, int64_t worker) {
        auto lease = transact([&](Storage& s) { return core->request_work(s, caller, worker); });
        EXPECT_TRUE(lease.ok() && lease->has_value());
        return **lease;
    };
    const LeaseGrant honest_lease = lease_of(honest_caller, honest);
    const LeaseGrant slow_lease = lease_of(slow_caller, slow);
    const std::vector<std::pair<Outcome, Outcome>> classes = {{Outcome::Loss, Outcome::Loss},
                                                              {Outcome::Loss, Outcome::Draw},
                                                              {Outcome::Draw, Outcome::Draw},
                                                              {Outcome::Win, Outcome::Draw},
                                                              {Outcome::Win, Outcome::Win}};
    // Both workers' pairs in the same proportions, so that their results fit: the honest one
    // 100 pairs (10 LL, 20 LD, 40 DD, 20 WD, 10 WW) with one crash of the test version, the
    // slow one 30 (3, 6, 12, 6, 3) with every decisive game lost on time.
    const auto play = [&](const Caller& caller, const LeaseGrant& lease, uint32_t scale,
                          GameEnding decisive, uint32_t faulty_games) {
        uint32_t next = 0;
        uint32_t faulty = 0;
        const std::vector<uint32_t> sizes = {1, 2, 4, 2, 1};
        for (size_t c = 0; c < classes.size(); ++c) {
            std::vector<uint32_t> indices;
            for (uint32_t i = 0; i < sizes[c] * scale; ++i) indices.push_back(next++);
            Report r = report(lease, uint32_t(c + 1), indices, classes[c].first, classes[c].second);
            for (PairRecord& pair : r.pairs)
                for (GameRecord& game : pair.games) {
                    game.ending = GameEnding::Rules;
                    if (game.outcome != Outcome::Draw && faulty < faulty_games) {
                        game.ending = decisive;
                        ++faulty;
                    }
                }
            ASSERT_TRUE(
                transact([&](Storage& s) { return core->report_results(s, caller, r); }).ok());
        }
        EXPECT_EQ(faulty, faulty_games);
    };
    play(honest_caller, honest_lease, 10, GameEnding::Crash, 1);
    play(slow_caller, slow_lease, 3, GameEnding::TimeLoss, 24);
    Release release;
    release.worker_id = slow;
    release.lease_id = slow_lease.lease.id;
    ASSERT_TRUE(
        transact([&](Storage& s) { return core->release_lease(s, slow_caller, release); }).ok());

    storage->begin(false);
    RunDetails details;
    const absl::StatusOr<coordinator::Run> read = core->get_run(*storage, run.id, &details);
    storage->commit();
    ASSERT_TRUE(read.ok()) << read.status();
    ASSERT_EQ(details.workers.size(), 2u);
    for (const WorkerFit& w : details.workers) {
        EXPECT_GT(w.fit.p_value, 0.001) << w.name << ": the results alone fit";
        if (w.worker_id == slow) {
            EXPECT_EQ(w.time_losses, 24);
            EXPECT_LT(w.time_loss_p, 1e-6);
            EXPECT_TRUE(w.quarantined);
        } else {
            EXPECT_EQ(w.time_losses, 0);
            EXPECT_EQ(w.time_loss_p, 1);
            EXPECT_FALSE(w.quarantined);
        }
    }
    // The slow worker's 24 time losses: 12 of the test version (LL and LD pairs), 12 of the base.
    std::map<std::tuple<int64_t, bool, GameEnding>, int64_t> faults;
    for (const FaultCount& f : details.faults)
        faults[{f.worker_id, f.test_version, f.fault}] = f.games;
    EXPECT_EQ(faults, (std::map<std::tuple<int64_t, bool, GameEnding>, int64_t>{
                          {{slow, true, GameEnding::TimeLoss}, 12},
                          {{slow, false, GameEnding::TimeLoss}, 12},
                          {{honest, true, GameEnding::Crash}, 1}}));

    deliver();
    const auto refused =
        transact([&](Storage& s) { return core->request_work(s, slow_caller, slow); });
    ASSERT_TRUE(refused.ok());
    EXPECT_FALSE(refused->has_value());
    EXPECT_EQ(deliver(), (std::vector<std::string>{"seen " + std::to_string(slow),
                                                   "quarantined worker " + std::to_string(slow) +
                                                       " in " + std::to_string(run.id)}));
}

TEST_F(CoreEventTest, NothingIsPublishedBeforeTheCommitOrAfterARollback) {
    add_version("test");
    add_version("base", 250);
    deliver();

    storage->begin(true);
    ASSERT_TRUE(core->submit_run(*storage, spec(RunKind::FixedGames, 20)).ok());
    EXPECT_TRUE(storage->take_committed().empty()) << "deferred until the commit";
    storage->rollback();
    EXPECT_TRUE(deliver().empty()) << "a rolled-back transaction publishes nothing";

    // A job that fails after doing work is rolled back to its savepoint: nothing of it goes.
    auto failed = transact([&](Storage& s) -> absl::StatusOr<coordinator::Run> {
        auto run = core->submit_run(s, spec(RunKind::FixedGames, 20));
        if (!run.ok()) return run;
        return absl::AbortedError("changed its mind");
    });
    EXPECT_FALSE(failed.ok());
    EXPECT_TRUE(deliver().empty());

    const coordinator::Run run = submit(spec(RunKind::FixedGames, 20));
    EXPECT_EQ(deliver(), std::vector<std::string>{"submitted " + std::to_string(run.id)});
}

class ExecutorEventTest : public ::testing::Test {
  protected:
    ExecutorEventTest()
        : core(
              with_run_kinds(), [] { return int64_t(1'000'000); }, &bus),
          writer(std::make_unique<SqliteStorage>(db.path()),
                 Executor::Options{true, 512, std::chrono::microseconds(0)}) {}

    // Returns a job adding a built-in version named name.
    Executor::Job add(const std::string& name) {
        return [this, name](Storage& storage) {
            Version v;
            v.name = name;
            v.preset = "default";
            v.bench = 123456;
            return core.add_version(storage, v).status();
        };
    }

    TempDatabase db;
    EventBus bus;
    Core core;
    Executor writer;
};

TEST_F(ExecutorEventTest, EventsFollowTheCommitAndPrecedeTheCompletion) {
    // The subscriber reads through a connection of its own: it sees the version committed.
    SqliteStorage reader(db.path());
    std::vector<std::string> seen_committed;
    auto subscription = bus.subscribe<VersionAdded>([&](const VersionAdded& added) {
        reader.begin(false);
        if (reader.find_version(added.name)) seen_committed.push_back(added.name);
        reader.commit();
    });
    std::promise<size_t> done;
    writer.submit(add("v1"), [&](absl::Status status) {
        EXPECT_TRUE(status.ok()) << status;
        done.set_value(seen_committed.size());
    });
    ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
    writer.shutdown();
    EXPECT_EQ(seen_committed, std::vector<std::string>{"v1"});
}

TEST_F(ExecutorEventTest, FailedJobsAndFailedCommitsPublishNothing) {
    Recorder recorder(bus);
    std::mutex mutex;
    std::vector<absl::Status> statuses;
    const auto record = [&](absl::Status status) {
        std::lock_guard lock(mutex);
        statuses.push_back(std::move(status));
    };
    // Runs the jobs in one batch, behind a job that holds the writer until all are queued.
    const auto run_batch = [&](std::vector<Executor::Job> jobs) {
        std::promise<void> started, release, done;
        std::shared_future<void> released = release.get_future().share();
        writer.submit(
            [&](Storage&) {
                started.set_value();
                released.wait();
                return absl::OkStatus();
            },
            record);
        started.get_future().wait();
        for (size_t i = 0; i < jobs.size(); ++i)
            writer.submit(std::move(jobs[i]),
                          [&, last = i + 1 == jobs.size()](absl::Status status) {
                              record(std::move(status));
                              if (last) done.set_value();
                          });
        release.set_value();
        ASSERT_EQ(done.get_future().wait_for(10s), std::future_status::ready);
    };
    // A job that fails after adding a version, then one that commits.
    run_batch({[this](Storage& storage) {
                   Version v;
                   v.name = "refused";
                   v.preset = "default";
                   v.bench = 123456;
                   if (!core.add_version(storage, v).ok()) return absl::InternalError("not added");
                   return absl::InvalidArgumentError("refused after adding");
               },
               add("kept")});
    // A batch that fails to commit: the job ending the transaction makes COMMIT fail.
    run_batch({add("lost"), [](Storage& storage) {
                   storage.rollback();
                   return absl::OkStatus();
               }});
    writer.shutdown();
    ASSERT_EQ(statuses.size(), 6u);
    EXPECT_EQ(statuses[1].code(), absl::StatusCode::kInvalidArgument);
    EXPECT_TRUE(statuses[2].ok()) << statuses[2];
    EXPECT_EQ(statuses[4].code(), absl::StatusCode::kUnavailable) << statuses[4];
    EXPECT_EQ(recorder.take(), std::vector<std::string>{"version kept"});
}

TEST_F(ExecutorEventTest, SubscribersGetEventsInCommitOrder) {
    Recorder all(bus);
    std::vector<std::string> versions;
    auto by_type = bus.subscribe<VersionAdded>(
        [&](const VersionAdded& added) { versions.push_back(added.name); });
    int runs = 0;
    auto other_type = bus.subscribe<RunSubmitted>([&](const RunSubmitted&) { ++runs; });
    std::vector<std::string> expected;
    for (int i = 0; i < 100; ++i) {
        expected.push_back("v" + std::to_string(i));
        writer.submit(add(expected.back()),
                      [](absl::Status status) { EXPECT_TRUE(status.ok()) << status; });
    }
    writer.shutdown();
    EXPECT_EQ(versions, expected);
    std::vector<std::string> labels;
    for (const std::string& name : expected) labels.push_back("version " + name);
    EXPECT_EQ(all.take(), labels);
    EXPECT_EQ(runs, 0);
}

TEST(EventBusTest, AResetSubscriptionIsNeverCalledAgain) {
    EventBus bus;
    int calls = 0;
    EventBus::Subscription subscription =
        bus.subscribe<WorkerSeen>([&calls](const WorkerSeen&) { ++calls; });
    bus.publish(WorkerSeen{1, 2});
    bus.publish(LeaseGranted{});
    EXPECT_EQ(calls, 1);
    EventBus::Subscription moved = std::move(subscription);
    bus.publish(WorkerSeen{1, 3});
    EXPECT_EQ(calls, 2);
    moved.reset();
    bus.publish(WorkerSeen{1, 4});
    EXPECT_EQ(calls, 2);
}

TEST(EventBusTest, ASubscriberThatThrowsMissesTheEventAloneAndThePublisherGoesOn) {
    EventBus bus;
    int before = 0;
    int after = 0;
    EventBus::Subscription first = bus.subscribe<WorkerSeen>([&](const WorkerSeen&) { ++before; });
    EventBus::Subscription thrower = bus.subscribe<WorkerSeen>([](const WorkerSeen& seen) {
        if (seen.time_ms == 2) throw std::runtime_error("type_error.316 stand-in");
        if (seen.time_ms == 3) throw 3;
    });
    EventBus::Subscription last = bus.subscribe<WorkerSeen>([&](const WorkerSeen&) { ++after; });
    for (int64_t i = 1; i <= 4; ++i) EXPECT_NO_THROW(bus.publish(WorkerSeen{1, i}));
    EXPECT_EQ(before, 4);
    EXPECT_EQ(after, 4);
}

TEST(EventBusTest, SubscribersComeAndGoWhileEventsAreDelivered) {
    EventBus bus;
    std::atomic<bool> stop{false};
    std::thread publisher([&] {
        for (int64_t i = 0; !stop; ++i) bus.publish(WorkerSeen{1, i});
    });
    for (int round = 0; round < 100; ++round) {
        std::atomic<int64_t> last{-1};
        std::atomic<int> delivered{0};
        std::atomic<bool> ordered{true}, unsubscribed{false}, called_after{false};
        EventBus::Subscription subscription =
            bus.subscribe<WorkerSeen>([&](const WorkerSeen& seen) {
                if (unsubscribed) called_after = true;
                if (seen.time_ms <= last) ordered = false;
                last = seen.time_ms;
                ++delivered;
            });
        // Until three arrived, however long the publisher waits for a core on a loaded
        // machine (a count of yields ran out there).
        const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
        while (delivered < 3 && std::chrono::steady_clock::now() < until) std::this_thread::yield();
        subscription.reset();
        unsubscribed = true;
        for (int i = 0; i < 100; ++i) std::this_thread::yield();
        EXPECT_GE(delivered.load(), 3);
        EXPECT_TRUE(ordered);
        EXPECT_FALSE(called_after);
    }
    stop = true;
    publisher.join();
}

}  // namespace
}  // namespace sparring::coordinator::testing
