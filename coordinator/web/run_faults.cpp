#include "coordinator/web/run_faults.h"

#include "coordinator/web/dashboard.h"
#include "coordinator/web/handlers.h"
#include "coordinator/web/html.h"
#include "coordinator/web/page_parts.h"

namespace sparring::coordinator::web {

namespace {

// Returns the link to a faulty game's evidence page.
std::string evidence_link(int64_t run_id, uint64_t game, std::string_view text) {
    return "<a href=\"/runs/" + std::to_string(run_id) + "/faults/" + std::to_string(game) + "\">" +
           escape_html(text) + "</a>";
}

}  // namespace

std::string faulty_games_section(int64_t run_id, const v1::ListFaultsResponse& faults) {
    if (faults.total() == 0) return "";
    std::string out =
        "<h2 id=\"faulty-games\">Faulty games</h2><p class=\"note\">The evidence of the first " +
        std::to_string(faults.evidence_bound()) +
        " games of each version and fault is kept: the engine's UCI exchange of the game and "
        "its stderr (<code>sparring faults " +
        std::to_string(run_id) + "</code>, <code>sparring repro " + std::to_string(run_id) +
        " GAME --run</code>).</p><table class=\"grid\"><thead><tr><th>version</th>"
        "<th>fault</th><th>games</th><th>with evidence</th></tr></thead><tbody>";
    for (const v1::FaultKindCount& c : faults.counts())
        out += "<tr><td>" + escape_html(c.version()) + "</td><td>" + fault_text(c.fault()) +
               "</td><td class=\"num\">" + grouped(c.games()) + "</td><td class=\"num\">" +
               grouped(c.with_evidence()) + "</td></tr>";
    out +=
        "</tbody></table><table class=\"grid\" id=\"faulty-games-list\"><thead><tr><th>game</th>"
        "<th>worker</th><th>version</th><th>fault</th><th>reason</th><th>evidence</th></tr>"
        "</thead><tbody>";
    for (const v1::FaultyGame& g : faults.games())
        out += "<tr><td class=\"num\">" + std::to_string(g.game()) + "</td><td>" +
               std::to_string(g.worker_id()) + " " + escape_html(g.worker_name()) + "</td><td>" +
               escape_html(g.version()) + "</td><td>" + fault_text(g.fault()) + "</td><td>" +
               escape_html(g.reason()) + "</td><td>" +
               (g.has_evidence() ? evidence_link(g.run_id(), g.game(), "transcript and stderr")
                                 : evidence_link(g.run_id(), g.game(), "engine and position")) +
               "</td></tr>";
    out += "</tbody></table>";
    if (uint64_t(faults.games_size()) < faults.total())
        out += "<p class=\"note\">" + grouped(faults.total() - uint64_t(faults.games_size())) +
               " more faulty games: <a href=\"/api/v1/runs/" + std::to_string(run_id) +
               "/faults?max_games=10000\">all of them (JSON)</a>.</p>";
    return out;
}

std::string fault_page(const v1::FaultyGame& g) {
    const std::string run = std::to_string(g.run_id());
    const std::string game = std::to_string(g.game());
    std::string body = "<p><a href=\"/runs/" + run + "#faulty-games\">Run " + run +
                       "</a></p><h1>Game " + game + ": " + escape_html(g.version()) + " lost by " +
                       fault_text(g.fault()) + "</h1><table class=\"kv\">";
    body += row("reason", escape_html(g.reason()));
    body += row("worker", std::to_string(g.worker_id()) + " " + escape_html(g.worker_name()));
    body += row("engine", escape_html(g.engine()));
    std::string command = g.command();
    for (const std::string& arg : g.args()) command += " " + arg;
    body += row("command", "<code>" + escape_html(command) + "</code>");
    std::string options;
    for (const v1::FaultEvidence::Option& o : g.options())
        options += (options.empty() ? "" : ", ") + o.name() + "=" + o.value();
    body += row("options", escape_html(options));
    body += row("threads", std::to_string(g.threads()));
    body += row("time control", escape_html(time_control_text(g.time_control())));
    body += row("position", "<code>" + escape_html(g.position()) + "</code>");
    body += row("go", "<code>" + escape_html(g.go()) + "</code>");
    body += "</table>";
    if (!g.has_evidence()) {
        body += "<p class=\"note\">" +
                std::string(g.command().empty()
                                ? "No evidence: the worker sent none (a built-in engine, or an "
                                  "older worker)."
                                : "The transcript and stderr of this game were not kept: the "
                                  "run had already kept those of as many games of this version "
                                  "and fault as the coordinator's bound.") +
                "</p>";
    } else {
        body += "<details open id=\"transcript\"><summary>UCI transcript (" +
                grouped(g.transcript().size()) +
                " bytes; ms from the game's start, &gt; to the engine, &lt; from it" +
                (g.transcript_complete() ? "" : "; its middle left out") + ")</summary><pre>" +
                escape_html(g.transcript()) + "</pre></details>";
        body += "<details open id=\"stderr\"><summary>stderr (its last " +
                grouped(g.stderr_tail().size()) + " of " + grouped(g.stderr_bytes()) +
                " bytes)</summary><pre>" + escape_html(g.stderr_tail()) + "</pre></details>";
    }
    body += "<p><code>sparring repro " + run + " " + game +
            " --run</code> replays it on your machine · <a href=\"/api/v1/runs/" + run +
            "/faults/" + game + "\">JSON</a></p>";
    return layout("Run " + run + ", game " + game, body, false);
}

void Dashboard::run_fault(const HttpRequest& request, HttpResponse& response) {
    const absl::StatusOr<int64_t> id = run_id_of(request);
    if (!id.ok()) return reply_error_page(response, id.status());
    v1::GetFaultRequest get;
    get.set_run_id(*id);
    try {
        get.set_game(std::stoull(request.matches[2].str()));
    } catch (const std::exception&) {
        return reply_error_page(response, absl::InvalidArgumentError("game out of range"));
    }
    v1::FaultyGame game;
    const absl::Status status = call(api_, &UserApi::get_fault, credential(request), get, &game);
    if (!status.ok()) return reply_error_page(response, status);
    response.set_content(fault_page(game), "text/html; charset=utf-8");
}

}  // namespace sparring::coordinator::web
