#include "common/fault_bound.h"

#include <charconv>

namespace sparring {

namespace {

// Parses a whole unsigned decimal number.
std::optional<int64_t> whole_number(std::string_view text) {
    int64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || value < 0) return std::nullopt;
    return value;
}

}  // namespace

std::string fault_bound_problem(const FaultBound& bound) {
    if (bound.off) return "";
    if (bound.percent < 1 || bound.percent > 100)
        return "a fault bound's percentage must be from 1 to 100, not " +
               std::to_string(bound.percent);
    if (bound.min_games < 2)
        return "a fault bound's minimum games must be at least 2, not " +
               std::to_string(bound.min_games);
    return "";
}

std::optional<FaultBound> parse_fault_bound(std::string_view text, std::string* error,
                                            int64_t min_games) {
    const auto bad = [&](const std::string& why) -> std::optional<FaultBound> {
        *error = "fault bound '" + std::string(text.substr(0, 40)) + "': " + why +
                 " (write PERCENT%[/MIN_GAMES], e.g. 10%/20, or off)";
        return std::nullopt;
    };
    if (text == "off") return FaultBound{.off = true};
    const size_t percent_sign = text.find('%');
    if (percent_sign == std::string_view::npos) return bad("no '%' after the percentage");
    const std::optional<int64_t> percent = whole_number(text.substr(0, percent_sign));
    if (!percent || *percent > 1000) return bad("the percentage is not a whole number");
    FaultBound bound{.percent = int(*percent), .min_games = min_games};
    const std::string_view rest = text.substr(percent_sign + 1);
    if (!rest.empty()) {
        if (rest[0] != '/') return bad("expected '/' after the '%'");
        const std::optional<int64_t> games = whole_number(rest.substr(1));
        if (!games) return bad("the minimum games are not a whole number");
        bound.min_games = *games;
    }
    if (std::string why = fault_bound_problem(bound); !why.empty()) {
        *error = why;
        return std::nullopt;
    }
    return bound;
}

std::string fault_bound_text(const FaultBound& bound) {
    if (bound.off) return "off";
    return std::to_string(bound.percent) + "%/" + std::to_string(bound.min_games);
}

bool passes_fault_bound(const FaultBound& bound, int64_t faults, int64_t games) {
    if (bound.off || games < bound.min_games || games <= 0) return false;
    return faults * 100 > int64_t(bound.percent) * games;
}

}  // namespace sparring
