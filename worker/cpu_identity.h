// The worker's machine as it reports it at registration (v1::WorkerIdentity): the CPU's vendor,
// model, instruction-set levels and engine-relevant flags (/proc/cpuinfo, and CPUID on x86-64),
// its physical cores and hardware threads, the core types of a hybrid CPU where Linux exposes
// them, the OS (/etc/os-release), the kernel (uname) and a stable machine id (SHA-256 of
// /etc/machine-id, shortened). --isa-levels makes a worker claim fewer levels than its CPU runs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// What /proc/cpuinfo says of the CPU (the first processor's lines, the cores counted over all).
struct CpuInfo {
    std::string architecture;        // "x86_64", "aarch64" (uname's machine)
    std::string vendor;              // x86: vendor_id; arm64: the implementer's name ("ARM")
    std::string model;               // x86: model name; arm64: the part's name when known
    uint32_t family = 0;             // x86: cpu family; arm64: CPU implementer
    uint32_t model_id = 0;           // x86: model; arm64: CPU part
    std::vector<std::string> flags;  // every flag (x86) or feature (arm64), sorted
    int logical_cpus = 0;            // processor entries
    int physical_cores = 0;          // distinct (physical id, core id); 0 when not said
};

// Parses /proc/cpuinfo's text of a machine of architecture (uname's machine).
CpuInfo parse_cpuinfo(std::string_view text, std::string_view architecture);

// Returns the instruction-set levels a CPU of these flags runs, lowest first
// (common/cpu_class.h): x86-64 always on x86_64, x86-64-v2 with cx16 lahf_lm popcnt sse4_1
// sse4_2 ssse3, x86-64-v3 with avx avx2 bmi1 bmi2 f16c fma abm movbe xsave besides, x86-64-v4
// with avx512f avx512bw avx512cd avx512dq avx512vl besides; on aarch64 armv8-a, and armv8.2-a
// with asimddp.
std::vector<std::string> isa_levels_of(const CpuInfo& cpu);

// Returns the flags of cpu.flags that matter to engines (popcnt, bmi2, avx2, avx512f,
// avx512_vnni, ...; on arm64 asimd, asimddp, sve, i8mm, ...), in cpu.flags' order.
std::vector<std::string> engine_flags(const CpuInfo& cpu);

// Returns the levels --isa-levels LIST claims of the supported ones, lowest first: the highest
// level LIST names and every supported level below it. Throws UsageError for a name that is no
// level and for a level the CPU lacks.
std::vector<std::string> claimed_isa_levels(const std::vector<std::string>& supported,
                                            std::string_view list);

// Where the machine's files are: "" for this machine, a directory holding proc/cpuinfo,
// sys/devices/system/cpu/..., sys/bus/event_source/devices/..., etc/os-release and
// etc/machine-id for tests.
struct IdentitySources {
    std::string root;
    std::string architecture;  // "" = uname's machine
    std::string kernel;        // "" = uname's release
    bool use_cpuid = true;     // on x86-64, read the levels' flags from CPUID too
};

// Detects the machine's identity (common/cpu_class.h names its class). isa_levels as the CPU
// runs them; narrow them with claimed_isa_levels.
v1::WorkerIdentity detect_identity(const IdentitySources& sources = {});

// Returns "PRETTY_NAME" of an os-release text ("NAME VERSION_ID" if it has none).
std::string os_name(std::string_view os_release);

// Returns the machine id reported: the first 16 hex digits of SHA-256 of /etc/machine-id's
// first line ("" if it is empty).
std::string hashed_machine_id(std::string_view machine_id);

// Returns the CPU class of an identity (common/cpu_class.h's cpu_class).
std::string cpu_class_of(const v1::WorkerIdentity& identity);

}  // namespace sparring::worker
