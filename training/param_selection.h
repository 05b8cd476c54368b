// Which registry parameters a training run fits, chosen by name, by group or by prefix.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparring::training {

// Returns the registry indices, in registry order and without repeats, of a comma-separated
// list whose entries are parameter names ("KnightValueMg"), groups ("group:Material"),
// prefixes ("KnightMobility*") or "all"; nullopt with *error naming an entry that matches
// nothing.
std::optional<std::vector<std::size_t>> parse_param_selection(std::string_view text,
                                                              std::string* error);

}  // namespace sparring::training
