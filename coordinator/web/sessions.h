// Browser sessions of the dashboard: a user gives their token once, in the body of a POST to
// /login (never in a URL, so it reaches no access log, history or Referer); the browser then
// holds only a random session id in an HttpOnly, SameSite=Strict cookie, and each form carries
// the session's CSRF secret, checked before the form is read. Each user's sessions are counted
// apart, so that no user's logins end another's sessions; logins are rate-limited (RateLimit).
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "coordinator/domain/types.h"

namespace sparring::coordinator::web {

struct Session {
    std::string token;  // the user's bearer token: every call made for the session checks it
    std::string user;   // the token's name when the session started
    Role role = Role::User;
    std::string csrf;  // the secret each form of the session carries
};

class Sessions {
  public:
    // A user's sessions at most: their own oldest one ends to make room for a new one.
    static constexpr size_t kPerUser = 20;
    // Sessions of all users at most: past it a login is refused until sessions end or expire
    // (no user's login ends another user's session).
    static constexpr size_t kCapacity = 50'000;
    static constexpr std::chrono::hours kLife{12};

    // Starts a session; returns its id, the cookie's value (64 hex digits), or nullopt when
    // kCapacity sessions are live.
    std::optional<std::string> start(Session session);
    // Returns the live session of an id (nullopt for an unknown, ended or expired one).
    std::optional<Session> find(const std::string& id) const;
    // Ends a session.
    void end(const std::string& id);
    // Returns the live sessions.
    size_t size() const;

  private:
    struct Entry {
        Session session;
        std::chrono::steady_clock::time_point expires;
    };
    // Ends the session of a key (the SHA-256 of its id); the mutex is held.
    void erase(const std::string& key);

    mutable std::mutex mutex_;
    std::unordered_map<std::string, Entry> by_hash_;  // by the SHA-256 of the id
    std::multimap<std::chrono::steady_clock::time_point, std::string> by_expiry_;
    std::unordered_map<std::string, std::deque<std::string>> by_user_;  // keys, oldest first
};

// Returns the key a client address counts under: the address itself for IPv4, its /64 for
// IPv6 (one host usually holds a whole /64).
std::string client_key(std::string_view address);

// Returns 64 random lowercase hex digits (256 bits) for a session id or a CSRF secret.
std::string random_secret();
// Returns whether two secrets are equal, in time independent of where they differ.
bool same_secret(const std::string& a, const std::string& b);

}  // namespace sparring::coordinator::web
