#include "common/cpu_class.h"

#include <array>

namespace sparring {

namespace {

struct IsaLevel {
    std::string_view name;
    std::string_view architecture;
    int rank;
    std::string_view short_name;
};

constexpr std::array<IsaLevel, 6> kIsaLevels = {{{"x86-64", "x86_64", 0, "sse2"},
                                                 {"x86-64-v2", "x86_64", 1, "sse42"},
                                                 {"x86-64-v3", "x86_64", 2, "avx2"},
                                                 {"x86-64-v4", "x86_64", 3, "avx512"},
                                                 {"armv8-a", "aarch64", 0, "neon"},
                                                 {"armv8.2-a", "aarch64", 1, "dotprod"}}};

constexpr std::array<std::string_view, 6> kIsaLevelNames = {kIsaLevels[0].name, kIsaLevels[1].name,
                                                            kIsaLevels[2].name, kIsaLevels[3].name,
                                                            kIsaLevels[4].name, kIsaLevels[5].name};

const IsaLevel* find_isa_level(std::string_view name) {
    for (const IsaLevel& level : kIsaLevels)
        if (level.name == name) return &level;
    return nullptr;
}

// A range of amd_models of one family and their microarchitecture.
struct AmdModels {
    uint32_t family, first, last;
    std::string_view name;
};

// AMD (AuthenticAMD): family 0x17 is Zen to Zen 2, 0x19 Zen 3 and Zen 4, 0x1a Zen 5.
constexpr std::array<AmdModels, 12> kAmdModels = {{{0x10, 0x00, 0xff, "k10"},
                                                   {0x15, 0x00, 0xff, "bulldozer"},
                                                   {0x16, 0x00, 0xff, "jaguar"},
                                                   {0x17, 0x00, 0x2f, "zen"},
                                                   {0x17, 0x30, 0xff, "zen2"},
                                                   {0x19, 0x10, 0x1f, "zen4"},
                                                   {0x19, 0x60, 0x7f, "zen4"},
                                                   {0x19, 0xa0, 0xaf, "zen4"},
                                                   {0x19, 0x00, 0xff, "zen3"},
                                                   {0x1a, 0x00, 0xff, "zen5"},
                                                   {0x18, 0x00, 0xff, "dhyana"},
                                                   {0x0f, 0x00, 0xff, "k8"}}};

// Intel (GenuineIntel) family 6: each model number and its core.
struct IntelCore {
    uint32_t model;
    std::string_view name;
};
constexpr std::array<IntelCore, 69> kIntelFamily6 = {{
    {0x0f, "core2"},          {0x16, "core2"},         {0x17, "core2"},
    {0x1d, "core2"},          {0x1a, "nehalem"},       {0x1e, "nehalem"},
    {0x1f, "nehalem"},        {0x2e, "nehalem"},       {0x25, "westmere"},
    {0x2c, "westmere"},       {0x2f, "westmere"},      {0x2a, "sandybridge"},
    {0x2d, "sandybridge"},    {0x3a, "ivybridge"},     {0x3e, "ivybridge"},
    {0x3c, "haswell"},        {0x3f, "haswell"},       {0x45, "haswell"},
    {0x46, "haswell"},        {0x3d, "broadwell"},     {0x47, "broadwell"},
    {0x4f, "broadwell"},      {0x56, "broadwell"},     {0x4e, "skylake"},
    {0x5e, "skylake"},        {0x8e, "skylake"},       {0x9e, "skylake"},
    {0xa5, "skylake"},        {0xa6, "skylake"},       {0x55, "skylakex"},
    {0x66, "cannonlake"},     {0x6a, "icelake"},       {0x6c, "icelake"},
    {0x7d, "icelake"},        {0x7e, "icelake"},       {0x9d, "icelake"},
    {0xa7, "rocketlake"},     {0x8c, "tigerlake"},     {0x8d, "tigerlake"},
    {0x8f, "sapphirerapids"}, {0xcf, "emeraldrapids"}, {0xad, "graniterapids"},
    {0xae, "graniterapids"},  {0x97, "alderlake"},     {0x9a, "alderlake"},
    {0xbe, "alderlake"},      {0xb7, "raptorlake"},    {0xba, "raptorlake"},
    {0xbf, "raptorlake"},     {0xaa, "meteorlake"},    {0xac, "meteorlake"},
    {0xc5, "arrowlake"},      {0xc6, "arrowlake"},     {0xb5, "arrowlake"},
    {0xbd, "lunarlake"},      {0x1c, "bonnell"},       {0x26, "bonnell"},
    {0x37, "silvermont"},     {0x4d, "silvermont"},    {0x4c, "airmont"},
    {0x5c, "goldmont"},       {0x5f, "goldmont"},      {0x7a, "goldmontplus"},
    {0x86, "tremont"},        {0x8a, "tremont"},       {0x96, "tremont"},
    {0x9c, "tremont"},        {0xaf, "sierraforest"},  {0x57, "knl"},
}};

// arm64: each implementer (CPU implementer) and its short name, and the parts of a few.
struct ArmImplementer {
    uint32_t code;
    std::string_view name;
};
constexpr std::array<ArmImplementer, 12> kArmImplementers = {{{0x41, "arm"},
                                                              {0x42, "broadcom"},
                                                              {0x43, "cavium"},
                                                              {0x46, "fujitsu"},
                                                              {0x48, "hisilicon"},
                                                              {0x4e, "nvidia"},
                                                              {0x50, "apm"},
                                                              {0x51, "qualcomm"},
                                                              {0x61, "apple"},
                                                              {0x6d, "microsoft"},
                                                              {0xc0, "ampere"},
                                                              {0x53, "samsung"}}};

struct ArmPart {
    uint32_t implementer, part;
    std::string_view name;
};
constexpr std::array<ArmPart, 29> kArmParts = {{
    {0x41, 0xd03, "cortex-a53"},  {0x41, 0xd04, "cortex-a35"},  {0x41, 0xd05, "cortex-a55"},
    {0x41, 0xd07, "cortex-a57"},  {0x41, 0xd08, "cortex-a72"},  {0x41, 0xd09, "cortex-a73"},
    {0x41, 0xd0a, "cortex-a75"},  {0x41, 0xd0b, "cortex-a76"},  {0x41, 0xd0c, "neoverse-n1"},
    {0x41, 0xd0d, "cortex-a77"},  {0x41, 0xd40, "neoverse-v1"}, {0x41, 0xd41, "cortex-a78"},
    {0x41, 0xd44, "cortex-x1"},   {0x41, 0xd46, "cortex-a510"}, {0x41, 0xd47, "cortex-a710"},
    {0x41, 0xd48, "cortex-x2"},   {0x41, 0xd49, "neoverse-n2"}, {0x41, 0xd4b, "cortex-a78c"},
    {0x41, 0xd4d, "cortex-a715"}, {0x41, 0xd4e, "cortex-x3"},   {0x41, 0xd4f, "neoverse-v2"},
    {0x41, 0xd80, "cortex-a520"}, {0x41, 0xd81, "cortex-a720"}, {0x41, 0xd82, "cortex-x4"},
    {0x41, 0xd84, "neoverse-v3"}, {0x41, 0xd8e, "neoverse-n3"}, {0xc0, 0xac3, "ampereone"},
    {0x46, 0x001, "a64fx"},       {0x48, 0xd01, "tsv110"},
}};

bool is_arm_cpu(const CpuClassInput& cpu) {
    if (!cpu.architecture.empty()) return cpu.architecture == "aarch64";
    return isa_level_architecture(top_isa_level(cpu.isa_levels)) == "aarch64";
}

}  // namespace

std::span<const std::string_view> known_isa_levels() {
    return kIsaLevelNames;
}

int isa_level_rank(std::string_view level) {
    const IsaLevel* found = find_isa_level(level);
    return found ? found->rank : -1;
}

std::string_view isa_level_architecture(std::string_view level) {
    const IsaLevel* found = find_isa_level(level);
    return found ? found->architecture : std::string_view();
}

std::string_view top_isa_level(std::span<const std::string> levels) {
    const IsaLevel* top = nullptr;
    for (const std::string& name : levels) {
        const IsaLevel* level = find_isa_level(name);
        if (level && (!top || level->rank > top->rank)) top = level;
    }
    return top ? top->name : std::string_view();
}

std::string_view isa_level_short_name(std::string_view level) {
    const IsaLevel* found = find_isa_level(level);
    return found ? found->short_name : std::string_view();
}

std::string_view cpu_microarchitecture(const CpuClassInput& cpu) {
    if (is_arm_cpu(cpu)) {
        for (const ArmPart& part : kArmParts)
            if (part.implementer == cpu.family && part.part == cpu.model_id) return part.name;
        return {};
    }
    if (cpu.vendor == "AuthenticAMD" || cpu.vendor == "HygonGenuine") {
        for (const AmdModels& amd_models : kAmdModels)
            if (amd_models.family == cpu.family && cpu.model_id >= amd_models.first &&
                cpu.model_id <= amd_models.last)
                return amd_models.name;
        return {};
    }
    if (cpu.vendor == "GenuineIntel" && cpu.family == 6)
        for (const IntelCore& model : kIntelFamily6)
            if (model.model == cpu.model_id) return model.name;
    return {};
}

std::string_view cpu_vendor_short_name(const CpuClassInput& cpu) {
    if (is_arm_cpu(cpu)) {
        for (const ArmImplementer& implementer : kArmImplementers)
            if (implementer.code == cpu.family) return implementer.name;
        return "other";
    }
    if (cpu.vendor == "GenuineIntel") return "intel";
    if (cpu.vendor == "AuthenticAMD") return "amd";
    if (cpu.vendor == "HygonGenuine") return "hygon";
    if (cpu.vendor == "CentaurHauls" || cpu.vendor == "  Shanghai  ") return "zhaoxin";
    return "other";
}

std::string cpu_class(const CpuClassInput& cpu) {
    const std::string_view top = top_isa_level(cpu.isa_levels);
    if (top.empty()) return {};
    // The levels name the architecture where the worker's does not agree with them.
    CpuClassInput named = cpu;
    if (isa_level_architecture(top) != (is_arm_cpu(cpu) ? "aarch64" : "x86_64"))
        named.architecture = isa_level_architecture(top);
    std::string_view family = cpu_microarchitecture(named);
    if (family.empty()) family = cpu_vendor_short_name(named);
    return std::string(family) + "-" + std::string(isa_level_short_name(top));
}

}  // namespace sparring
