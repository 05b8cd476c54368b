// The resource boundary of an engine's whole process tree: a cgroup v2 group of its own with
// memory, process and CPU limits, where the worker has a delegated cgroup (systemd's
// Delegate=, `systemd-run --scope -p Delegate=yes`); elsewhere each process keeps its rlimits
// (child_process.h) and nothing bounds the tree as a whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sparring::match {

// The limits of one engine's group.
struct GroupLimits {
    int64_t memory_mb = 0;  // memory.max (its memory, tmpfs pages included); 0: none
    int64_t processes = 0;  // pids.max; 0: none
    int cores = 0;          // cpu.max, in whole cores; 0: none
};

// A cgroup v2 directory this process was given, where each engine gets a group beside the
// process's own leaf.
class EngineGroups {
  public:
    // Takes over the cgroup this process is in: moves the process into a leaf `worker` of it
    // and enables the memory, pids and cpu controllers for the groups beside that leaf;
    // nullopt with *why where the machine does not allow it (cgroup v1, no write access, a
    // cgroup shared with other processes, a controller missing).
    static std::optional<EngineGroups> take_over(std::string* why);

    // Returns the directory the engines' groups are made in.
    const std::string& directory() const { return directory_; }

  private:
    explicit EngineGroups(std::string directory) : directory_(std::move(directory)) {}
    std::string directory_;
};

// One engine's group: made with its limits, joined by the engine's process before exec, and
// killed whole and removed when the engine stops.
class EngineGroup {
  public:
    EngineGroup() = default;
    ~EngineGroup() { remove(); }
    EngineGroup(const EngineGroup&) = delete;
    EngineGroup& operator=(const EngineGroup&) = delete;

    // Makes a fresh group under groups with limits; false with *error when it cannot.
    bool make(const EngineGroups& groups, const GroupLimits& limits, std::string* error);
    // Returns a descriptor of the group's cgroup.procs for a child to write "0" to, or -1.
    int procs_fd() const { return procs_fd_; }
    // Closes the descriptor (the parent's copy, once the child has been forked).
    void close_procs();
    // Kills every process in the group (a child in a session of its own included), waits for
    // them to go and removes the group.
    void remove();
    // Returns the group's directory ("" when none).
    const std::string& directory() const { return directory_; }

  private:
    std::string directory_;
    int procs_fd_ = -1;
};

}  // namespace sparring::match
