// Garbage collection and backup of uploaded engine files: removes the files no version
// refers to (never one a version refers to), and copies the files a backup's versions need.
#pragma once

#include <cstdint>
#include <string>

namespace sparring::coordinator {

struct EngineFilesResult {
    int64_t files = 0;
    int64_t bytes = 0;
};

// Removes the engine files of the database at db_path that no version refers to and that
// are older than min_age_ms (an upload whose version is not added yet is younger), with
// their records, and stale partial uploads; returns what it removed. Safe while the
// coordinator serves. Throws StorageError when the database cannot be used.
EngineFilesResult collect_engines(const std::string& db_path, int64_t min_age_ms, int64_t now_ms);

// Copies into the directory beside the backup database `to` every engine file its engines
// table records, from the directory beside `from` (a file already there, having the same
// name, has the same bytes and is kept); returns what it copied. Throws StorageError when a
// file a version of the backup refers to cannot be copied.
EngineFilesResult backup_engines(const std::string& from, const std::string& to);

}  // namespace sparring::coordinator
