#include "common/numbers.h"

#include <cmath>
#include <cstdio>

namespace sparring {

std::string fixed(double value, int decimals) {
    if (!std::isfinite(value)) return "n/a";
    if (std::fabs(value) < 0.5 * std::pow(10.0, -decimals)) value = 0;  // no "-0.00"
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string signed_fixed(double value, int decimals) {
    const std::string text = fixed(value, decimals);
    if (!std::isfinite(value) || text.front() == '-' || text.find_first_not_of("0.") == text.npos)
        return text;
    return "+" + text;
}

std::string p_value_text(double p) {
    if (!std::isfinite(p)) return "n/a";
    if (p >= 0.001) return fixed(p, 3);
    char text[32];
    std::snprintf(text, sizeof text, "%.1e", p);
    return text;
}

}  // namespace sparring
