// The storage's transactions, owned by the domain: what the executor and the core use to make
// a use case's reads and writes one unit. SqliteStorage implements it as part of Storage.
#pragma once

#include <functional>
#include <vector>

namespace sparring::coordinator {

class TransactionPort {
  public:
    virtual ~TransactionPort() = default;

    // Starts a transaction; a write transaction takes the write lock at once.
    virtual void begin(bool write) = 0;
    virtual void commit() = 0;
    virtual void rollback() = 0;
    // Marks a point inside the transaction that rollback_to_savepoint returns to.
    virtual void savepoint() = 0;
    virtual void release_savepoint() = 0;
    virtual void rollback_to_savepoint() = 0;
    // Defers fn until the current transaction commits; rolling back the transaction, or to a
    // savepoint marked before the call, discards it.
    virtual void after_commit(std::function<void()> fn) = 0;
    // Returns the deferred functions of the transactions committed since the last call, in
    // the order they were deferred, for the caller to run.
    virtual std::vector<std::function<void()>> take_committed() = 0;
};

}  // namespace sparring::coordinator
