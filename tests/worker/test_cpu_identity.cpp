// The worker's identity (issue 52, part A): /proc/cpuinfo of an Intel hybrid, an AMD Zen 4 and
// an ARM64 machine parsed into levels, flags and cores; --isa-levels; the CPU class rule
// (common/cpu_class.h) over them; and a whole detection over a fake root of /proc, /sys and
// /etc (hybrid core types from the cpu_core/cpu_atom PMUs, the OS, the hashed machine id).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/cpu_class.h"
#include "common/flags.h"
#include "common/sha256.h"
#include "worker/cpu_identity.h"

namespace sparring::worker {
namespace {

// Two processors of an Intel Core i9-12900K (Alder Lake: P cores 0-15 with two threads, E cores
// 16-23), as Linux 6.1 lists them (flags cut to the ones of interest and a few others).
constexpr const char* kAlderLake = R"(processor	: 0
vendor_id	: GenuineIntel
cpu family	: 6
model		: 151
model name	: 12th Gen Intel(R) Core(TM) i9-12900K
stepping	: 2
physical id	: 0
siblings	: 24
core id		: 0
cpu cores	: 16
flags		: fpu vme de pse tsc msr pae mce cx8 apic sep lm sse sse2 ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch bmi1 avx2 smep bmi2 erms adx sha_ni avx_vnni gfni vaes
bugs		: spectre_v1 spectre_v2

processor	: 1
vendor_id	: GenuineIntel
cpu family	: 6
model		: 151
model name	: 12th Gen Intel(R) Core(TM) i9-12900K
physical id	: 0
core id		: 0
flags		: fpu vme de pse tsc msr pae mce cx8 apic sep lm sse sse2 ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch bmi1 avx2 smep bmi2 erms adx sha_ni avx_vnni gfni vaes

processor	: 16
vendor_id	: GenuineIntel
cpu family	: 6
model		: 151
model name	: 12th Gen Intel(R) Core(TM) i9-12900K
physical id	: 0
core id		: 32
flags		: fpu vme de pse tsc msr pae mce cx8 apic sep lm sse sse2 ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand lahf_lm abm 3dnowprefetch bmi1 avx2 smep bmi2 erms adx sha_ni avx_vnni gfni vaes
)";

// One processor of an AMD Ryzen 9 7950X (Zen 4: AVX-512).
constexpr const char* kZen4 = R"(processor	: 0
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 97
model name	: AMD Ryzen 9 7950X 16-Core Processor
physical id	: 0
core id		: 0
flags		: fpu vme de pse tsc lm sse sse2 pni ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c lahf_lm abm bmi1 avx2 bmi2 avx512f avx512dq avx512ifma avx512cd avx512bw avx512vl avx512_bf16 avx512vbmi avx512_vbmi2 gfni vaes avx512_vnni avx512_bitalg avx512_vpopcntdq

processor	: 1
vendor_id	: AuthenticAMD
cpu family	: 25
model		: 97
model name	: AMD Ryzen 9 7950X 16-Core Processor
physical id	: 0
core id		: 0
flags		: fpu vme de pse tsc lm sse sse2 pni ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c lahf_lm abm bmi1 avx2 bmi2 avx512f avx512dq avx512ifma avx512cd avx512bw avx512vl
)";

// Two processors of an AWS Graviton2 (Neoverse N1), as arm64 Linux lists them.
constexpr const char* kGraviton2 = R"(processor	: 0
BogoMIPS	: 243.75
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1

processor	: 1
BogoMIPS	: 243.75
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm lrcpc dcpop asimddp ssbs
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x3
CPU part	: 0xd0c
CPU revision	: 1
)";

std::string class_of(const CpuInfo& cpu, const std::vector<std::string>& levels) {
    return cpu_class({.vendor = cpu.vendor,
                      .architecture = cpu.architecture,
                      .family = cpu.family,
                      .model_id = cpu.model_id,
                      .isa_levels = levels});
}

TEST(CpuIdentity, AnIntelHybridIsAnAlderLakeOfX8664V3) {
    const CpuInfo cpu = parse_cpuinfo(kAlderLake, "x86_64");
    EXPECT_EQ(cpu.vendor, "GenuineIntel");
    EXPECT_EQ(cpu.model, "12th Gen Intel(R) Core(TM) i9-12900K");
    EXPECT_EQ(cpu.family, 6u);
    EXPECT_EQ(cpu.model_id, 151u);
    EXPECT_EQ(cpu.logical_cpus, 3);
    EXPECT_EQ(cpu.physical_cores, 2) << "processors 0 and 1 are one core's two threads";
    const std::vector<std::string> levels = isa_levels_of(cpu);
    EXPECT_EQ(levels, (std::vector<std::string>{"x86-64", "x86-64-v2", "x86-64-v3"}));
    const std::vector<std::string> flags = engine_flags(cpu);
    EXPECT_NE(std::find(flags.begin(), flags.end(), "avx_vnni"), flags.end());
    EXPECT_EQ(std::find(flags.begin(), flags.end(), "smep"), flags.end()) << "not an engine's";
    EXPECT_EQ(class_of(cpu, levels), "alderlake-avx2");
}

TEST(CpuIdentity, AZen4RunsX8664V4) {
    const CpuInfo cpu = parse_cpuinfo(kZen4, "x86_64");
    const std::vector<std::string> levels = isa_levels_of(cpu);
    EXPECT_EQ(levels.back(), "x86-64-v4");
    EXPECT_EQ(levels.size(), 4u);
    EXPECT_EQ(cpu.physical_cores, 1);
    EXPECT_EQ(class_of(cpu, levels), "zen4-avx512");
    // A worker that claims x86-64-v3 is of the class of its builds: zen4-avx2.
    EXPECT_EQ(class_of(cpu, claimed_isa_levels(levels, "x86-64-v3")), "zen4-avx2");
}

TEST(CpuIdentity, AMissingFlagKeepsALevelOut) {
    std::string text = kZen4;
    // Without movbe (a v3 flag) the CPU is of x86-64-v2, whatever its AVX-512 flags say.
    for (size_t at; (at = text.find(" movbe")) != std::string::npos;) text.erase(at, 6);
    const CpuInfo cpu = parse_cpuinfo(text, "x86_64");
    EXPECT_EQ(isa_levels_of(cpu).back(), "x86-64-v2");
    EXPECT_EQ(class_of(cpu, isa_levels_of(cpu)), "zen4-sse42");
}

TEST(CpuIdentity, AnArm64NeoverseN1HasDotProduct) {
    const CpuInfo cpu = parse_cpuinfo(kGraviton2, "aarch64");
    EXPECT_EQ(cpu.vendor, "ARM");
    EXPECT_EQ(cpu.model, "neoverse-n1");
    EXPECT_EQ(cpu.family, 0x41u);
    EXPECT_EQ(cpu.model_id, 0xd0cu);
    EXPECT_EQ(cpu.logical_cpus, 2);
    const std::vector<std::string> levels = isa_levels_of(cpu);
    EXPECT_EQ(levels, (std::vector<std::string>{"armv8-a", "armv8.2-a"}));
    const std::vector<std::string> flags = engine_flags(cpu);
    EXPECT_NE(std::find(flags.begin(), flags.end(), "asimddp"), flags.end());
    EXPECT_EQ(class_of(cpu, levels), "neoverse-n1-dotprod");
    EXPECT_EQ(class_of(cpu, claimed_isa_levels(levels, "armv8-a")), "neoverse-n1-neon");
}

TEST(CpuIdentity, ClaimedLevelsAreTheHighestNamedAndBelow) {
    const std::vector<std::string> v4 = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
    EXPECT_EQ(claimed_isa_levels(v4, "x86-64,x86-64-v2,x86-64-v3"),
              (std::vector<std::string>{"x86-64", "x86-64-v2", "x86-64-v3"}));
    EXPECT_EQ(claimed_isa_levels(v4, "x86-64-v2"),
              (std::vector<std::string>{"x86-64", "x86-64-v2"}));
    EXPECT_EQ(claimed_isa_levels(v4, " x86-64-v4 "), v4);
    const std::vector<std::string> v2 = {"x86-64", "x86-64-v2"};
    try {
        claimed_isa_levels(v2, "x86-64-v3");
        ADD_FAILURE() << "a level the CPU lacks is claimed";
    } catch (const UsageError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "--isa-levels: this CPU does not run x86-64-v3 (it runs x86-64, x86-64-v2)");
    }
    EXPECT_THROW(claimed_isa_levels(v4, "avx2"), UsageError);
    EXPECT_THROW(claimed_isa_levels(v4, "armv8-a"), UsageError);
    EXPECT_THROW(claimed_isa_levels(v4, ","), UsageError);
}

TEST(CpuClass, TheRuleNamesFamilyAndTopLevelOrVendorAndTopLevel) {
    auto named = [](std::string_view vendor, uint32_t family, uint32_t model,
                    std::vector<std::string> levels, std::string_view architecture = "") {
        return cpu_class({.vendor = vendor,
                          .architecture = architecture,
                          .family = family,
                          .model_id = model,
                          .isa_levels = levels});
    };
    const std::vector<std::string> v3 = {"x86-64", "x86-64-v2", "x86-64-v3"};
    const std::vector<std::string> v4 = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
    EXPECT_EQ(named("AuthenticAMD", 0x1a, 0x02, v4), "zen5-avx512");  // EPYC 9005 (Turin)
    EXPECT_EQ(named("AuthenticAMD", 0x19, 0x11, v4), "zen4-avx512");  // EPYC 9004 (Genoa)
    EXPECT_EQ(named("AuthenticAMD", 0x19, 0x01, v3), "zen3-avx2");    // EPYC 7003 (Milan)
    EXPECT_EQ(named("AuthenticAMD", 0x17, 0x31, v3), "zen2-avx2");    // EPYC 7002 (Rome)
    EXPECT_EQ(named("GenuineIntel", 6, 0x55, v4), "skylakex-avx512");
    EXPECT_EQ(named("GenuineIntel", 6, 0x9e, v3), "skylake-avx2");  // Coffee Lake
    EXPECT_EQ(named("GenuineIntel", 6, 0x8f, v4), "sapphirerapids-avx512");
    EXPECT_EQ(named("GenuineIntel", 6, 0xfe, v3), "intel-avx2") << "a model not in the table";
    EXPECT_EQ(named("GenuineIntel", 0, 0, {"x86-64"}), "intel-sse2");
    EXPECT_EQ(named("\x1b[31mEvil", 6, 0x55, v3), "other-avx2") << "a vendor not known";
    EXPECT_EQ(named("ARM", 0x41, 0xd4f, {"armv8-a", "armv8.2-a"}, "aarch64"),
              "neoverse-v2-dotprod");
    EXPECT_EQ(named("Apple", 0x61, 0x22, {"armv8-a"}, "aarch64"), "apple-neon");
    EXPECT_EQ(named("AuthenticAMD", 0x1a, 2, {}), "") << "no level: a worker of before";
    EXPECT_EQ(named("AuthenticAMD", 0x1a, 2, {"x86-64-v9"}), "") << "no known level";
    // Levels say the architecture when the worker's does not agree with them.
    EXPECT_EQ(named("ARM", 0x41, 0xd0c, {"armv8-a"}, "x86_64"), "neoverse-n1-neon");
    EXPECT_EQ(isa_level_rank("x86-64-v3"), 2);
    EXPECT_EQ(isa_level_rank("x86-64-v5"), -1);
    EXPECT_EQ(top_isa_level(v3), "x86-64-v3");
}

TEST(CpuIdentity, OsNameAndMachineId) {
    EXPECT_EQ(os_name("NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"
                      "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n"),
              "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(os_name("NAME=Alpine\nVERSION_ID=3.19.1\n"), "Alpine 3.19.1");
    EXPECT_EQ(os_name(""), "");
    const std::string id = hashed_machine_id("0123456789abcdef0123456789abcdef\n");
    EXPECT_EQ(id, sha256_hex("0123456789abcdef0123456789abcdef").substr(0, 16));
    EXPECT_EQ(hashed_machine_id("\n"), "");
}

// Writes text to root/path, making its directories.
void put(const std::filesystem::path& root, const std::string& path, const std::string& text) {
    std::filesystem::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
}

TEST(CpuIdentity, DetectsAHybridMachineFromItsFiles) {
    const std::filesystem::path root =
        std::filesystem::path(::testing::TempDir()) / ("cpu-identity-" + std::to_string(getpid()));
    std::filesystem::remove_all(root);
    put(root, "proc/cpuinfo", kAlderLake);
    put(root, "sys/devices/system/cpu/online", "0-3\n");
    // Two P-core threads on one core (0, 1), and two E cores (2, 3).
    put(root, "sys/devices/system/cpu/cpu0/topology/core_cpus_list", "0-1\n");
    put(root, "sys/devices/system/cpu/cpu1/topology/core_cpus_list", "0-1\n");
    put(root, "sys/devices/system/cpu/cpu2/topology/core_cpus_list", "2\n");
    put(root, "sys/devices/system/cpu/cpu3/topology/core_cpus_list", "3\n");
    put(root, "sys/bus/event_source/devices/cpu_core/cpus", "0-1\n");
    put(root, "sys/bus/event_source/devices/cpu_atom/cpus", "2-3\n");
    put(root, "etc/os-release", "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\n");
    put(root, "etc/machine-id", "5f1d3c9a2b8e4f6d7c0a1b2c3d4e5f60\n");
    const v1::WorkerIdentity identity = detect_identity({.root = root.string(),
                                                         .architecture = "x86_64",
                                                         .kernel = "6.1.0-18-amd64",
                                                         .use_cpuid = false});
    EXPECT_EQ(identity.cpu_vendor(), "GenuineIntel");
    EXPECT_EQ(identity.architecture(), "x86_64");
    EXPECT_EQ(identity.isa_levels_size(), 3);
    EXPECT_EQ(identity.hardware_threads(), 4u);
    EXPECT_EQ(identity.physical_cores(), 3u);
    ASSERT_EQ(identity.core_types_size(), 2);
    EXPECT_EQ(identity.core_types(0).name(), "performance");
    EXPECT_EQ(identity.core_types(0).cpus(), 2u);
    EXPECT_EQ(identity.core_types(1).name(), "efficiency");
    EXPECT_EQ(identity.core_types(1).cpu_ids(1), 3u);
    EXPECT_EQ(identity.os(), "Debian GNU/Linux 12 (bookworm)");
    EXPECT_EQ(identity.kernel(), "6.1.0-18-amd64");
    EXPECT_EQ(identity.machine_id(), hashed_machine_id("5f1d3c9a2b8e4f6d7c0a1b2c3d4e5f60"));
    EXPECT_EQ(identity.machine_id().size(), 16u);
    EXPECT_EQ(cpu_class_of(identity), "alderlake-avx2");

    // Linux's types directory names the core types where the PMUs do not.
    std::filesystem::remove_all(root / "sys/bus");
    put(root, "sys/devices/system/cpu/types/intel_atom_0/cpulist", "2-3\n");
    put(root, "sys/devices/system/cpu/types/intel_core_1/cpulist", "0-1\n");
    const v1::WorkerIdentity typed = detect_identity(
        {.root = root.string(), .architecture = "x86_64", .kernel = "x", .use_cpuid = false});
    ASSERT_EQ(typed.core_types_size(), 2);
    EXPECT_EQ(typed.core_types(0).name(), "efficiency");
    EXPECT_EQ(typed.core_types(1).name(), "performance");
    std::filesystem::remove_all(root);
}

TEST(CpuIdentity, ThisMachineHasAnIdentity) {
    const v1::WorkerIdentity identity = detect_identity();
    EXPECT_FALSE(identity.architecture().empty());
    EXPECT_GE(identity.hardware_threads(), 1u);
    EXPECT_GE(identity.hardware_threads(), identity.physical_cores());
    if (identity.architecture() == "x86_64") {
        ASSERT_FALSE(identity.isa_levels().empty());
        EXPECT_EQ(identity.isa_levels(0), "x86-64");
        EXPECT_FALSE(cpu_class_of(identity).empty());
    }
}

}  // namespace
}  // namespace sparring::worker
