// Test helpers for the coordinator: a temporary SQLite file, a settable clock, and the core
// operations run through the coordinator's own write Executor (one transaction and a savepoint
// per job, rolled back on error; the domain events run after the commit).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "coordinator/domain/core.h"
#include "coordinator/storage/executor.h"
#include "coordinator/storage/sqlite_storage.h"

namespace sparring::coordinator::testing {

// A database file in a fresh temporary directory, removed with the object.
class TempDatabase {
  public:
    TempDatabase();
    ~TempDatabase();
    const std::string& path() const { return path_; }

  private:
    std::filesystem::path dir_;
    std::string path_;
};

// Core's options with the table of run kinds, as the composition root (server.cpp) gives them.
Core::Options with_run_kinds(Core::Options options = {});

class CoreFixture : public ::testing::Test {
  protected:
    CoreFixture();

    // Runs fn(storage) as a job of the write executor and returns its result once the job's
    // transaction has committed and its events have run: an error status rolls back its
    // effects. A job that throws, or a transaction that cannot commit, answers the executor's
    // status.
    template <typename Fn>
    auto transact(Fn fn) {
        using Result = decltype(fn(std::declval<Storage&>()));
        std::optional<Result> result;
        const absl::Status done = execute([&](Storage& s) {
            result.emplace(fn(s));
            return status_of(*result);
        });
        if (result && (done.ok() || !result->ok())) return std::move(*result);
        return Result(done);
    }
    // Submits a job to the write executor and returns the status its completion receives.
    absl::Status execute(Executor::Job job);

    // Adds a built-in version with a bench signature and returns it.
    Version add_version(const std::string& name, int knight_mg = 0);
    // Returns a valid run spec between two versions with a small book.
    RunSpec spec(RunKind kind, uint64_t games, const std::string& test = "test",
                 const std::string& base = "base") const;
    // Submits a run and returns it.
    coordinator::Run submit(const RunSpec& spec);
    // Creates a token through the executor and returns its id.
    int64_t add_token(Role role, const std::string& name);
    // Registers a worker under a new worker token and returns its caller and id.
    std::pair<Caller, int64_t> add_worker(int concurrency = 2);
    // Returns a report of pairs with the given outcomes (for the test version) per pair.
    Report report(const LeaseGrant& lease, uint32_t sequence, std::vector<uint32_t> indices,
                  Outcome first = Outcome::Win, Outcome second = Outcome::Draw) const;

    TempDatabase db;
    std::atomic<int64_t> now{1'000'000};
    // A second connection to the database, for the tests' own reads and for writes past the
    // core (as the coordinator's readers and tools have their own): the executor owns the
    // connection the core's jobs run on.
    std::unique_ptr<SqliteStorage> storage;
    std::unique_ptr<Core> core;
    std::unique_ptr<Executor> executor;

  private:
    static absl::Status status_of(const absl::Status& status) { return status; }
    template <typename T>
    static absl::Status status_of(const absl::StatusOr<T>& result) {
        return result.status();
    }
};

}  // namespace sparring::coordinator::testing
