// Test helpers for the coordinator: a temporary SQLite file, a settable clock, and the core
// operations run the way the executor runs them (a savepoint rolled back on error).
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "coordinator/domain/core.h"
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

class CoreFixture : public ::testing::Test {
  protected:
    CoreFixture();

    // Runs fn(storage) in a write transaction; an error status rolls back its effects.
    template <typename Fn>
    auto transact(Fn fn) {
        storage->begin(true);
        storage->savepoint();
        auto result = fn(*storage);
        if (result.ok())
            storage->release_savepoint();
        else
            storage->rollback_to_savepoint();
        storage->commit();
        return result;
    }

    // Adds a built-in version with a bench signature and returns it.
    Version add_version(const std::string& name, int knight_mg = 0);
    // Returns a valid run spec between two versions with a small book.
    RunSpec spec(RunKind kind, uint64_t games, const std::string& test = "test",
                 const std::string& base = "base") const;
    // Submits a run and returns it.
    coordinator::Run submit(const RunSpec& spec);
    // Registers a worker under a new worker token and returns its caller and id.
    std::pair<Caller, int64_t> add_worker(int concurrency = 2);
    // Returns a report of pairs with the given outcomes (for the test version) per pair.
    Report report(const LeaseGrant& lease, uint32_t sequence, std::vector<uint32_t> indices,
                  Outcome first = Outcome::Win, Outcome second = Outcome::Draw) const;

    TempDatabase db;
    std::atomic<int64_t> now{1'000'000};
    std::unique_ptr<SqliteStorage> storage;
    std::unique_ptr<Core> core;
};

}  // namespace sparring::coordinator::testing
