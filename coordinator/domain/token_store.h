// The store of API tokens, owned by the domain. SqliteStorage implements it as part of Storage.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "coordinator/domain/types.h"

namespace sparring::coordinator {

class TokenStore {
  public:
    virtual ~TokenStore() = default;

    virtual int64_t insert_token(const Token& token, std::string_view hash) = 0;
    // Returns the unrevoked token with this hash.
    virtual std::optional<Token> find_token(std::string_view hash) = 0;
    virtual std::vector<Token> list_tokens() = 0;
    // Revokes a token; returns false if there is no such token.
    virtual bool revoke_token(int64_t id) = 0;
};

}  // namespace sparring::coordinator
