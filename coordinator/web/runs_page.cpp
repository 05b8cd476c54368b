// The runs list `/`: its query, its filters and its rows.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/dates.h"
#include "common/json_text.h"
#include "common/opening.h"
#include "common/printable.h"
#include "coordinator/web/html.h"
#include "coordinator/web/page_parts.h"
#include "coordinator/web/pages.h"
#include "coordinator/web/run_waiting.h"
#include "match/adjudication.h"
#include "proto/forecast_text.h"

namespace sparring::coordinator::web {

namespace {

constexpr int kMaxPerPage = 500;

// Returns the row of the runs list for one run.
std::string run_row(const v1::RunStatus& run) {
    const std::string link = "/runs/" + std::to_string(run.id());
    std::string out = "<tr class=\"" + outcome_class(run) + "\">";
    out += "<td><a href=\"" + link + "\">" + std::to_string(run.id()) + "</a></td>";
    out += "<td>" + escape_html(kind_name(run.spec().kind())) + "</td>";
    out += "<td><a href=\"" + link + "\">" + escape_html(run.spec().test_version()) +
           "</a> <span class=\"vs\">vs</span> " + escape_html(run.spec().base_version());
    if (!run.spec().description().empty())
        out += "<div class=\"desc\">" + escape_html(run.spec().description()) + "</div>";
    // A warning's first sentence; the run's page and its title give the whole.
    for (const std::string& warning : run.warnings())
        out += "<div class=\"desc warn\" title=\"" + escape_html(warning) +
               "\">Warning: " + escape_html(first_sentence(warning)) + "</div>";
    if (run.follows_run_id() > 0)
        out += "<div class=\"desc\">stage 2 of <a href=\"/runs/" +
               std::to_string(run.follows_run_id()) + "\">run " +
               std::to_string(run.follows_run_id()) + "</a></div>";
    out += "</td>";
    out += "<td>" + escape_html(time_control_text(run.spec().time_control())) + "</td>";
    out += "<td>" + escape_html(run.spec().owner()) + "</td>";
    out += "<td class=\"num\">" + grouped(run.games());
    if (run.spec().games() > 0) out += " / " + grouped(run.spec().games());
    out += "</td>";
    out += "<td class=\"num\">" + signed_fixed(run.elo(), 1) + " ± " +
           fixed((run.elo_high() - run.elo_low()) / 2, 1) + " " + elo_bar(run) + "</td>";
    out += "<td class=\"num\">";
    if (has_sprt(run)) out += fixed(run.llr(), 2) + " " + llr_bar(run);
    out += "</td>";
    out += "<td><span class=\"badge " + outcome_class(run) + "\">" + escape_html(shown_state(run)) +
           "</span>";
    if (run_waits(run))  // its first reason; the run's page gives them all
        out += "<div class=\"desc waiting\">" + escape_html(run.waiting(0).line()) + "</div>";
    if (run.state() == v1::RUN_STATE_PAUSED)
        out += "<div class=\"desc warn\">" + escape_html(run.result()) + "</div>";
    // A test of two stages on one line: the first run's result, then its follow-up.
    if (run.follow_up_run_id() > 0)
        out += " → <a href=\"/runs/" + std::to_string(run.follow_up_run_id()) + "\">run " +
               std::to_string(run.follow_up_run_id()) + "</a>";
    out += "</td>";
    // When it ends at its throughput, and what its SPRT will likely decide.
    out += "<td class=\"num eta\">" + escape_html(eta_text(run));
    if (run.has_forecast() && !run.forecast().stop_accepts().empty())
        out += "<div class=\"desc\">H1 " + fixed(100 * run.forecast().p_h1(), 0) + "%</div>";
    out += "</td></tr>";
    return out;
}

// Returns an option of a filter's select element, selected when it is the current value.
std::string option(std::string_view value, std::string_view label, std::string_view current) {
    return "<option value=\"" + escape_html(value) + "\"" + (value == current ? " selected" : "") +
           ">" + escape_html(label) + "</option>";
}

// Returns the filter form of the runs list; a plain GET form, so it works without script.
std::string filter_form(const RunsQuery& query) {
    std::string out = "<form class=\"filters\" method=\"get\" action=\"/\">";
    out += "<label>State <select name=\"state\">";
    for (const char* s : {"", "active", "finished", "stopped", "paused"})
        out += option(s, *s ? s : "any", query.state);
    out += "</select></label><label>Kind <select name=\"kind\">";
    out += option("", "any", query.kind);
    for (int k = v1::RunKind_MIN; k <= v1::RunKind_MAX; ++k) {
        if (!v1::RunKind_IsValid(k) || k == v1::RUN_KIND_UNSPECIFIED) continue;
        const std::string name = kind_name(v1::RunKind(k));
        out += option(name, name, query.kind);
    }
    out += "</select></label><label>Version <input name=\"version\" value=\"" +
           escape_html(query.version) + "\"></label>";
    out += "<label>Text <input name=\"q\" value=\"" + escape_html(query.text) + "\"></label>";
    // A value is never an input's last attribute: `value=""><` would read as a break-out.
    out += "<label>Owner <input name=\"owner\" value=\"" + escape_html(query.owner.value_or("")) +
           "\" size=\"10\"></label>";
    out += "<label>TC <input name=\"tc\" value=\"" + escape_html(query.tc) +
           "\" size=\"8\" placeholder=\"10+0.1\"></label>";
    out += "<label>Result <select name=\"result\">";
    for (const char* r : {"", "H1", "H0", "stopped"})
        out += option(r, *r ? r : "any", query.result);
    out += "</select></label>";
    out += "<label>From <input type=\"date\" name=\"since\" value=\"" + escape_html(query.since) +
           "\" max=\"9999-12-31\"></label>";
    out += "<label>To <input type=\"date\" name=\"until\" value=\"" + escape_html(query.until) +
           "\" max=\"9999-12-31\"></label>";
    out += "<button type=\"submit\">Filter</button></form>";
    return out;
}

}  // namespace

RunsQuery parse_runs_query(const std::multimap<std::string, std::string>& params) {
    RunsQuery query;
    const auto get = [&params](const std::string& name) {
        const auto it = params.find(name);
        return it == params.end() ? std::string() : it->second;
    };
    query.state = get("state");
    if (query.state != "active" && query.state != "finished" && query.state != "stopped" &&
        query.state != "paused")
        query.state.clear();
    query.kind = get("kind");
    query.version = get("version");
    query.text = get("q");
    if (const auto it = params.find("owner"); it != params.end() && !it->second.empty())
        query.owner = it->second;
    query.tc = get("tc");
    query.result = get("result");
    const auto date = [&get, &query](const std::string& name) {
        const std::string text = get(name);
        if (!text.empty() && !utc_day_ms(text) && query.error.empty())
            query.error =
                name + " takes a date as YYYY-MM-DD (UTC), not '" + printable(text, 64) + "'";
        return text;
    };
    query.since = date("since");
    query.until = date("until");
    const auto number = [&get](const std::string& name, int fallback, int max) {
        const std::string text = get(name);
        if (text.empty() || text.size() > 9 ||
            !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
            return fallback;
        const int value = std::stoi(text);
        return value >= 1 && value <= max ? value : fallback;
    };
    query.page = number("page", 1, 1'000'000);
    query.per_page = number("per_page", 50, kMaxPerPage);
    return query;
}

std::string runs_query_url(const RunsQuery& query, int page) {
    std::string out;
    const auto add = [&out](std::string_view name, std::string_view value) {
        if (value.empty()) return;
        out += out.empty() ? "?" : "&";
        out += std::string(name) + "=" + escape_url(value);
    };
    add("state", query.state);
    add("kind", query.kind);
    add("version", query.version);
    add("q", query.text);
    add("owner", query.owner.value_or(""));
    add("tc", query.tc);
    add("result", query.result);
    add("since", query.since);
    add("until", query.until);
    if (query.per_page != 50) add("per_page", std::to_string(query.per_page));
    if (page != 1) add("page", std::to_string(page));
    return out.empty() ? "?" : out;
}

v1::ListRunsRequest runs_request(const RunsQuery& query) {
    v1::ListRunsRequest request;
    if (!query.state.empty()) {
        v1::RunState state{};
        std::string name = "RUN_STATE_" + query.state;
        std::transform(name.begin(), name.end(), name.begin(), ::toupper);
        if (v1::RunState_Parse(name, &state)) request.add_states(state);
    }
    if (!query.kind.empty()) {
        v1::RunKind kind{};
        std::string name = "RUN_KIND_" + query.kind;
        std::transform(name.begin(), name.end(), name.begin(), ::toupper);
        // An unknown kind is refused by the API rather than taken for any kind.
        request.set_kind(v1::RunKind_Parse(name, &kind) ? kind : v1::RunKind(-1));
    }
    request.set_version(query.version);
    request.set_text(query.text);
    if (query.owner) request.set_owner(*query.owner);
    request.set_time_control(query.tc);
    request.set_result(query.result);
    if (const std::optional<int64_t> since = utc_day_ms(query.since))
        request.set_created_from_unix_ms(*since);
    // The whole day the date names.
    if (const std::optional<int64_t> until = utc_day_ms(query.until))
        request.set_created_until_unix_ms(*until + 86'400'000);
    request.set_active_first(true);
    request.set_offset(uint32_t(query.page - 1) * uint32_t(query.per_page));
    request.set_limit(uint32_t(query.per_page));
    return request;
}

std::string runs_page(const v1::ListRunsResponse& runs, const RunsQuery& query) {
    const uint64_t matching = runs.total();
    std::string body = "<h1>Runs</h1>" + filter_form(query);
    if (!query.error.empty())
        return layout("Runs", body + "<p class=\"error\">" + escape_html(query.error) + "</p>",
                      false);
    body +=
        "<table class=\"grid runs\"><thead><tr><th>id</th><th>kind</th><th>test vs base</th>"
        "<th>tc</th><th>owner</th><th>games</th><th>Elo ± 95%</th><th>LLR</th><th>state</th>"
        "<th>ETA</th></tr>"
        "</thead><tbody>";
    for (const v1::RunStatus& run : runs.runs()) body += run_row(run);
    if (runs.runs().empty()) body += "<tr><td colspan=\"10\">No runs match.</td></tr>";
    body += "</tbody></table>";
    const uint64_t pages = (matching + uint64_t(query.per_page) - 1) / uint64_t(query.per_page);
    body += "<p class=\"paging\">" + std::to_string(matching) + (matching == 1 ? " run" : " runs");
    if (query.page > 1)
        body += " · <a rel=\"prev\" href=\"/" + escape_html(runs_query_url(query, query.page - 1)) +
                "\">newer</a>";
    if (uint64_t(query.page) < pages)
        body += " · <a rel=\"next\" href=\"/" + escape_html(runs_query_url(query, query.page + 1)) +
                "\">older</a>";
    if (pages > 1) body += " · page " + std::to_string(query.page) + " of " + std::to_string(pages);
    body += "</p>";
    return layout("Runs", body, false);
}

}  // namespace sparring::coordinator::web
