// An external engine's `bench`: run as a child process and read for its signature (the node
// count of its last "Nodes searched" line). The worker verifies a version with it at first use,
// `sparring versions add` each build of an uploaded engine where this machine runs it.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "match/child_process.h"

namespace sparring::match {

// What running a bench gave.
struct BenchRun {
    enum class Status {
        Computed,     // nodes holds the signature
        NoSignature,  // the engine ran but gave none: hung, failed or printed no node count
        Error,        // it could not be started
    };
    Status status = Status::Error;
    uint64_t nodes = 0;
    std::string error;  // why, unless computed
    // It died of SIGILL: the build needs instructions this CPU lacks.
    bool illegal_instruction = false;
};

// Runs `command args... bench` with the child options given (stdout and stderr read, killed at
// the timeout) and reads its signature.
BenchRun run_bench(const std::string& command, std::vector<std::string> args, ChildOptions child,
                   std::chrono::milliseconds timeout);

// Returns the node count of a bench's output (the last "Nodes searched" line), if any.
std::optional<uint64_t> parse_bench_output(const std::string& output);

// Returns whether a child's end or an error naming it ("killed by signal 4 (Illegal
// instruction)", or "exit status 132" from bubblewrap or a shell) says it died of SIGILL.
bool died_of_sigill(std::string_view text);

}  // namespace sparring::match
