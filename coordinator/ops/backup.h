// Online backup of the coordinator's SQLite database with SQLite's backup API, safe while
// the coordinator is serving: the copy is one consistent snapshot of committed data.
#pragma once

#include <cstdint>
#include <string>

namespace sparring::coordinator {

struct BackupResult {
    int64_t pages = 0;
    int64_t bytes = 0;
};

// Copies the database file `from` into `to` (replaced atomically if it exists): the copy is
// written beside `to`, checked with PRAGMA integrity_check, synced and renamed into place.
// Throws StorageError when a step fails; `to` is then left as it was.
BackupResult backup_database(const std::string& from, const std::string& to);

}  // namespace sparring::coordinator
