// Building blocks of the dashboard's HTML: escaping of every supplied string, number
// formatting, and the names shown for the proto enums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/numbers.h"
#include "proto/text.h"
#include "proto/time_control.h"
#include "sparring/v1/common.pb.h"

namespace sparring::coordinator::web {

// Returns text with & < > " ' replaced by entities: safe in element content and in quoted
// attribute values alike.
std::string escape_html(std::string_view text);
// Returns text percent-encoded for a URL's query value or path segment.
std::string escape_url(std::string_view text);

// Returns a count with thin separators between thousands ("1 234 567").
std::string grouped(uint64_t value);
// Returns a time since the Unix epoch in milliseconds as "2026-12-01 09:30:00 UTC"; "" for 0.
std::string utc_time(int64_t unix_ms);

// Returns a kind's proto name in lower case without its prefix: "regression", "fixed_games".
std::string kind_name(v1::RunKind kind);
// Returns "active", "finished" or "stopped".
std::string state_name(v1::RunState state);

}  // namespace sparring::coordinator::web
