// Secrets: bearer tokens are random, and only their SHA-256 is stored.
#pragma once

#include <string>
#include <string_view>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// Returns the lowercase hex SHA-256 of the bytes.
std::string sha256_hex(std::string_view bytes);
// Returns a new secret token: a role prefix ("spw_" worker, "spu_" user) and 256 random bits.
std::string generate_token(Role role);

}  // namespace sparring::coordinator
