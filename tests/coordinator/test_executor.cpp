// The storage executor on temporary SQLite files: its own threads, order, group commit, failed
// commits, the read pool and shutdown.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

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

}  // namespace
}  // namespace sparring::coordinator::testing
