// Garbage collection and backup of uploaded engine files: removes the files no version
// refers to (never one a version refers to), and copies the files a backup's versions need.
#pragma once

#include <cstdint>
#include <string>

#include "coordinator/domain/storage.h"

namespace sparring::coordinator {

struct EngineFilesResult {
    int64_t files = 0;
    int64_t bytes = 0;
};

// Removes the engine files in dir (the engine directory of the storage) that no version of the
// storage refers to and that are older than min_age_ms (an upload whose version is not added
// yet is younger), with their records, and stale partial uploads; returns what it removed.
// Safe while the coordinator serves. Throws StorageError when the storage cannot be used.
EngineFilesResult collect_engines(Storage& storage, const std::string& dir, int64_t min_age_ms,
                                  int64_t now_ms);

// Copies every engine file the backup's storage records from the engine directory of the
// database file from_db into that of to_db (a file already there is kept when its bytes have
// the SHA-256 it is named by, and replaced otherwise), never reading or writing through a
// link; returns what it copied. Reads the backup only (open it read-only). Throws StorageError
// when a file a version of the backup refers to cannot be copied.
EngineFilesResult backup_engines(Storage& backup, const std::string& from_db,
                                 const std::string& to_db);

}  // namespace sparring::coordinator
