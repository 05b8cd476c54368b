// `sparring runs`: a table of the coordinator's runs, newest first, filtered and paged.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <limits>

#include "cli/client.h"
#include "cli/commands.h"
#include "cli/run_display.h"
#include "cli/run_kinds.h"
#include "cli/waiting_display.h"
#include "common/dates.h"
#include "common/opening.h"
#include "common/printable.h"
#include "proto/forecast_text.h"

namespace sparring::cli {

namespace {

// The flags of `sparring runs`.
struct RunsFlags : CommonFlags {
    bool active = false;
    bool paused = false;
    std::optional<std::string> owner, tc, result, since, until;
    int64_t limit = 0;
    int64_t offset = 0;

    // Declares the flags on app.
    explicit RunsFlags(CLI::App& app) {
        add_switch(app, "active", active, "only active runs");
        add_switch(app, "paused", paused,
                   "only runs paused for faults (with --active: active and paused runs)");
        add_flag(app, "owner", owner, "USER",
                 "only runs this user submitted (the name of their token)");
        add_flag(app, "tc", tc, "TC", "only runs at this time control (10+0.1, nodes=1000)");
        add_flag(app, "result", result, "TEXT",
                 "only runs whose result starts with TEXT (H1, H0, stopped)");
        add_flag(app, "since", since, "DATE",
                 "only runs created on or after DATE (YYYY-MM-DD, UTC)");
        add_flag(app, "until", until, "DATE",
                 "only runs created on or before DATE (YYYY-MM-DD, UTC)");
        add_flag(app, "limit", limit, "N", "at most N runs (the coordinator sends 500 at most)",
                 "50");
        add_flag(app, "offset", offset, "N", "skip the newest N runs first (paging)", "0", 0,
                 std::numeric_limits<int32_t>::max());
        declare_common(app);
    }
};

// Returns a run's result with its stages: "H1 accepted -> run 7" for a run whose follow-up
// started, "run 3 -> H0 accepted" for the follow-up itself.
std::string stages(const v1::RunStatus& r) {
    std::string text = r.result();
    if (r.follows_run_id() > 0)
        text =
            "run " + std::to_string(r.follows_run_id()) + " -> " + (text.empty() ? "active" : text);
    if (r.follow_up_run_id() > 0) text += " -> run " + std::to_string(r.follow_up_run_id());
    return text;
}

// Returns the milliseconds since the Unix epoch of the UTC date a flag gives, plus days; throws
// UsageError naming the flag for anything but YYYY-MM-DD.
int64_t date_ms(const std::string& text, const char* flag, int days) {
    const std::optional<int64_t> ms = utc_day_ms(text);
    if (!ms)
        throw UsageError("--" + std::string(flag) + " takes a date as YYYY-MM-DD (UTC), not '" +
                         text + "'");
    return *ms + int64_t(days) * 86'400'000;
}
// Runs `runs`: a table of runs, newest first.

int runs(const RunsFlags& args) {
    if (!args.arguments.empty()) throw UsageError("runs takes no arguments");
    v1::ListRunsRequest request;
    if (args.active) request.add_states(v1::RUN_STATE_ACTIVE);
    if (args.paused) request.add_states(v1::RUN_STATE_PAUSED);
    request.set_limit(uint32_t(std::clamp<int64_t>(args.limit, 1, 100000)));
    request.set_offset(uint32_t(args.offset));
    if (args.owner) request.set_owner(*args.owner);
    if (args.tc) request.set_time_control(*args.tc);
    if (args.result) request.set_result(*args.result);
    if (args.since) request.set_created_from_unix_ms(date_ms(*args.since, "since", 0));
    // The whole day the flag names.
    if (args.until) request.set_created_until_unix_ms(date_ms(*args.until, "until", 1));
    RemoteClient client(args.remote);
    v1::ListRunsResponse response;
    client.call(&v1::UserService::Stub::ListRuns, request, &response);
    if (print_if_json(args.json, response)) return 0;
    std::vector<std::vector<std::string>> rows = {{"ID", "STATE", "KIND", "TEST", "BASE", "TC",
                                                   "GAMES", "ELO", "LLR", "ETA", "OWNER",
                                                   "RESULT"}};
    for (const v1::RunStatus& r : response.runs()) {
        const CliRunKind& kind = cli_run_kind(r.spec().kind());
        RunsCells cells = kind.runs_cells(r);
        rows.push_back({std::to_string(r.id()), listed_state(r), std::string(kind.name),
                        r.spec().test_version(), r.spec().base_version(),
                        std::move(cells.time_control),
                        std::to_string(r.games()) + "/" + std::to_string(r.spec().games()),
                        std::move(cells.elo), std::move(cells.llr), eta_text(r),
                        r.spec().owner().empty() ? "-" : r.spec().owner(), stages(r)});
    }
    print_table(rows);
    const uint64_t shown = uint64_t(args.offset) + uint64_t(response.runs_size());
    if (response.total() > shown && response.runs_size() > 0)
        std::cout << "runs " << args.offset + 1 << "-" << shown << " of " << response.total()
                  << "; next page: sparring runs --offset " << shown
                  << " (with the same filters)\n";
    // A warning's first sentence under the table; `sparring show RUN` prints the whole.
    for (const v1::RunStatus& r : response.runs())
        for (const std::string& warning : r.warnings())
            std::cout << "warning: run " << r.id() << ": " << first_sentence(warning)
                      << " (sparring show " << r.id() << ")\n";
    // Why a waiting run waits: its first reason (`sparring show RUN` prints them all).
    for (const v1::RunStatus& r : response.runs())
        if (is_waiting(r))
            std::cout << "waiting: run " << r.id() << ": " << r.waiting(0).line() << "\n";
    return 0;
}

}  // namespace

Command runs_command() {
    return {"runs", "list the coordinator's runs: state, versions, games, Elo, LLR", "",
            declare_flags<RunsFlags, runs>};
}

}  // namespace sparring::cli
