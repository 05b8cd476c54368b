#include "common/sha256.h"

#include <openssl/evp.h>

#include <fstream>
#include <stdexcept>

namespace sparring {

namespace {

// Returns OpenSSL's SHA-256, fetched once: EVP_sha256() makes OpenSSL 3 look the algorithm up
// again on every call, which cost more than hashing a token (and every call hashes one or two).
const EVP_MD* sha256_md() {
    static EVP_MD* const md = EVP_MD_fetch(nullptr, "SHA256", nullptr);
    if (!md) throw std::runtime_error("OpenSSL has no SHA-256");
    return md;
}

}  // namespace

struct Sha256::State {
    EVP_MD_CTX* context = nullptr;
};

Sha256::Sha256() : state_(std::make_unique<State>()) {
    state_->context = EVP_MD_CTX_new();
    if (!state_->context || EVP_DigestInit_ex(state_->context, sha256_md(), nullptr) != 1)
        throw std::runtime_error("OpenSSL cannot start a SHA-256 digest");
}

Sha256::~Sha256() {
    EVP_MD_CTX_free(state_->context);
}

void Sha256::update(std::string_view bytes) {
    EVP_DigestUpdate(state_->context, bytes.data(), bytes.size());
}

std::string Sha256::hex() {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    EVP_DigestFinal_ex(state_->context, digest, &size);
    return lower_hex(std::string_view(reinterpret_cast<const char*>(digest), size));
}

std::string sha256_hex(std::string_view bytes) {
    unsigned char digest[EVP_MAX_MD_SIZE];
    unsigned int size = 0;
    if (EVP_Digest(bytes.data(), bytes.size(), digest, &size, sha256_md(), nullptr) != 1)
        throw std::runtime_error("OpenSSL: SHA-256 failed");
    return lower_hex(std::string_view(reinterpret_cast<const char*>(digest), size));
}

std::string lower_hex(std::string_view bytes) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string text;
    text.reserve(2 * bytes.size());
    for (const char byte : bytes) {
        const auto b = static_cast<unsigned char>(byte);
        text += kDigits[b >> 4];
        text += kDigits[b & 15];
    }
    return text;
}

std::optional<std::string> sha256_of_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    Sha256 digest;
    std::string buffer(1 << 20, '\0');
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        digest.update(std::string_view(buffer.data(), size_t(in.gcount())));
    }
    if (in.bad()) return std::nullopt;
    return digest.hex();
}

bool is_sha256_hex(std::string_view text) {
    if (text.size() != 64) return false;
    for (char c : text)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace sparring
