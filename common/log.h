// The structured log of the coordinator and the worker: one logfmt line per event on stderr
// (`ts=... level=info event=run_submitted run=3 test=new base=master`), filtered by level.
#pragma once

#include <exception>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace sparring {

enum class LogLevel { Debug, Info, Warn, Error };

std::optional<LogLevel> parse_log_level(std::string_view text);
// Sets the least severe level written (the default is Info).
void set_log_level(LogLevel level);
// Returns whether an event of this level would be written.
bool log_enabled(LogLevel level);

using LogField = std::pair<std::string_view, std::string>;

// Writes an event with its fields as one line, values quoted when they need it.
void log_event(LogLevel level, std::string_view event, std::initializer_list<LogField> fields = {});
// Likewise, for fields gathered at run time.
void log_event(LogLevel level, std::string_view event, std::span<const LogField> fields);

// Logs an exception (by default the one being handled: call it in a catch block) as an error
// event `unexpected_exception` with where it was caught and its message: the last resort of a
// thread that must keep serving after a fault it did not foresee.
void log_unexpected_exception(std::string_view where,
                              std::exception_ptr exception = std::current_exception());

}  // namespace sparring
