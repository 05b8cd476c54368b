// The numbered schema migrations of the coordinator's database, applied at start-up.
#pragma once

#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

// Applies, each in its own transaction, the migrations newer than the file's user_version;
// refuses a file written by a newer coordinator.
void migrate(Database& db);

// Returns the schema version this build writes.
int schema_version();

// Returns the schema version recorded in the file.
int user_version(Database& db);

}  // namespace sparring::coordinator
