#include "match/engine_group.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace sparring::match {

namespace {

// Returns the text of a small file, nullopt when it cannot be read.
std::optional<std::string> read_text(const std::string& path) {
    std::ifstream in(path);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Writes text to a cgroup file in one write; "" or why not.
std::string write_text(const std::string& path, const std::string& text) {
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return path + ": " + std::strerror(errno);
    const ssize_t written = write(fd, text.data(), text.size());
    const int error = errno;
    close(fd);
    if (written != ssize_t(text.size())) return path + ": " + std::strerror(error);
    return "";
}

// Returns where the cgroup v2 hierarchy is mounted ("" when it is not).
std::string cgroup2_mount() {
    std::ifstream mounts("/proc/self/mountinfo");
    for (std::string line; std::getline(mounts, line);) {
        // ID PARENT MAJOR:MINOR ROOT MOUNT_POINT OPTIONS [TAGS...] - TYPE SOURCE OPTIONS
        const size_t dash = line.find(" - ");
        if (dash == std::string::npos || line.compare(dash + 3, 8, "cgroup2 ") != 0) continue;
        std::istringstream fields(line);
        std::string id, parent, device, root, mount_point;
        if (fields >> id >> parent >> device >> root >> mount_point) return mount_point;
    }
    return "";
}

// Returns the words of a cgroup.controllers file.
std::vector<std::string> words(const std::string& text) {
    std::istringstream in(text);
    std::vector<std::string> result;
    for (std::string word; in >> word;) result.push_back(word);
    return result;
}

}  // namespace

std::optional<EngineGroups> EngineGroups::take_over(std::string* why) {
    const auto fail = [why](const std::string& reason) {
        if (why) *why = reason;
        return std::nullopt;
    };
    const std::string mount = cgroup2_mount();
    if (mount.empty()) return fail("no cgroup v2 hierarchy is mounted");
    std::string relative;
    {
        std::ifstream own("/proc/self/cgroup");
        for (std::string line; std::getline(own, line);)
            if (line.rfind("0::", 0) == 0) relative = line.substr(3);
    }
    if (relative.empty()) return fail("this process is in no cgroup v2 group");
    std::string directory = mount + (relative == "/" ? "" : relative);
    // A group whose only process is this one is a leaf already made for it (a restart).
    if (directory.size() > 7 && directory.ends_with("/worker"))
        directory.resize(directory.size() - 7);
    const std::optional<std::string> controllers = read_text(directory + "/cgroup.controllers");
    if (!controllers) return fail("cannot read " + directory + "/cgroup.controllers");
    const std::vector<std::string> available = words(*controllers);
    for (const char* needed : {"memory", "pids", "cpu"})
        if (std::find(available.begin(), available.end(), needed) == available.end())
            return fail(std::string("the cgroup v2 group ") + directory + " has no " + needed +
                        " controller (cgroup v1 holds it, or it is not delegated)");
    if (access(directory.c_str(), W_OK) != 0)
        return fail(directory + " is not delegated to this user (systemd's Delegate=)");
    const std::string leaf = directory + "/worker";
    if (mkdir(leaf.c_str(), 0755) != 0 && errno != EEXIST)
        return fail("cannot make " + leaf + ": " + std::strerror(errno));
    if (std::string error = write_text(leaf + "/cgroup.procs", std::to_string(getpid()));
        !error.empty())
        return fail("cannot move the worker into its leaf: " + error);
    if (std::string error = write_text(directory + "/cgroup.subtree_control", "+memory +pids +cpu");
        !error.empty()) {
        // Back where it was, as if nothing had been tried.
        write_text(directory + "/cgroup.procs", std::to_string(getpid()));
        rmdir(leaf.c_str());
        return fail(
            "cannot enable the controllers for engines (another process shares the "
            "group?): " +
            error);
    }
    return EngineGroups(directory);
}

bool EngineGroup::make(const EngineGroups& groups, const GroupLimits& limits, std::string* error) {
    remove();
    static std::atomic<uint64_t> counter{0};
    const std::string directory = groups.directory() + "/engine-" + std::to_string(getpid()) + "-" +
                                  std::to_string(++counter);
    if (mkdir(directory.c_str(), 0755) != 0) {
        *error = "cannot make the engine's cgroup " + directory + ": " + std::strerror(errno);
        return false;
    }
    directory_ = directory;
    std::string failure;
    if (limits.memory_mb > 0)
        failure = write_text(directory + "/memory.max", std::to_string(limits.memory_mb << 20));
    if (failure.empty() && limits.memory_mb > 0)
        failure = write_text(directory + "/memory.swap.max", "0");
    // A kernel without swap accounting has no memory.swap.max: the memory bound holds anyway.
    if (failure.find("memory.swap.max") != std::string::npos) failure.clear();
    if (failure.empty() && limits.processes > 0)
        failure = write_text(directory + "/pids.max", std::to_string(limits.processes));
    if (failure.empty() && limits.cores > 0)
        failure =
            write_text(directory + "/cpu.max", std::to_string(limits.cores * 100000) + " 100000");
    if (failure.empty()) {
        procs_fd_ = open((directory + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
        if (procs_fd_ < 0) failure = directory + "/cgroup.procs: " + std::strerror(errno);
    }
    if (!failure.empty()) {
        *error = "cannot set the engine's cgroup limits: " + failure;
        remove();
        return false;
    }
    return true;
}

void EngineGroup::close_procs() {
    if (procs_fd_ >= 0) close(procs_fd_);
    procs_fd_ = -1;
}

void EngineGroup::remove() {
    close_procs();
    if (directory_.empty()) return;
    // cgroup.kill (Linux 5.14) kills the whole group at once; before it, each process listed.
    if (!write_text(directory_ + "/cgroup.kill", "1").empty())
        for (const std::string& pid : words(read_text(directory_ + "/cgroup.procs").value_or("")))
            kill(pid_t(std::stol(pid)), SIGKILL);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (rmdir(directory_.c_str()) != 0 && errno == EBUSY &&
           std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    directory_.clear();
}

}  // namespace sparring::match
