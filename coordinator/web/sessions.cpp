#include "coordinator/web/sessions.h"

#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

#include <algorithm>
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

std::optional<std::string> Sessions::start(Session session) {
    std::string id = random_secret();
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard lock(mutex_);
    while (!by_expiry_.empty() && by_expiry_.begin()->first <= now)
        erase(by_expiry_.begin()->second);
    // Room is made among the user's own sessions only.
    for (auto mine = by_user_.find(session.user);
         mine != by_user_.end() && mine->second.size() >= kPerUser;
         mine = by_user_.find(session.user))
        erase(mine->second.front());
    if (by_hash_.size() >= kCapacity) return std::nullopt;
    std::string key = sha256_hex(id);
    by_expiry_.emplace(now + kLife, key);
    by_user_[session.user].push_back(key);
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
    erase(key);
}

size_t Sessions::size() const {
    std::lock_guard lock(mutex_);
    return by_hash_.size();
}

void Sessions::erase(const std::string& key) {
    const auto it = by_hash_.find(key);
    if (it == by_hash_.end()) return;
    const auto range = by_expiry_.equal_range(it->second.expires);
    for (auto e = range.first; e != range.second; ++e)
        if (e->second == key) {
            by_expiry_.erase(e);
            break;
        }
    if (const auto mine = by_user_.find(it->second.session.user); mine != by_user_.end()) {
        std::deque<std::string>& keys = mine->second;
        keys.erase(std::find(keys.begin(), keys.end(), key));
        if (keys.empty()) by_user_.erase(mine);
    }
    by_hash_.erase(it);
}

std::string client_key(std::string_view address) {
    in6_addr v6{};
    const std::string text(address);
    if (inet_pton(AF_INET6, text.c_str(), &v6) != 1) return text;
    std::fill(std::begin(v6.s6_addr) + 8, std::end(v6.s6_addr), 0);
    char out[INET6_ADDRSTRLEN];
    if (!inet_ntop(AF_INET6, &v6, out, sizeof out)) return text;
    return std::string(out) + "/64";
}

}  // namespace sparring::coordinator::web
