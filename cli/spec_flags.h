// The `submit` flags that several run kinds share: time control, book, SPRT and games.
#pragma once

#include <cstdint>

#include "cli/client.h"
#include "common/flags.h"

namespace sparring::cli {

// Writes the time control of --tc; throws UsageError when it is invalid.
void read_time_control(const Flags& args, v1::TimeControl* out, const char* flag = "tc");
// Reads the book file (default: the shipped book) and its order into the request.
void read_book(const Flags& args, v1::Book* out);
// Returns whether any SPRT flag was given.
bool has_sprt_flags(const Flags& args);
// Writes the SPRT of --elo0 --elo1 --alpha --beta --model (normalized [0, 5], 5% errors by
// default); throws UsageError when they are invalid.
void read_sprt(const Flags& args, v1::Sprt* out);
// Returns --games (default_games when not given); throws UsageError when it is not an even
// number in 2..10^9.
int64_t read_games(const Flags& args, int64_t default_games);

}  // namespace sparring::cli
