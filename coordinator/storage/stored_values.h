// Reading SqliteStorage's rows back: a stored value this build cannot read is an error.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

// Throws for a stored value this build cannot read (a damaged or foreign file).
template <typename T>
T require(std::optional<T> value, std::string_view what) {
    if (!value) throw StorageError("unreadable " + std::string(what) + " in the database");
    return *value;
}

}  // namespace sparring::coordinator
