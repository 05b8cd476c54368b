// Instruction-set levels and CPU classes (docs/operations.md "CPU classes"): the short name of
// a kind of machine, such as zen5-avx512, that the coordinator records with every report. Pure
// functions of what a worker reports, so that the worker and the coordinator name alike.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sparring {

// The instruction-set levels known, lowest first within each architecture: x86-64,
// x86-64-v2, x86-64-v3, x86-64-v4 (the psABI's microarchitecture levels), and armv8-a,
// armv8.2-a (with dot product instructions: asimddp).
std::span<const std::string_view> known_isa_levels();

// Returns a level's rank within its architecture (x86-64 0 ... x86-64-v4 3; armv8-a 0,
// armv8.2-a 1), or -1 for a name that is no known level.
int isa_level_rank(std::string_view level);

// Returns "x86_64" or "aarch64", the architecture of a known level; "" for an unknown one.
std::string_view isa_level_architecture(std::string_view level);

// Returns the highest known level of levels ("" if none is known).
std::string_view top_isa_level(std::span<const std::string> levels);

// Returns the short name of a level in a CPU class: avx512 (x86-64-v4), avx2 (x86-64-v3),
// sse42 (x86-64-v2), sse2 (x86-64), dotprod (armv8.2-a), neon (armv8-a); "" if unknown.
std::string_view isa_level_short_name(std::string_view level);

// What the CPU class is derived from, as a worker reports it (WorkerIdentity).
struct CpuClassInput {
    std::string_view vendor;        // "GenuineIntel", "AuthenticAMD", "ARM", ...
    std::string_view architecture;  // "x86_64", "aarch64" ("" = guess from the levels)
    uint32_t family = 0;            // x86: cpu family; arm64: CPU implementer
    uint32_t model_id = 0;          // x86: model; arm64: CPU part
    std::span<const std::string> isa_levels;
};

// Returns the microarchitecture of a CPU ("zen4", "skylake", "neoverse-n1"), or "" when the
// table does not know it.
std::string_view cpu_microarchitecture(const CpuClassInput& cpu);

// Returns the vendor's short name: intel, amd, hygon, zhaoxin; on arm64 the implementer's
// (arm, apple, ampere, qualcomm, ...); "other" for any other.
std::string_view cpu_vendor_short_name(const CpuClassInput& cpu);

// Returns the CPU class: "<microarchitecture>-<short name of the top level>" (zen4-avx512,
// skylake-avx2, neoverse-n1-dotprod), "<vendor>-<top level>" when the microarchitecture is not
// in the table (intel-avx2, other-sse42); "" when no known level is given (a worker too old to
// report its identity). Always short (at most 32 characters) and of [a-z0-9-].
std::string cpu_class(const CpuClassInput& cpu);

}  // namespace sparring
