#include "cli/export_selection.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "cli/run_kinds.h"
#include "common/dates.h"
#include "common/flags.h"
#include "common/time_control.h"

namespace sparring::cli {

namespace {

constexpr std::array<std::string_view, 6> kResults = {"win", "draw",    "loss",
                                                      "1-0", "1/2-1/2", "0-1"};
constexpr std::array<std::string_view, 7> kKinds = {"sprt",     "regression", "fixed", "tune",
                                                    "generate", "train",      "chain"};

// Returns the milliseconds of --since or --until (a date alone as --until: its whole day);
// throws UsageError naming the flag otherwise.
int64_t time_ms(const std::string& text, std::string_view flag) {
    bool date_only = false;
    const std::optional<int64_t> ms = utc_time_ms(text, &date_only);
    if (!ms)
        throw UsageError("--" + std::string(flag) +
                         " takes a UTC time as YYYY-MM-DD, YYYY-MM-DDTHH:MM or "
                         "YYYY-MM-DDTHH:MM:SS, not '" +
                         text + "'");
    return *ms + (flag == "until" && date_only ? int64_t(86'400'000) : 0);
}

}  // namespace

void ExportSelection::declare(CLI::App& app) {
    options = {
        add_flag(app, "version", versions, "NAME",
                 "games where the version played, as test or base (repeats: any of them)"),
        add_flag(app, "tc", tcs, "TC",
                 "games of the runs at this time control, as submitted: nodes=1000, 10+0.1 "
                 "(repeats: any)"),
        add_flag(app, "kind", kinds, "KIND",
                 "games of runs of this kind: sprt (or regression), fixed, tune, generate, "
                 "train, chain (repeats: any)"),
        add_flag(app, "result", results, "R",
                 "games of this result: win, draw, loss (the test version's) or 1-0, 1/2-1/2, "
                 "0-1 (white's first; repeats: any)"),
        add_flag(app, "since", since, "TIME",
                 "games whose batch was leased at or after TIME, UTC: YYYY-MM-DD, "
                 "YYYY-MM-DDTHH:MM or YYYY-MM-DDTHH:MM:SS"),
        add_flag(app, "until", until, "TIME",
                 "games whose batch was leased before TIME, UTC (a date alone: to the end of "
                 "that day)"),
    };
}

bool ExportSelection::any() const {
    return std::any_of(options.begin(), options.end(),
                       [](const CLI::Option* option) { return given(option); });
}

void ExportSelection::read(v1::ExportGamesStreamRequest* out) const {
    for (const std::string& name : versions) {
        if (name.empty()) throw UsageError("--version takes a version's name");
        out->add_versions(name);
    }
    for (const std::string& text : tcs) {
        std::string error;
        if (!parse_time_control(text, &error)) throw UsageError("--tc '" + text + "': " + error);
        out->add_time_controls(text);
    }
    for (const std::string& kind : kinds) {
        if (std::find(kKinds.begin(), kKinds.end(), kind) == kKinds.end())
            throw UsageError(
                "--kind must be sprt (or regression), fixed, tune, generate, train "
                "or chain, not '" +
                kind + "'");
        out->add_kinds(kind);
    }
    for (const std::string& result : results) {
        if (std::find(kResults.begin(), kResults.end(), result) == kResults.end())
            throw UsageError(
                "--result must be win, draw, loss (the test version's) or 1-0, "
                "1/2-1/2, 0-1, not '" +
                result + "'");
        out->add_results(result);
    }
    if (since) out->set_since_unix_ms(time_ms(*since, "since"));
    if (until) out->set_until_unix_ms(time_ms(*until, "until"));
    if (since && until && out->since_unix_ms() >= out->until_unix_ms())
        throw UsageError("--since must be before --until");
}

}  // namespace sparring::cli
