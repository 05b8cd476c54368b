// Checking and unpacking the .tar.gz archives of uploaded engines (libarchive): every entry
// stays inside the archive's own directory — no absolute paths, no "..", no link pointing
// outside, nothing written through a link — and the archive stays within limits.
#pragma once

#include <cstdint>
#include <string>

namespace sparring {

struct ArchiveLimits {
    uint64_t max_entries = 10'000;
    uint64_t max_bytes = uint64_t(1) << 30;  // the unpacked files together
};

// Returns why the archive is unsafe or unreadable, or an empty string when every entry is
// acceptable.
std::string check_archive(const std::string& path, const ArchiveLimits& limits);

// Unpacks the archive into dir (which must exist and be empty), files at most 0700; returns
// why it refused or failed (leaving dir for the caller to remove), or an empty string.
std::string unpack_archive(const std::string& path, const std::string& dir,
                           const ArchiveLimits& limits);

// Returns the reason a relative path inside an archive or directory is unsafe ("absolute
// path", "'..' in the path"), or an empty string; "./" prefixes are fine.
std::string unsafe_relative_path(const std::string& path);

}  // namespace sparring
