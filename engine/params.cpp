#include "engine/params.h"

#include <array>
#include <string>
#include <unordered_map>
#include <utility>

#include "engine/eval_terms.h"

namespace sparring {

namespace {

using eval_terms::Label;
using eval_terms::TERMS;

// The registry built from eval_terms::TERMS once; the strings the specs point into live here.
struct Registry {
    std::vector<std::string> names;
    std::vector<std::string> descriptions;
    std::vector<ParamSpec> specs;
    std::unordered_map<std::string_view, std::size_t> index;
};

// Returns the part of a parameter name that tells element i of a term from the others.
std::string element_label(const eval_terms::Term& term, int i) {
    static constexpr std::array<std::string_view, 4> FILE_PAIRS = {"AH", "BG", "CF", "DE"};
    static constexpr std::array<std::string_view, 4> PIECES = {"Knight", "Bishop", "Rook", "Queen"};
    switch (term.label) {
        case Label::None:
            return "";
        case Label::Number:
            return std::to_string(term.first + i);
        case Label::FilePair:
            return std::string(FILE_PAIRS.at(i));
        case Label::Piece:
            return std::string(PIECES.at(i));
    }
    return "";
}

// Expands every term of TERMS into its middle-game and end-game parameters.
Registry build_registry() {
    Registry r;
    r.names.reserve(eval_terms::PARAM_NB);
    r.descriptions.reserve(eval_terms::PARAM_NB);
    for (const eval_terms::Term& term : TERMS) {
        for (int i = 0; i < term.count; ++i) {
            const std::string base = std::string(term.name) + element_label(term, i);
            std::string what(term.description);
            if (term.label != Label::None) what += " (" + element_label(term, i) + ")";
            r.names.push_back(base + "Mg");
            r.descriptions.push_back(what + ", middle game");
            r.names.push_back(base + "Eg");
            r.descriptions.push_back(what + ", end game");
        }
    }
    std::size_t p = 0;
    for (const eval_terms::Term& term : TERMS) {
        for (int i = 0; i < term.count; ++i) {
            for (int value : {term.defaults[i].mg, term.defaults[i].eg}) {
                r.specs.push_back(
                    {r.names[p], value, term.min, term.max, r.descriptions[p], term.group});
                r.index.emplace(r.names[p], p);
                ++p;
            }
        }
    }
    return r;
}

// Returns the one registry, built on first use and never changed afterwards.
const Registry& registry() {
    static const Registry r = build_registry();
    return r;
}

// The seed's piece type codes (pawn 1, knight 3, bishop 4, rook 5, queen 8) in centipawns,
// for both game phases: the values of the `seed` preset that differ from the defaults.
constexpr std::pair<std::string_view, int> SEED_PIECE_VALUES[] = {
    {"PawnValueMg", 100},   {"PawnValueEg", 100},   {"KnightValueMg", 300}, {"KnightValueEg", 300},
    {"BishopValueMg", 400}, {"BishopValueEg", 400}, {"RookValueMg", 500},   {"RookValueEg", 500},
    {"QueenValueMg", 800},  {"QueenValueEg", 800}};

}  // namespace

std::span<const ParamSpec> param_registry() {
    return registry().specs;
}

std::optional<std::size_t> param_index(std::string_view name) {
    const auto& index = registry().index;
    const auto it = index.find(name);
    if (it == index.end()) return std::nullopt;
    return it->second;
}

ParamSet::ParamSet() {
    values_.reserve(param_registry().size());
    for (const ParamSpec& spec : param_registry()) values_.push_back(spec.default_value);
}

std::optional<ParamSet> ParamSet::preset(std::string_view name) {
    if (name == "default") return ParamSet();
    if (name != "seed") return std::nullopt;
    ParamSet set;
    for (const auto& [param, value] : SEED_PIECE_VALUES) set.set(param, value);
    return set;
}

std::vector<std::string_view> ParamSet::preset_names() {
    return {"default", "seed"};
}

std::optional<int> ParamSet::get(std::string_view name) const {
    const auto index = param_index(name);
    if (!index) return std::nullopt;
    return values_[*index];
}

bool ParamSet::set(std::string_view name, int value, std::string* error) {
    const auto index = param_index(name);
    if (!index) {
        if (error) *error = "unknown parameter \"" + std::string(name) + "\"";
        return false;
    }
    const ParamSpec& spec = param_registry()[*index];
    if (value < spec.min || value > spec.max) {
        if (error)
            *error = std::string(name) + " = " + std::to_string(value) + " is outside [" +
                     std::to_string(spec.min) + ", " + std::to_string(spec.max) + "]";
        return false;
    }
    values_[*index] = value;
    return true;
}

}  // namespace sparring
