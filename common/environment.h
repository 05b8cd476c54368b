// Configuration from the environment: every flag a command declares can also be given as an
// environment variable of the same name, for containers, Kubernetes and systemd units.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/args.h"

namespace sparring::cli {

// Returns the name of a flag's environment variable: SPARRING_ and the flag in upper case
// with '-' as '_' (--lease-seconds is SPARRING_LEASE_SECONDS).
std::string environment_name(std::string_view flag);

// Returns the tokens followed by `--flag value` for every declared flag that the tokens do
// not give and whose variable is set and not empty (a flag beats its variable); a boolean
// flag is added for "1", "true" or "yes". Throws UsageError for other boolean values.
std::vector<std::string> with_environment(std::span<const std::string_view> tokens,
                                          std::span<const Flag> flags);

}  // namespace sparring::cli
