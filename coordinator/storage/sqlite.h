// A thin RAII layer over the SQLite C API: a connection with a cache of prepared statements,
// and a statement cursor with typed binding and column access. Errors throw StorageError.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "coordinator/domain/storage_error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace sparring::coordinator {

// Returns the kind of fault an SQLite result code (primary or extended) and the errno of the
// failed system call (sqlite3_system_errno) stand for.
StorageFault storage_fault_of(int sqlite_code, int system_errno);

// Marks a byte string to be bound as a BLOB rather than TEXT.
struct Blob {
    std::string_view bytes;
};

class Statement {
  public:
    explicit Statement(sqlite3_stmt* stmt) : stmt_(stmt) {}

    // Binds parameters 1, 2, ... in order; resets the statement first.
    template <typename... Ts>
    Statement& bind(const Ts&... values) {
        reset();
        int index = 1;
        (bind_one(index++, values), ...);
        return *this;
    }
    // Advances to the next row; returns false when the statement is done.
    bool step();
    // Clears bindings and rewinds the statement, releasing what it holds.
    void reset();
    // Runs a statement that returns no rows.
    void run();

    int64_t int64(int column) const;
    double real(int column) const;
    std::string text(int column) const;
    std::string blob(int column) const;
    bool is_null(int column) const;

  private:
    void bind_one(int index, int64_t value);
    void bind_one(int index, int value) { bind_one(index, int64_t(value)); }
    void bind_one(int index, uint32_t value) { bind_one(index, int64_t(value)); }
    void bind_one(int index, uint64_t value) { bind_one(index, int64_t(value)); }
    void bind_one(int index, bool value) { bind_one(index, int64_t(value)); }
    void bind_one(int index, double value);
    void bind_one(int index, std::string_view value);
    void bind_one(int index, const std::string& value) { bind_one(index, std::string_view(value)); }
    void bind_one(int index, const char* value) { bind_one(index, std::string_view(value)); }
    void bind_one(int index, std::nullopt_t);
    template <typename T>
    void bind_one(int index, const std::optional<T>& value) {
        if (value)
            bind_one(index, *value);
        else
            bind_one(index, std::nullopt);
    }
    void bind_one(int index, const Blob& value);

    sqlite3_stmt* stmt_;
};

// Creates an empty file readable by its owner only (0600) unless a regular file is there;
// refuses a symbolic link or anything else in its place. Throws StorageError.
void create_private_file(const std::string& path);

class Database {
  public:
    // Whether a connection may write the file; Copy writes a backup's new file, which keeps
    // SQLite's rollback journal: the copy is one self-contained file.
    enum class Access { ReadWrite, ReadOnly, Copy };

    // Opens (creating if needed) the file in WAL mode with foreign keys on; throws on failure.
    // A read-only connection opens an existing file as it is and never writes it.
    explicit Database(const std::string& path, Access access = Access::ReadWrite);
    ~Database();
    Database(const Database&) = delete;
    Database& operator=(const Database&) = delete;

    // Executes one or more statements without parameters (schema, pragmas, transactions).
    void exec(std::string_view sql);
    // Returns the cached prepared statement for a query, preparing it on first use.
    Statement& prepare(std::string_view sql);
    // Calls observer with the SQL of every statement prepare() hands out, cached or not (a
    // test collects the queries a path runs and checks their plans); empty: no observer.
    void observe_prepares(std::function<void(std::string_view)> observer) {
        observer_ = std::move(observer);
    }
    int64_t last_insert_rowid() const;
    // Returns the number of rows the last statement changed.
    int changes() const;
    // Rewinds every cached statement, so none holds a read snapshot past its transaction.
    void reset_statements();
    // Copies committed WAL pages into the database file without blocking the writer, so the
    // writer's own automatic checkpoint finds little left to copy before the WAL restarts.
    void checkpoint();
    // Copies every page of this database into target (opened with Access::Copy) with SQLite's
    // online backup, in one step: in WAL mode its read transaction blocks no writer, whereas a
    // copy in small steps restarts each time a writer commits and might never end. The copy is
    // left in rollback-journal mode and must pass PRAGMA integrity_check. Returns the pages
    // copied; throws StorageError.
    int64_t copy_to(Database& target);

  private:
    struct Finalizer {
        void operator()(sqlite3_stmt* stmt) const;
    };
    sqlite3* db_ = nullptr;
    std::function<void(std::string_view)> observer_;
    std::map<std::string, std::pair<std::unique_ptr<sqlite3_stmt, Finalizer>, Statement>,
             std::less<>>
        statements_;
};

}  // namespace sparring::coordinator
