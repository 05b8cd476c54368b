// Secrets: bearer tokens are random, and only their SHA-256 (sha256_hex, common/sha256.h) is
// stored.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "common/sha256.h"
#include "coordinator/domain/types.h"

namespace sparring::coordinator {

// Returns a new secret token: a role prefix ("spw_" worker, "spu_" user, "spa_"
// admin) and 256 random bits.
std::string generate_token(Role role);
// Returns UNAUTHENTICATED unless the token has the shape generate_token gives (a role prefix
// and 64 lowercase hex digits): a call with anything else is refused without a look-up.
absl::Status check_token_shape(std::string_view token);

}  // namespace sparring::coordinator
