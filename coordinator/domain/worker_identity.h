// The machine a worker runs on, as it reports it at registration (issue 52, part A;
// proto WorkerIdentity, docs/operations.md "CPU classes"): untrusted, so checked within bounds
// before it is kept, and the CPU class derived from it (common/cpu_class.h).
#pragma once

#include <absl/status/status.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace sparring::coordinator {

// A kind of core of a hybrid CPU and its logical CPUs.
struct CoreTypeCount {
    std::string name;  // "performance", "efficiency"
    uint32_t cpus = 0;
    std::vector<uint32_t> cpu_ids;
};

struct WorkerIdentity {
    std::string cpu_vendor;               // "GenuineIntel", "AuthenticAMD", "ARM"
    std::string cpu_model;                // "AMD EPYC 9654 96-Core Processor"
    std::vector<std::string> isa_levels;  // known levels only, lowest first
    std::vector<std::string> cpu_flags;   // engine-relevant flags
    uint32_t physical_cores = 0;
    uint32_t hardware_threads = 0;
    std::vector<CoreTypeCount> core_types;
    std::string os;             // "Debian GNU/Linux 12 (bookworm)"
    std::string kernel;         // uname's release
    std::string machine_id;     // hex digest of /etc/machine-id
    uint32_t cpu_family = 0;    // x86: cpu family; arm64: implementer
    uint32_t cpu_model_id = 0;  // x86: model; arm64: part
    std::string architecture;   // "x86_64", "aarch64"

    // The bounds a registration is held to (beyond them it is refused).
    static constexpr std::size_t kMaxText = 256;      // vendor, model, OS, kernel
    static constexpr std::size_t kMaxWord = 32;       // a flag, level, core type, architecture
    static constexpr std::size_t kMaxMachineId = 64;  // hex digits
    static constexpr std::size_t kMaxFlags = 256;
    static constexpr std::size_t kMaxLevels = 16;
    static constexpr std::size_t kMaxCoreTypes = 8;
    static constexpr uint32_t kMaxCpus = 65536;  // cores, threads, a core type's CPU ids

    // Returns whether the worker reported nothing of its machine (a worker before issue 52).
    bool empty() const { return cpu_vendor.empty() && cpu_model.empty() && isa_levels.empty(); }
};

// Checks a worker's identity as it registered it: texts within kMaxText bytes without
// control characters, words (flags, levels, core types, architecture) of [A-Za-z0-9._-] within
// kMaxWord, the machine id hex, the counts within their bounds; INVALID_ARGUMENT says what is
// wrong.
absl::Status check_worker_identity(const WorkerIdentity& identity);

// Returns the identity as it is kept: its isa_levels only the known ones of one architecture,
// lowest first, without repeats (a newer worker's unknown level is dropped, not refused).
WorkerIdentity kept_identity(WorkerIdentity identity);

// Returns the CPU class of the identity (common/cpu_class.h; "" for an empty identity).
std::string cpu_class_of(const WorkerIdentity& identity);

}  // namespace sparring::coordinator
