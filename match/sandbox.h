// Confinement of engine processes in bubblewrap (Debian's `bubblewrap`): their own user, PID,
// mount, IPC, network and UTS namespaces; the system's programs and libraries read-only, the
// engine's own directory read-only, a private writable directory in memory and nothing else of
// the host's files (no worker token, no cache of other engines, no /proc of the worker).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sparring::match {

struct Sandbox {
    std::string bwrap;         // the bwrap executable
    bool mount_proc = true;    // a /proc of the sandbox's own PID namespace
    int64_t scratch_mb = 256;  // /tmp, its working directory: a tmpfs of this size
};

// The sandbox's working directory (and TMPDIR, HOME): empty, private, in memory.
inline constexpr const char* kSandboxScratch = "/tmp";

// Returns the command line that runs `file args` in the sandbox: bwrap and its arguments, then
// the engine's. The engine sees the directories in read_only (its files) at their own paths,
// /usr and the links to it, a few files of /etc the dynamic linker reads, and kSandboxScratch.
std::vector<std::string> sandbox_command(const Sandbox& sandbox, const std::string& file,
                                         const std::vector<std::string>& args,
                                         const std::vector<std::string>& read_only);

// Finds bwrap (in PATH, or at `bwrap` when given) and starts /bin/true in a sandbox, with and
// then without a /proc of its own (some containers refuse to mount one); returns the sandbox
// that works, or nullopt with *why.
std::optional<Sandbox> find_sandbox(const std::string& bwrap, std::string* why);

}  // namespace sparring::match
