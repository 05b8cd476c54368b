#include "coordinator/domain/auth.h"

#include <openssl/evp.h>
#include <openssl/rand.h>

#include <stdexcept>

namespace sparring::coordinator {

namespace {

// Returns the bytes in lowercase hex.
std::string hex(const unsigned char* bytes, size_t size) {
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < size; ++i) {
        out += digits[bytes[i] >> 4];
        out += digits[bytes[i] & 15];
    }
    return out;
}

}  // namespace

std::string sha256_hex(std::string_view bytes) {
    // Fetched once: EVP_sha256() makes OpenSSL 3 look the algorithm up again on every call,
    // which cost more than hashing a token (and every call hashes one or two).
    static EVP_MD* const sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (!sha256 || EVP_Digest(bytes.data(), bytes.size(), digest, &size, sha256, nullptr) != 1)
        throw std::runtime_error("openssl: SHA-256 failed");
    return hex(digest, size);
}

std::string generate_token(Role role) {
    unsigned char secret[32];
    if (RAND_bytes(secret, sizeof secret) != 1)
        throw std::runtime_error("openssl: no random bytes for a token");
    const char* prefix = role == Role::Worker ? "spw_" : role == Role::User ? "spu_" : "spa_";
    return prefix + hex(secret, sizeof secret);
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
