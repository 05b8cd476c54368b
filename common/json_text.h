// JSON text from nlohmann-json values, written so that it cannot throw: a string holding
// invalid UTF-8 (an engine's output cut mid-character, an old row) gets U+FFFD instead of
// type_error.316, which on a thread with no handler would end the process.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace sparring {

// Returns a value as compact JSON text, with invalid UTF-8 replaced rather than refused.
inline std::string json_text(const nlohmann::json& value) {
    return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace sparring
