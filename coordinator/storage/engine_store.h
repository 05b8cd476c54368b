// The uploaded engine files on disk: a directory beside the database (DB.engines/) holding
// each file under its hex SHA-256, written to tmp/ first and renamed into place, so a name
// only ever holds complete, verified bytes. The engines table records which names exist.
// Every file is opened by name from the directory's descriptor and never through a link: a
// link planted in the directory (or as the directory) is neither read nor written through.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sparring::coordinator {

class EngineStore {
  public:
    // A file being uploaded, in tmp/: open for writing, known by its name there.
    struct Temporary {
        int fd = -1;
        std::string name;
    };

    // Uses (and creates, mode 0700) the directory beside the database file db_path; throws
    // std::runtime_error when it cannot, or when it or its tmp/ is a symbolic link.
    explicit EngineStore(const std::string& db_path);
    ~EngineStore();
    EngineStore(const EngineStore&) = delete;
    EngineStore& operator=(const EngineStore&) = delete;

    // Returns the directory of the engine files of a database file.
    static std::string directory_of(const std::string& db_path) { return db_path + ".engines"; }
    // Returns this store's directory, for messages.
    const std::string& directory() const { return dir_; }

    // Opens a stored file for reading; returns its descriptor, or -1 when there is no regular
    // file of that name (a link is not followed).
    int open_file(std::string_view sha256) const;
    // Returns whether a stored file is a regular file whose bytes have the SHA-256 it is named by.
    bool holds(std::string_view sha256) const;
    // Creates an empty temporary file (mode 0600) for an upload; nullopt with *error.
    std::optional<Temporary> create_temporary(std::string* error) const;
    // Removes a temporary file that was not installed.
    void remove_temporary(const std::string& name) const;
    // Syncs a complete, verified temporary file and renames it to its content address,
    // replacing whatever held that name (a file of other bytes, a planted link); false with
    // *error when it cannot. The temporary's descriptor stays the caller's to close.
    bool install(const Temporary& temporary, std::string_view sha256, std::string* error) const;

  private:
    std::string dir_;
    int dir_fd_ = -1;
    int tmp_fd_ = -1;
};

}  // namespace sparring::coordinator
