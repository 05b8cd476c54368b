// `sparring show RUN`: a run as its kind shows it, its changes, or followed live.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/run_display.h"
#include "cli/run_kinds.h"
#include "cli/tune.h"

namespace sparring::cli {

namespace {

// The flags of `sparring show`: --watch, --changes-offset.
struct ShowFlags : SwitchFlags {
    std::optional<int64_t> changes_offset;

    // Declares the flags on app.
    explicit ShowFlags(CLI::App& app)
        : SwitchFlags(app, "watch", "follow the run live until it ends") {
        in_range(add_flag(app, "changes-offset", changes_offset, "N",
                          "print only the run's changes: up to 100 before its newest N"),
                 0, 1'000'000'000);
    }
};

// Runs `show RUN`, or follows it with --watch.
int show(const ShowFlags& args) {
    v1::GetRunRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    RemoteClient client(args.remote);
    if (args.on) {  // --watch
        if (args.json) throw UsageError("--watch does not go with --json");
        watch_run(request.run_id(), client);
        return 0;
    }
    if (args.changes_offset) request.set_changes_offset(uint32_t(*args.changes_offset));
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::GetRun, request, &run);
    if (print_if_json(args.json, run)) return 0;
    if (args.changes_offset)
        print_run_changes(run, request.changes_offset());
    else
        cli_run_kind(run.spec().kind()).show(run, client);
    return 0;
}

}  // namespace

Command show_command() {
    return {"show", "show a run: results, pentanomial counts, Elo, SPRT bounds, tuned values",
            "RUN [--watch]", declare_flags<ShowFlags, show>};
}

}  // namespace sparring::cli
