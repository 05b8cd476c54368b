#include "match/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "common/printable.h"

extern char** environ;

namespace sparring::match {

namespace {

// Describes a waitpid status in words.
std::string describe_status(int status) {
    if (WIFEXITED(status)) return "exit status " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status))
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               sigdescr_np(WTERMSIG(status)) + ")";
    return "status " + std::to_string(status);
}

// Returns whether path names an executable regular file.
bool is_executable_file(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
           access(path.c_str(), X_OK) == 0;
}

// Returns the file exec should run for command: a name without '/' found in PATH, a relative
// path made absolute when the child changes into a scratch directory (it names a file here),
// or command itself; empty when a name is not in PATH.
std::string executable_of(const std::string& command, bool scratch_dir) {
    if (command.find('/') != std::string::npos) {
        if (!scratch_dir || command.front() == '/') return command;
        std::error_code ec;
        const std::filesystem::path absolute = std::filesystem::absolute(command, ec);
        return ec ? command : absolute.string();
    }
    const char* path = std::getenv("PATH");
    std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
    while (true) {
        const size_t colon = dirs.find(':');
        const std::string_view dir = dirs.substr(0, colon);
        const std::string candidate =
            (dir.empty() ? std::string(".") : std::string(dir)) + "/" + command;
        if (is_executable_file(candidate)) return candidate;
        if (colon == std::string_view::npos) return "";
        dirs.remove_prefix(colon + 1);
    }
}

// The resource limits of a child, each set when its option asks for one.
struct ChildLimits {
    std::optional<rlimit> memory, cpu, processes, file_size;
};

// Returns the resource limits options ask for.
ChildLimits limits_of(const ChildOptions& options) {
    ChildLimits limits;
    if (options.memory_limit_mb > 0)
        limits.memory =
            rlimit{rlim_t(options.memory_limit_mb) << 20, rlim_t(options.memory_limit_mb) << 20};
    // The soft limit sends SIGXCPU; the hard one, a second later, SIGKILL for an engine that
    // ignores it.
    if (options.cpu_limit_seconds > 0)
        limits.cpu =
            rlimit{rlim_t(options.cpu_limit_seconds), rlim_t(options.cpu_limit_seconds) + 1};
    if (options.max_processes > 0)
        limits.processes = rlimit{rlim_t(options.max_processes), rlim_t(options.max_processes)};
    if (options.max_file_mb > 0)
        limits.file_size =
            rlimit{rlim_t(options.max_file_mb) << 20, rlim_t(options.max_file_mb) << 20};
    return limits;
}

// Returns pointers to strings' characters, ending in nullptr, as execve takes them.
std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    for (std::string& text : strings) pointers.push_back(text.data());
    pointers.push_back(nullptr);
    return pointers;
}

// Returns a descriptor holding the sandbox's system-call filter program for bwrap to read, or
// -1 with errno set.
int filter_descriptor(const std::string& program) {
    const int fd = memfd_create("sparring-seccomp", MFD_CLOEXEC);
    if (fd < 0) return -1;
    if (pwrite(fd, program.data(), program.size(), 0) != ssize_t(program.size())) {
        const int error = errno;
        close(fd);
        errno = error;
        return -1;
    }
    return fd;
}

// What the forked child does before exec; only async-signal-safe calls, since the parent
// may have other threads. Reports a failure's errno on report_fd and exits.
[[noreturn]] void exec_child(pid_t parent, int socket_fd, int report_fd, int inherited_fd,
                             int cgroup_fd, bool merge_stderr, int stderr_fd, const char* dir,
                             const ChildLimits& limits, const char* file, char* const* argv,
                             char* const* envp) {
    const auto fail = [report_fd] {
        const int code = errno;
        [[maybe_unused]] ssize_t written = write(report_fd, &code, sizeof code);
        _exit(127);
    };
    setpgid(0, 0);
    // Into its cgroup before anything of the engine's runs.
    if (cgroup_fd >= 0 && write(cgroup_fd, "0", 1) != 1) fail();
    // An engine dies with its owner: a worker killed by SIGKILL leaves no engines behind.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) fail();
    if (getppid() != parent) _exit(127);  // the owner died before the line above
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    struct sigaction defaults {};
    defaults.sa_handler = SIG_DFL;
    for (int signal : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD})
        sigaction(signal, &defaults, nullptr);
    if (dup2(socket_fd, STDIN_FILENO) < 0 || dup2(socket_fd, STDOUT_FILENO) < 0) fail();
    if (merge_stderr) {
        if (dup2(socket_fd, STDERR_FILENO) < 0) fail();
    } else if (stderr_fd >= 0) {
        if (dup2(stderr_fd, STDERR_FILENO) < 0) fail();
    } else {
        const int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDERR_FILENO) < 0) fail();
    }
    if (chdir(dir) != 0) fail();
    if (limits.memory && setrlimit(RLIMIT_AS, &*limits.memory) != 0) fail();
    if (limits.cpu && setrlimit(RLIMIT_CPU, &*limits.cpu) != 0) fail();
    if (limits.processes && setrlimit(RLIMIT_NPROC, &*limits.processes) != 0) fail();
    if (limits.file_size && setrlimit(RLIMIT_FSIZE, &*limits.file_size) != 0) fail();
    // Descriptors the owner opened without close-on-exec (sockets, databases) stay behind.
    close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
    // Bar the one the command is given to read (the sandbox's system-call filter).
    if (inherited_fd >= 0 && fcntl(inherited_fd, F_SETFD, 0) != 0) fail();
    execve(file, argv, envp);
    fail();
    _exit(127);
}

// Forks a child that execs executable with command_line in dir under limits; returns its pid
// once exec succeeded, with *socket_fd the socket that is the child's stdin and stdout, or -1
// with *why (the socket's, pipe's, fork's or exec's error). The caller closes its own copies
// of the filter and cgroup descriptors.
pid_t spawn(int filter_fd, int cgroup_fd, bool merge_stderr, int stderr_fd, const std::string& dir,
            const ChildLimits& limits, const std::string& executable,
            std::vector<std::string>& command_line, int* socket_fd, std::string* why) {
    const std::vector<char*> argv = c_strings(command_line);
    std::vector<std::string> variables = child_environment();
    const std::vector<char*> envp = c_strings(variables);
    // One socket serves as the child's stdin and stdout; unlike a pipe it lets us write with
    // MSG_NOSIGNAL, so an engine that dies cannot kill the runner with SIGPIPE.
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        *why = std::string("socketpair: ") + std::strerror(errno);
        return -1;
    }
    // exec closes this pipe; a failure before it writes its errno there instead.
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        *why = std::string("pipe: ") + std::strerror(errno);
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid == 0)
        exec_child(parent, fds[1], report[1], filter_fd, cgroup_fd, merge_stderr, stderr_fd,
                   dir.c_str(), limits, executable.c_str(), argv.data(), envp.data());
    const int fork_errno = errno;
    if (pid > 0) setpgid(pid, pid);  // also here, so that stop() never kills a group too early
    close(fds[1]);
    close(report[1]);
    int child_errno = 0;
    if (pid > 0) {
        ssize_t n = 0;
        do n = read(report[0], &child_errno, sizeof child_errno);
        while (n < 0 && errno == EINTR);
        if (n != ssize_t(sizeof child_errno)) child_errno = 0;
    }
    close(report[0]);
    if (pid < 0 || child_errno != 0) {
        if (pid > 0) waitpid(pid, nullptr, 0);
        close(fds[0]);
        *why = std::strerror(pid < 0 ? fork_errno : child_errno);
        return -1;
    }
    *socket_fd = fds[0];
    return pid;
}

// The directories whose files start only in a sandbox, and whether the operator lifted that.
struct UntrustedDirectories {
    std::mutex mutex;
    std::vector<std::filesystem::path> directories;
    bool allow_unconfined = false;
};

UntrustedDirectories& untrusted_directories() {
    static UntrustedDirectories registry;
    return registry;
}

// Returns path with its symlinks resolved as far as it exists, lexically normal.
std::filesystem::path resolved(const std::string& path) {
    std::error_code ignored;
    std::filesystem::path absolute = std::filesystem::absolute(path, ignored);
    std::filesystem::path canonical = std::filesystem::weakly_canonical(absolute, ignored);
    return (canonical.empty() ? absolute : canonical).lexically_normal();
}

}  // namespace

void mark_untrusted_directory(const std::string& dir) {
    UntrustedDirectories& registry = untrusted_directories();
    std::lock_guard lock(registry.mutex);
    registry.directories.push_back(resolved(dir));
}

void allow_unconfined_untrusted(bool allow) {
    UntrustedDirectories& registry = untrusted_directories();
    std::lock_guard lock(registry.mutex);
    registry.allow_unconfined = allow;
}

bool is_untrusted_file(const std::string& file) {
    const std::filesystem::path path = resolved(file);
    UntrustedDirectories& registry = untrusted_directories();
    std::lock_guard lock(registry.mutex);
    for (const std::filesystem::path& dir : registry.directories) {
        const auto [end, rest] = std::mismatch(dir.begin(), dir.end(), path.begin(), path.end());
        if (end == dir.end()) return true;
    }
    return false;
}

std::string make_scratch_dir(std::string_view prefix, std::string* error) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp && *tmp ? tmp : "/tmp") + "/" + std::string(prefix) + "-XXXXXX";
    if (!mkdtemp(pattern.data())) {
        if (error)
            *error =
                "cannot make a working directory from " + pattern + ": " + std::strerror(errno);
        return "";
    }
    return pattern;
}

std::vector<std::string> child_environment() {
    std::vector<std::string> variables;
    for (char** entry = environ; entry && *entry; ++entry)
        if (std::strncmp(*entry, "SPARRING_", 9) != 0) variables.emplace_back(*entry);
    return variables;
}

// Kills the child if it still runs.
namespace {

// Returns whether the operator lets uploaded engines run outside a sandbox.
bool unconfined_allowed() {
    UntrustedDirectories& registry = untrusted_directories();
    std::lock_guard lock(registry.mutex);
    return registry.allow_unconfined;
}

// Returns the command line that runs file with args in the sandbox: an installed engine
// brings its own file only, not whatever lies beside it, unless read_only names what it may read.
std::vector<std::string> sandboxed_command(const Sandbox& sandbox, const std::string& file,
                                           const std::vector<std::string>& args,
                                           std::vector<std::string> read_only, int filter_fd) {
    const std::string absolute = std::filesystem::absolute(file).lexically_normal().string();
    if (read_only.empty() && !absolute.starts_with("/usr/")) read_only.push_back(absolute);
    return sandbox_command(sandbox, absolute, args, read_only, filter_fd);
}

}  // namespace

ChildProcess::~ChildProcess() {
    if (running()) stop(std::chrono::milliseconds(0));
}

// Prepares everything the child needs, forks, and waits for exec to succeed or report why not.
bool ChildProcess::start(const std::string& command, const std::vector<std::string>& args,
                         const ChildOptions& options, std::string* error) {
    if (running()) stop(std::chrono::milliseconds(0));
    const bool scratch = options.working_dir.empty();
    const std::string file = executable_of(command, scratch);
    const auto cannot_start = [&](const std::string& why) {
        if (error)
            *error = "cannot start '" + command + "'" +
                     (scratch ? "" : " in '" + options.working_dir + "'") + ": " + why;
        return false;
    };
    if (file.empty()) return cannot_start(std::strerror(ENOENT));
    if (!options.sandbox && is_untrusted_file(file) && !unconfined_allowed())
        return cannot_start(
            "it is an uploaded engine and would run outside the sandbox (a worker runs "
            "uploaded engines unconfined only with --allow-unconfined-engines)");
    std::string dir = options.working_dir;
    // A sandboxed child works in the sandbox's own directory; bwrap starts here.
    std::vector<std::string> command_line;
    std::string executable = file;
    // bwrap reads the system-call filter from a descriptor of its own, made for each start.
    int filter_fd = -1;
    const auto close_filter = [&] {
        if (filter_fd >= 0) close(filter_fd);
        filter_fd = -1;
    };
    if (options.sandbox && !options.sandbox->seccomp_filter.empty()) {
        filter_fd = filter_descriptor(options.sandbox->seccomp_filter);
        if (filter_fd < 0)
            return cannot_start("cannot pass the sandbox its system-call filter: " +
                                std::string(std::strerror(errno)));
    }
    if (options.sandbox) {
        command_line =
            sandboxed_command(*options.sandbox, file, args, options.read_only, filter_fd);
        executable = executable_of(options.sandbox->bwrap, false);
        if (executable.empty()) {
            close_filter();
            return cannot_start("no sandbox: '" + options.sandbox->bwrap +
                                "' not found (Debian's bubblewrap)");
        }
        dir = "/";
    } else {
        command_line.push_back(command);
        command_line.insert(command_line.end(), args.begin(), args.end());
    }
    std::string why;
    if (scratch && !options.sandbox) {
        dir = make_scratch_dir("sparring-engine", &why);
        if (dir.empty()) return cannot_start(why);
    }
    const auto remove_scratch = [&] {
        std::error_code ignored;
        if (scratch && !options.sandbox) std::filesystem::remove_all(dir, ignored);
        close_filter();
        group_.remove();
    };
    if (options.groups && !group_.make(*options.groups, options.group_limits, &why)) {
        remove_scratch();
        return cannot_start(why);
    }
    int socket_fd = -1;
    // The captured stderr's pipe: the child gets the write end (dup2 clears close-on-exec).
    int stderr_pipe[2] = {-1, -1};
    stderr_.clear();
    if (options.capture_stderr && !options.merge_stderr && pipe2(stderr_pipe, O_CLOEXEC) != 0) {
        remove_scratch();
        return cannot_start(std::string("pipe: ") + std::strerror(errno));
    }
    const pid_t pid = spawn(filter_fd, group_.procs_fd(), options.merge_stderr, stderr_pipe[1], dir,
                            limits_of(options), executable, command_line, &socket_fd, &why);
    close_filter();
    group_.close_procs();
    if (stderr_pipe[1] >= 0) close(stderr_pipe[1]);
    if (pid < 0) {
        if (stderr_pipe[0] >= 0) close(stderr_pipe[0]);
        remove_scratch();
        return cannot_start(why);
    }
    if (stderr_pipe[0] >= 0) start_stderr_reader(stderr_pipe[0]);
    pid_ = pid;
    fd_ = socket_fd;
    buffer_.clear();
    scanned_ = 0;
    dropping_ = false;
    scratch_dir_ = scratch && !options.sandbox ? dir : "";
    return true;
}

// Sends the whole line, retrying short writes.
bool ChildProcess::write_line(std::string_view line) {
    if (!running()) return false;
    if (transcript_) transcript_->sent(line);
    std::string data(line);
    data += '\n';
    std::size_t sent = 0;
    while (sent < data.size()) {
        ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        sent += static_cast<std::size_t>(n);
    }
    return true;
}

// Returns a buffered line, or waits for more output until the deadline.
ChildProcess::ReadStatus ChildProcess::read_line(std::string* line, Clock::time_point deadline) {
    while (true) {
        // Only what arrived since the last look is searched: a long line costs linear time.
        if (auto newline = buffer_.find('\n', scanned_); newline != std::string::npos) {
            const bool dropped = std::exchange(dropping_, false);
            if (!dropped) line->assign(buffer_, 0, newline);
            buffer_.erase(0, newline + 1);
            scanned_ = 0;
            if (dropped) continue;
            if (!line->empty() && line->back() == '\r') line->pop_back();
            if (!is_valid_utf8(*line)) *line = valid_utf8(*line);
            if (transcript_) transcript_->received(*line);
            return ReadStatus::Line;
        }
        scanned_ = buffer_.size();
        if (buffer_.size() > kMaxLineBytes) {
            const bool dropped = std::exchange(dropping_, true);
            if (!dropped) *line = valid_utf8(utf8_prefix(buffer_, kMaxLineBytes));
            buffer_.clear();
            scanned_ = 0;
            if (!dropped && transcript_) transcript_->received(*line);
            if (!dropped) return ReadStatus::Line;
        }
        if (!running()) return ReadStatus::Closed;
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() < 0) return ReadStatus::Timeout;
        pollfd poll_fd{fd_, POLLIN, 0};
        int ready = poll(&poll_fd, 1, static_cast<int>(left.count()) + 1);
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) {
            if (Clock::now() >= deadline) return ReadStatus::Timeout;
            continue;
        }
        char chunk[4096];
        ssize_t n = read(fd_, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            // A last line without a newline still counts (unless it is an overlong one's rest).
            if (!buffer_.empty() && !dropping_) {
                *line = valid_utf8(buffer_);
                buffer_.clear();
                scanned_ = 0;
                if (transcript_) transcript_->received(*line);
                return ReadStatus::Line;
            }
            return ReadStatus::Closed;
        }
        buffer_.append(chunk, static_cast<std::size_t>(n));
    }
}

// Takes a whole line from the buffer, or reads the pipe when poll says it has something.
bool ChildProcess::read_ready_line(std::string* line) {
    if (!running()) return false;
    if (buffer_.find('\n', scanned_) == std::string::npos) {
        pollfd poll_fd{fd_, POLLIN, 0};
        if (poll(&poll_fd, 1, 0) <= 0) return false;
    }
    return read_line(line, Clock::now()) == ReadStatus::Line;
}

void ChildProcess::start_stderr_reader(int fd) {
    stderr_fd_ = fd;
    if (pipe2(stderr_wake_, O_CLOEXEC) != 0) {
        // No way to stop a reader: read nothing rather than risk a reader never joined.
        close(stderr_fd_);
        stderr_fd_ = -1;
        return;
    }
    fcntl(stderr_fd_, F_SETFL, O_NONBLOCK);
    stderr_reader_ = std::thread([this] {
        char chunk[4096];
        pollfd fds[2] = {{stderr_fd_, POLLIN, 0}, {stderr_wake_[0], POLLIN, 0}};
        while (true) {
            const int ready = poll(fds, 2, -1);
            if (ready < 0 && errno == EINTR) continue;
            if (ready < 0) return;
            // Woken: the process is gone; take what is left in the pipe and end.
            const bool last = fds[1].revents != 0;
            while (true) {
                const ssize_t n = read(stderr_fd_, chunk, sizeof chunk);
                if (n < 0 && errno == EINTR) continue;
                if (n <= 0) {
                    if (n == 0) fds[0].fd = -1;  // every writer closed it: wait for the wake
                    break;
                }
                stderr_.append(std::string_view(chunk, std::size_t(n)));
            }
            if (last) return;
        }
    });
}

void ChildProcess::stop_stderr_reader() {
    if (stderr_reader_.joinable()) {
        [[maybe_unused]] ssize_t written = write(stderr_wake_[1], "x", 1);
        stderr_reader_.join();
    }
    for (int* fd : {&stderr_fd_, &stderr_wake_[0], &stderr_wake_[1]}) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
    }
}

// Closes our end, waits for the exit, kills the group, reaps the child and removes its
// scratch directory.
std::string ChildProcess::stop(std::chrono::milliseconds grace) {
    if (!running()) return "not running";
    close(fd_);
    fd_ = -1;
    // WNOWAIT leaves an exited child unreaped, so its process group id stays reserved until
    // the group (helpers the engine started) has been killed.
    auto exited = [this] {
        siginfo_t info{};
        return waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
               info.si_pid == pid_;
    };
    auto deadline = Clock::now() + grace;
    while (!exited() && Clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    kill(-pid_, SIGKILL);
    int status = 0;
    pid_t done = waitpid(pid_, &status, 0);
    pid_ = -1;
    group_.remove();
    stop_stderr_reader();
    buffer_.clear();
    if (!scratch_dir_.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(scratch_dir_, ignored);
        scratch_dir_.clear();
    }
    return done > 0 ? describe_status(status) : "lost";
}

}  // namespace sparring::match
