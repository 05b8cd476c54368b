#include "coordinator/web/pages.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/dates.h"
#include "common/json_text.h"
#include "coordinator/web/html.h"
#include "match/adjudication.h"

namespace sparring::coordinator::web {

namespace {

constexpr int kMaxPerPage = 500;
constexpr size_t kMaxTunePoints = 500;
constexpr int kMaxLiveWorkers = 64;  // workers whose table live updates carry, at most

// Returns the whole document around a page's body.
std::string layout(std::string_view title, std::string_view body, bool scripts) {
    std::string out =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        "<title>";
    out += escape_html(title);
    out +=
        " · Sparring</title><link rel=\"stylesheet\" href=\"/static/dygraph.min.css\">"
        "<link rel=\"stylesheet\" href=\"/static/dashboard.css\">"
        "</head><body><header><a class=\"brand\" href=\"/\">Sparring</a><nav>"
        "<a href=\"/\">Runs</a><a href=\"/workers\">Workers</a><a href=\"/versions\">Versions</a>"
        "</nav></header><main>";
    out += body;
    out += "</main>";
    if (scripts)
        out +=
            "<script src=\"/static/dygraph.min.js\"></script>"
            "<script src=\"/static/dashboard.js\"></script>";
    out += "</body></html>\n";
    return out;
}

// Returns the CSS class of a run's state and result: active, h1, h0 or neutral.
std::string outcome_class(const v1::RunStatus& run) {
    if (run.state() == v1::RUN_STATE_ACTIVE) return "active";
    if (run.result().rfind("H1", 0) == 0) return "h1";
    if (run.result().rfind("H0", 0) == 0) return "h0";
    return "neutral";
}

// Returns whether the run has an SPRT whose LLR means something.
bool has_sprt(const v1::RunStatus& run) {
    return run.llr_upper() > run.llr_lower();
}

// Returns a small SVG error bar of an Elo interval on a fixed scale of +-25 Elo.
std::string elo_bar(const v1::RunStatus& run) {
    const auto x = [](double elo) { return fixed(std::clamp(50 + 2 * elo, 0.0, 100.0), 1); };
    std::string out = "<svg class=\"elobar\" width=\"100\" height=\"12\" viewBox=\"0 0 100 12\">";
    out += "<line x1=\"50\" y1=\"0\" x2=\"50\" y2=\"12\" class=\"zero\"/>";
    out += "<line x1=\"" + x(run.elo_low()) + "\" y1=\"6\" x2=\"" + x(run.elo_high()) +
           "\" y2=\"6\" class=\"ci\"/>";
    out += "<circle cx=\"" + x(run.elo()) + "\" cy=\"6\" r=\"2.5\" class=\"mid\"/></svg>";
    return out;
}

// Returns the LLR as a bar between its bounds, the position marked.
std::string llr_bar(const v1::RunStatus& run) {
    const double share =
        std::clamp((run.llr() - run.llr_lower()) / (run.llr_upper() - run.llr_lower()), 0.0, 1.0);
    return "<span class=\"llrbar\" title=\"LLR " + fixed(run.llr(), 2) + " in [" +
           fixed(run.llr_lower(), 2) + ", " + fixed(run.llr_upper(), 2) +
           "]\"><span class=\"llrmark\" style=\"left:" + fixed(100 * share, 1) +
           "%\"></span></span>";
}

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
    out += "<td><span class=\"badge " + outcome_class(run) + "\">" +
           escape_html(run.result().empty() ? state_name(run.state()) : run.result()) + "</span>";
    // A test of two stages on one line: the first run's result, then its follow-up.
    if (run.follow_up_run_id() > 0)
        out += " → <a href=\"/runs/" + std::to_string(run.follow_up_run_id()) + "\">run " +
               std::to_string(run.follow_up_run_id()) + "</a>";
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
    for (const char* s : {"", "active", "finished", "stopped"})
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

// Returns a table row of a label and a value that is already HTML.
std::string row(std::string_view label, std::string_view html) {
    return "<tr><th>" + escape_html(label) + "</th><td>" + std::string(html) + "</td></tr>";
}

// Returns a value marked for live updates, with its current text.
std::string live(const std::map<std::string, std::string>& fields, const std::string& name) {
    const auto it = fields.find(name);
    return "<span data-field=\"" + name + "\">" +
           escape_html(it == fields.end() ? "" : it->second) + "</span>";
}

// Returns a live value given its text directly.
std::string live_text(const std::string& name, const std::string& text) {
    return "<span data-field=\"" + name + "\">" + escape_html(text) + "</span>";
}

// Returns the table of the run's specification.
std::string spec_table(const v1::RunStatus& run) {
    const v1::RunSpec& spec = run.spec();
    std::string out = "<table class=\"kv\">";
    out += row("kind", escape_html(kind_name(spec.kind())));
    out += row("test version", "<a href=\"/versions/" + escape_url(spec.test_version()) + "\">" +
                                   escape_html(spec.test_version()) + "</a>");
    out += row("base version", "<a href=\"/versions/" + escape_url(spec.base_version()) + "\">" +
                                   escape_html(spec.base_version()) + "</a>");
    out += row("time control", escape_html(time_control_text(spec.time_control())));
    out += row("games", grouped(spec.games()));
    if (spec.has_sprt() && has_sprt(run)) {
        const v1::Sprt& s = spec.sprt();
        const std::string model = s.model() == v1::SPRT_MODEL_LOGISTIC ? "logistic" : "normalized";
        out += row("SPRT", "[" + fixed(s.elo0(), 2) + ", " + fixed(s.elo1(), 2) + "] " + model +
                               " Elo, α " + fixed(s.alpha(), 3) + ", β " + fixed(s.beta(), 3));
    }
    out +=
        row("book", escape_html(spec.book().source().empty() ? "default" : spec.book().source()) +
                        " (" + grouped(run.book_size()) + " openings" +
                        (spec.book().random_order()
                             ? ", random order, seed " + std::to_string(spec.book().seed())
                             : "") +
                        ")");
    if (spec.has_adjudication())
        out += row("adjudication", escape_html(match::adjudication_summary(
                                       spec.adjudication().draw(), spec.adjudication().resign(),
                                       int(spec.adjudication().max_plies()))));
    if (spec.origin_run_id() != 0)
        out += row("like", "<a href=\"/runs/" + std::to_string(spec.origin_run_id()) + "\">run " +
                               std::to_string(spec.origin_run_id()) + "</a>");
    if (spec.has_follow_up()) {
        const v1::FollowUp& f = spec.follow_up();
        std::string text = "on " + (f.on_result().empty() ? std::string("H1") : f.on_result()) +
                           ": " + time_control_text(f.time_control());
        if (f.has_sprt())
            text += ", SPRT [" + fixed(f.sprt().elo0(), 2) + ", " + fixed(f.sprt().elo1(), 2) + "]";
        if (f.games() > 0) text += ", " + std::to_string(f.games()) + " games";
        out += row("follow-up",
                   escape_html(text) +
                       (run.follow_up_run_id() > 0
                            ? " — <a href=\"/runs/" + std::to_string(run.follow_up_run_id()) +
                                  "\">run " + std::to_string(run.follow_up_run_id()) + "</a>"
                            : std::string(" — not started")));
    }
    if (run.follows_run_id() > 0)
        out += row("follows", "<a href=\"/runs/" + std::to_string(run.follows_run_id()) +
                                  "\">run " + std::to_string(run.follows_run_id()) +
                                  "</a> (this run is its follow-up)");
    if (spec.threads() > 1)
        out += row("threads", std::to_string(spec.threads()) +
                                  " per UCI engine (a game holds as many cores; the built-in "
                                  "engine searches with one)");
    if (spec.reference_nps() > 0)
        out += row("scaled clock", "defined at " + grouped(spec.reference_nps()) +
                                       " nodes per second of " + escape_html(spec.test_version()) +
                                       "; each worker plays it times reference / its speed");
    out += row("priority", std::to_string(spec.priority()));
    out += row("throughput", std::to_string(spec.throughput()) + "%");
    if (spec.pairs_per_thread() > 0)
        out += row("pairs per thread", std::to_string(spec.pairs_per_thread()));
    if (!spec.description().empty()) out += row("description", escape_html(spec.description()));
    out += row("created", escape_html(utc_time(run.created_unix_ms())) +
                              (spec.owner().empty() ? "" : " by " + escape_html(spec.owner())));
    if (run.finished_unix_ms() > 0)
        out += row("finished", escape_html(utc_time(run.finished_unix_ms())));
    if (run.verifies_run_id() > 0)
        out += row("verifies", "<a href=\"/runs/" + std::to_string(run.verifies_run_id()) +
                                   "\">run " + std::to_string(run.verifies_run_id()) + "</a>");
    if (run.chain_run_id() > 0)
        out += row("chain", "<a href=\"/runs/" + std::to_string(run.chain_run_id()) + "\">run " +
                                std::to_string(run.chain_run_id()) + "</a>");
    if (spec.kind() == v1::RUN_KIND_REGRESSION || spec.kind() == v1::RUN_KIND_FIXED_GAMES)
        out += row("run again", "<code>sparring submit --like " + std::to_string(run.id()) +
                                    " [TEST BASE] [--tc TC] [--games N] …</code>");
    return out + "</table>";
}

// Returns the table of a run's bench mismatches, or nothing when there are none.
std::string mismatch_table(const v1::RunStatus& run) {
    if (run.bench_mismatches().empty()) return "";
    std::string out =
        "<h2>Bench mismatches</h2><table class=\"grid\"><tr><th>worker</th><th>version</th>"
        "<th>expected</th><th>computed</th><th>when</th></tr>";
    for (const v1::BenchMismatch& m : run.bench_mismatches())
        out += "<tr><td>" + std::to_string(m.worker_id()) + "</td><td>" + escape_html(m.version()) +
               "</td><td class=\"num\">" + std::to_string(m.expected()) +
               "</td><td class=\"num\">" + std::to_string(m.computed()) + "</td><td>" +
               escape_html(utc_time(m.unix_ms())) + "</td></tr>";
    return out + "</table>";
}

// Returns the table of what was changed of a run after its submission, or nothing.
std::string changes_table(const v1::RunStatus& run) {
    if (run.changes().empty()) return "";
    std::string out =
        "<h2>History</h2><table class=\"grid changes\"><tr><th>when</th><th>who</th>"
        "<th>what</th><th>from</th><th>to</th></tr>";
    for (const v1::RunChange& c : run.changes())
        out += "<tr><td>" + escape_html(utc_time(c.changed_unix_ms())) + "</td><td>" +
               escape_html(c.user()) + "</td><td>" + escape_html(c.field()) + "</td><td>" +
               escape_html(c.old_value()) + "</td><td>" + escape_html(c.new_value()) + "</td></tr>";
    return out + "</table>";
}

// Returns a number input of the modify form.
std::string number_input(const char* name, const char* label, int64_t value, int64_t min,
                         int64_t max, int step) {
    return std::string("<label>") + label + " <input type=\"number\" name=\"" + name +
           "\" value=\"" + std::to_string(value) + "\" min=\"" + std::to_string(min) + "\" max=\"" +
           std::to_string(max) + "\" step=\"" + std::to_string(step) + "\"></label>";
}

// Returns the run page's form that changes the run, for a viewer who may (its owner or an
// admin); a note for anybody else.
std::string modify_section(const v1::RunStatus& run, const std::optional<Viewer>& viewer) {
    const std::string id = std::to_string(run.id());
    if (!viewer) return "<p class=\"note\"><a href=\"/login\">Log in</a> to change this run.</p>";
    const std::string& owner = run.spec().owner();
    if (!viewer->admin && (owner.empty() || owner != viewer->user))
        return "<p class=\"note\">Logged in as " + escape_html(viewer->user) + ". " +
               (owner.empty() ? std::string("This run has no owner: only an admin may change it.")
                              : "This run belongs to " + escape_html(owner) +
                                    ": only its owner or an admin may change it.") +
               "</p>";
    const bool active = run.state() == v1::RUN_STATE_ACTIVE;
    std::string out =
        "<h2>Change this run</h2><form class=\"modify\" method=\"post\" action=\"/runs/" + id +
        "/modify\"><input type=\"hidden\" name=\"csrf\" value=\"" + escape_html(viewer->csrf) +
        "\">";
    if (active) {
        out += number_input("priority", "Priority", run.spec().priority(), -1000, 1000, 1);
        out += number_input("throughput", "Throughput %", run.spec().throughput(), 1, 10000, 1);
        const v1::RunKind kind = run.spec().kind();
        if (kind == v1::RUN_KIND_REGRESSION || kind == v1::RUN_KIND_FIXED_GAMES)
            out += number_input("games", "Games", int64_t(run.spec().games()),
                                int64_t(2 * ((run.games() + 1) / 2)), 1'000'000'000, 2);
    }
    out +=
        "<label class=\"wide\">Description <input name=\"description\" maxlength=\"4096\" "
        "value=\"" +
        escape_html(run.spec().description()) + "\"></label>";
    out += "<button type=\"submit\">Save</button></form>";
    out += "<p class=\"note\">Logged in as " + escape_html(viewer->user) +
           (viewer->admin ? " (admin)" : "") +
           ". Versions, time control and book cannot change: <code>sparring submit --like " + id +
           "</code> starts a run like this one.</p>";
    return out;
}

// Returns how a fault reads: "time loss", "crash", "stall", "illegal move" (its enum name).
std::string fault_text(v1::GameEnding fault) {
    std::string text = v1::GameEnding_Name(fault).substr(sizeof "GAME_ENDING_" - 1);
    for (char& c : text) c = c == '_' ? ' ' : char(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

// Returns a worker's fit in its run as `sparring show` and `workers` print it ("p 0.421,
// residual +1.2", "too few pairs"), quarantine marked.
std::string fit_cell(const v1::WorkerFit& fit) {
    std::string out = fit.df() == 0 ? "too few pairs"
                                    : "p " + p_value_text(fit.p_value()) + ", residual " +
                                          signed_fixed(fit.residual(), 1);
    if (fit.quarantined()) out += " <span class=\"badge h0\">quarantined</span>";
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
    if (query.state != "active" && query.state != "finished" && query.state != "stopped")
        query.state.clear();
    query.kind = get("kind");
    query.version = get("version");
    query.text = get("q");
    if (const auto it = params.find("owner"); it != params.end() && !it->second.empty())
        query.owner = it->second;
    query.tc = get("tc");
    query.result = get("result");
    const auto date = [&get](const std::string& name) {
        const std::string text = get(name);
        return utc_day_ms(text) ? text : std::string();
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

std::map<std::string, std::string> run_fields(const v1::RunStatus& run) {
    const v1::Pentanomial& p = run.pentanomial();
    std::map<std::string, std::string> fields = {
        {"games", grouped(run.games())},
        {"wins", grouped(run.wins())},
        {"draws", grouped(run.draws())},
        {"losses", grouped(run.losses())},
        {"elo", signed_fixed(run.elo(), 2)},
        {"elo_ci", "± " + fixed((run.elo_high() - run.elo_low()) / 2, 2)},
        {"elo_interval",
         "[" + signed_fixed(run.elo_low(), 2) + ", " + signed_fixed(run.elo_high(), 2) + "]"},
        {"nelo", signed_fixed(run.nelo(), 2) + " [" + signed_fixed(run.nelo_low(), 2) + ", " +
                     signed_fixed(run.nelo_high(), 2) + "]"},
        {"los", fixed(100 * run.los(), 1) + "%"},
        {"llr", fixed(run.llr(), 2)},
        {"llr_bounds", "[" + fixed(run.llr_lower(), 2) + ", " + fixed(run.llr_upper(), 2) + "]"},
        {"state", run.result().empty() ? state_name(run.state()) : run.result()},
        {"pairs_leased", grouped(run.pairs_leased())},
        {"active_workers", std::to_string(run.active_workers())},
        {"ll", grouped(p.ll())},
        {"ld", grouped(p.ld())},
        {"dd_wl", grouped(p.dd_wl())},
        {"wd", grouped(p.wd())},
        {"ww", grouped(p.ww())},
    };
    if (run.has_tune()) fields["pairs_applied"] = grouped(run.tune().pairs_applied());
    if (run.has_generate()) fields["positions"] = grouped(run.generate().positions());
    if (run.has_train()) fields["epoch"] = std::to_string(run.train().epoch());
    return fields;
}

std::string live_update_json(const v1::RunStatus& run, const v1::LlrHistory* history) {
    nlohmann::json update = {{"fields", run_fields(run)},
                             {"active", run.state() == v1::RUN_STATE_ACTIVE}};
    if (has_sprt(run)) update["llr"] = {run.games(), run.llr(), run.llr_lower(), run.llr_upper()};
    if (run.games() > 0) update["elo"] = {run.games(), {run.elo_low(), run.elo(), run.elo_high()}};
    // Every viewer receives each update whole: beyond a small cluster's table the page keeps
    // the one it was loaded with.
    if (run.workers_size() <= kMaxLiveWorkers) update["workers"] = workers_table(run);
    if (history && history->leases_size() <= kMaxLiveWorkers)
        update["leases"] = leases_table(*history);  // empty once no lease is out
    return json_text(update);
}

std::string llr_series_json(const v1::LlrHistory& history) {
    std::string out = "[";
    for (const v1::LlrPoint& p : history.points()) {
        if (out.size() > 1) out += ",";
        out += "[" + std::to_string(p.games()) + "," + fixed(p.llr(), 4) + "," +
               fixed(history.llr_lower(), 4) + "," + fixed(history.llr_upper(), 4) + "]";
    }
    return out + "]";
}

std::string elo_series_json(const v1::LlrHistory& history) {
    std::string out = "[";
    for (const v1::LlrPoint& p : history.points()) {
        if (p.games() == 0) continue;  // no estimate before the first report
        if (out.size() > 1) out += ",";
        out += "[" + std::to_string(p.games()) + ",[" + fixed(p.elo_low(), 3) + "," +
               fixed(p.elo(), 3) + "," + fixed(p.elo_high(), 3) + "]]";
    }
    return out + "]";
}

std::string llr_svg(const v1::LlrHistory& history) {
    constexpr double width = 640, height = 220, pad = 30;
    double max_games = 1, low = history.llr_lower(), high = history.llr_upper();
    for (const v1::LlrPoint& p : history.points()) {
        max_games = std::max(max_games, double(p.games()));
        low = std::min(low, p.llr());
        high = std::max(high, p.llr());
    }
    if (high - low < 1e-9) high = low + 1;
    const auto x = [&](double games) { return pad + (width - 2 * pad) * games / max_games; };
    const auto y = [&](double llr) {
        return height - pad - (height - 2 * pad) * (llr - low) / (high - low);
    };
    std::ostringstream out;
    out << "<svg class=\"plot\" viewBox=\"0 0 " << width << " " << height
        << "\" role=\"img\" aria-label=\"LLR against games\">";
    for (const double bound : {history.llr_lower(), history.llr_upper()})
        out << "<line class=\"bound\" x1=\"" << x(0) << "\" x2=\"" << x(max_games) << "\" y1=\""
            << y(bound) << "\" y2=\"" << y(bound) << "\"/><text x=\"2\" y=\"" << y(bound) + 4
            << "\">" << fixed(bound, 2) << "</text>";
    out << "<polyline class=\"series\" points=\"";
    for (const v1::LlrPoint& p : history.points())
        out << fixed(x(double(p.games())), 1) << "," << fixed(y(p.llr()), 1) << " ";
    out << "\"/><text x=\"" << width - pad << "\" y=\"" << height - 8 << "\" text-anchor=\"end\">"
        << grouped(uint64_t(max_games)) << " games</text></svg>";
    return out.str();
}

std::string runs_page(const v1::ListRunsResponse& runs, const RunsQuery& query) {
    const uint64_t matching = runs.total();
    std::string body = "<h1>Runs</h1>" + filter_form(query);
    body +=
        "<table class=\"grid runs\"><thead><tr><th>id</th><th>kind</th><th>test vs base</th>"
        "<th>tc</th><th>owner</th><th>games</th><th>Elo ± 95%</th><th>LLR</th><th>state</th></tr>"
        "</thead><tbody>";
    for (const v1::RunStatus& run : runs.runs()) body += run_row(run);
    if (runs.runs().empty()) body += "<tr><td colspan=\"9\">No runs match.</td></tr>";
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

namespace {

// Returns a tuning run's section: the digest table and the plot of every parameter.
std::string tune_section(const v1::RunStatus& run, const v1::TuneHistory& history) {
    const v1::TuneStatus& tune = run.tune();
    std::string out =
        "<h2>Parameters</h2><table class=\"grid\"><thead><tr><th>parameter</th><th>start</th>"
        "<th>current</th><th>change</th><th>min</th><th>max</th><th>c</th><th>r</th></tr>"
        "</thead><tbody>";
    for (int i = 0; i < tune.params_size(); ++i) {
        const v1::TuneParam& p = tune.params(i);
        const double value = i < tune.values_size() ? tune.values(i) : p.start();
        out += "<tr><td>" + escape_html(p.name()) + "</td><td class=\"num\">" +
               fixed(p.start(), 1) + "</td><td class=\"num\"><strong>" + fixed(value, 1) +
               "</strong></td><td class=\"num\">" + signed_fixed(value - p.start(), 1) +
               "</td><td class=\"num\">" + fixed(p.min(), 0) + "</td><td class=\"num\">" +
               fixed(p.max(), 0) + "</td><td class=\"num\">" + fixed(p.c_end(), 2) +
               "</td><td class=\"num\">" + fixed(p.r_end(), 4) + "</td></tr>";
    }
    out += "</tbody></table><p>" + live_text("pairs_applied", grouped(tune.pairs_applied())) +
           " game pairs applied";
    if (!tune.tuned_version().empty())
        out += " · tuned version <a href=\"/versions/" + escape_url(tune.tuned_version()) + "\">" +
               escape_html(tune.tuned_version()) + "</a>";
    if (tune.verify_run_id() > 0)
        out += " · verified by <a href=\"/runs/" + std::to_string(tune.verify_run_id()) +
               "\">run " + std::to_string(tune.verify_run_id()) + "</a>";
    out +=
        "</p><h2>Parameters against games <span class=\"toggle\"><label><input "
        "type=\"radio\" name=\"tune-scale\" value=\"raw\" checked> values</label> <label>"
        "<input type=\"radio\" name=\"tune-scale\" value=\"share\"> change as a fraction "
        "of c</label></span></h2><div class=\"plot\" id=\"tune-plot\"><p>The plot needs "
        "JavaScript; the table above has every value.</p></div>"
        "<script type=\"application/json\" id=\"tune-data\">" +
        tune_series_json(run, history) + "</script>";
    return out;
}

// Returns a generation run's section: positions stored and the rate of play.
std::string generate_section(const v1::RunStatus& run, const v1::LlrHistory& history) {
    // An active run's rate runs up to its last counted report.
    const int64_t end = run.finished_unix_ms() > 0 ? run.finished_unix_ms()
                        : history.points().empty() ? 0
                                                   : history.points().rbegin()->unix_ms();
    std::string out = "<h2>Generation</h2><table class=\"kv\">";
    out += row("positions stored", live_text("positions", grouped(run.generate().positions())));
    out += row("positions per game",
               run.games() > 0 ? fixed(double(run.generate().positions()) / double(run.games()), 1)
                               : "n/a");
    if (end > run.created_unix_ms() && run.games() > 0)
        out += row("games per second",
                   fixed(1000.0 * double(run.games()) / double(end - run.created_unix_ms()), 2));
    out += row("seed", std::to_string(run.generate().spec().seed()));
    out += row("filters", escape_html(run.generate().spec().filters()));
    return out + "</table>";
}

// Returns a training run's section: progress, the loss per epoch and the parameters that
// moved most from the version it started from.
std::string train_section(const v1::RunStatus& run, const v1::Version& start) {
    const v1::TrainStatus& train = run.train();
    std::string out = "<h2>Training</h2><table class=\"kv\">";
    out += row("epochs", live_text("epoch", std::to_string(train.epoch())) + " of " +
                             std::to_string(run.spec().train().epochs()));
    out += row("positions", grouped(train.positions()));
    out += row("K", fixed(train.k(), 4));
    out += row("loss", fixed(train.initial_loss(), 6) + " at the start" +
                           (train.final_loss() > 0 ? ", " + fixed(train.final_loss(), 6) + " final"
                                                   : std::string()));
    out += "</table><h2>Loss per epoch</h2><div class=\"plot\" id=\"loss-plot\"><p>" +
           std::to_string(train.loss_curve_size()) +
           " epochs recorded.</p></div><script type=\"application/json\" id=\"loss-data\">[";
    for (int i = 0; i < train.loss_curve_size(); ++i)
        out += (i ? "," : "") + std::string("[") + std::to_string(i + 1) + "," +
               fixed(train.loss_curve(i), 8) + "]";
    out += "]</script>";
    if (train.params_json().empty()) return out;
    v1::Version result;
    result.mutable_builtin()->set_params_json(train.params_json());
    const std::map<std::string, std::string> before = version_parameters(start);
    std::vector<std::pair<double, std::string>> moved;
    for (const auto& [name, value] : version_parameters(result)) {
        const auto it = before.find(name);
        if (it == before.end()) continue;
        const double delta =
            std::strtod(value.c_str(), nullptr) - std::strtod(it->second.c_str(), nullptr);
        if (delta != 0) moved.emplace_back(delta, name);
    }
    std::sort(moved.begin(), moved.end(),
              [](const auto& a, const auto& b) { return std::fabs(a.first) > std::fabs(b.first); });
    out +=
        "<h2>Parameters that moved most</h2><table class=\"grid\"><thead><tr><th>parameter"
        "</th><th>" +
        escape_html(start.name()) +
        "</th><th>trained</th><th>change</th></tr>"
        "</thead><tbody>";
    for (size_t i = 0; i < moved.size() && i < 15; ++i) {
        const std::string& name = moved[i].second;
        out += "<tr><td>" + escape_html(name) + "</td><td class=\"num\">" +
               escape_html(before.at(name)) + "</td><td class=\"num\">" +
               fixed(std::strtod(before.at(name).c_str(), nullptr) + moved[i].first, 0) +
               "</td><td class=\"num\">" + signed_fixed(moved[i].first, 0) + "</td></tr>";
    }
    return out + "</tbody></table>";
}

// Returns a chain's section: each generation with its runs and its verification's Elo.
std::string chain_section(const v1::RunStatus& run) {
    std::string out =
        "<h2>Generations</h2><table class=\"grid\"><thead><tr><th>#</th><th>version</th>"
        "<th>runs</th><th>trained version</th><th>positions</th><th>final loss</th>"
        "<th>Elo ± 95%</th><th>verification</th></tr></thead><tbody>";
    const auto link = [](int64_t id, const char* label) {
        return id > 0 ? "<a href=\"/runs/" + std::to_string(id) + "\">" + label + "</a> "
                      : std::string();
    };
    for (const v1::ChainGeneration& g : run.chain().generations()) {
        out +=
            "<tr><td>" + std::to_string(g.generation()) + "</td><td>" + escape_html(g.version()) +
            "</td><td>" + link(g.generate_run_id(), "generate") + link(g.train_run_id(), "train") +
            link(g.verify_run_id(), "verify") + "</td><td>" + escape_html(g.trained_version()) +
            "</td><td class=\"num\">" + grouped(g.positions()) + "</td><td class=\"num\">" +
            fixed(g.final_loss(), 6) + "</td><td class=\"num\">" +
            (g.verify_games() > 0 ? signed_fixed(g.elo(), 1) + " [" + signed_fixed(g.elo_low(), 1) +
                                        ", " + signed_fixed(g.elo_high(), 1) + "]"
                                  : std::string()) +
            "</td><td>" + escape_html(g.verify_result()) + "</td></tr>";
    }
    return out + "</tbody></table>";
}

}  // namespace

std::string tune_series_json(const v1::RunStatus& run, const v1::TuneHistory& history) {
    nlohmann::json names = nlohmann::json::array();
    for (const std::string& name : history.names()) names.push_back(name);
    std::vector<double> start(size_t(history.names_size()), 0), c(start.size(), 1);
    for (int i = 0; i < run.tune().params_size() && size_t(i) < start.size(); ++i) {
        start[size_t(i)] = run.tune().params(i).start();
        if (run.tune().params(i).c_end() > 0) c[size_t(i)] = run.tune().params(i).c_end();
    }
    nlohmann::json raw = nlohmann::json::array(), share = nlohmann::json::array();
    // A point per report would outweigh the page: the first, then at most kMaxTunePoints
    // spread evenly, the last always among them (as the LLR series is thinned).
    const size_t n = size_t(history.points_size());
    const size_t wanted = std::min(n, kMaxTunePoints);
    std::vector<size_t> chosen;
    if (n > 0) chosen.push_back(0);
    for (size_t j = 1; j <= wanted; ++j) {
        const size_t index = (j * n + wanted - 1) / wanted - 1;
        if (index != chosen.back()) chosen.push_back(index);
    }
    for (const size_t index : chosen) {
        const v1::TunePoint& point = history.points(int(index));
        nlohmann::json a = {2 * point.pairs()}, b = {2 * point.pairs()};
        for (int i = 0; i < point.values_size() && size_t(i) < start.size(); ++i) {
            // Rounded below what a plot shows, so that the page keeps its weight.
            a.push_back(std::round(100 * point.values(i)) / 100);
            b.push_back(std::round(1000 * (point.values(i) - start[size_t(i)]) / c[size_t(i)]) /
                        1000);
        }
        raw.push_back(std::move(a));
        share.push_back(std::move(b));
    }
    return json_text(nlohmann::json{{"names", names}, {"raw", raw}, {"share", share}});
}

std::string workers_table(const v1::RunStatus& run) {
    if (run.workers().empty() && run.purges().empty()) return "";
    std::string out =
        "<h2>Workers</h2><table class=\"grid\"><thead><tr><th>worker</th><th>games</th>"
        "<th>LL / LD / DD+WL / WD / WW</th><th>χ² (df)</th><th>fit</th><th>time losses</th>"
        "</tr></thead><tbody>";
    for (const v1::WorkerFit& w : run.workers()) {
        const v1::Pentanomial& p = w.pentanomial();
        out += std::string("<tr") + (w.quarantined() ? " class=\"outlier\"" : "") + "><td>" +
               std::to_string(w.worker_id()) + " " + escape_html(w.name()) +
               "</td><td class=\"num\">" + grouped(w.games()) + "</td><td class=\"num\">" +
               grouped(p.ll()) + " / " + grouped(p.ld()) + " / " + grouped(p.dd_wl()) + " / " +
               grouped(p.wd()) + " / " + grouped(p.ww()) + "</td><td class=\"num\">" +
               fixed(w.chi2(), 1) + " (" + std::to_string(w.df()) + ")</td><td>" + fit_cell(w) +
               "</td><td class=\"num\">" + grouped(w.time_losses()) +
               (w.time_losses() > 0 ? " (p " + p_value_text(w.time_loss_p()) + ")" : "") +
               "</td></tr>";
    }
    if (run.workers().empty())
        out += "<tr><td colspan=\"6\">No counted games left: every worker was purged.</td></tr>";
    out +=
        "</tbody></table><p class=\"note\">Each worker's pairs against the rest of the run's "
        "(chi-squared test of homogeneity of the pentanomial counts, as <code>sparring "
        "show</code> prints it). p: the chance that a worker like the others gives results "
        "this far off; residual: the largest adjusted standardized residual of its row "
        "(positive: more of that result class than the rest would give it); time losses: its "
        "games lost on time, and the chance of that many at the rest of the run's rate; "
        "quarantined: either p below the coordinator's <code>--quarantine-p</code>, so it is "
        "leased no more of the run.</p>";
    if (!run.clocks().empty()) {
        double low = run.clocks(0).min_factor(), high = run.clocks(0).max_factor();
        for (const v1::WorkerClock& c : run.clocks()) {
            low = std::min(low, c.min_factor());
            high = std::max(high, c.max_factor());
        }
        out += "<h2 id=\"clocks\">Clock factors</h2><p>Factors " + fixed(low, 3) + " to " +
               fixed(high, 3) +
               " over the workers: each played the clock times the reference speed over its "
               "own.</p><table class=\"grid\"><thead><tr><th>worker</th><th>speed (last)</th>"
               "<th>factor (last)</th><th>factor range</th><th>reports</th><th>pairs</th></tr>"
               "</thead><tbody>";
        for (const v1::WorkerClock& c : run.clocks())
            out += "<tr><td>" + std::to_string(c.worker_id()) + " " + escape_html(c.worker_name()) +
                   "</td><td class=\"num\">" + grouped(c.last_nps()) +
                   " nps</td><td class=\"num\">" + fixed(c.last_factor(), 3) +
                   "</td><td class=\"num\">" + fixed(c.min_factor(), 3) + " – " +
                   fixed(c.max_factor(), 3) + "</td><td class=\"num\">" + grouped(c.reports()) +
                   "</td><td class=\"num\">" + grouped(c.pairs()) + "</td></tr>";
        out += "</tbody></table>";
    }
    if (!run.faults().empty()) {
        out +=
            "<h2>Games lost by faults</h2><table class=\"grid\"><thead><tr><th>version</th>"
            "<th>fault</th><th>worker</th><th>games</th></tr></thead><tbody>";
        for (const v1::FaultCount& f : run.faults())
            out += "<tr><td>" + escape_html(f.version()) + "</td><td>" + fault_text(f.fault()) +
                   "</td><td>" + std::to_string(f.worker_id()) + " " +
                   escape_html(f.worker_name()) + "</td><td class=\"num\">" + grouped(f.games()) +
                   "</td></tr>";
        out += "</tbody></table>";
    }
    for (const v1::Purge& p : run.purges())
        out += "<p class=\"note\">Purged: worker " + std::to_string(p.worker_id()) + " " +
               escape_html(p.worker_name()) + ", " + grouped(p.games()) + " games (W / D / L " +
               grouped(p.wins()) + " / " + grouped(p.draws()) + " / " + grouped(p.losses()) +
               "), by " + escape_html(p.purged_by()) + " at " + escape_html(utc_time(p.unix_ms())) +
               ".</p>";
    return out;
}

std::string leases_table(const v1::LlrHistory& history) {
    if (history.leases().empty()) return "";
    std::string out =
        "<h2>Leases out</h2><table class=\"grid\"><thead><tr><th>lease</th><th>worker</th>"
        "<th>since</th><th>games</th><th>reported</th></tr></thead><tbody>";
    for (const v1::LeaseOut& l : history.leases())
        out += "<tr><td>" + std::to_string(l.lease_id()) + "</td><td>" +
               std::to_string(l.worker_id()) + " " + escape_html(l.worker_name()) + "</td><td>" +
               escape_html(utc_time(l.since_unix_ms())) + "</td><td class=\"num\">" +
               grouped(l.games()) + "</td><td class=\"num\">" + grouped(l.games_reported()) +
               "</td></tr>";
    return out + "</tbody></table>";
}

std::string run_page(const v1::RunStatus& run, const RunExtras& extras) {
    const v1::LlrHistory& history = extras.history;
    const std::map<std::string, std::string> fields = run_fields(run);
    const std::string id = std::to_string(run.id());
    std::string body = "<h1>Run " + id + " <span class=\"sub\">" +
                       escape_html(kind_name(run.spec().kind())) + " · " +
                       escape_html(run.spec().test_version()) + " vs " +
                       escape_html(run.spec().base_version()) + "</span></h1>";
    body += "<section class=\"decide " + outcome_class(run) + "\" id=\"run\" data-run=\"" + id +
            "\" data-games=\"" + std::to_string(run.games()) + "\" data-active=\"" +
            (run.state() == v1::RUN_STATE_ACTIVE ? "true" : "false") + "\">";
    body += "<div class=\"big\"><div class=\"label\">Elo (logistic)</div><div class=\"value\">" +
            live(fields, "elo") + " <small>" + live(fields, "elo_ci") +
            "</small></div><div class=\"note\">95% " + live(fields, "elo_interval") +
            "</div></div>";
    if (has_sprt(run))
        body += "<div class=\"big\"><div class=\"label\">LLR</div><div class=\"value\">" +
                live(fields, "llr") + "</div><div class=\"note\">bounds " +
                live(fields, "llr_bounds") + "</div>" + llr_bar(run) + "</div>";
    body += "<div class=\"big\"><div class=\"label\">Games</div><div class=\"value\">" +
            live(fields, "games") + "</div><div class=\"note\">of " + grouped(run.spec().games()) +
            "</div></div>";
    body += "<div class=\"big\"><div class=\"label\">State</div><div class=\"value state\">" +
            live(fields, "state") + "</div><div class=\"note\">" + live(fields, "active_workers") +
            " workers, " + live(fields, "pairs_leased") + " pairs leased</div></div></section>";

    body += "<section class=\"numbers\"><table class=\"kv\">";
    body += row("W / D / L", live(fields, "wins") + " / " + live(fields, "draws") + " / " +
                                 live(fields, "losses"));
    body += row("nElo", live(fields, "nelo"));
    body += row("LOS", live(fields, "los"));
    body +=
        "</table><table class=\"grid penta\"><tr><th>LL</th><th>LD</th><th>DD+WL</th>"
        "<th>WD</th><th>WW</th></tr><tr>";
    for (const char* cell : {"ll", "ld", "dd_wl", "wd", "ww"})
        body += "<td class=\"num\">" + live(fields, cell) + "</td>";
    body += "</tr></table></section>";

    if (has_sprt(run))
        body += "<h2>LLR against games</h2><div class=\"plot\" id=\"llr-plot\">" +
                llr_svg(history) + "</div><script type=\"application/json\" id=\"llr-data\">" +
                llr_series_json(history) + "</script>";
    // Runs the coordinator plays itself (training, chains) have no games to plot.
    if (run.spec().games() > 0)
        body +=
            "<h2>Elo against games <small>(95% interval shaded)</small></h2><div class=\"plot\" "
            "id=\"elo-plot\">" +
            std::string(run.games() > 0 ? "" : "<p>No games yet.</p>") +
            "</div>"
            "<script type=\"application/json\" id=\"elo-data\">" +
            elo_series_json(history) + "</script>";
    if (run.has_tune() && run.tune().params_size() > 0) body += tune_section(run, extras.tune);
    if (run.has_generate()) body += generate_section(run, history);
    if (run.has_train()) body += train_section(run, extras.start);
    if (run.has_chain()) body += chain_section(run);
    // Live updates replace the workers' and the leases' tables whole: they change with every
    // report.
    body += "<div id=\"workers\">" + workers_table(run) + "</div>";
    body += "<div id=\"leases\">" + leases_table(history) + "</div>";
    body += "<h2>Specification</h2>" + spec_table(run);
    body += changes_table(run);
    body += modify_section(run, extras.viewer);
    body += mismatch_table(run);
    body += "<p><a href=\"/runs/" + id + "/pgn\" download=\"run" + id +
            ".pgn\">Download the games (PGN)</a> · <a href=\"/api/v1/runs/" + id +
            "\">JSON</a></p>";
    return layout("Run " + id, body, true);
}

std::string login_page(std::string_view note, std::string_view user, std::string_view csrf) {
    std::string body = "<h1>Log in</h1>";
    if (!note.empty()) body += "<p class=\"error\">" + escape_html(note) + "</p>";
    if (!user.empty())
        body += "<p>Logged in as " + escape_html(user) +
                ".</p><form method=\"post\" action=\"/logout\"><input type=\"hidden\" "
                "name=\"csrf\" value=\"" +
                escape_html(csrf) + "\"><button type=\"submit\">Log out</button></form>";
    body +=
        "<form class=\"login\" method=\"post\" action=\"/login\"><label>Token <input "
        "type=\"password\" name=\"token\" autocomplete=\"off\" required size=\"70\"></label>"
        "<button type=\"submit\">Log in</button></form><p class=\"note\">A user or admin token "
        "(<code>sparring-coordinator token create --role user --name YOU</code>). The browser "
        "keeps only a session cookie; the token stays on the coordinator, in memory, for 12 "
        "hours or until you log out or the coordinator restarts.</p>";
    return layout("Log in", body, false);
}

std::string workers_page(const v1::ListWorkersResponse& workers) {
    std::vector<const v1::WorkerStatus*> sorted;
    for (const v1::WorkerStatus& w : workers.workers()) sorted.push_back(&w);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const v1::WorkerStatus* a, const v1::WorkerStatus* b) {
                         if (a->active() != b->active()) return a->active();
                         return a->id() < b->id();
                     });
    std::string body =
        "<h1>Workers</h1><table class=\"grid\"><thead><tr><th>id</th><th>name</th>"
        "<th>cores</th><th>memory</th><th>concurrency</th><th>engines offered</th>"
        "<th>state</th><th>current run</th><th>games</th><th>fit (run)</th><th>last seen</th></tr>"
        "</thead><tbody>";
    for (const v1::WorkerStatus* w : sorted) {
        std::string engines = "built-in";
        for (const std::string& uci : w->uci_engines()) engines += ", " + escape_html(uci);
        std::string runs;
        for (const int64_t id : w->run_ids())
            runs += (runs.empty() ? "" : ", ") + std::string("<a href=\"/runs/") +
                    std::to_string(id) + "\">" + std::to_string(id) + "</a>";
        body += std::string("<tr class=\"") + (w->active() ? "active" : "neutral") + "\"><td>" +
                std::to_string(w->id()) + "</td><td>" + escape_html(w->name()) +
                "<div class=\"desc\">" + escape_html(w->build()) + "</div></td><td class=\"num\">" +
                std::to_string(w->cores()) + "</td><td class=\"num\">" + grouped(w->memory_mb()) +
                " MB</td><td class=\"num\">" + std::to_string(w->concurrency()) + "</td><td>" +
                engines + "</td><td><span class=\"badge " + (w->active() ? "active" : "neutral") +
                "\">" + (w->active() ? "active" : "inactive") + "</span></td><td>" +
                (runs.empty() ? "idle" : runs) + "</td><td class=\"num\">" + grouped(w->games()) +
                "</td><td>" +
                (w->has_fit() ? fit_cell(w->fit()) + " (<a href=\"/runs/" +
                                    std::to_string(w->fit().run_id()) + "\">" +
                                    std::to_string(w->fit().run_id()) + "</a>)"
                              : "-") +
                "</td><td>" + escape_html(utc_time(w->last_seen_unix_ms())) + "</td></tr>";
    }
    if (sorted.empty()) body += "<tr><td colspan=\"11\">No workers seen lately.</td></tr>";
    body +=
        "</tbody></table><p class=\"paging\"><a href=\"/workers?all=true\">include workers "
        "not seen lately</a></p>";
    std::string speeds;
    for (const v1::WorkerStatus* w : sorted)
        for (const v1::WorkerSpeed& speed : w->speeds())
            speeds += "<tr><td>" + std::to_string(w->id()) + " " + escape_html(w->name()) +
                      "</td><td>" + escape_html(speed.version()) + "</td><td class=\"num\">" +
                      grouped(speed.nps()) + "</td><td class=\"num\">" +
                      std::to_string(speed.games_at_once()) + "</td><td>" +
                      escape_html(utc_time(speed.measured_unix_ms())) + "</td></tr>";
    if (!speeds.empty())
        body +=
            "<h2 id=\"speeds\">Speeds</h2><p>Nodes per second of one game's engine, measured by "
            "each worker with as many engines searching at once as it plays games; runs with a "
            "reference speed scale their clocks by them.</p><table class=\"grid\"><thead><tr>"
            "<th>worker</th><th>version</th><th>nodes per second</th><th>games at once</th>"
            "<th>measured</th></tr></thead><tbody>" +
            speeds + "</tbody></table>";
    return layout("Workers", body, false);
}

namespace {

// Returns "built-in (PRESET)", "UCI: COMMAND" or "uploaded: SHA256…", escaped.
std::string engine_text(const v1::Version& v) {
    if (v.has_uci()) return "UCI: <code>" + escape_html(v.uci().command()) + "</code>";
    if (v.has_uploaded())
        return "uploaded: <code title=\"" + escape_html(v.uploaded().sha256()) + "\">" +
               escape_html(v.uploaded().sha256().substr(0, 12)) + "</code>";
    return "built-in (" + escape_html(v.builtin().preset()) + ")";
}

// Returns a select element listing the versions, with one selected.
std::string version_select(const v1::ListVersionsResponse& versions, std::string_view name,
                           size_t selected) {
    std::string out = "<select name=\"" + std::string(name) + "\">";
    for (int i = versions.versions_size() - 1; i >= 0; --i) {
        const std::string& n = versions.versions(i).name();
        out += "<option value=\"" + escape_html(n) + "\"" +
               (size_t(i) == selected ? " selected" : "") + ">" + escape_html(n) + "</option>";
    }
    return out + "</select>";
}

}  // namespace

std::string versions_page(const v1::ListVersionsResponse& versions) {
    std::string body = "<h1>Versions</h1>";
    if (versions.versions_size() >= 2) {
        const size_t last = size_t(versions.versions_size() - 1);
        body += "<form class=\"filters\" method=\"get\" action=\"/versions/compare\"><label>A " +
                version_select(versions, "a", last - 1) + "</label><label>B " +
                version_select(versions, "b", last) +
                "</label><button type=\"submit\">Compare</button></form>";
    }
    body +=
        "<table class=\"grid\"><thead><tr><th>name</th><th>engine</th><th>bench</th>"
        "<th>description</th><th>created</th></tr></thead><tbody>";
    for (int i = versions.versions_size() - 1; i >= 0; --i) {
        const v1::Version& v = versions.versions(i);
        body += "<tr><td><a href=\"/versions/" + escape_url(v.name()) + "\">" +
                escape_html(v.name()) + "</a></td><td>" + engine_text(v) +
                "</td><td class=\"num\">" + std::to_string(v.bench()) + "</td><td>" +
                escape_html(v.description()) + "</td><td>" +
                escape_html(utc_time(v.created_unix_ms())) + "</td></tr>";
    }
    if (versions.versions().empty()) body += "<tr><td colspan=\"5\">No versions yet.</td></tr>";
    return layout("Versions", body + "</tbody></table>", false);
}

std::map<std::string, std::string> version_parameters(const v1::Version& version) {
    std::map<std::string, std::string> out;
    if (version.has_uci()) {
        for (const auto& [name, value] : version.uci().options()) out[name] = value;
        return out;
    }
    if (version.has_uploaded()) {
        for (const auto& [name, value] : version.uploaded().options()) out[name] = value;
        return out;
    }
    const nlohmann::json params =
        nlohmann::json::parse(version.builtin().params_json(), nullptr, false);
    if (params.is_object())
        for (const auto& [name, value] : params.items())
            out[name] = value.is_string() ? value.get<std::string>() : json_text(value);
    if (version.builtin().hash_mb() > 0) out["Hash"] = std::to_string(version.builtin().hash_mb());
    return out;
}

std::string version_page(const v1::Version& version) {
    std::string body = "<h1>Version " + escape_html(version.name()) + "</h1><table class=\"kv\">";
    body += row("engine", engine_text(version));
    body += row("bench", std::to_string(version.bench()));
    if (version.has_uploaded()) {
        body += row("sha256", "<code>" + escape_html(version.uploaded().sha256()) + "</code>");
        body += row("size", std::to_string(version.uploaded().size()) + " bytes" +
                                (version.uploaded().archive()
                                     ? ", archive, entry <code>" +
                                           escape_html(version.uploaded().entry()) + "</code>"
                                     : ""));
    }
    body += row("description", escape_html(version.description()));
    body += row("created", escape_html(utc_time(version.created_unix_ms())));
    if (version.has_builtin() && !version.builtin().overrides().empty()) {
        std::map<std::string, int> overrides(version.builtin().overrides().begin(),
                                             version.builtin().overrides().end());
        std::string text;
        for (const auto& [name, value] : overrides)
            text += (text.empty() ? "" : ", ") + escape_html(name) + "=" + std::to_string(value);
        body += row("overrides", text);
    }
    body += "</table><p><a href=\"/?version=" + escape_url(version.name()) +
            "\">Runs of this version</a></p><h2>Parameters</h2><table class=\"grid\">"
            "<thead><tr><th>name</th><th>value</th></tr></thead><tbody>";
    for (const auto& [name, value] : version_parameters(version))
        body += "<tr><td>" + escape_html(name) + "</td><td class=\"num\">" + escape_html(value) +
                "</td></tr>";
    return layout("Version " + version.name(), body + "</tbody></table>", false);
}

std::string compare_page(const v1::Version& a, const v1::Version& b) {
    const std::map<std::string, std::string> pa = version_parameters(a);
    const std::map<std::string, std::string> pb = version_parameters(b);
    std::map<std::string, std::pair<std::string, std::string>> all;
    for (const auto& [name, value] : pa) all[name].first = value;
    for (const auto& [name, value] : pb) all[name].second = value;
    std::string changed, same;
    size_t differences = 0;
    for (const auto& [name, values] : all) {
        const bool differs = values.first != values.second;
        std::string delta;
        if (differs) {
            ++differences;
            char* end_a = nullptr;
            char* end_b = nullptr;
            const double va = std::strtod(values.first.c_str(), &end_a);
            const double vb = std::strtod(values.second.c_str(), &end_b);
            if (!values.first.empty() && !values.second.empty() && *end_a == 0 && *end_b == 0)
                delta = signed_fixed(vb - va, std::floor(va) == va && std::floor(vb) == vb ? 0 : 2);
        }
        const std::string line = std::string("<tr") + (differs ? " class=\"differs\"" : "") +
                                 "><td>" + escape_html(name) + "</td><td class=\"num\">" +
                                 escape_html(values.first) + "</td><td class=\"num\">" +
                                 escape_html(values.second) + "</td><td class=\"num\">" + delta +
                                 "</td></tr>";
        (differs ? changed : same) += line;
    }
    std::string body =
        "<h1>" + escape_html(a.name()) + " <span class=\"vs\">vs</span> " + escape_html(b.name()) +
        "</h1><p>" + std::to_string(differences) + " of " + std::to_string(all.size()) +
        " parameters differ.</p><table class=\"grid compare\"><thead><tr>"
        "<th>parameter</th><th><a href=\"/versions/" +
        escape_url(a.name()) + "\">" + escape_html(a.name()) + "</a></th><th><a href=\"/versions/" +
        escape_url(b.name()) + "\">" + escape_html(b.name()) +
        "</a></th><th>B − A</th></tr></thead><tbody>" + changed + same + "</tbody></table>";
    return layout("Compare", body, false);
}

std::string error_page(int http_status, std::string_view message) {
    return layout("Error",
                  "<h1>" + std::to_string(http_status) + "</h1><p>" + escape_html(message) + "</p>",
                  false);
}

}  // namespace sparring::coordinator::web
