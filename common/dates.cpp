#include "common/dates.h"

#include <chrono>
#include <ctime>

namespace sparring {

int64_t unix_now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

std::optional<int64_t> utc_day_ms(std::string_view text) {
    // YYYY-MM-DD: ten characters, digits but for the two dashes.
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
    const auto number = [&text](size_t from, size_t count) {
        int value = 0;
        for (size_t i = from; i < from + count; ++i) {
            if (text[i] < '0' || text[i] > '9') return -1;
            value = 10 * value + (text[i] - '0');
        }
        return value;
    };
    const int year = number(0, 4), month = number(5, 2), day = number(8, 2);
    if (year < 1970 || month < 1 || month > 12 || day < 1 || day > 31) return std::nullopt;
    std::tm tm{};
    tm.tm_year = year - 1900;
    tm.tm_mon = month - 1;
    tm.tm_mday = day;
    return int64_t(timegm(&tm)) * 1000;
}

std::optional<int64_t> utc_time_ms(std::string_view text, bool* date_only) {
    if (!text.empty() && (text.back() == 'Z' || text.back() == 'z')) text.remove_suffix(1);
    const std::optional<int64_t> day = utc_day_ms(text.substr(0, 10));
    if (!day) return std::nullopt;
    if (date_only) *date_only = text.size() == 10;
    if (text.size() == 10) return day;
    // THH:MM or THH:MM:SS after the date.
    if ((text.size() != 16 && text.size() != 19) ||
        (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || text[13] != ':' ||
        (text.size() == 19 && text[16] != ':'))
        return std::nullopt;
    const auto number = [&text](size_t from) {
        const char a = text[from], b = text[from + 1];
        if (a < '0' || a > '9' || b < '0' || b > '9') return -1;
        return 10 * (a - '0') + (b - '0');
    };
    const int hours = number(11), minutes = number(14),
              seconds = text.size() == 19 ? number(17) : 0;
    if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || seconds < 0 || seconds > 59)
        return std::nullopt;
    return *day + (int64_t(hours) * 3600 + minutes * 60 + seconds) * 1000;
}

}  // namespace sparring
