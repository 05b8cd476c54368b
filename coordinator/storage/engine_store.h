// The uploaded engine files on disk: a directory beside the database (DB.engines/) holding
// each file under its hex SHA-256, written to tmp/ first and renamed into place, so a name
// only ever holds complete, verified bytes. The engines table records which names exist.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sparring::coordinator {

class EngineStore {
  public:
    // Uses (and creates, mode 0700) the directory beside the database file db_path.
    explicit EngineStore(const std::string& db_path);

    // Returns the directory of the engine files of a database file.
    static std::string directory_of(const std::string& db_path) { return db_path + ".engines"; }

    // Returns where a stored file lives (whether or not it exists).
    std::string path_of(std::string_view sha256) const;
    // Returns whether a stored file exists.
    bool contains(std::string_view sha256) const;
    // Creates an empty temporary file (mode 0600) for an upload; returns its path and sets
    // *fd, or nullopt with *error.
    std::optional<std::string> create_temporary(int* fd, std::string* error) const;
    // Syncs a complete temporary file and renames it to its content address (an existing
    // file of that name has the same bytes and stays); false with *error when it cannot.
    bool install(const std::string& temporary, std::string_view sha256, std::string* error) const;

  private:
    std::string dir_;
};

}  // namespace sparring::coordinator
