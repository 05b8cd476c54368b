// `sparring modify RUN`: changes a run's priority, throughput, games or description.
#include <CLI/CLI.hpp>
#include <iostream>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/fault_display.h"
#include "cli/run_display.h"
#include "common/run_limits.h"

namespace sparring::cli {

namespace {

// The flags of `sparring modify`.
struct ModifyFlags : CommonFlags {
    std::optional<int64_t> priority, throughput, games;
    std::optional<std::string> description, test, base, tc, book, fault_bound;

    // Declares the flags on app.
    explicit ModifyFlags(CLI::App& app) {
        in_range(add_flag(app, "priority", priority, "P",
                          "higher priorities are served first (a user: -1000..100; an admin: "
                          "up to 1000)"),
                 kMinPriority, kMaxPriority);
        in_range(add_flag(app, "throughput", throughput, "T",
                          "share of the workers among equal priorities, percent (1..10000)"),
                 kMinThroughput, kMaxThroughput);
        in_range(add_flag(app, "games", games, "N",
                          "games (regression: the maximum); not below those played or leased"),
                 2, kMaxGames);
        add_flag(app, "description", description, "TEXT",
                 "free text (also of a run that has ended)");
        add_flag(app, "fault-bound", fault_bound, "BOUND",
                 "pause past PERCENT% faulty games once MIN_GAMES are counted: "
                 "PERCENT%[/MIN_GAMES] (e.g. 25%/40) or off");
        add_flag(app, "test", test, "VERSION", "cannot change: refused, submit --like RUN instead");
        add_flag(app, "base", base, "VERSION", "cannot change: refused, submit --like RUN instead");
        add_flag(app, "tc", tc, "TC", "cannot change: refused, submit --like RUN instead");
        add_flag(app, "book", book, "FILE", "cannot change: refused, submit --like RUN instead");
        declare_common(app);
    }
};

// Runs `modify RUN --priority P --throughput T --games N --description D`.
int modify(const ModifyFlags& args) {
    v1::ModifyRunRequest request;
    request.set_run_id(run_id_argument(args.arguments));
    if (args.priority) request.set_priority(int32_t(*args.priority));
    if (args.throughput) request.set_throughput(uint32_t(*args.throughput));
    if (args.games) request.set_games(uint64_t(*args.games));
    if (args.description) request.set_description(*args.description);
    if (args.fault_bound)
        fault_bound_to_proto(parse_fault_bound_flag(*args.fault_bound),
                             request.mutable_fault_bound());
    // What cannot change goes to the coordinator all the same, which says why and what to do.
    if (args.test) request.set_test_version(*args.test);
    if (args.base) request.set_base_version(*args.base);
    if (args.tc) request.mutable_time_control();
    if (args.book) request.mutable_book()->set_source(*args.book);
    if (!request.has_priority() && !request.has_throughput() && !request.has_games() &&
        !request.has_description() && !request.has_fault_bound() && !args.test && !args.base &&
        !args.tc && !args.book)
        throw UsageError(
            "nothing to change: give --priority, --throughput, --games, --description or "
            "--fault-bound");
    RemoteClient client(args.remote);
    v1::RunStatus run;
    client.call(&v1::UserService::Stub::ModifyRun, request, &run);
    if (print_if_json(args.json, run)) return 0;
    std::cout << "run " << run.id() << ": priority " << run.spec().priority() << ", throughput "
              << run.spec().throughput() << "%, games " << run.games() << "/" << run.spec().games()
              << " (" << state_text(run, ", ") << ")\n";
    return 0;
}

}  // namespace

Command modify_command() {
    return {"modify",
            "change a run after submit (yours; an admin token: anybody's); the run's history "
            "shows who changed what",
            "RUN [--priority P] [--throughput T] [--games N] [--description TEXT] "
            "[--fault-bound PERCENT%[/MIN_GAMES]|off]",
            declare_flags<ModifyFlags, modify>};
}

}  // namespace sparring::cli
