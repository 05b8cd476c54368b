// Browser sessions of the dashboard: a user gives their token once, in the body of a POST to
// /login (never in a URL, so it reaches no access log, history or Referer); the browser then
// holds only a random session id in an HttpOnly, SameSite=Strict cookie, and each form carries
// the session's CSRF secret, checked before the form is read.
#pragma once

#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
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
    static constexpr size_t kCapacity = 10'000;  // the oldest session ends to make room
    static constexpr std::chrono::hours kLife{12};

    // Starts a session; returns its id, the cookie's value (64 hex digits).
    std::string start(Session session);
    // Returns the live session of an id (nullopt for an unknown, ended or expired one).
    std::optional<Session> find(const std::string& id) const;
    // Ends a session.
    void end(const std::string& id);

  private:
    struct Entry {
        Session session;
        std::chrono::steady_clock::time_point expires;
    };
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Entry> by_hash_;  // by the SHA-256 of the id
    std::multimap<std::chrono::steady_clock::time_point, std::string> by_expiry_;
};

// Returns 64 random lowercase hex digits (256 bits) for a session id or a CSRF secret.
std::string random_secret();
// Returns whether two secrets are equal, in time independent of where they differ.
bool same_secret(const std::string& a, const std::string& b);

}  // namespace sparring::coordinator::web
