// Numbers as every output of the project writes them — the CLI's tables, the dashboard, the
// log: one formatter of each kind, so that a value reads the same wherever it is shown.
#pragma once

#include <string>

namespace sparring {

// Returns value with a fixed count of decimals; a value that rounds to zero has no sign ("0.00",
// never "-0.00"), and a value that is not finite reads "n/a".
std::string fixed(double value, int decimals);
// Returns value as fixed() does, with a "+" before a positive one ("+3.46", "-1.5", "0.00").
std::string signed_fixed(double value, int decimals);
// Returns a p-value readably: three decimals, or two significant digits when below 0.001
// ("0.188", "3.2e-05").
std::string p_value_text(double p);

}  // namespace sparring
