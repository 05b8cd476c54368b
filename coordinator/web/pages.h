// The dashboard's pages, rendered on the server from the UserService's messages: pure
// functions from messages to HTML, readable without JavaScript (script only draws the
// interactive plots and applies live updates). Every supplied string is escaped.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sparring/v1/user.pb.h"

namespace sparring::coordinator::web {

// What the runs list shows, as the URL's query gives it, so that a view can be shared.
struct RunsQuery {
    std::string state;                 // "", "active", "finished", "stopped" or "paused"
    std::string kind;                  // "" or a kind name ("regression", "tune", ...)
    std::string version;               // "" or the name of the test or base version
    std::string text;                  // "" or text found in the description or a version name
    std::optional<std::string> owner;  // the submitter; "" for runs without one
    std::string tc;                    // "" or a time control ("10+0.1")
    std::string result;                // "" or the start of the result ("H1")
    std::string since;                 // "" or a UTC date, YYYY-MM-DD: created on or after
    std::string until;                 // "" or a UTC date: created on or before
    int page = 1;                      // 1-based
    int per_page = 50;
    std::string error;  // a filter that cannot be read, as the page says it (answered with 400)
};

// Reads a runs query from URL parameters (state, kind, version, q, owner, tc, result, since,
// until, page, per_page); values out of range fall back to the defaults; a date that is not
// YYYY-MM-DD is an error, as it is over REST and in the CLI.
RunsQuery parse_runs_query(const std::multimap<std::string, std::string>& params);
// Returns the query as URL parameters ("?state=active&page=2"), with page replaced.
std::string runs_query_url(const RunsQuery& query, int page);

// Returns the ListRuns request of the page a query shows: its filters, the list's order
// (active runs first, by priority, then the others, newest first) and its page.
v1::ListRunsRequest runs_request(const RunsQuery& query);

// Returns the live numbers of a run page by field name, formatted as the page shows them.
std::map<std::string, std::string> run_fields(const v1::RunStatus& run);
// Returns what a live run page receives on a change: {"fields": run_fields, "llr": [games,
// llr, lower, upper] (SPRT runs), "elo": [games, [low, elo, high]] (once there are games),
// "workers": the workers' table (workers_table; runs of at most 64 workers), "active": bool}.
std::string live_update_json(const v1::RunStatus& run, const v1::LlrHistory* history = nullptr);
// Returns the LLR plot's data as a JSON array of [games, llr, lower, upper] rows.
std::string llr_series_json(const v1::LlrHistory& history);
// Returns the Elo plot's data as a JSON array of [games, [low, elo, high]] rows.
std::string elo_series_json(const v1::LlrHistory& history);
// Returns an SVG drawing of the LLR against games with its bounds, for pages without script.
std::string llr_svg(const v1::LlrHistory& history);

// Returns the page `/`: the page of runs a query selected (runs_request), with filters and
// links to the other pages; for a query with an error, the filters and the error alone.
std::string runs_page(const v1::ListRunsResponse& runs, const RunsQuery& query);
// What a run page shows beyond the run itself, each read only for the runs that have it.
// Who looks at a page through a browser session (/login).
struct Viewer {
    std::string user;  // the session token's name
    bool admin = false;
    std::string csrf;  // the secret the session's forms carry
};

struct RunExtras {
    v1::LlrHistory history;         // every run: the plots' series, its workers and leases
    v1::TuneHistory tune;           // tuning runs
    v1::Version start;              // training runs: the version they start from
    std::optional<Viewer> viewer;   // a logged-in browser: the run's form, if it may change it
    v1::ListFaultsResponse faults;  // its faulty games (run_faults.h)
};

// Returns the login page: a form that posts a token (never in a URL), a note above it, and,
// for a session (user not empty), who is logged in with a logout button.
std::string login_page(std::string_view note, std::string_view user, std::string_view csrf);

// Returns the tuning plot's data: {"names": [...], "raw": [[games, v...]], "share": [[games,
// (v - start) / c...]]}, games being twice the pairs; at most about 500 points, spread evenly.
std::string tune_series_json(const v1::RunStatus& run, const v1::TuneHistory& history);
// Returns the table of each worker's fit in a run (GetRun's, as `sparring show` prints it),
// a quarantined worker marked, and the workers purged from the run.
std::string workers_table(const v1::RunStatus& run);
// Returns the table of a run's leases out.
std::string leases_table(const v1::LlrHistory& history);
// Returns the page of one run, with its history plotted and its kind's section.
std::string run_page(const v1::RunStatus& run, const RunExtras& extras);
// Returns the page `/workers`: every worker, active ones first, with its fit in its run.
std::string workers_page(const v1::ListWorkersResponse& workers);
// Returns the page `/versions`: every version, newest first, with the compare form.
std::string versions_page(const v1::ListVersionsResponse& versions);
// Returns the page of one version: its engine and every parameter.
std::string version_page(const v1::Version& version);
// Returns the parameters of a version by name: a built-in version's resolved parameter set,
// a UCI version's options.
std::map<std::string, std::string> version_parameters(const v1::Version& version);
// Returns the page `/versions/compare`: two versions' parameters side by side, differences
// first and marked.
std::string compare_page(const v1::Version& a, const v1::Version& b);
// Returns a page explaining an error.
std::string error_page(int http_status, std::string_view message);

}  // namespace sparring::coordinator::web
