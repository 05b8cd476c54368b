#include "match/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

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

}  // namespace

// Kills the child if it still runs.
ChildProcess::~ChildProcess() {
    if (running()) stop(std::chrono::milliseconds(0));
}

// Spawns the child with one socket as its standard input and output.
bool ChildProcess::start(const std::string& command, const std::vector<std::string>& args,
                         const std::string& working_dir, std::string* error) {
    if (running()) stop(std::chrono::milliseconds(0));
    // One socket serves as the child's stdin and stdout; unlike a pipe it lets us write with
    // MSG_NOSIGNAL, so an engine that dies cannot kill the runner with SIGPIPE.
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        if (error) *error = std::string("socketpair: ") + std::strerror(errno);
        return false;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    if (!working_dir.empty()) posix_spawn_file_actions_addchdir_np(&actions, working_dir.c_str());
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(
        &attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t signals;
    sigemptyset(&signals);
    posix_spawnattr_setsigmask(&attributes, &signals);
    sigaddset(&signals, SIGPIPE);
    sigaddset(&signals, SIGINT);
    sigaddset(&signals, SIGTERM);
    posix_spawnattr_setsigdefault(&attributes, &signals);

    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(command.c_str()));
    for (const std::string& arg : args) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, command.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        if (error)
            *error = "cannot start '" + command + "'" +
                     (working_dir.empty() ? "" : " in '" + working_dir + "'") + ": " +
                     std::strerror(rc);
        return false;
    }
    pid_ = pid;
    fd_ = fds[0];
    buffer_.clear();
    return true;
}

// Sends the whole line, retrying short writes.
bool ChildProcess::write_line(std::string_view line) {
    if (!running()) return false;
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
        if (auto newline = buffer_.find('\n'); newline != std::string::npos) {
            line->assign(buffer_, 0, newline);
            if (!line->empty() && line->back() == '\r') line->pop_back();
            buffer_.erase(0, newline + 1);
            return ReadStatus::Line;
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
        if (n <= 0) return ReadStatus::Closed;
        buffer_.append(chunk, static_cast<std::size_t>(n));
    }
}

// Closes our end, waits for the exit, kills the group and reaps the child.
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
    buffer_.clear();
    return done > 0 ? describe_status(status) : "lost";
}

}  // namespace sparring::match
