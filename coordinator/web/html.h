// Building blocks of the dashboard's HTML: escaping of every supplied string, number
// formatting, and the names shown for the proto enums.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sparring/v1/common.pb.h"

namespace sparring::coordinator::web {

// Returns text with & < > " ' replaced by entities: safe in element content and in quoted
// attribute values alike.
std::string escape_html(std::string_view text);
// Returns text percent-encoded for a URL's query value or path segment.
std::string escape_url(std::string_view text);

// Returns a number with a fixed count of decimals and an explicit sign ("+3.20", "-0.50").
std::string signed_fixed(double value, int decimals);
// Returns a number with a fixed count of decimals ("2.94").
std::string fixed(double value, int decimals);
// Returns a count with thin separators between thousands ("1 234 567").
std::string grouped(uint64_t value);
// Returns a time since the Unix epoch in milliseconds as "2026-12-01 09:30:00 UTC"; "" for 0.
std::string utc_time(int64_t unix_ms);

// Returns a kind's proto name in lower case without its prefix: "regression", "fixed_games".
std::string kind_name(v1::RunKind kind);
// Returns "active", "finished" or "stopped".
std::string state_name(v1::RunState state);
// Returns a time control as the CLI takes it: "nodes=N", "depth=N", "movetime=MS", "B+I".
std::string time_control_text(const v1::TimeControl& tc);

}  // namespace sparring::coordinator::web
