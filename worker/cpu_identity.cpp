#include "worker/cpu_identity.h"

#include <sys/utsname.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "common/cpu_class.h"
#include "common/flags.h"
#include "common/sha256.h"

namespace sparring::worker {

namespace {

constexpr std::string_view kCpuinfoSpace = " \t";

std::string_view trim_field(std::string_view text) {
    const size_t first = text.find_first_not_of(kCpuinfoSpace);
    if (first == std::string_view::npos) return {};
    return text.substr(first, text.find_last_not_of(kCpuinfoSpace) - first + 1);
}

// Returns a number written in decimal or as 0x hex; 0 when it is neither.
uint32_t cpuinfo_number(std::string_view text) {
    int base = 10;
    if (text.starts_with("0x") || text.starts_with("0X")) {
        text.remove_prefix(2);
        base = 16;
    }
    uint32_t value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
    return error == std::errc() && end == text.data() + text.size() ? value : 0;
}

std::vector<std::string> cpuinfo_words(std::string_view text) {
    std::vector<std::string> words;
    std::istringstream in{std::string(text)};
    for (std::string word; in >> word;) words.push_back(word);
    return words;
}

// Reads at most a MiB of a file; "" when it cannot be read.
std::string read_small_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::string text;
    char chunk[4096];
    while (in && text.size() < (1 << 20)) {
        in.read(chunk, sizeof chunk);
        text.append(chunk, size_t(in.gcount()));
    }
    return text;
}

std::string first_line_of(std::string_view text) {
    return std::string(trim_field(text.substr(0, text.find('\n'))));
}

// Returns the CPU numbers of a Linux CPU list ("0-3,8,10-11"); at most 65536 of them.
std::vector<uint32_t> linux_cpu_list(std::string_view text) {
    std::vector<uint32_t> cpus;
    std::istringstream in{first_line_of(text)};
    for (std::string item; std::getline(in, item, ',');) {
        const size_t dash = item.find('-');
        const std::string_view view(item);
        const uint32_t first = cpuinfo_number(trim_field(view.substr(0, dash)));
        const uint32_t last =
            dash == std::string::npos ? first : cpuinfo_number(trim_field(view.substr(dash + 1)));
        for (uint64_t cpu = first; cpu <= last && cpus.size() < 65536; ++cpu)
            cpus.push_back(uint32_t(cpu));
    }
    return cpus;
}

// The flags each x86-64 level needs beyond the level below it.
constexpr std::array<std::string_view, 6> kX86V2Flags = {"cx16",   "lahf_lm", "popcnt",
                                                         "sse4_1", "sse4_2",  "ssse3"};
constexpr std::array<std::string_view, 9> kX86V3Flags = {"avx", "avx2", "bmi1",  "bmi2", "f16c",
                                                         "fma", "abm",  "movbe", "xsave"};
constexpr std::array<std::string_view, 5> kX86V4Flags = {"avx512f", "avx512bw", "avx512cd",
                                                         "avx512dq", "avx512vl"};

// The flags reported: those of the levels and the ones engines' builds choose by.
constexpr std::array<std::string_view, 48> kReportedCpuFlags = {
    // x86-64
    "sse2", "ssse3", "sse4_1", "sse4_2", "popcnt", "cx16", "lahf_lm", "abm", "bmi1", "bmi2",
    "movbe", "xsave", "avx", "avx2", "fma", "f16c", "avx_vnni", "avx512f", "avx512bw", "avx512cd",
    "avx512dq", "avx512vl", "avx512_vnni", "avx512vbmi", "avx512_vbmi2", "avx512ifma",
    "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_int8",
    "amx_bf16", "gfni", "vaes", "adx", "sha_ni",
    // arm64
    "asimd", "asimddp", "asimdhp", "sve", "sve2", "i8mm", "bf16", "atomics", "crc32", "fphp",
    "svei8mm"};

bool has_every_flag(const std::set<std::string>& flags, std::span<const std::string_view> needed) {
    return std::all_of(needed.begin(), needed.end(),
                       [&](std::string_view flag) { return flags.count(std::string(flag)) > 0; });
}

#if defined(__x86_64__)
// Returns the levels' flags CPUID says the CPU has and the OS has enabled (XCR0), as Linux
// names them: /proc/cpuinfo can lack some (a hypervisor's kernel may not list abm).
std::vector<std::string> cpuid_flags() {
    std::vector<std::string> flags;
    unsigned a = 0, b = 0, c = 0, d = 0;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return flags;
    const unsigned c1 = c;
    auto add = [&flags](bool has, std::string_view name) {
        if (has) flags.emplace_back(name);
    };
    add(c1 & (1u << 0), "pni");
    add(c1 & (1u << 9), "ssse3");
    add(c1 & (1u << 13), "cx16");
    add(c1 & (1u << 19), "sse4_1");
    add(c1 & (1u << 20), "sse4_2");
    add(c1 & (1u << 22), "movbe");
    add(c1 & (1u << 23), "popcnt");
    add(c1 & (1u << 26), "xsave");
    uint64_t xcr0 = 0;
    if (c1 & (1u << 27)) {  // OSXSAVE: the OS saves the registers XCR0 names
        unsigned low = 0, high = 0;
        __asm__ volatile("xgetbv" : "=a"(low), "=d"(high) : "c"(0));
        xcr0 = (uint64_t(high) << 32) | low;
    }
    const bool ymm = (xcr0 & 0x6) == 0x6, zmm = ymm && (xcr0 & 0xe0) == 0xe0;
    add(ymm && (c1 & (1u << 28)), "avx");
    add(ymm && (c1 & (1u << 12)), "fma");
    add(ymm && (c1 & (1u << 29)), "f16c");
    if (__get_cpuid(0x80000001, &a, &b, &c, &d)) {
        add(c & (1u << 0), "lahf_lm");
        add(c & (1u << 5), "abm");
    }
    if (__get_cpuid_max(0, nullptr) >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        add(b & (1u << 3), "bmi1");
        add(b & (1u << 8), "bmi2");
        add(ymm && (b & (1u << 5)), "avx2");
        add(zmm && (b & (1u << 16)), "avx512f");
        add(zmm && (b & (1u << 17)), "avx512dq");
        add(zmm && (b & (1u << 28)), "avx512cd");
        add(zmm && (b & (1u << 30)), "avx512bw");
        add(zmm && (b & (1u << 31)), "avx512vl");
        add(zmm && (c & (1u << 11)), "avx512_vnni");
    }
    return flags;
}
#else
std::vector<std::string> cpuid_flags() {
    return {};
}
#endif

// An arm64 implementer's name as reported ("ARM", "Apple", "Ampere").
std::string arm_vendor(uint32_t implementer) {
    CpuClassInput arm;
    arm.architecture = "aarch64";
    arm.family = implementer;
    const std::string_view name = cpu_vendor_short_name(arm);
    if (name == "arm") return "ARM";
    std::string pretty(name);
    if (!pretty.empty()) pretty[0] = char(pretty[0] - 'a' + 'A');
    return pretty;
}

// The core types of a hybrid CPU: Intel's PMUs cpu_core, cpu_atom (and cpu_lowpower), or
// /sys/devices/system/cpu/types/*/cpulist; none for a CPU of one type.
std::vector<v1::CoreType> detect_core_types(const std::string& root) {
    namespace fs = std::filesystem;
    std::vector<std::pair<std::string, std::vector<uint32_t>>> types;
    const std::string pmus = root + "/sys/bus/event_source/devices/";
    for (const auto& [pmu, name] :
         {std::pair<std::string_view, std::string_view>{"cpu_core", "performance"},
          {"cpu_atom", "efficiency"},
          {"cpu_lowpower", "low-power"}}) {
        std::vector<uint32_t> cpus =
            linux_cpu_list(read_small_file(pmus + std::string(pmu) + "/cpus"));
        if (!cpus.empty()) types.emplace_back(name, std::move(cpus));
    }
    if (types.empty()) {
        std::error_code error;
        std::vector<std::string> names;
        for (const auto& entry :
             fs::directory_iterator(root + "/sys/devices/system/cpu/types", error))
            names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        for (const std::string& dir : names) {
            std::vector<uint32_t> cpus = linux_cpu_list(
                read_small_file(root + "/sys/devices/system/cpu/types/" + dir + "/cpulist"));
            const std::string name = dir.find("atom") != std::string::npos   ? "efficiency"
                                     : dir.find("core") != std::string::npos ? "performance"
                                                                             : dir;
            if (!cpus.empty() && types.size() < 8) types.emplace_back(name, std::move(cpus));
        }
    }
    std::vector<v1::CoreType> result;
    if (types.size() < 2) return result;
    for (auto& [name, cpus] : types) {
        v1::CoreType& type = result.emplace_back();
        type.set_name(name);
        type.set_cpus(uint32_t(cpus.size()));
        for (const uint32_t cpu : cpus) type.add_cpu_ids(cpu);
    }
    return result;
}

// Counts the online CPUs and their distinct cores (topology/core_cpus_list); {0, 0} without
// sysfs.
std::pair<int, int> sysfs_topology(const std::string& root) {
    const std::string cpu = root + "/sys/devices/system/cpu/";
    const std::vector<uint32_t> online = linux_cpu_list(read_small_file(cpu + "online"));
    std::set<std::string> cores;
    for (const uint32_t id : online) {
        const std::string topology = cpu + "cpu" + std::to_string(id) + "/topology/";
        std::string siblings = first_line_of(read_small_file(topology + "core_cpus_list"));
        if (siblings.empty())
            siblings = first_line_of(read_small_file(topology + "thread_siblings_list"));
        if (!siblings.empty()) cores.insert(siblings);
    }
    return {int(online.size()), int(cores.size())};
}

}  // namespace

CpuInfo parse_cpuinfo(std::string_view text, std::string_view architecture) {
    CpuInfo cpu;
    cpu.architecture = std::string(architecture);
    std::set<std::pair<std::string, std::string>> cores;
    std::string physical_id, core_id;
    bool first = true, seen_processor = false;
    auto end_block = [&] {
        if (!core_id.empty()) cores.emplace(physical_id, core_id);
        physical_id.clear();
        core_id.clear();
    };
    std::istringstream lines{std::string(text)};
    for (std::string line; std::getline(lines, line);) {
        const size_t colon = line.find(':');
        if (colon == std::string::npos) continue;
        const std::string key(trim_field(std::string_view(line).substr(0, colon)));
        const std::string_view value = trim_field(std::string_view(line).substr(colon + 1));
        if (key == "processor") {
            end_block();
            if (seen_processor) first = false;
            seen_processor = true;
            ++cpu.logical_cpus;
            continue;
        }
        if (key == "physical id") physical_id = value;
        if (key == "core id") core_id = value;
        if (!first) continue;
        if (key == "vendor_id") cpu.vendor = value;
        if (key == "model name") cpu.model = value;
        if (key == "cpu family") cpu.family = cpuinfo_number(value);
        if (key == "model") cpu.model_id = cpuinfo_number(value);
        if (key == "CPU implementer") cpu.family = cpuinfo_number(value);
        if (key == "CPU part") cpu.model_id = cpuinfo_number(value);
        if (key == "flags" || key == "Features") cpu.flags = cpuinfo_words(value);
    }
    end_block();
    cpu.physical_cores = int(cores.size());
    std::sort(cpu.flags.begin(), cpu.flags.end());
    cpu.flags.erase(std::unique(cpu.flags.begin(), cpu.flags.end()), cpu.flags.end());
    if (cpu.architecture == "aarch64") {
        cpu.vendor = arm_vendor(cpu.family);
        CpuClassInput arm;
        arm.architecture = "aarch64";
        arm.family = cpu.family;
        arm.model_id = cpu.model_id;
        const std::string_view part = cpu_microarchitecture(arm);
        if (!part.empty()) {
            cpu.model = part;
        } else {
            std::ostringstream name;
            name << "implementer 0x" << std::hex << cpu.family << " part 0x" << cpu.model_id;
            cpu.model = name.str();
        }
    }
    return cpu;
}

std::vector<std::string> isa_levels_of(const CpuInfo& cpu) {
    const std::set<std::string> flags(cpu.flags.begin(), cpu.flags.end());
    std::vector<std::string> levels;
    if (cpu.architecture == "aarch64") {
        levels.emplace_back("armv8-a");
        if (flags.count("asimddp")) levels.emplace_back("armv8.2-a");
        return levels;
    }
    if (cpu.architecture != "x86_64") return levels;
    levels.emplace_back("x86-64");
    if (!has_every_flag(flags, kX86V2Flags)) return levels;
    levels.emplace_back("x86-64-v2");
    if (!has_every_flag(flags, kX86V3Flags)) return levels;
    levels.emplace_back("x86-64-v3");
    if (!has_every_flag(flags, kX86V4Flags)) return levels;
    levels.emplace_back("x86-64-v4");
    return levels;
}

std::vector<std::string> engine_flags(const CpuInfo& cpu) {
    std::vector<std::string> flags;
    for (const std::string& flag : cpu.flags)
        if (std::find(kReportedCpuFlags.begin(), kReportedCpuFlags.end(), flag) !=
            kReportedCpuFlags.end())
            flags.push_back(flag);
    return flags;
}

std::vector<std::string> claimed_isa_levels(const std::vector<std::string>& supported,
                                            std::string_view list) {
    std::string known, runs;
    for (const std::string_view level : known_isa_levels())
        known += (known.empty() ? "" : ", ") + std::string(level);
    for (const std::string& level : supported) runs += (runs.empty() ? "" : ", ") + level;
    std::string top;
    std::istringstream items{std::string(list)};
    for (std::string item; std::getline(items, item, ',');) {
        const std::string level(trim_field(item));
        if (level.empty()) continue;
        if (isa_level_rank(level) < 0)
            throw UsageError("--isa-levels: '" + level + "' is no instruction-set level (" + known +
                             ")");
        if (std::find(supported.begin(), supported.end(), level) == supported.end())
            throw UsageError("--isa-levels: this CPU does not run " + level + " (it runs " +
                             (runs.empty() ? std::string("none known") : runs) + ")");
        if (top.empty() || isa_level_rank(level) > isa_level_rank(top)) top = level;
    }
    if (top.empty()) throw UsageError("--isa-levels: no level given (this CPU runs " + runs + ")");
    std::vector<std::string> claimed;
    for (const std::string& level : supported)
        if (isa_level_rank(level) <= isa_level_rank(top)) claimed.push_back(level);
    return claimed;
}

std::string os_name(std::string_view os_release) {
    std::map<std::string, std::string> fields;
    std::istringstream lines{std::string(os_release)};
    for (std::string line; std::getline(lines, line);) {
        const size_t equals = line.find('=');
        if (equals == std::string::npos || line.starts_with("#")) continue;
        std::string value(trim_field(std::string_view(line).substr(equals + 1)));
        if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
            value.back() == value.front())
            value = value.substr(1, value.size() - 2);
        std::string unescaped;
        for (size_t i = 0; i < value.size(); ++i) {
            if (value[i] == '\\' && i + 1 < value.size()) ++i;
            unescaped += value[i];
        }
        fields[std::string(trim_field(std::string_view(line).substr(0, equals)))] = unescaped;
    }
    if (!fields["PRETTY_NAME"].empty()) return fields["PRETTY_NAME"];
    std::string name = fields["NAME"];
    if (!fields["VERSION_ID"].empty()) name += (name.empty() ? "" : " ") + fields["VERSION_ID"];
    return name;
}

std::string hashed_machine_id(std::string_view machine_id) {
    const std::string id = first_line_of(machine_id);
    if (id.empty()) return {};
    return sha256_hex(id).substr(0, 16);
}

v1::WorkerIdentity detect_identity(const IdentitySources& sources) {
    utsname names{};
    const bool named = uname(&names) == 0;
    const std::string architecture = !sources.architecture.empty() ? sources.architecture
                                     : named                       ? names.machine
                                                                   : "";
    CpuInfo cpu = parse_cpuinfo(read_small_file(sources.root + "/proc/cpuinfo"), architecture);
    if (sources.use_cpuid && architecture == "x86_64") {
        std::vector<std::string> flags = cpuid_flags();
        flags.insert(flags.end(), cpu.flags.begin(), cpu.flags.end());
        std::sort(flags.begin(), flags.end());
        flags.erase(std::unique(flags.begin(), flags.end()), flags.end());
        cpu.flags = std::move(flags);
    }
    v1::WorkerIdentity identity;
    identity.set_architecture(architecture);
    identity.set_cpu_vendor(cpu.vendor);
    identity.set_cpu_model(cpu.model);
    identity.set_cpu_family(cpu.family);
    identity.set_cpu_model_id(cpu.model_id);
    for (std::string& level : isa_levels_of(cpu)) identity.add_isa_levels(std::move(level));
    for (std::string& flag : engine_flags(cpu)) identity.add_cpu_flags(std::move(flag));
    const auto [threads, cores] = sysfs_topology(sources.root);
    const int hardware_threads =
        threads > 0 ? threads
        : cpu.logical_cpus > 0
            ? cpu.logical_cpus
            : int(std::max(1u, sources.root.empty() ? std::thread::hardware_concurrency() : 1u));
    identity.set_hardware_threads(uint32_t(hardware_threads));
    identity.set_physical_cores(
        uint32_t(std::min(hardware_threads, cores > 0                ? cores
                                            : cpu.physical_cores > 0 ? cpu.physical_cores
                                                                     : hardware_threads)));
    for (v1::CoreType& type : detect_core_types(sources.root))
        *identity.add_core_types() = std::move(type);
    std::string os = read_small_file(sources.root + "/etc/os-release");
    if (os.empty()) os = read_small_file(sources.root + "/usr/lib/os-release");
    identity.set_os(os_name(os));
    identity.set_kernel(!sources.kernel.empty() ? sources.kernel : named ? names.release : "");
    std::string machine_id = read_small_file(sources.root + "/etc/machine-id");
    if (first_line_of(machine_id).empty())
        machine_id = read_small_file(sources.root + "/var/lib/dbus/machine-id");
    identity.set_machine_id(hashed_machine_id(machine_id));
    return identity;
}

std::string cpu_class_of(const v1::WorkerIdentity& identity) {
    const std::vector<std::string> levels(identity.isa_levels().begin(),
                                          identity.isa_levels().end());
    return cpu_class({.vendor = identity.cpu_vendor(),
                      .architecture = identity.architecture(),
                      .family = identity.cpu_family(),
                      .model_id = identity.cpu_model_id(),
                      .isa_levels = levels});
}

}  // namespace sparring::worker
