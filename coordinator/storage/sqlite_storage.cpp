// SqliteStorage: opening and checking the file, transactions, and tokens; the other aggregates
// are in sqlite_storage_*.cpp.
#include "coordinator/storage/sqlite_storage.h"

#include <sqlite3.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <limits>
#include <utility>

#include "coordinator/domain/text.h"
#include "coordinator/storage/books.h"
#include "coordinator/storage/compression.h"
#include "coordinator/storage/json_column.h"
#include "coordinator/storage/migrations.h"
#include "coordinator/storage/stored_values.h"

namespace sparring::coordinator {

namespace {

// Reads a token from the current row of a statement selecting id, role, name, created, revoked.
Token read_token(const Statement& s) {
    Token t;
    t.id = s.int64(0);
    t.role = require(parse_role(s.text(1)), "token role");
    t.name = s.text(2);
    t.created_ms = s.int64(3);
    t.revoked = s.int64(4) != 0;
    if (t.role == Role::User && s.int64(5) != 0) t.role = Role::Admin;
    return t;
}

}  // namespace

void check_database(const std::string& path) {
    std::string problems;
    try {
        Database db(path);
        Statement& check = db.prepare("PRAGMA quick_check(5)");
        check.bind();
        while (check.step()) problems += (problems.empty() ? "" : "; ") + check.text(0);
        check.reset();
    } catch (const StorageError& e) {
        if (e.fault != StorageFault::damaged) throw;
        problems = e.what();
    }
    if (problems == "ok") return;
    throw StorageError(
        "the database " + path + " is damaged (" + problems +
            "); refusing to serve it. Restore the last backup: with the coordinator stopped, "
            "remove " +
            path + "-wal and " + path +
            "-shm, copy the backup made by "
            "`sparring-coordinator backup` to " +
            path +
            " and start again (docs/operations.md, \"Backup and restore\"); keep the damaged "
            "file for inspection",
        StorageFault::damaged);
}

SqliteStorage::SqliteStorage(const std::string& path, Access access) : db_(path, access) {
    if (access == Access::ReadWrite) {
        migrate(db_);
        return;
    }
    if (const int version = user_version(db_); version != schema_version())
        throw StorageError(path + " has schema version " + std::to_string(version) +
                               " but this coordinator reads version " +
                               std::to_string(schema_version()),
                           StorageFault::unwritable);
}

OpenStorage open_sqlite(std::string path, SqliteStorage::Access access) {
    return [path = std::move(path), access]() -> std::unique_ptr<Storage> {
        return std::make_unique<SqliteStorage>(path, access);
    };
}

void SqliteStorage::begin(bool write) {
    // Prepared once, like every statement the writer runs per call: sqlite3_exec parses its
    // text each time.
    db_.prepare(write ? "BEGIN IMMEDIATE" : "BEGIN").bind().run();
}

void SqliteStorage::commit() {
    db_.reset_statements();
    db_.prepare("COMMIT").bind().run();
    std::move(pending_.begin(), pending_.end(), std::back_inserter(committed_));
    pending_.clear();
}

void SqliteStorage::rollback() {
    pending_.clear();
    db_.reset_statements();
    db_.exec("ROLLBACK");
}

void SqliteStorage::savepoint() {
    db_.prepare("SAVEPOINT job").bind().run();
    savepoint_mark_ = pending_.size();
}

void SqliteStorage::release_savepoint() {
    db_.prepare("RELEASE job").bind().run();
}

void SqliteStorage::rollback_to_savepoint() {
    pending_.resize(std::min(savepoint_mark_, pending_.size()));
    db_.reset_statements();
    db_.exec("ROLLBACK TO job; RELEASE job");
}

void SqliteStorage::after_commit(std::function<void()> fn) {
    pending_.push_back(std::move(fn));
}

std::vector<std::function<void()>> SqliteStorage::take_committed() {
    return std::exchange(committed_, {});
}

int64_t SqliteStorage::insert_token(const Token& token, std::string_view hash) {
    // An admin is a user token with admin set (the role column's CHECK predates admins).
    const bool admin = token.role == Role::Admin;
    db_.prepare("INSERT INTO tokens (hash, role, name, created_ms, admin) VALUES (?, ?, ?, ?, ?)")
        .bind(hash, role_name(admin ? Role::User : token.role), token.name, token.created_ms, admin)
        .run();
    return db_.last_insert_rowid();
}

std::optional<Token> SqliteStorage::find_token(std::string_view hash) {
    Statement& s = db_.prepare(
        "SELECT id, role, name, created_ms, revoked, admin FROM tokens WHERE hash = ? AND revoked "
        "= 0");
    s.bind(hash);
    if (!s.step()) return std::nullopt;
    return read_token(s);
}

std::vector<Token> SqliteStorage::list_tokens() {
    Statement& s =
        db_.prepare("SELECT id, role, name, created_ms, revoked, admin FROM tokens ORDER BY id");
    s.bind();
    std::vector<Token> tokens;
    while (s.step()) tokens.push_back(read_token(s));
    return tokens;
}

bool SqliteStorage::revoke_token(int64_t id) {
    db_.prepare("UPDATE tokens SET revoked = 1 WHERE id = ?").bind(id).run();
    return db_.changes() > 0;
}

}  // namespace sparring::coordinator
