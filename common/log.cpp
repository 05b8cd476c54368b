#include "common/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include "common/printable.h"

namespace sparring {

namespace {

std::atomic<LogLevel> min_level{LogLevel::Info};
std::mutex output_mutex;

constexpr std::string_view kLevelNames[] = {"debug", "info", "warn", "error"};

// Appends a value, quoted and escaped if it is empty or holds spaces, quotes, '=' or controls.
void append_value(std::string& line, std::string_view value) {
    bool plain = !value.empty();
    for (char c : value)
        if (c == ' ' || c == '"' || c == '=' || c == '\\' || static_cast<unsigned char>(c) < 0x20)
            plain = false;
    if (plain) {
        line += value;
        return;
    }
    line += '"';
    for (char c : value) {
        if (c == '"' || c == '\\') {
            line += '\\';
            line += c;
        } else if (c == '\n') {
            line += "\\n";
        } else if (static_cast<unsigned char>(c) < 0x20) {
            line += ' ';
        } else {
            line += c;
        }
    }
    line += '"';
}

// Returns the current UTC time as RFC 3339 with milliseconds.
std::string timestamp() {
    const auto now = std::chrono::system_clock::now();
    const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    char text[64];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  int(ms.count()));
    return text;
}

}  // namespace

std::optional<LogLevel> parse_log_level(std::string_view text) {
    for (size_t i = 0; i < std::size(kLevelNames); ++i)
        if (text == kLevelNames[i]) return LogLevel(i);
    return std::nullopt;
}

void set_log_level(LogLevel level) {
    min_level.store(level);
}

bool log_enabled(LogLevel level) {
    return level >= min_level.load(std::memory_order_relaxed);
}

void log_event(LogLevel level, std::string_view event, std::span<const LogField> fields) {
    if (!log_enabled(level)) return;
    std::string line = "ts=" + timestamp() + " level=" + std::string(kLevelNames[int(level)]) +
                       " event=" + std::string(event);
    for (const auto& [key, value] : fields) {
        line += ' ';
        line += key;
        line += '=';
        append_value(line, value);
    }
    line += '\n';
    std::lock_guard lock(output_mutex);
    std::fwrite(line.data(), 1, line.size(), stderr);
    std::fflush(stderr);
}

void log_event(LogLevel level, std::string_view event, std::initializer_list<LogField> fields) {
    log_event(level, event, std::span<const LogField>(fields.begin(), fields.size()));
}

void log_unexpected_exception(std::string_view where, std::exception_ptr exception) {
    std::string what = exception ? "an exception that is not a std::exception" : "no exception";
    try {
        if (exception) std::rethrow_exception(exception);
    } catch (const std::exception& e) {
        what = e.what();
    } catch (...) {
    }
    log_event(LogLevel::Error, "unexpected_exception",
              {{"where", std::string(where)}, {"error", valid_utf8(what)}});
}

}  // namespace sparring
