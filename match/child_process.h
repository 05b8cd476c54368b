// A child process talking line by line over its standard input and output (for UCI engines
// and their bench), confined: its own working directory, no SPARRING_ variables in its
// environment, resource limits, and killed with its owner.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "match/engine_group.h"
#include "match/sandbox.h"
#include "match/transcript.h"

namespace sparring::match {

// How a child is confined.
struct ChildOptions {
    // Where it runs; empty: a fresh directory under $TMPDIR (or /tmp), removed when it stops.
    std::string working_dir;
    bool merge_stderr = false;  // its stderr joins stdout (bench output); else /dev/null
    // Unless merged, its stderr is read by a thread of ours as it comes (a chatty engine never
    // blocks on it) and its last FaultEvidence::kStderrBytes kept (stderr_tail()).
    bool capture_stderr = false;
    int64_t memory_limit_mb = 0;    // address space (RLIMIT_AS); 0: unlimited
    int64_t cpu_limit_seconds = 0;  // CPU time (RLIMIT_CPU); 0: unlimited
    // Processes and threads of the user it runs as (RLIMIT_NPROC; root is exempt); 0: unlimited.
    int64_t max_processes = 0;
    int64_t max_file_mb = 0;  // largest file it may write (RLIMIT_FSIZE); 0: unlimited
    // Runs it in this sandbox (nullptr: none), working in the sandbox's own directory, with
    // the paths in read_only visible (none given: the executable itself).
    const Sandbox* sandbox = nullptr;
    std::vector<std::string> read_only{};
    // Runs its whole process tree in a cgroup of its own under groups, with group_limits
    // (nullptr: none; the rlimits above hold either way).
    const EngineGroups* groups = nullptr;
    GroupLimits group_limits{};
};

// Makes a fresh private directory (mode 0700) $TMPDIR/PREFIX-XXXXXX, /tmp when TMPDIR is
// unset; "" with *error when it cannot.
std::string make_scratch_dir(std::string_view prefix, std::string* error);

// Returns the environment a child gets: ours without any SPARRING_ variable (tokens,
// coordinator address), as NAME=VALUE strings.
std::vector<std::string> child_environment();

// Marks every file under dir (resolved, symlinks followed) as untrusted: an uploaded engine.
// ChildProcess::start then refuses to run such a file outside a sandbox, whichever code path
// asks, unless allow_unconfined_untrusted(true) was called. Process-wide; the worker's engine
// cache marks its directory when it is made.
void mark_untrusted_directory(const std::string& dir);
// Lets untrusted files run unconfined (the worker's --allow-unconfined-engines).
void allow_unconfined_untrusted(bool allow);
// Returns whether file (resolved) lies under a directory marked untrusted.
bool is_untrusted_file(const std::string& file);

class ChildProcess {
  public:
    using Clock = std::chrono::steady_clock;
    enum class ReadStatus { Line, Timeout, Closed };

    // Creates an object with no child yet.
    ChildProcess() = default;
    // Kills a child that still runs.
    ~ChildProcess();
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;

    // Starts command (searched in PATH) with args, confined as options say, in a process
    // group of its own; the child gets SIGKILL if the thread calling start ends first (the
    // whole process included). False with *error when it cannot be started.
    bool start(const std::string& command, const std::vector<std::string>& args,
               const ChildOptions& options, std::string* error);
    // Returns whether a child was started and not yet stopped.
    bool running() const { return pid_ > 0; }
    // Writes line and a newline; false when the process no longer reads.
    bool write_line(std::string_view line);
    // Reads the next line (without its newline; invalid UTF-8 replaced by U+FFFD, so that an
    // engine's output can be stored and sent) unless the deadline passes or output ends. A line
    // over kMaxLineBytes comes out cut there, and the rest of it is dropped unread into memory.
    ReadStatus read_line(std::string* line, Clock::time_point deadline);
    // Returns in *line a line that has already arrived (output after an engine's answer, say),
    // without waiting for more; false when none has.
    bool read_ready_line(std::string* line);

    // The longest line read_line returns: an engine flooding its output without a newline
    // costs the worker this much memory, not more.
    static constexpr std::size_t kMaxLineBytes = 64 * 1024;
    // Records every line written and read from now on in transcript (nullptr: none); the
    // transcript must outlive the process's use.
    void set_transcript(Transcript* transcript) { transcript_ = transcript; }
    // Returns the last bytes of its stderr (ChildOptions::capture_stderr), complete once the
    // process was stopped; kept until the next start.
    std::string stderr_tail() const { return stderr_.text(); }
    // Returns how many bytes its stderr had in all.
    std::uint64_t stderr_bytes() const { return stderr_.total(); }
    // Waits up to grace for the process to exit by itself, then kills its process group (and
    // its cgroup, where it has one: a child in a session of its own too); returns how it ended
    // ("exit status 1", "killed by signal 11 (Segmentation fault)").
    std::string stop(std::chrono::milliseconds grace);

  private:
    pid_t pid_ = -1;
    int fd_ = -1;
    std::string buffer_;
    std::size_t scanned_ = 0;  // bytes of buffer_ known to hold no newline
    bool dropping_ = false;    // the rest of an overlong line is being read and dropped
    std::string scratch_dir_;  // the fresh working directory to remove, if one was made
    EngineGroup group_;        // its cgroup, where it has one
    Transcript* transcript_ = nullptr;
    // The captured stderr: the pipe's read end, a pipe to wake its reader and the reader.
    ByteRing stderr_{FaultEvidence::kStderrBytes};
    int stderr_fd_ = -1;
    int stderr_wake_[2] = {-1, -1};
    std::thread stderr_reader_;
    // Starts reading the stderr pipe; stops the reader after a last read of what is left.
    void start_stderr_reader(int fd);
    void stop_stderr_reader();
};

}  // namespace sparring::match
