// JSON text in SQLite columns (option maps, engine lists, run ids, SPSA values), written and
// read with nlohmann-json.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coordinator/storage/sqlite.h"

namespace sparring::coordinator {

// Returns a value as compact JSON text, with invalid UTF-8 replaced rather than refused.
std::string json_column(const nlohmann::json& value);

// Reads a column's JSON text as a T (empty text: an empty T); throws StorageError naming the
// column if the text is not JSON of that shape.
template <class T>
T read_json_column(const std::string& text, std::string_view column) {
    if (text.empty()) return T{};
    try {
        return nlohmann::json::parse(text).get<T>();
    } catch (const nlohmann::json::exception& e) {
        throw StorageError("malformed JSON in column " + std::string(column) + ": " + e.what());
    }
}

}  // namespace sparring::coordinator
