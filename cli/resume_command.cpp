// `sparring resume RUN`: makes a run the coordinator paused for faults active again.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/fault_display.h"
#include "cli/run_display.h"

namespace sparring::cli {

namespace {

// The flags of `sparring resume`.
struct ResumeFlags : CommonFlags {
    std::optional<std::string> fault_bound;

    // Declares the flags on app.
    explicit ResumeFlags(CLI::App& app) {
        add_flag(app, "fault-bound", fault_bound, "BOUND",
                 "a new fault bound: PERCENT%[/MIN_GAMES] (pause past PERCENT% faulty games "
                 "once MIN_GAMES are counted, e.g. 25%/40) or off");
        declare_common(app);
    }
};

// Runs `resume RUN [--fault-bound BOUND]`.
int resume(const ResumeFlags& args) {
    v1::ResumeRunRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    if (args.fault_bound)
        fault_bound_to_proto(parse_fault_bound_flag(*args.fault_bound),
                             request.mutable_fault_bound());
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::ResumeRun, request, &run);
    if (print_if_json(args.json, run)) return 0;
    std::cout << "run " << run.id() << " resumed (" << state_text(run, ", ") << "); fault bound "
              << bound_text(run.spec().fault_bound()) << ", its faulty games counted afresh from "
              << run.games() << " games\n";
    return 0;
}

}  // namespace

Command resume_command() {
    return {"resume",
            "make a run paused for faults active again (yours; an admin token: anybody's), "
            "after a fix or with its fault bound raised",
            "RUN [--fault-bound PERCENT%[/MIN_GAMES]|off]", declare_flags<ResumeFlags, resume>};
}

}  // namespace sparring::cli
