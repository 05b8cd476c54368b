// The registry of evaluation parameters: one list of named terms (name, default, bounds,
// description) drives the evaluation, the UCI options, serialized parameter sets and the tuners.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparring {

struct ParamSpec {
    std::string_view name;  // UCI-option-safe name, e.g. "KnightValueMg"
    int default_value;
    int min;
    int max;
    std::string_view description;  // one short phrase
    std::string_view group;        // the heading it is declared under, e.g. "Material"
};

// Returns every evaluation parameter, in the fixed order that indexes ParamSet.
std::span<const ParamSpec> param_registry();
// Returns the registry index of a parameter name (exact, case-sensitive), or nullopt.
std::optional<std::size_t> param_index(std::string_view name);

// A value for every registry parameter. Belongs to an engine instance, never to the process.
class ParamSet {
  public:
    // Builds the `default` preset.
    ParamSet();

    // Returns a named preset ("default", "seed"), or nullopt for an unknown name.
    static std::optional<ParamSet> preset(std::string_view name);
    // Returns the names of the presets.
    static std::vector<std::string_view> preset_names();

    int operator[](std::size_t index) const { return values_[index]; }
    std::span<const int> values() const { return values_; }
    // Returns the value of a named parameter, or nullopt for an unknown name.
    std::optional<int> get(std::string_view name) const;
    // Sets a named parameter; an unknown name or a value outside [min, max] changes nothing,
    // returns false and explains why in *error.
    bool set(std::string_view name, int value, std::string* error = nullptr);

    // Returns the stable serialized form: a one-line JSON object {"Name": value, ...} in
    // registry order.
    std::string to_json() const;
    // Parses a JSON object of "Name": integer pairs (any subset of the registry, the rest at
    // the defaults of `base`); unknown names, bad syntax or out-of-bounds values give nullopt
    // and a message in *error.
    static std::optional<ParamSet> from_json(std::string_view text, const ParamSet& base,
                                             std::string* error = nullptr);

    bool operator==(const ParamSet&) const = default;

  private:
    std::vector<int> values_;
};

}  // namespace sparring
