// `sparring workers`: the coordinator's workers and the speeds they measured.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/run_display.h"
#include "common/dates.h"
#include "proto/worker_controls_text.h"
#include "proto/worker_identity_text.h"

namespace sparring::cli {

namespace {

// The flags of `sparring workers`: --all, --long.
struct WorkersFlags : SwitchFlags {
    bool long_view = false;  // --long

    // Declares the flags on app.
    explicit WorkersFlags(CLI::App& app)
        : SwitchFlags(app, "all", "include workers not seen lately") {
        add_switch(app, "long", long_view,
                   "show each worker's machine whole: CPU, class, instruction-set "
                   "levels, flags, cores, core types, OS, kernel, machine id");
    }
};

// Prints each worker's machine: a table of the essentials, or with --long every part.
void print_machines(const v1::ListWorkersResponse& response, bool whole) {
    if (whole) {
        for (const v1::WorkerStatus& w : response.workers()) {
            std::cout << "\nworker " << w.id() << " " << w.name() << ":\n";
            const auto lines = identity_lines(w.identity(), w.cpu_class());
            if (lines.empty())
                std::cout << "  (no identity reported: a worker of an older release)\n";
            for (const auto& [label, text] : lines)
                std::cout << "  " << label << std::string(12 - label.size(), ' ') << text << "\n";
        }
        return;
    }
    std::vector<std::vector<std::string>> rows = {
        {"WORKER", "CLASS", "CPU", "CORES", "OS", "MACHINE"}};
    for (const v1::WorkerStatus& w : response.workers())
        if (w.has_identity())
            rows.push_back({w.name() + " (" + std::to_string(w.id()) + ")",
                            w.cpu_class().empty() ? "-" : w.cpu_class(),
                            identity_cpu_text(w.identity()), identity_cores_text(w.identity()),
                            w.identity().os().empty() ? "-" : w.identity().os(),
                            w.identity().machine_id().empty() ? "-" : w.identity().machine_id()});
    if (rows.size() > 1) {
        std::cout << "\nmachines (--long for each one's levels, flags and core types):\n";
        print_table(rows);
    }
}

// Runs `workers`.
int workers(const WorkersFlags& args) {
    if (!args.arguments.empty()) throw UsageError("workers takes no arguments");
    RemoteClient client(args.remote);
    v1::ListWorkersRequest request;
    request.set_include_inactive(args.on);  // --all
    v1::ListWorkersResponse response;
    client.call(&v1::UserService::Stub::ListWorkers, request, &response);
    if (print_if_json(args.json, response)) return 0;
    std::vector<std::vector<std::string>> rows = {{"ID", "NAME", "CLASS", "STATE", "CONCURRENCY",
                                                   "CORES", "MEMORY", "RUNS", "GAMES", "LAST SEEN",
                                                   "FIT (RUN)"}};
    for (const v1::WorkerStatus& w : response.workers()) {
        std::string runs;
        for (int64_t id : w.run_ids()) runs += (runs.empty() ? "" : ",") + std::to_string(id);
        rows.push_back(
            {std::to_string(w.id()), w.name(), w.cpu_class().empty() ? "-" : w.cpu_class(),
             w.active() ? "active" : "gone", std::to_string(w.concurrency()),
             std::to_string(w.cores()), std::to_string(w.memory_mb()) + " MiB",
             runs.empty() ? "-" : runs, std::to_string(w.games()), utc(w.last_seen_unix_ms()),
             w.has_fit() ? fit_text(w.fit()) + " (" + std::to_string(w.fit().run_id()) + ")"
                         : "-"});
    }
    print_table(rows);
    print_machines(response, args.long_view);
    // Their speeds with each engine measured for scaled clocks, newest first.
    std::vector<std::vector<std::string>> speeds = {
        {"WORKER", "VERSION", "NPS", "GAMES AT ONCE", "MEASURED"}};
    for (const v1::WorkerStatus& w : response.workers())
        for (const v1::WorkerSpeed& speed : w.speeds())
            speeds.push_back({w.name() + " (" + std::to_string(w.id()) + ")", speed.version(),
                              std::to_string(speed.nps()), std::to_string(speed.games_at_once()),
                              utc(speed.measured_unix_ms())});
    if (speeds.size() > 1) {
        std::cout << "\nspeeds (scaled clocks):\n";
        print_table(speeds);
    }
    // The fleet controls each worker was started with (issue 52).
    std::vector<std::vector<std::string>> controls = {{"WORKER", "CONTROLS"}};
    for (const v1::WorkerStatus& w : response.workers())
        if (const std::string text = worker_controls_text(w.controls()); !text.empty())
            controls.push_back({w.name() + " (" + std::to_string(w.id()) + ")", text});
    if (controls.size() > 1) {
        std::cout << "\nfleet controls:\n";
        print_table(controls);
    }
    // The active runs each connected worker cannot play, and why.
    std::vector<std::vector<std::string>> declined = {{"WORKER", "DECLINES", "WHY"}};
    for (const v1::WorkerStatus& w : response.workers())
        for (const v1::DeclinedRun& d : w.declined())
            declined.push_back({w.name() + " (" + std::to_string(w.id()) + ")",
                                "run " + std::to_string(d.run_id()), d.text()});
    if (declined.size() > 1) {
        std::cout << "\ndeclined runs:\n";
        print_table(declined);
    }
    return 0;
}

}  // namespace

Command workers_command() {
    return {"workers", "list the workers of the coordinator", "",
            declare_flags<WorkersFlags, workers>};
}

}  // namespace sparring::cli
