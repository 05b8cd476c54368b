// A child process talking line by line over its standard input and output (for UCI engines).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

namespace sparring::match {

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

    // Starts command (searched in PATH) with args in working_dir (empty: ours), in a process
    // group of its own; false with *error when it cannot be started.
    bool start(const std::string& command, const std::vector<std::string>& args,
               const std::string& working_dir, std::string* error);
    // Returns whether a child was started and not yet stopped.
    bool running() const { return pid_ > 0; }
    // Writes line and a newline; false when the process no longer reads.
    bool write_line(std::string_view line);
    // Reads the next line (without its newline) unless the deadline passes or output ends.
    ReadStatus read_line(std::string* line, Clock::time_point deadline);
    // Waits up to grace for the process to exit by itself, then kills its process group;
    // returns how it ended ("exit status 1", "killed by signal 11 (Segmentation fault)").
    std::string stop(std::chrono::milliseconds grace);

  private:
    pid_t pid_ = -1;
    int fd_ = -1;
    std::string buffer_;
};

}  // namespace sparring::match
