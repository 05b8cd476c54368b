// The storage port's failures, in words that do not depend on the database engine: the SQLite
// code (storage/sqlite.cpp) sorts SQLite's result codes into them, and the executor and the
// operations decide on them alone.
#pragma once

#include <stdexcept>
#include <string>

namespace sparring::coordinator {

// What kind of failure of the storage itself a StorageError is, in words that do not depend on
// the database engine: callers decide on these, never on SQLite's result codes.
enum class StorageFault {
    none,        // not the storage's fault (a constraint, a bad statement, a missing row)
    full,        // the file system is full, or a quota or file-size limit was reached
    unwritable,  // read-only, a failing file system, a file that cannot be opened
    busy,        // locked too long, out of memory: transient
    damaged,     // the file is not a database or is corrupt
};

// A failure of the storage the caller cannot fix by changing its input (I/O error, corruption,
// busy), with its kind; thrown by any implementation of the port.
struct StorageError : std::runtime_error {
    explicit StorageError(const std::string& message, StorageFault kind = StorageFault::none)
        : std::runtime_error(message), fault(kind) {}
    StorageFault fault;
};

}  // namespace sparring::coordinator
