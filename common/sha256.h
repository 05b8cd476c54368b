// SHA-256 of bytes, files and streams (OpenSSL), as lower-case hex: how engine files are
// named, compared and verified by the CLI, the coordinator and the workers, and how the
// coordinator stores its tokens and compares retried reports. The one SHA-256 of the tree.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace sparring {

class Sha256 {
  public:
    // Starts an empty digest.
    Sha256();
    ~Sha256();
    Sha256(const Sha256&) = delete;
    Sha256& operator=(const Sha256&) = delete;

    // Adds bytes to the digest.
    void update(std::string_view bytes);
    // Returns the digest of everything added, in hex; the object is then spent.
    std::string hex();

  private:
    struct State;
    std::unique_ptr<State> state_;
};

// Returns the lower-case hex SHA-256 of the bytes (tokens are stored as this, reports
// compared by it).
std::string sha256_hex(std::string_view bytes);

// Returns the bytes in lower-case hex, two digits a byte.
std::string lower_hex(std::string_view bytes);

// Returns the hex SHA-256 of a file's contents, or nullopt when it cannot be read.
std::optional<std::string> sha256_of_file(const std::string& path);

// Returns whether text is a hex SHA-256 as hex() writes it (64 lower-case hex digits).
bool is_sha256_hex(std::string_view text);

}  // namespace sparring
