// The storage executor on temporary SQLite files: its own threads, order, group commit, failed
// commits, the read pool and shutdown; admission under overload (reports before leases, callers
// that gave up) and the lease sweep's hold while calls are shed.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "coordinator/expiry_hold.h"
#include "coordinator/storage/executor.h"
#include "coordinator/storage/sqlite.h"
#include "fixture.h"

namespace sparring::coordinator::testing {
namespace {

using namespace std::chrono_literals;

// Returns a version named name, ready to be inserted.
Version version(const std::string& name) {
    Version v;
    v.name = name;
    v.preset = "default";
    return v;
}

// Returns a job that inserts a version named name.
Executor::Job insert(const std::string& name) {
    return [name](Storage& storage) {
        storage.insert_version(version(name));
        return absl::OkStatus();
    };
}

// Returns the names of the versions in a database, as a fresh connection sees them.
std::vector<std::string> committed_versions(const std::string& path) {
    SqliteStorage storage(path);
    storage.begin(false);
    std::vector<std::string> names;
    for (const Version& v : storage.list_versions()) names.push_back(v.name);
    storage.commit();
    std::sort(names.begin(), names.end());
    return names;
}

// Collects the statuses of completions, in the order they arrive.
class Completions {
  public:
    // Returns a completion that records its status.
    Executor::Done done() {
        return [this](absl::Status status) {
            std::lock_guard lock(mutex_);
            statuses_.push_back(std::move(status));
            arrived_.notify_all();
        };
    }
    // Waits until n completions have arrived (at most 10 s) and returns their statuses.
    std::vector<absl::Status> wait(size_t n) {
        std::unique_lock lock(mutex_);
        EXPECT_TRUE(arrived_.wait_for(lock, 10s, [&] { return statuses_.size() >= n; }));
        return statuses_;
    }

  private:
    std::mutex mutex_;
    std::condition_variable arrived_;
    std::vector<absl::Status> statuses_;
};

class ExecutorTest : public ::testing::Test {
  protected:
    // Returns a write executor on the test database.
    std::unique_ptr<Executor> writer(std::chrono::microseconds gather = 0us) {
        return std::make_unique<Executor>(std::make_unique<SqliteStorage>(db.path()),
                                          Executor::Options{true, 512, gather});
    }

    TempDatabase db;
};

TEST_F(ExecutorTest, JobsRunAndCompleteInSubmissionOrder) {
    auto executor = writer();
    std::vector<int> ran;  // written by the writer thread only
    std::vector<int> completed;
    std::promise<void> last;
    for (int i = 0; i < 50; ++i)
        executor->submit(
            [&ran, i](Storage&) {
                ran.push_back(i);
                return absl::OkStatus();
            },
            [&completed, &last, i](absl::Status status) {
                EXPECT_TRUE(status.ok()) << status;
                completed.push_back(i);
                if (i == 49) last.set_value();
            });
    ASSERT_EQ(last.get_future().wait_for(10s), std::future_status::ready);
    executor->shutdown();
    std::vector<int> expected(50);
    for (int i = 0; i < 50; ++i) expected[size_t(i)] = i;
    EXPECT_EQ(ran, expected);
    EXPECT_EQ(completed, expected);
}

// A job or a completion that throws something unexpected fails its own call and is logged;
// the writer and its completion thread go on with the next.
TEST_F(ExecutorTest, AThrowingJobOrCompletionCostsOnlyItsOwnCall) {
    auto executor = writer();
    std::promise<absl::Status> failed;
    executor->submit([](Storage&) -> absl::Status { throw 42; },
                     [&failed](absl::Status status) { failed.set_value(status); });
    executor->submit([](Storage&) { return absl::OkStatus(); },
                     [](absl::Status) { throw std::runtime_error("a completion's bug"); });
    std::promise<absl::Status> next;
    executor->submit([](Storage&) { return absl::OkStatus(); },
                     [&next](absl::Status status) { next.set_value(status); });
    auto failed_status = failed.get_future();
    ASSERT_EQ(failed_status.wait_for(10s), std::future_status::ready);
    EXPECT_EQ(failed_status.get().code(), absl::StatusCode::kInternal);
    auto next_status = next.get_future();
    ASSERT_EQ(next_status.wait_for(10s), std::future_status::ready);
    EXPECT_TRUE(next_status.get().ok());
}

TEST_F(ExecutorTest, SubmitReturnsBeforeTheJobRunsOnAThreadOfItsOwn) {
    auto executor = writer();
    std::promise<void> release;
    std::shared_future<void> released = release.get_future().share();
    std::promise<std::pair<std::thread::id, bool>> job;
    std::promise<std::thread::id> done;
    executor->submit(
        [&](Storage&) {
            // Had submit run the job, the release below would come only after this wait.
            const bool waited = released.wait_for(10s) == std::future_status::ready;
            job.set_value({std::this_thread::get_id(), waited});
            return absl::OkStatus();
        },
        [&](absl::Status) { done.set_value(std::this_thread::get_id()); });
    release.set_value();
    const auto [job_thread, released_in_time] = job.get_future().get();
    const std::thread::id done_thread = done.get_future().get();
    EXPECT_TRUE(released_in_time);
    EXPECT_NE(job_thread, std::this_thread::get_id());
    EXPECT_NE(done_thread, std::this_thread::get_id());
    EXPECT_NE(done_thread, job_thread) << "completions run on a thread apart from the writer";
}

// admit() tells a caller beforehand what offer() would answer; the more calls are shed, the
// longer the shed are told to wait (spread, so that they do not all come back at once).
TEST_F(ExecutorTest, AdmitShedsLikeOfferAndTheWaitGrowsWithTheSheds) {
    auto executor = std::make_unique<Executor>(std::make_unique<SqliteStorage>(db.path()),
                                               Executor::Options{true, 512, 0us, 2});
    EXPECT_TRUE(executor->admit().ok());
    std::promise<void> started, release;
    std::shared_future<void> released = release.get_future().share();
    Completions completions;
    executor->offer(
        [&](Storage&) {
            started.set_value();
            released.wait();
            return absl::OkStatus();
        },
        completions.done());
    started.get_future().wait();
    executor->offer(insert("q1"), completions.done());
    EXPECT_TRUE(executor->admit().ok());
    executor->offer(insert("q2"), completions.done());
    const absl::Status first = executor->admit();
    EXPECT_EQ(first.code(), absl::StatusCode::kResourceExhausted) << first;
    ASSERT_TRUE(Executor::retry_after(first).has_value());
    std::vector<int64_t> waits;
    for (int i = 0; i < 400; ++i)
        waits.push_back(Executor::retry_after(executor->admit())->count());
    std::sort(waits.begin(), waits.end());
    EXPECT_GT(waits[200], 3 * Executor::retry_after(first)->count()) << "median of 400 sheds";
    EXPECT_GT(waits[399], waits[0]) << "the waits are spread";
    EXPECT_LE(waits[399], 5000);
    release.set_value();
    for (const absl::Status& status : completions.wait(3)) EXPECT_TRUE(status.ok()) << status;
    EXPECT_TRUE(executor->admit().ok());
    executor->shutdown();
}

TEST_F(ExecutorTest, OfferShedsPastTheQueueBoundWithARetryAfter) {
    auto executor = std::make_unique<Executor>(std::make_unique<SqliteStorage>(db.path()),
                                               Executor::Options{true, 512, 0us, 3});
    // The first job holds the writer; three more wait, which is the bound.
    std::promise<void> started, release;
    std::shared_future<void> released = release.get_future().share();
    Completions completions;
    executor->offer(
        [&](Storage& storage) {
            started.set_value();
            released.wait();
            storage.insert_version(version("held"));
            return absl::OkStatus();
        },
        completions.done());
    started.get_future().wait();
    for (const char* name : {"q1", "q2", "q3"}) executor->offer(insert(name), completions.done());
    // Past the bound an offered job is shed at once, on this thread, and never runs.
    std::optional<absl::Status> shed;
    executor->offer(insert("shed"), [&shed](absl::Status status) { shed = std::move(status); });
    ASSERT_TRUE(shed.has_value());
    EXPECT_EQ(shed->code(), absl::StatusCode::kResourceExhausted) << *shed;
    EXPECT_NE(shed->message().find("busy (3 calls queued)"), std::string_view::npos) << *shed;
    const std::optional<std::chrono::milliseconds> wait = Executor::retry_after(*shed);
    ASSERT_TRUE(wait.has_value());
    EXPECT_GE(wait->count(), 20);
    EXPECT_LE(wait->count(), 5000);
    EXPECT_FALSE(Executor::retry_after(absl::UnavailableError("down")).has_value());
    // The coordinator's own jobs are never shed.
    executor->submit(insert("own"), completions.done());
    release.set_value();
    for (const absl::Status& status : completions.wait(5)) EXPECT_TRUE(status.ok()) << status;
    executor->shutdown();
    EXPECT_EQ(committed_versions(db.path()),
              (std::vector<std::string>{"held", "own", "q1", "q2", "q3"}));
}

TEST_F(ExecutorTest, JobsQueuedMeanwhileShareOneCommit) {
    auto executor = writer();
    std::mutex mutex;
    std::vector<size_t> transactions;
    executor->observe([&](size_t jobs, std::chrono::nanoseconds) {
        std::lock_guard lock(mutex);
        transactions.push_back(jobs);
    });
    std::promise<void> started, release;
    std::shared_future<void> released = release.get_future().share();
    Completions completions;
    executor->submit(
        [&](Storage& storage) {
            started.set_value();
            released.wait();
            storage.insert_version(version("first"));
            return absl::OkStatus();
        },
        completions.done());
    started.get_future().wait();
    for (const char* name : {"a", "b", "c", "d"})
        executor->submit(insert(name), completions.done());
    release.set_value();
    for (const absl::Status& status : completions.wait(5)) EXPECT_TRUE(status.ok()) << status;
    executor->shutdown();
    EXPECT_EQ(transactions, (std::vector<size_t>{1, 4}));
    EXPECT_EQ(committed_versions(db.path()),
              (std::vector<std::string>{"a", "b", "c", "d", "first"}));
}

TEST_F(ExecutorTest, GatherWaitsForJobsToShareACommit) {
    auto executor = writer(500ms);
    std::mutex mutex;
    std::vector<size_t> transactions;
    executor->observe([&](size_t jobs, std::chrono::nanoseconds) {
        std::lock_guard lock(mutex);
        transactions.push_back(jobs);
    });
    Completions completions;
    for (const char* name : {"a", "b", "c"}) executor->submit(insert(name), completions.done());
    for (const absl::Status& status : completions.wait(3)) EXPECT_TRUE(status.ok()) << status;
    executor->shutdown();
    EXPECT_EQ(transactions, std::vector<size_t>{3});
}

TEST_F(ExecutorTest, FailingJobLeavesNoTraceAndTheOthersCommit) {
    auto executor = writer();
    std::promise<void> started, release;
    std::shared_future<void> released = release.get_future().share();
    Completions completions;
    executor->submit(
        [&](Storage&) {
            started.set_value();
            released.wait();
            return absl::OkStatus();
        },
        completions.done());
    started.get_future().wait();
    executor->submit(insert("kept"), completions.done());
    executor->submit(
        [](Storage& storage) {
            storage.insert_version(version("dropped"));
            return absl::InvalidArgumentError("refused");
        },
        completions.done());
    release.set_value();
    const std::vector<absl::Status> statuses = completions.wait(3);
    executor->shutdown();
    ASSERT_EQ(statuses.size(), 3u);
    EXPECT_TRUE(statuses[0].ok());
    EXPECT_TRUE(statuses[1].ok());
    EXPECT_EQ(statuses[2].code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(committed_versions(db.path()), std::vector<std::string>{"kept"});
}

TEST_F(ExecutorTest, StorageFaultFailsTheWholeBatchWithARetryableStatus) {
    auto executor = writer();
    std::promise<void> started, release;
    std::shared_future<void> released = release.get_future().share();
    Completions completions;
    executor->submit(
        [&](Storage&) {
            started.set_value();
            released.wait();
            return absl::OkStatus();
        },
        completions.done());
    started.get_future().wait();
    // One batch: a job that succeeds, then one that meets a full disk, then one never run.
    executor->submit(insert("before"), completions.done());
    executor->submit(
        [](Storage&) -> absl::Status {
            throw StorageError("sqlite: database or disk is full", StorageFault::full);
        },
        completions.done());
    executor->submit(insert("after"), completions.done());
    release.set_value();
    const std::vector<absl::Status> statuses = completions.wait(4);
    ASSERT_EQ(statuses.size(), 4u);
    for (size_t i = 1; i < 4; ++i) {
        EXPECT_EQ(statuses[i].code(), absl::StatusCode::kResourceExhausted) << statuses[i];
        EXPECT_NE(statuses[i].message().find("file system is full"), std::string::npos);
    }
    // An I/O error answers UNAVAILABLE; the executor then goes on with the next batch.
    executor->submit(
        [](Storage&) -> absl::Status {
            throw StorageError("sqlite: disk I/O error", StorageFault::unwritable);
        },
        completions.done());
    const std::vector<absl::Status> failed = completions.wait(5);
    ASSERT_EQ(failed.size(), 5u);
    EXPECT_EQ(failed[4].code(), absl::StatusCode::kUnavailable) << failed[4];
    executor->submit(insert("later"), completions.done());
    const std::vector<absl::Status> after = completions.wait(6);
    ASSERT_EQ(after.size(), 6u);
    EXPECT_TRUE(after[5].ok()) << after[5];
    executor->shutdown();
    EXPECT_EQ(committed_versions(db.path()), std::vector<std::string>{"later"});
}

TEST_F(ExecutorTest, FailedCommitFailsEveryJobOfItsBatchAsUnavailable) {
    auto executor = writer();
    std::promise<void> started, release;
    std::shared_future<void> released = release.get_future().share();
    Completions completions;
    executor->submit(
        [&](Storage&) {
            started.set_value();
            released.wait();
            return absl::OkStatus();
        },
        completions.done());
    started.get_future().wait();
    executor->submit(insert("a"), completions.done());
    executor->submit(insert("b"), completions.done());
    // Ending the transaction under the executor makes its COMMIT fail.
    executor->submit(
        [](Storage& storage) {
            storage.rollback();
            return absl::OkStatus();
        },
        completions.done());
    release.set_value();
    const std::vector<absl::Status> statuses = completions.wait(4);
    ASSERT_EQ(statuses.size(), 4u);
    EXPECT_TRUE(statuses[0].ok()) << "the first batch committed";
    for (size_t i = 1; i < 4; ++i)
        EXPECT_EQ(statuses[i].code(), absl::StatusCode::kUnavailable) << statuses[i];
    // The executor goes on with the next batch.
    executor->submit(insert("c"), completions.done());
    const std::vector<absl::Status> after = completions.wait(5);
    ASSERT_EQ(after.size(), 5u);
    EXPECT_TRUE(after[4].ok()) << after[4];
    executor->shutdown();
    EXPECT_EQ(committed_versions(db.path()), std::vector<std::string>{"c"});
}

TEST_F(ExecutorTest, ShutdownRunsEveryQueuedJobThenRefusesNewOnes) {
    auto executor = writer(1ms);
    Completions completions;
    for (int i = 0; i < 200; ++i)
        executor->submit(insert("v" + std::to_string(i)), completions.done());
    executor->shutdown();
    const std::vector<absl::Status> statuses = completions.wait(200);
    ASSERT_EQ(statuses.size(), 200u) << "shutdown returned before every completion ran";
    for (const absl::Status& status : statuses) EXPECT_TRUE(status.ok()) << status;
    EXPECT_EQ(committed_versions(db.path()).size(), 200u);

    absl::Status late;
    executor->submit(insert("late"), [&late](absl::Status status) { late = status; });
    EXPECT_EQ(late.code(), absl::StatusCode::kUnavailable);
    executor->shutdown();  // again: nothing left to do
    EXPECT_EQ(committed_versions(db.path()).size(), 200u);
}

TEST_F(ExecutorTest, ReadPoolRunsJobsConcurrently) {
    writer().reset();  // creates the schema
    std::vector<std::unique_ptr<Storage>> connections;
    for (int i = 0; i < 2; ++i) connections.push_back(std::make_unique<SqliteStorage>(db.path()));
    Executor reader(std::move(connections), Executor::Options{false, 1, 0us});
    // Each job waits for the other to start: they finish only if they run at the same time.
    std::promise<void> first, second;
    std::shared_future<void> first_started = first.get_future().share();
    std::shared_future<void> second_started = second.get_future().share();
    Completions completions;
    reader.submit(
        [&](Storage& storage) {
            first.set_value();
            storage.list_versions();
            return second_started.wait_for(10s) == std::future_status::ready
                       ? absl::OkStatus()
                       : absl::DeadlineExceededError("ran alone");
        },
        completions.done());
    reader.submit(
        [&](Storage&) {
            second.set_value();
            return first_started.wait_for(10s) == std::future_status::ready
                       ? absl::OkStatus()
                       : absl::DeadlineExceededError("ran alone");
        },
        completions.done());
    for (const absl::Status& status : completions.wait(2)) EXPECT_TRUE(status.ok()) << status;
}

TEST_F(ExecutorTest, WriteExecutorTakesExactlyOneConnection) {
    std::vector<std::unique_ptr<Storage>> connections;
    for (int i = 0; i < 2; ++i) connections.push_back(std::make_unique<SqliteStorage>(db.path()));
    EXPECT_THROW(Executor(std::move(connections), Executor::Options{true, 512, 0us}),
                 std::invalid_argument);
}

// Holds an executor's thread with a job of its own until release() (or the end of its life), so
// that the jobs submitted meanwhile wait in the queue; the job's status goes to completions.
class Hold {
  public:
    Hold(Executor& executor, Completions& completions) {
        std::promise<void> started;
        executor.submit(
            [&started, released = released_](Storage&) {
                started.set_value();
                released.wait();
                return absl::OkStatus();
            },
            completions.done());
        started.get_future().wait();
    }
    ~Hold() { release(); }
    void release() {
        if (!released_once_) release_.set_value();
        released_once_ = true;
    }

  private:
    std::promise<void> release_;
    std::shared_future<void> released_ = release_.get_future().share();
    bool released_once_ = false;
};

// Under overload a call that only starts work (a registration, a request for a lease) is
// refused from three quarters of the bound on, while one that finishes work (a report) still gets
// in; a refused call makes no job: the writer commits exactly the jobs admitted.
TEST_F(ExecutorTest, UnderASaturatedQueueAReportIsAdmittedBeforeARequestForWork) {
    auto executor = std::make_unique<Executor>(std::make_unique<SqliteStorage>(db.path()),
                                               Executor::Options{true, 512, 0us, 4});
    std::atomic<size_t> committed_jobs = 0;
    executor->observe([&](size_t jobs, std::chrono::nanoseconds) { committed_jobs += jobs; });
    EXPECT_FALSE(executor->last_shed().has_value());
    Completions completions;
    Hold hold(*executor, completions);
    // Each admitted call is then submitted, as the gate does.
    const auto admit_and_submit = [&](Admission kind, const std::string& name) {
        absl::Status admitted = executor->admit(kind);
        if (admitted.ok()) executor->submit(insert(name), completions.done());
        return admitted;
    };
    EXPECT_TRUE(admit_and_submit(Admission::start, "lease 1").ok());
    EXPECT_TRUE(admit_and_submit(Admission::keep, "report 1").ok());
    EXPECT_TRUE(admit_and_submit(Admission::keep, "report 2").ok());
    // Three of four places taken. A request for work is refused, with a wait.
    const absl::Status refused = admit_and_submit(Admission::start, "lease 2");
    EXPECT_EQ(refused.code(), absl::StatusCode::kResourceExhausted) << refused;
    ASSERT_TRUE(Executor::retry_after(refused).has_value());
    EXPECT_GE(Executor::retry_after(refused)->count(), 20);
    EXPECT_LE(Executor::retry_after(refused)->count(), Executor::kMaxRetryAfter.count());
    EXPECT_TRUE(executor->last_shed().has_value());
    // Reports still get in up to the bound, and only then are refused too.
    EXPECT_TRUE(admit_and_submit(Admission::keep, "report 3").ok());
    EXPECT_EQ(admit_and_submit(Admission::keep, "report 4").code(),
              absl::StatusCode::kResourceExhausted);
    EXPECT_EQ(admit_and_submit(Admission::start, "lease 3").code(),
              absl::StatusCode::kResourceExhausted);
    hold.release();
    for (const absl::Status& status : completions.wait(5)) EXPECT_TRUE(status.ok()) << status;
    executor->shutdown();
    EXPECT_EQ(committed_jobs.load(), 5u) << "the held job and the four admitted, nothing else";
    EXPECT_EQ(committed_versions(db.path()),
              (std::vector<std::string>{"lease 1", "report 1", "report 2", "report 3"}));
}

// A job whose caller's deadline passed while it waited is not run: the writer's time goes to
// callers still waiting.
TEST_F(ExecutorTest, AJobWhoseCallerGaveUpIsNotRun) {
    auto executor = writer();
    Completions completions;
    Hold hold(*executor, completions);
    std::optional<absl::Status> gave_up;
    std::promise<void> gave_up_done;
    executor->submit(
        insert("given up"),
        [&](absl::Status status) {
            gave_up = std::move(status);
            gave_up_done.set_value();
        },
        std::chrono::steady_clock::now());
    executor->submit(insert("waiting"), completions.done(), std::chrono::steady_clock::now() + 1h);
    hold.release();
    gave_up_done.get_future().wait();
    for (const absl::Status& status : completions.wait(2)) EXPECT_TRUE(status.ok()) << status;
    ASSERT_TRUE(gave_up.has_value());
    EXPECT_EQ(gave_up->code(), absl::StatusCode::kDeadlineExceeded) << *gave_up;
    EXPECT_EQ(executor->expired_jobs(), 1u);
    executor->shutdown();
    EXPECT_EQ(committed_versions(db.path()), (std::vector<std::string>{"waiting"}));
}

// The lease sweep waits while the writer sheds calls, gives every lease a full life once the
// shedding has stopped, and runs anyway after a whole hold.
TEST(ExpiryHoldTest, HoldsWhileSheddingRenewsAfterAndNeverForLongerThanAHold) {
    using Step = ExpiryHold::Step;
    ExpiryHold hold(10s, 60s);
    const ExpiryHold::Time t0{};
    EXPECT_EQ(hold.next(t0 + 1s, std::nullopt), Step::expire);
    EXPECT_EQ(hold.next(t0 + 2s, t0 - 30s), Step::expire) << "shed long ago";
    EXPECT_EQ(hold.next(t0 + 3s, t0 + 3s), Step::hold);
    EXPECT_TRUE(hold.holding());
    EXPECT_EQ(hold.next(t0 + 12s, t0 + 3s), Step::hold) << "within the quiet time";
    EXPECT_EQ(hold.next(t0 + 14s, t0 + 3s), Step::renew) << "10 s without a shed call";
    EXPECT_FALSE(hold.holding());
    EXPECT_EQ(hold.next(t0 + 15s, t0 + 3s), Step::expire);
    // Shedding without end: the sweep runs once per hold.
    EXPECT_EQ(hold.next(t0 + 100s, t0 + 100s), Step::hold);
    EXPECT_EQ(hold.next(t0 + 159s, t0 + 159s), Step::hold);
    EXPECT_EQ(hold.next(t0 + 160s, t0 + 160s), Step::expire);
    EXPECT_EQ(hold.next(t0 + 161s, t0 + 161s), Step::hold);
}

}  // namespace
}  // namespace sparring::coordinator::testing
