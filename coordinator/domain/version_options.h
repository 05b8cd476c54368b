// The options of a version, one idea for every engine: an external engine's spin options are
// what its `uci` reply declares (recorded when the version was added), and the built-in
// engine's are its evaluation parameters (the registry's names and bounds, which
// `sparring-engine` also declares as spin options). A tuning run tunes options, and the
// version its result makes is its base with some option values set, whatever the engine.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// Returns a version's options, each default being the version's own value of it: a built-in
// version's parameters (spin options), or the options recorded for an external engine with
// the values the version sets in place of the engine's defaults. Empty for an external
// version whose options were not recorded.
std::vector<match::EngineOption> version_options(const Version& version);

// Returns the option of a version an engine reads as `name` (UCI names ignore case and
// repeated spaces), nullptr when it has none.
const match::EngineOption* find_option(const std::vector<match::EngineOption>& options,
                                       const std::string& name);

// Returns the base version with these option values, rounded to integers, each replacing the
// base's value of that option: a built-in version's overrides (and its bench signature, which
// they change), an external engine's UCI options. Name, id, owner and creation time are
// cleared for the caller to set.
Version with_option_values(const Version& base,
                           const std::vector<std::pair<std::string, double>>& values);

}  // namespace sparring::coordinator
