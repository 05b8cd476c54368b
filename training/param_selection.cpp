#include "training/param_selection.h"

#include <span>

#include "engine/params.h"

namespace sparring::training {

namespace {

// Returns whether the registry parameter spec is named by one entry of a selection.
bool matches(const ParamSpec& spec, std::string_view entry) {
    constexpr std::string_view GROUP = "group:";
    if (entry == "all") return true;
    if (entry.starts_with(GROUP)) return spec.group == entry.substr(GROUP.size());
    if (entry.ends_with('*')) return spec.name.starts_with(entry.substr(0, entry.size() - 1));
    return spec.name == entry;
}

}  // namespace

std::optional<std::vector<std::size_t>> parse_param_selection(std::string_view text,
                                                              std::string* error) {
    const std::span<const ParamSpec> registry = param_registry();
    std::vector<bool> chosen(registry.size(), false);
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view entry = text.substr(start, comma - start);
        bool found = false;
        for (std::size_t i = 0; i < registry.size(); ++i) {
            if (!matches(registry[i], entry)) continue;
            chosen[i] = true;
            found = true;
        }
        if (!found) {
            if (error) {
                *error = std::string(entry);
                *error += " names no parameter (use a parameter name, group:GROUP, PREFIX* or all)";
            }
            return std::nullopt;
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < chosen.size(); ++i)
        if (chosen[i]) indices.push_back(i);
    return indices;
}

}  // namespace sparring::training
