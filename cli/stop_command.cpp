// `sparring stop RUN`: stops an active run.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"

namespace sparring::cli {

namespace {

// The flags of `sparring stop`.
struct StopFlags : CommonFlags {
    // Declares the flags on app.
    explicit StopFlags(CLI::App& app) { declare_common(app); }
};

// Runs `stop RUN`.
int stop(const StopFlags& args) {
    v1::StopRunRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::StopRun, request, &run);
    if (!print_if_json(args.json, run))
        std::cout << "run " << run.id() << " stopped after " << run.games() << " games\n";
    return 0;
}

}  // namespace

Command stop_command() {
    return {"stop", "stop an active run (yours; an admin token: anybody's); its workers stop",
            "RUN", declare_flags<StopFlags, stop>};
}

}  // namespace sparring::cli
