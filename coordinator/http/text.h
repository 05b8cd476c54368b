// The HTTP server's text helpers, beside http_detail::parse_target of http_server.h.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace sparring::coordinator::http_detail {

// Splits "HOST:PORT" (or "[V6]:PORT"); throws std::runtime_error unless the port is a number.
std::pair<std::string, int> split_address(const std::string& listen, const std::string& flag);
// A header value goes out on one line: CR and LF are dropped, so no handler can split the head.
std::string one_line(std::string_view text);
// Frames a chunk of a chunked body.
std::string chunk_frame(std::string_view data);

}  // namespace sparring::coordinator::http_detail
