// zlib compression of stored PGN and opening books.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace sparring::coordinator {

// Returns the zlib stream of the bytes.
std::string compress(std::string_view bytes);
// Returns the bytes of a zlib stream, or nullopt if it is damaged.
std::optional<std::string> decompress(std::string_view stream);

}  // namespace sparring::coordinator
