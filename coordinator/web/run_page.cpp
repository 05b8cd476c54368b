// A run's page `/runs/N`: its numbers, plots, workers, kind sections, specification and form,
// and the live updates of all of them.
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
#include "coordinator/web/page_parts.h"
#include "coordinator/web/pages.h"
#include "coordinator/web/run_classes.h"
#include "coordinator/web/run_faults.h"
#include "coordinator/web/run_kinds.h"
#include "coordinator/web/run_pause.h"
#include "coordinator/web/run_waiting.h"
#include "match/adjudication.h"
#include "proto/forecast_text.h"

namespace sparring::coordinator::web {

namespace {

constexpr int kMaxLiveWorkers = 64;  // workers whose table live updates carry, at most

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
        out += row("follow-up",
                   escape_html(follow_up_text(spec.follow_up())) +
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
    if (web_run_kind(spec.kind()).games_changeable)
        out += row("run again", "<code>sparring submit --like " + std::to_string(run.id()) +
                                    " [TEST BASE] [--tc TC] [--games N] …</code>");
    return out + "</table>";
}

// Returns the table of a run's bench mismatches, or nothing when there are none.
std::string mismatch_table(const v1::RunStatus& run) {
    if (run.bench_mismatches().empty()) return "";
    std::string out =
        "<h2>Bench mismatches</h2><table class=\"grid\"><tr><th>worker</th><th>version</th>"
        "<th>expected</th><th>computed</th><th>why</th><th>when</th></tr>";
    for (const v1::BenchMismatch& m : run.bench_mismatches())
        out += "<tr><td>" + std::to_string(m.worker_id()) + "</td><td>" + escape_html(m.version()) +
               "</td><td class=\"num\">" + std::to_string(m.expected()) +
               "</td><td class=\"num\">" + std::to_string(m.computed()) + "</td><td>" +
               escape_html(m.message()) + "</td><td>" + escape_html(utc_time(m.unix_ms())) +
               "</td></tr>";
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
        if (web_run_kind(run.spec().kind()).games_changeable)
            out += number_input("games", "Games", int64_t(run.spec().games()),
                                int64_t(2 * ((run.games() + 1) / 2)), 1'000'000'000, 2);
    }
    out +=
        "<label class=\"wide\">Description <input name=\"description\" maxlength=\"4096\" "
        "value=\"" +
        escape_html(run.spec().description()) + "\"></label>";
    out += "<button type=\"submit\">Save</button></form>";
    const v1::RunKind kind = run.spec().kind();
    if (kind == v1::RUN_KIND_REGRESSION || kind == v1::RUN_KIND_FIXED_GAMES)
        out += "<form class=\"again\" method=\"post\" action=\"/runs/" + id +
               "/again\"><input type=\"hidden\" name=\"csrf\" value=\"" +
               escape_html(viewer->csrf) +
               "\"><button type=\"submit\">Run again</button> a new run like this one</form>";
    out += "<p class=\"note\">Logged in as " + escape_html(viewer->user) +
           (viewer->admin ? " (admin)" : "") +
           ". Versions, time control and book cannot change: <code>sparring submit --like " + id +
           "</code> starts a run like this one.</p>";
    return out;
}

}  // namespace

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
        {"state", shown_state(run)},
        {"waiting", waiting_text(run)},
        {"pairs_leased", grouped(run.pairs_leased())},
        {"active_workers", std::to_string(run.active_workers())},
        {"ll", grouped(p.ll())},
        {"ld", grouped(p.ld())},
        {"dd_wl", grouped(p.dd_wl())},
        {"wd", grouped(p.wd())},
        {"ww", grouped(p.ww())},
    };
    for (ForecastRow& row : forecast_rows(run)) fields[row.key] = std::move(row.text);
    if (const auto live_fields = web_run_kind(run.spec().kind()).live_fields)
        live_fields(run, fields);
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

std::string workers_table(const v1::RunStatus& run) {
    if (run.workers().empty() && run.purges().empty()) return "";
    std::string out =
        "<h2>Workers</h2><table class=\"grid\"><thead><tr><th>worker</th><th>class</th>"
        "<th>games</th><th>LL / LD / DD+WL / WD / WW</th><th>χ² (df)</th><th>fit</th>"
        "<th>time losses</th></tr></thead><tbody>";
    for (const v1::WorkerFit& w : run.workers()) {
        const v1::Pentanomial& p = w.pentanomial();
        out += std::string("<tr") + (w.quarantined() ? " class=\"outlier\"" : "") + "><td>" +
               std::to_string(w.worker_id()) + " " + escape_html(w.name()) + "</td><td>" +
               escape_html(w.cpu_class()) + "</td><td class=\"num\">" + grouped(w.games()) +
               "</td><td class=\"num\">" + grouped(p.ll()) + " / " + grouped(p.ld()) + " / " +
               grouped(p.dd_wl()) + " / " + grouped(p.wd()) + " / " + grouped(p.ww()) +
               "</td><td class=\"num\">" + fixed(w.chi2(), 1) + " (" + std::to_string(w.df()) +
               ")</td><td>" + fit_cell(w) + "</td><td class=\"num\">" + grouped(w.time_losses()) +
               (w.time_losses() > 0 ? " (p " + p_value_text(w.time_loss_p()) + ")" : "") +
               "</td></tr>";
    }
    if (run.workers().empty())
        out += "<tr><td colspan=\"7\">No counted games left: every worker was purged.</td></tr>";
    out +=
        "</tbody></table><p class=\"note\">Each worker's pairs against the rest of its CPU "
        "class's (chi-squared test of homogeneity of the pentanomial counts, as <code>sparring "
        "show</code> prints it). p: the chance that a worker like the others gives results "
        "this far off; residual: the largest adjusted standardized residual of its row "
        "(positive: more of that result class than the rest would give it); time losses: its "
        "games lost on time, and the chance of that many at the rest of its class's rate; "
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
    if (!run.output_warnings().empty()) {
        // The example lines are the engines' own text: escaped like every other name here.
        out +=
            "<h2 id=\"output-warnings\">Engine-output warnings</h2><p class=\"note\">They "
            "decide no game (docs/engines.md, \"Engine-output checks\").</p><table "
            "class=\"grid\"><thead><tr><th>warning</th><th>lines</th><th>example</th></tr>"
            "</thead><tbody>";
        for (const v1::OutputWarningCount& w : run.output_warnings())
            out += "<tr><td>" + escape_html(w.line()) + "</td><td class=\"num\">" +
                   grouped(w.count()) + "</td><td>game " + std::to_string(w.example_game()) +
                   ": <code>" + escape_html(w.example()) + "</code> after <code>" +
                   escape_html(w.go()) + "</code></td></tr>";
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
    for (const std::string& warning : run.warnings())
        body += "<p class=\"warning\"><strong>Warning:</strong> " + escape_html(warning) +
                " <span class=\"desc\">(docs/statistics.md)</span></p>";
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
    // Why it waits (live: empty once a worker plays it).
    if (!run.waiting().empty())
        body += "<p class=\"waiting\" id=\"waiting\">" + live(fields, "waiting") + "</p>";
    body += pause_html(run);  // why the coordinator paused it, and how to resume it

    body += "<section class=\"numbers\"><table class=\"kv\">";
    body += row("W / D / L", live(fields, "wins") + " / " + live(fields, "draws") + " / " +
                                 live(fields, "losses"));
    body += row("nElo", live(fields, "nelo"));
    if (run.has_elo_unbiased())
        body += row("Elo, median-unbiased",
                    signed_fixed(run.elo_unbiased(), 2) + " [" +
                        signed_fixed(run.elo_unbiased_low(), 2) + ", " +
                        signed_fixed(run.elo_unbiased_high(), 2) +
                        "] <small>(free of the SPRT's early-stop bias)</small>");
    body += row("LOS", live(fields, "los"));
    // When it ends (live: each report's counts recompute it).
    for (const ForecastRow& forecast : forecast_rows(run))
        body += row(forecast.label, live(fields, forecast.key));
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
    if (const auto section = web_run_kind(run.spec().kind()).section) body += section(run, extras);
    // Live updates replace the workers' and the leases' tables whole: they change with every
    // report.
    // The CPU classes come with a whole read of the run, not with the live updates.
    body += classes_html(run) + "<div id=\"workers\">" + workers_table(run) + "</div>";
    body += "<div id=\"leases\">" + leases_table(history) + "</div>";
    body += faulty_games_section(run.id(), extras.faults);
    body += "<h2>Specification</h2>" + spec_table(run);
    body += changes_table(run);
    body += modify_section(run, extras.viewer);
    body += mismatch_table(run);
    body += "<p><a href=\"/runs/" + id + "/pgn\" download=\"run" + id +
            ".pgn\">Download the games (PGN)</a> · <a href=\"/api/v1/runs/" + id +
            "\">JSON</a></p>";
    return layout("Run " + id, body, true);
}

}  // namespace sparring::coordinator::web
