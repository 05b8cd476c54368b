#include "coordinator/domain/version_options.h"

#include <algorithm>
#include <charconv>
#include <cmath>

#include "engine/params.h"
#include "match/bench_cache.h"
#include "match/uci_options.h"

namespace sparring::coordinator {

namespace {

// Returns the integer a text holds, whole, nullopt for any other text.
std::optional<int64_t> integer(const std::string& text) {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return value;
}

// Returns the parameters a built-in version plays: its preset with its overrides.
ParamSet builtin_params(const Version& version) {
    std::string error;
    if (std::optional<ParamSet> resolved =
            ParamSet::from_json(version.params_json, ParamSet(), &error))
        return *resolved;
    ParamSet params = ParamSet::preset(version.preset).value_or(ParamSet());
    for (const auto& [name, value] : version.overrides) params.set(name, value);
    return params;
}

}  // namespace

std::vector<match::EngineOption> version_options(const Version& version) {
    std::vector<match::EngineOption> options;
    if (version.kind == Version::Kind::Builtin) {
        const ParamSet params = builtin_params(version);
        const auto registry = param_registry();
        options.reserve(registry.size());
        for (size_t i = 0; i < registry.size(); ++i)
            options.push_back({std::string(registry[i].name), "spin", std::to_string(params[i]),
                               registry[i].min, registry[i].max});
        return options;
    }
    options = version.options;
    for (match::EngineOption& option : options) {
        if (option.type != "spin") continue;
        // The last value the version sends for it, if it is one the engine takes.
        for (const std::string& value :
             match::uci_option_values(version.uci_options, option.name)) {
            const std::optional<int64_t> set = integer(value);
            if (set && *set >= option.min && *set <= option.max)
                option.default_value = std::to_string(*set);
        }
    }
    return options;
}

const match::EngineOption* find_option(const std::vector<match::EngineOption>& options,
                                       const std::string& name) {
    const std::string wanted = match::canonical_option_name(name);
    const auto found =
        std::find_if(options.begin(), options.end(), [&](const match::EngineOption& option) {
            return match::canonical_option_name(option.name) == wanted;
        });
    return found == options.end() ? nullptr : &*found;
}

Version with_option_values(const Version& base,
                           const std::vector<std::pair<std::string, double>>& values) {
    Version v = base;
    v.id = 0;
    v.created_ms = 0;
    v.name.clear();
    v.description.clear();
    v.owner.clear();
    if (base.kind == Version::Kind::Builtin) {
        ParamSet params = builtin_params(base);
        for (const auto& [name, value] : values) {
            const int rounded = int(std::lround(value));
            v.overrides[name] = rounded;
            params.set(name, rounded);
        }
        v.params_json.clear();  // the coordinator fills it in when it adds the version
        v.bench = awaited_bench(params);
        return v;
    }
    for (const auto& [name, value] : values) {
        const std::string wanted = match::canonical_option_name(name);
        std::erase_if(v.uci_options, [&](const auto& option) {
            return match::canonical_option_name(option.first) == wanted;
        });
        v.uci_options[name] = std::to_string(std::lround(value));
    }
    return v;
}

}  // namespace sparring::coordinator
