#include "common/engine_archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <set>
#include <vector>

namespace sparring {

namespace {

struct ArchiveCloser {
    void operator()(archive* a) const { archive_read_free(a); }
};

// Splits a path into its components, dropping empty ones and ".".
std::vector<std::string> components(const std::string& path) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= path.size()) {
        const size_t end = std::min(path.find('/', start), path.size());
        std::string part = path.substr(start, end - start);
        if (!part.empty() && part != ".") parts.push_back(std::move(part));
        start = end + 1;
    }
    return parts;
}

// Joins components with '/'.
std::string joined(const std::vector<std::string>& parts, size_t count) {
    std::string path;
    for (size_t i = 0; i < count; ++i) path += (i ? "/" : "") + parts[i];
    return path;
}

// Resolves a symbolic link's target lexically from the link's directory; empty when it
// leaves the archive's directory or is absolute.
std::string resolve_link(const std::vector<std::string>& link, const std::string& target) {
    if (target.empty() || target[0] == '/') return {};
    std::vector<std::string> resolved(link.begin(), link.end() - 1);
    for (const std::string& part : components(target)) {
        if (part != "..") {
            resolved.push_back(part);
        } else if (resolved.empty()) {
            return {};
        } else {
            resolved.pop_back();
        }
    }
    return resolved.empty() ? std::string(".") : joined(resolved, resolved.size());
}

// Walks an archive's entries, checking each and, with a directory, writing it there.
class Walk {
  public:
    Walk(const ArchiveLimits& limits, std::string dir) : limits_(limits), dir_(std::move(dir)) {}

    // Returns why the archive was refused, or an empty string.
    std::string run(const std::string& path) {
        std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
        archive_read_support_filter_gzip(a.get());
        archive_read_support_format_tar(a.get());
        if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK)
            return "not a readable .tar.gz archive: " + error_of(a.get());
        archive_entry* entry = nullptr;
        for (;;) {
            const int rc = archive_read_next_header(a.get(), &entry);
            if (rc == ARCHIVE_EOF) break;
            if (rc != ARCHIVE_OK && rc != ARCHIVE_WARN)
                return "not a readable .tar.gz archive: " + error_of(a.get());
            if (++entries_ > limits_.max_entries)
                return "more than " + std::to_string(limits_.max_entries) + " entries";
            const char* name = archive_entry_pathname(entry);
            std::string why = visit(a.get(), entry, name ? name : "");
            if (!why.empty()) return "entry '" + std::string(name ? name : "") + "': " + why;
        }
        if (entries_ == 0) return "the archive is empty";
        return {};
    }

  private:
    // Returns libarchive's message of the last failure.
    static std::string error_of(archive* a) {
        const char* message = archive_error_string(a);
        return message ? message : "unknown error";
    }

    // Checks one entry (and writes it); returns why it is refused, or an empty string.
    std::string visit(archive* a, archive_entry* entry, const std::string& name) {
        if (std::string why = unsafe_relative_path(name); !why.empty()) return why;
        const std::vector<std::string> parts = components(name);
        if (parts.empty()) return archive_entry_filetype(entry) == AE_IFDIR ? "" : "no name";
        for (size_t i = 1; i <= parts.size(); ++i)
            if (links_.count(joined(parts, i)))
                return "it lies under the symbolic link '" + joined(parts, i) + "'";
        const std::string path = joined(parts, parts.size());
        if (!seen_.insert(path).second && archive_entry_filetype(entry) != AE_IFDIR)
            return "it appears twice";
        if (const char* target = archive_entry_hardlink(entry)) {
            const std::vector<std::string> to = components(target);
            if (!unsafe_relative_path(target).empty() || to.empty() ||
                !files_.count(joined(to, to.size())))
                return "a hard link to something that is not a file of the archive";
            return write_hard_link(joined(to, to.size()), path);
        }
        switch (archive_entry_filetype(entry)) {
            case AE_IFDIR:
                return write_directory(path);
            case AE_IFLNK: {
                const char* target = archive_entry_symlink(entry);
                if (!target || resolve_link(parts, target).empty())
                    return "a symbolic link pointing outside the archive";
                links_.insert(path);
                return write_symlink(target, path);
            }
            case AE_IFREG: {
                const int64_t size = archive_entry_size(entry);
                if (size < 0 ||
                    uint64_t(size) > limits_.max_bytes - std::min(bytes_, limits_.max_bytes))
                    return "the unpacked files exceed " + std::to_string(limits_.max_bytes) +
                           " bytes";
                bytes_ += uint64_t(size);
                files_.insert(path);
                return write_file(a, path, archive_entry_perm(entry));
            }
            default:
                return "not a file, directory or link";
        }
    }

    // Creates the directories leading to a path inside dir_.
    std::string make_parents(const std::string& path) {
        std::error_code error;
        std::filesystem::create_directories(std::filesystem::path(dir_ + "/" + path).parent_path(),
                                            error);
        return error ? "cannot create its directory: " + error.message() : "";
    }

    std::string write_directory(const std::string& path) {
        if (dir_.empty()) return {};
        std::error_code error;
        std::filesystem::create_directories(dir_ + "/" + path, error);
        return error ? "cannot create it: " + error.message() : "";
    }

    std::string write_symlink(const std::string& target, const std::string& path) {
        if (dir_.empty()) return {};
        if (std::string why = make_parents(path); !why.empty()) return why;
        if (symlink(target.c_str(), (dir_ + "/" + path).c_str()) != 0)
            return "cannot create the link";
        return {};
    }

    std::string write_hard_link(const std::string& target, const std::string& path) {
        if (dir_.empty()) return {};
        if (std::string why = make_parents(path); !why.empty()) return why;
        if (link((dir_ + "/" + target).c_str(), (dir_ + "/" + path).c_str()) != 0)
            return "cannot create the link";
        return {};
    }

    // Writes a regular file's data, counting it against the limit as it goes.
    std::string write_file(archive* a, const std::string& path, mode_t mode) {
        int fd = -1;
        if (!dir_.empty()) {
            if (std::string why = make_parents(path); !why.empty()) return why;
            fd = open((dir_ + "/" + path).c_str(),
                      O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                      (mode & 0100) ? 0700 : 0600);
            if (fd < 0) return "cannot create it";
        }
        const void* block = nullptr;
        size_t size = 0;
        la_int64_t offset = 0;
        std::string why;
        int rc = ARCHIVE_OK;
        uint64_t written = 0;
        while ((rc = archive_read_data_block(a, &block, &size, &offset)) == ARCHIVE_OK) {
            written += size;
            if (written > limits_.max_bytes) {
                why = "the unpacked files exceed " + std::to_string(limits_.max_bytes) + " bytes";
                break;
            }
            if (fd >= 0 && pwrite(fd, block, size, offset) != ssize_t(size)) {
                why = "cannot write it";
                break;
            }
        }
        if (why.empty() && rc != ARCHIVE_EOF) why = "cannot read it: " + error_of(a);
        if (fd >= 0 && close(fd) != 0 && why.empty()) why = "cannot write it";
        return why;
    }

    const ArchiveLimits& limits_;
    std::string dir_;  // empty: check only
    uint64_t entries_ = 0;
    uint64_t bytes_ = 0;
    std::set<std::string> seen_;
    std::set<std::string> files_;
    std::set<std::string> links_;
};

}  // namespace

std::string unsafe_relative_path(const std::string& path) {
    if (path.empty()) return "an empty path";
    if (path[0] == '/') return "an absolute path";
    if (path.size() > 4096) return "a path over 4096 bytes";
    for (const std::string& part : components(path))
        if (part == "..") return "'..' in the path";
    return {};
}

std::string check_archive(const std::string& path, const ArchiveLimits& limits) {
    return Walk(limits, "").run(path);
}

std::string unpack_archive(const std::string& path, const std::string& dir,
                           const ArchiveLimits& limits) {
    return Walk(limits, dir).run(path);
}

}  // namespace sparring
