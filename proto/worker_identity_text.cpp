#include "proto/worker_identity_text.h"

#include <sstream>

namespace sparring {

namespace {

template <class List>
std::string joined(const List& words, const char* separator) {
    std::string out;
    for (const std::string& word : words) out += (out.empty() ? "" : separator) + word;
    return out;
}

}  // namespace

std::string identity_cpu_text(const v1::WorkerIdentity& identity) {
    return !identity.cpu_model().empty() ? identity.cpu_model() : identity.cpu_vendor();
}

std::string identity_cores_text(const v1::WorkerIdentity& identity) {
    if (identity.physical_cores() == 0 && identity.hardware_threads() == 0) return "-";
    return std::to_string(identity.physical_cores()) +
           (identity.physical_cores() == 1 ? " core, " : " cores, ") +
           std::to_string(identity.hardware_threads()) +
           (identity.hardware_threads() == 1 ? " thread" : " threads");
}

std::string cpu_ranges_text(const std::vector<uint32_t>& cpus) {
    std::string out;
    for (size_t i = 0; i < cpus.size();) {
        size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (j > i) out += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> identity_lines(const v1::WorkerIdentity& identity,
                                                                const std::string& cpu_class) {
    std::vector<std::pair<std::string, std::string>> lines;
    auto add = [&lines](const char* label, const std::string& text) {
        if (!text.empty()) lines.emplace_back(label, text);
    };
    std::string cpu = identity_cpu_text(identity);
    if (!identity.cpu_vendor().empty() && identity.cpu_vendor() != cpu) {
        std::ostringstream numbers;
        numbers << identity.cpu_vendor();
        if (identity.architecture() == "aarch64")
            numbers << std::hex << ", implementer 0x" << identity.cpu_family() << " part 0x"
                    << identity.cpu_model_id();
        else if (identity.cpu_family() != 0)
            numbers << ", family " << identity.cpu_family() << " model " << identity.cpu_model_id();
        cpu += " (" + numbers.str() + ")";
    }
    add("cpu", cpu);
    add("class", cpu_class);
    add("isa levels", joined(identity.isa_levels(), " "));
    add("flags", joined(identity.cpu_flags(), " "));
    if (identity.physical_cores() || identity.hardware_threads())
        add("cores", identity_cores_text(identity));
    std::string types;
    for (const v1::CoreType& type : identity.core_types()) {
        const std::vector<uint32_t> ids(type.cpu_ids().begin(), type.cpu_ids().end());
        types += (types.empty() ? "" : ", ") + type.name() + " " + std::to_string(type.cpus()) +
                 (ids.empty() ? "" : " (" + cpu_ranges_text(ids) + ")");
    }
    add("core types", types);
    add("os", identity.os());
    add("kernel", identity.kernel() + (identity.architecture().empty() || identity.kernel().empty()
                                           ? ""
                                           : " " + identity.architecture()));
    add("machine id", identity.machine_id());
    return lines;
}

}  // namespace sparring
