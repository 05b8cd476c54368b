#include "coordinator/domain/auth.h"

#include <openssl/rand.h>

#include <stdexcept>

namespace sparring::coordinator {

std::string generate_token(Role role) {
    unsigned char secret[32];
    if (RAND_bytes(secret, sizeof secret) != 1)
        throw std::runtime_error("openssl: no random bytes for a token");
    const char* prefix = role == Role::Worker ? "spw_" : role == Role::User ? "spu_" : "spa_";
    return prefix +
           lower_hex(std::string_view(reinterpret_cast<const char*>(secret), sizeof secret));
}

absl::Status check_token_shape(std::string_view token) {
    if (token.empty())
        return absl::UnauthenticatedError(
            "no token: pass --token or set SPARRING_TOKEN (tokens come from "
            "`sparring-coordinator token create`)");
    constexpr size_t kHexDigits = 64;
    const std::string_view prefix = token.substr(0, 4);
    bool shaped = token.size() == 4 + kHexDigits &&
                  (prefix == "spw_" || prefix == "spu_" || prefix == "spa_");
    for (size_t i = 4; shaped && i < token.size(); ++i)
        shaped = (token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f');
    return shaped ? absl::OkStatus() : absl::UnauthenticatedError("invalid or revoked token");
}

}  // namespace sparring::coordinator
