// `sparring purge RUN --worker W`: removes a worker's games from a run.
#include <CLI/CLI.hpp>
#include <iostream>
#include <limits>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/run_display.h"

namespace sparring::cli {

namespace {

// The flags of `sparring purge`.
struct PurgeFlags : CommonFlags {
    std::optional<int64_t> worker;

    // Declares the flags on app.
    explicit PurgeFlags(CLI::App& app) {
        in_range(add_flag(app, "worker", worker, "W",
                          "the worker whose games to remove (see `sparring workers --all`)"),
                 1, std::numeric_limits<int64_t>::max());
        declare_common(app);
    }
};

// Runs `purge RUN --worker W`.
int purge(const PurgeFlags& args) {
    v1::PurgeWorkerRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    if (!args.worker) throw UsageError("--worker is required: the worker to purge");
    request.set_worker_id(*args.worker);
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::PurgeWorker, request, &run);
    if (print_if_json(args.json, run)) return 0;
    for (const v1::Purge& p : run.purges())
        if (p.worker_id() == request.worker_id())
            std::cout << "run " << run.id() << ": " << p.games() << " games of worker "
                      << p.worker_id() << " (" << p.worker_name() << ") purged; the run counts "
                      << run.games() << " games now (" << state_text(run, ", ") << ")\n";
    return 0;
}

}  // namespace

Command purge_command() {
    return {"purge",
            "remove a worker's games from a run's totals and bar it from the run; the "
            "statistics are recomputed and others play the pairs again",
            "RUN --worker W", declare_flags<PurgeFlags, purge>};
}

}  // namespace sparring::cli
