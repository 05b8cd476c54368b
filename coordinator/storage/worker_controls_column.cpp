#include "coordinator/storage/worker_controls_column.h"

#include <nlohmann/json.hpp>

#include "coordinator/domain/storage_error.h"
#include "coordinator/storage/json_column.h"

namespace sparring::coordinator {

std::string worker_controls_column(const WorkerControls& c) {
    nlohmann::json json = nlohmann::json::object();
    if (c.only_fixed_nodes) json["only_fixed_nodes"] = true;
    if (!c.prefer_owner.empty()) json["prefer_owner"] = c.prefer_owner;
    if (c.min_threads > 0) json["min_threads"] = c.min_threads;
    if (c.max_threads > 0) json["max_threads"] = c.max_threads;
    if (!c.cpu_affinity.empty()) json["cpu_affinity"] = c.cpu_affinity;
    if (c.exit_when_idle_seconds > 0) json["exit_when_idle_seconds"] = c.exit_when_idle_seconds;
    return json_column(json);
}

WorkerControls read_worker_controls(const std::string& text) {
    const auto json = read_json_column<nlohmann::json>(text, "workers.controls");
    WorkerControls c;
    if (!json.is_object()) return c;
    try {
        c.only_fixed_nodes = json.value("only_fixed_nodes", false);
        c.prefer_owner = json.value("prefer_owner", std::string());
        c.min_threads = json.value("min_threads", 0);
        c.max_threads = json.value("max_threads", 0);
        c.cpu_affinity = json.value("cpu_affinity", std::string());
        c.exit_when_idle_seconds = json.value("exit_when_idle_seconds", 0);
    } catch (const nlohmann::json::exception& e) {
        throw StorageError(std::string("malformed JSON in column workers.controls: ") + e.what());
    }
    return c;
}

}  // namespace sparring::coordinator
