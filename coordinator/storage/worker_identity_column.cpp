#include "coordinator/storage/worker_identity_column.h"

#include <nlohmann/json.hpp>

#include "coordinator/domain/storage_error.h"
#include "coordinator/storage/json_column.h"

namespace sparring::coordinator {

std::string worker_identity_column(const WorkerIdentity& id) {
    nlohmann::json json = nlohmann::json::object();
    auto text = [&json](const char* key, const std::string& value) {
        if (!value.empty()) json[key] = value;
    };
    auto count = [&json](const char* key, uint32_t value) {
        if (value != 0) json[key] = value;
    };
    text("cpu_vendor", id.cpu_vendor);
    text("cpu_model", id.cpu_model);
    count("cpu_family", id.cpu_family);
    count("cpu_model_id", id.cpu_model_id);
    text("architecture", id.architecture);
    if (!id.isa_levels.empty()) json["isa_levels"] = id.isa_levels;
    if (!id.cpu_flags.empty()) json["cpu_flags"] = id.cpu_flags;
    count("physical_cores", id.physical_cores);
    count("hardware_threads", id.hardware_threads);
    for (const CoreTypeCount& type : id.core_types)
        json["core_types"].push_back(
            {{"name", type.name}, {"cpus", type.cpus}, {"cpu_ids", type.cpu_ids}});
    text("os", id.os);
    text("kernel", id.kernel);
    text("machine_id", id.machine_id);
    return json_column(json);
}

WorkerIdentity read_worker_identity(const std::string& text) {
    const auto json = read_json_column<nlohmann::json>(text, "workers.identity");
    WorkerIdentity id;
    if (!json.is_object()) return id;
    try {
        id.cpu_vendor = json.value("cpu_vendor", std::string());
        id.cpu_model = json.value("cpu_model", std::string());
        id.cpu_family = json.value("cpu_family", 0u);
        id.cpu_model_id = json.value("cpu_model_id", 0u);
        id.architecture = json.value("architecture", std::string());
        id.isa_levels = json.value("isa_levels", std::vector<std::string>());
        id.cpu_flags = json.value("cpu_flags", std::vector<std::string>());
        id.physical_cores = json.value("physical_cores", 0u);
        id.hardware_threads = json.value("hardware_threads", 0u);
        if (json.contains("core_types"))
            for (const nlohmann::json& type : json.at("core_types"))
                id.core_types.push_back({type.value("name", std::string()), type.value("cpus", 0u),
                                         type.value("cpu_ids", std::vector<uint32_t>())});
        id.os = json.value("os", std::string());
        id.kernel = json.value("kernel", std::string());
        id.machine_id = json.value("machine_id", std::string());
    } catch (const nlohmann::json::exception& e) {
        throw StorageError(std::string("malformed JSON in column workers.identity: ") + e.what());
    }
    return id;
}

}  // namespace sparring::coordinator
