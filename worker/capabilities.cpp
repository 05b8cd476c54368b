#include "worker/capabilities.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace sparring::worker {

std::string host_name() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "worker";
    return name;
}

int64_t available_memory_mb() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    int64_t kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib / 1024;
    return int64_t(sysconf(_SC_PHYS_PAGES)) * sysconf(_SC_PAGESIZE) / (1024 * 1024);
}

bool is_executable_command(const std::string& command) {
    if (command.empty()) return false;
    if (command.find('/') != std::string::npos) return access(command.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    std::istringstream dirs(path ? path : "/usr/bin:/bin");
    std::string dir;
    while (std::getline(dirs, dir, ':'))
        if (!dir.empty() && access((dir + "/" + command).c_str(), X_OK) == 0) return true;
    return false;
}

}  // namespace sparring::worker
