// Calendar dates as users type them in filters ("2026-12-04", in UTC), and the time now as the
// milliseconds since the Unix epoch that dates are compared with.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sparring {

// Returns the milliseconds since the Unix epoch of a UTC date's midnight ("2026-12-04",
// 1970 to 9999), or nullopt for anything else.
std::optional<int64_t> utc_day_ms(std::string_view text);

// Returns the milliseconds since the Unix epoch of a UTC time typed as "2026-12-04",
// "2026-12-04T18:30", "2026-12-04T18:30:15" (a space may stand for the T, a Z may end it), or
// nullopt for anything else; *date_only tells whether it was a date alone.
std::optional<int64_t> utc_time_ms(std::string_view text, bool* date_only = nullptr);

// Returns the milliseconds since the Unix epoch now, by the system clock.
int64_t unix_now_ms();

}  // namespace sparring
