// Core: tokens: creating one (its secret shown once, stored hashed) and finding the holder of
// a bearer token.
#include "common/sha256.h"
#include "coordinator/domain/auth.h"
#include "coordinator/domain/core.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

std::string Core::create_token(Storage& storage, Role role, const std::string& name) const {
    const std::string secret = generate_token(role);
    Token token;
    token.role = role;
    token.name = name;
    token.created_ms = now_ms_();
    storage.insert_token(token, sha256_hex(secret));
    return secret;
}

absl::StatusOr<Caller> Core::authenticate(Storage& storage, std::string_view token,
                                          std::optional<Role> role) const {
    if (absl::Status shape = check_token_shape(token); !shape.ok()) return shape;
    const std::optional<Token> found = storage.find_token(sha256_hex(token));
    if (!found) return absl::UnauthenticatedError("invalid or revoked token");
    if (role && !role_allows(found->role, *role))
        return absl::PermissionDeniedError("this call needs a " + std::string(role_name(*role)) +
                                           " token, not a " + std::string(role_name(found->role)) +
                                           " token");
    return Caller{found->id, found->role, found->name, {}};
}

}  // namespace sparring::coordinator
