#include "coordinator/rpc/convert_identity.h"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "common/printable.h"

namespace sparring::coordinator {

namespace {

// A string of the wire, cut a byte past most (still over it: refused, not silently cut).
std::string bounded_text(const std::string& text, std::size_t most) {
    return valid_utf8(std::string_view(text).substr(0, most + 1));
}

// At most most + 1 of a list's strings (each cut a byte past the longest word).
template <class List>
std::vector<std::string> bounded_words(const List& words, std::size_t most) {
    std::vector<std::string> out;
    for (const std::string& word : words) {
        if (out.size() > most) break;
        out.push_back(bounded_text(word, WorkerIdentity::kMaxWord));
    }
    return out;
}

}  // namespace

WorkerIdentity worker_identity_from_proto(const v1::WorkerIdentity& in) {
    WorkerIdentity id;
    id.cpu_vendor = bounded_text(in.cpu_vendor(), WorkerIdentity::kMaxText);
    id.cpu_model = bounded_text(in.cpu_model(), WorkerIdentity::kMaxText);
    id.isa_levels = bounded_words(in.isa_levels(), WorkerIdentity::kMaxLevels);
    id.cpu_flags = bounded_words(in.cpu_flags(), WorkerIdentity::kMaxFlags);
    id.physical_cores = in.physical_cores();
    id.hardware_threads = in.hardware_threads();
    for (const v1::CoreType& type : in.core_types()) {
        if (id.core_types.size() > WorkerIdentity::kMaxCoreTypes) break;
        CoreTypeCount& t = id.core_types.emplace_back();
        t.name = bounded_text(type.name(), WorkerIdentity::kMaxWord);
        t.cpus = type.cpus();
        const int ids = std::min(type.cpu_ids_size(), int(WorkerIdentity::kMaxCpus) + 1);
        t.cpu_ids.assign(type.cpu_ids().begin(), type.cpu_ids().begin() + ids);
    }
    id.os = bounded_text(in.os(), WorkerIdentity::kMaxText);
    id.kernel = bounded_text(in.kernel(), WorkerIdentity::kMaxText);
    id.machine_id = bounded_text(in.machine_id(), WorkerIdentity::kMaxMachineId);
    id.cpu_family = in.cpu_family();
    id.cpu_model_id = in.cpu_model_id();
    id.architecture = bounded_text(in.architecture(), WorkerIdentity::kMaxWord);
    return id;
}

void worker_identity_to_proto(const WorkerIdentity& in, v1::WorkerIdentity* out) {
    out->set_cpu_vendor(in.cpu_vendor);
    out->set_cpu_model(in.cpu_model);
    for (const std::string& level : in.isa_levels) out->add_isa_levels(level);
    for (const std::string& flag : in.cpu_flags) out->add_cpu_flags(flag);
    out->set_physical_cores(in.physical_cores);
    out->set_hardware_threads(in.hardware_threads);
    for (const CoreTypeCount& type : in.core_types) {
        v1::CoreType* t = out->add_core_types();
        t->set_name(type.name);
        t->set_cpus(type.cpus);
        for (const uint32_t cpu : type.cpu_ids) t->add_cpu_ids(cpu);
    }
    out->set_os(in.os);
    out->set_kernel(in.kernel);
    out->set_machine_id(in.machine_id);
    out->set_cpu_family(in.cpu_family);
    out->set_cpu_model_id(in.cpu_model_id);
    out->set_architecture(in.architecture);
}

}  // namespace sparring::coordinator
