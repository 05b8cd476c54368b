// Confinement of engine processes in bubblewrap (Debian's `bubblewrap`): their own user (in
// which no other can be made), PID, mount, IPC, network and UTS namespaces; a read-only root
// holding the system's programs and libraries and the engine's own files, read-only; two
// private writable directories in memory of bounded size and nothing else of the host's files
// (no worker token, no cache of other engines, no /proc of the worker); an environment of its
// own (none of the worker's variables).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sparring::match {

struct Sandbox {
    std::string bwrap;       // the bwrap executable
    bool mount_proc = true;  // a /proc of the sandbox's own PID namespace
    // A user namespace of its own in which no further one can be made (bwrap's
    // --disable-userns), where the kernel gives bwrap user namespaces.
    bool own_user_namespace = true;
    int64_t scratch_mb = 256;  // /tmp, its working directory: a tmpfs of this size
    int64_t shm_mb = 64;       // /dev/shm, the only other writable place: a tmpfs of this size
    // The system-call filter bwrap installs before the engine starts (a compiled BPF program,
    // seccomp_filter()); empty: none.
    std::string seccomp_filter;
};

// Returns the system-call filter of the sandbox, as a BPF program for bwrap's --seccomp: it
// refuses the calls that make or enter namespaces (unshare, setns, clone with a namespace flag;
// clone3 answers ENOSYS so that the C library falls back to clone), mount file systems, and
// load modules or kernels; everything else is allowed. "" with *error when libseccomp fails.
std::string seccomp_filter(std::string* error);

// The sandbox's working directory (and TMPDIR, HOME): empty, private, in memory.
inline constexpr const char* kSandboxScratch = "/tmp";

// Returns the command line that runs `file args` in the sandbox: bwrap and its arguments, then
// the engine's. The engine sees the paths in read_only (its files) at their own paths, /usr
// and the links to it, a few files of /etc the dynamic linker reads, kSandboxScratch and
// /dev/shm; its environment holds PATH, HOME and TMPDIR only.
// seccomp_fd is a descriptor bwrap reads the sandbox's filter from (-1: no filter).
std::vector<std::string> sandbox_command(const Sandbox& sandbox, const std::string& file,
                                         const std::vector<std::string>& args,
                                         const std::vector<std::string>& read_only,
                                         int seccomp_fd = -1);

// Finds bwrap (in PATH, or at `bwrap` when given) and starts /bin/true in a sandbox, with and
// then without a user namespace of its own (a kernel may refuse one), each with and then
// without a /proc of its own (some containers refuse to mount one); returns the first sandbox
// that works, or nullopt with *why.
std::optional<Sandbox> find_sandbox(const std::string& bwrap, std::string* why);

}  // namespace sparring::match
