#include "coordinator/web/sessions.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <stdexcept>

#include "coordinator/domain/auth.h"

namespace sparring::coordinator::web {

std::string random_secret() {
    unsigned char bytes[32];
    if (RAND_bytes(bytes, sizeof bytes) != 1)
        throw std::runtime_error("openssl: no random bytes for a session");
    static constexpr char digits[] = "0123456789abcdef";
    std::string out;
    for (unsigned char b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

bool same_secret(const std::string& a, const std::string& b) {
    return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string Sessions::start(Session session) {
    std::string id = random_secret();
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    // Expired sessions go first, then the oldest while there is no room.
    while (!by_expiry_.empty() &&
           (by_expiry_.begin()->first <= now || by_hash_.size() >= kCapacity)) {
        by_hash_.erase(by_expiry_.begin()->second);
        by_expiry_.erase(by_expiry_.begin());
    }
    std::string key = sha256_hex(id);
    by_expiry_.emplace(now + kLife, key);
    by_hash_[std::move(key)] = Entry{std::move(session), now + kLife};
    return id;
}

std::optional<Session> Sessions::find(const std::string& id) const {
    if (id.size() != 64) return std::nullopt;
    const std::string key = sha256_hex(id);
    std::lock_guard lock(mutex_);
    const auto it = by_hash_.find(key);
    if (it == by_hash_.end() || it->second.expires <= std::chrono::steady_clock::now())
        return std::nullopt;
    return it->second.session;
}

void Sessions::end(const std::string& id) {
    if (id.size() != 64) return;
    const std::string key = sha256_hex(id);
    std::lock_guard lock(mutex_);
    const auto it = by_hash_.find(key);
    if (it == by_hash_.end()) return;
    const auto range = by_expiry_.equal_range(it->second.expires);
    for (auto e = range.first; e != range.second; ++e)
        if (e->second == key) {
            by_expiry_.erase(e);
            break;
        }
    by_hash_.erase(it);
}

}  // namespace sparring::coordinator::web
