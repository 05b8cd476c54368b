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

}  // namespace sparring
