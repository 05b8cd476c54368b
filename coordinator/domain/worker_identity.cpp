#include "coordinator/domain/worker_identity.h"

#include <algorithm>

#include "common/cpu_class.h"
#include "common/printable.h"

namespace sparring::coordinator {

namespace {

absl::Status identity_error(const std::string& what) {
    return absl::InvalidArgumentError("the worker's identity: " + what);
}

bool is_identity_word(const std::string& word) {
    if (word.empty() || word.size() > WorkerIdentity::kMaxWord) return false;
    return std::all_of(word.begin(), word.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
    });
}

absl::Status check_identity_text(const char* field, const std::string& text) {
    if (text.size() > WorkerIdentity::kMaxText)
        return identity_error(std::string(field) + " is over " +
                              std::to_string(WorkerIdentity::kMaxText) + " bytes");
    if (!is_valid_utf8(text) || has_control(text))
        return identity_error(std::string(field) +
                              " is not valid UTF-8 or holds a control character");
    return absl::OkStatus();
}

absl::Status check_identity_words(const char* field, const std::vector<std::string>& words,
                                  std::size_t most) {
    if (words.size() > most)
        return identity_error("more than " + std::to_string(most) + " " + field);
    for (const std::string& word : words)
        if (!is_identity_word(word))
            return identity_error(std::string(field) + " must be words of at most " +
                                  std::to_string(WorkerIdentity::kMaxWord) +
                                  " letters, digits, '.', '_' or '-'");
    return absl::OkStatus();
}

}  // namespace

absl::Status check_worker_identity(const WorkerIdentity& id) {
    for (const auto& [field, text] :
         {std::pair<const char*, const std::string&>{"the CPU vendor", id.cpu_vendor},
          {"the CPU model", id.cpu_model},
          {"the OS", id.os},
          {"the kernel", id.kernel}})
        if (absl::Status status = check_identity_text(field, text); !status.ok()) return status;
    if (absl::Status status = check_identity_words("instruction-set levels", id.isa_levels,
                                                   WorkerIdentity::kMaxLevels);
        !status.ok())
        return status;
    if (absl::Status status =
            check_identity_words("CPU flags", id.cpu_flags, WorkerIdentity::kMaxFlags);
        !status.ok())
        return status;
    if (!id.architecture.empty() && !is_identity_word(id.architecture))
        return identity_error("the architecture is not a word such as x86_64");
    if (id.machine_id.size() > WorkerIdentity::kMaxMachineId ||
        !std::all_of(id.machine_id.begin(), id.machine_id.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
        return identity_error("the machine id must be at most 64 lower-case hex digits");
    if (id.physical_cores > WorkerIdentity::kMaxCpus ||
        id.hardware_threads > WorkerIdentity::kMaxCpus)
        return identity_error("cores and hardware threads must be at most 65536");
    if (id.core_types.size() > WorkerIdentity::kMaxCoreTypes)
        return identity_error("more than 8 core types");
    for (const CoreTypeCount& type : id.core_types) {
        if (!is_identity_word(type.name))
            return identity_error("a core type's name must be a word such as performance");
        if (type.cpus > WorkerIdentity::kMaxCpus ||
            type.cpu_ids.size() > WorkerIdentity::kMaxCpus ||
            std::any_of(type.cpu_ids.begin(), type.cpu_ids.end(),
                        [](uint32_t cpu) { return cpu >= WorkerIdentity::kMaxCpus; }))
            return identity_error("a core type's CPUs must be fewer than 65536");
    }
    return absl::OkStatus();
}

WorkerIdentity kept_identity(WorkerIdentity id) {
    std::vector<std::string> levels;
    const std::string_view architecture = isa_level_architecture(top_isa_level(id.isa_levels));
    for (std::string& level : id.isa_levels)
        if (isa_level_architecture(level) == architecture &&
            std::find(levels.begin(), levels.end(), level) == levels.end())
            levels.push_back(std::move(level));
    std::sort(levels.begin(), levels.end(), [](const std::string& a, const std::string& b) {
        return isa_level_rank(a) < isa_level_rank(b);
    });
    id.isa_levels = std::move(levels);
    return id;
}

std::string cpu_class_of(const WorkerIdentity& id) {
    return cpu_class({.vendor = id.cpu_vendor,
                      .architecture = id.architecture,
                      .family = id.cpu_family,
                      .model_id = id.cpu_model_id,
                      .isa_levels = id.isa_levels});
}

}  // namespace sparring::coordinator
