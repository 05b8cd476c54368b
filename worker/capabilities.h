// What a worker machine offers: host name, cores, memory, and which engine commands exist.
#pragma once

#include <cstdint>
#include <string>

namespace sparring::worker {

// Returns the machine's host name ("worker" if it has none).
std::string host_name();
// Returns the memory available to new processes in MiB (MemAvailable), or the physical
// memory when /proc/meminfo cannot be read.
int64_t available_memory_mb();
// Returns whether a command names an executable file, directly or through PATH.
bool is_executable_command(const std::string& command);

}  // namespace sparring::worker
