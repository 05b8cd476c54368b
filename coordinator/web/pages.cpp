// The workers, versions, login and error pages.
#include "coordinator/web/pages.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/dates.h"
#include "common/engine_builds.h"
#include "common/json_text.h"
#include "coordinator/web/html.h"
#include "coordinator/web/page_parts.h"
#include "coordinator/web/run_waiting.h"
#include "coordinator/web/worker_machines.h"
#include "match/adjudication.h"
#include "proto/worker_controls_text.h"

namespace sparring::coordinator::web {

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

namespace {

// A worker's fleet controls under its name (issue 52), "" for none.
std::string controls_html(const v1::WorkerStatus& w) {
    const std::string text = worker_controls_text(w.controls());
    return text.empty() ? "" : "<div class=\"desc controls\">" + escape_html(text) + "</div>";
}

}  // namespace

std::string workers_page(const v1::ListWorkersResponse& workers) {
    std::vector<const v1::WorkerStatus*> sorted;
    for (const v1::WorkerStatus& w : workers.workers()) sorted.push_back(&w);
    std::stable_sort(sorted.begin(), sorted.end(),
                     [](const v1::WorkerStatus* a, const v1::WorkerStatus* b) {
                         if (a->active() != b->active()) return a->active();
                         return a->id() < b->id();
                     });
    std::string body =
        "<h1>Workers</h1><table class=\"grid\"><thead><tr><th>id</th><th>name</th><th>class</th>"
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
                "<div class=\"desc\">" + escape_html(w->build()) + "</div>" + controls_html(*w) +
                "</td><td>" + worker_class_cell(*w) + "</td><td class=\"num\">" +
                std::to_string(w->cores()) + "</td><td class=\"num\">" + grouped(w->memory_mb()) +
                " MB</td><td class=\"num\">" + std::to_string(w->concurrency()) + "</td><td>" +
                engines + "</td><td><span class=\"badge " + (w->active() ? "active" : "neutral") +
                "\">" + (w->active() ? "active" : "inactive") + "</span></td><td>" +
                (runs.empty() ? "idle" : runs) + declined_html(*w) + "</td><td class=\"num\">" +
                grouped(w->games()) + "</td><td>" +
                (w->has_fit() ? fit_cell(w->fit()) + " (<a href=\"/runs/" +
                                    std::to_string(w->fit().run_id()) + "\">" +
                                    std::to_string(w->fit().run_id()) + "</a>)"
                              : "-") +
                "</td><td>" + escape_html(utc_time(w->last_seen_unix_ms())) + "</td></tr>";
    }
    if (sorted.empty()) body += "<tr><td colspan=\"12\">No workers seen lately.</td></tr>";
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
    body += machines_html(sorted);
    return layout("Workers", body, false);
}

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
        const v1::UploadedEngine& u = version.uploaded();
        if (u.builds_size() > 0 || !u.level().empty()) {
            // One line a build per instruction-set level (docs/engines.md).
            const auto build_line = [](const std::string& level, const std::string& sha256,
                                       uint64_t size) {
                return escape_html(build_level_name(level)) + ": <code title=\"" +
                       escape_html(sha256) + "\">" + escape_html(sha256.substr(0, 12)) +
                       "</code>, " + std::to_string(size) + " bytes";
            };
            std::string builds = build_line(u.level(), u.sha256(), u.size());
            for (const v1::EngineBuild& b : u.builds())
                builds += "<br>" + build_line(b.level(), b.sha256(), b.size());
            body += row("builds", builds);
        }
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
    body += "</tbody></table>";
    // What its engine declares (UCI and uploaded versions that recorded it): the spin options
    // are what a tuning run may tune. A built-in version's options are its parameters, above.
    if (version.options_size() > 0 && !version.has_builtin()) {
        body +=
            "<h2>Engine options</h2><table class=\"grid\" id=\"engine-options\"><thead><tr>"
            "<th>option</th><th>type</th><th>default</th><th>min</th><th>max</th></tr></thead>"
            "<tbody>";
        for (const v1::EngineOption& o : version.options()) {
            const bool spin = o.type() == "spin";
            body += "<tr><td>" + escape_html(o.name()) + "</td><td>" + escape_html(o.type()) +
                    "</td><td class=\"num\">" + escape_html(o.default_value()) +
                    "</td><td class=\"num\">" + (spin ? std::to_string(o.min()) : "") +
                    "</td><td class=\"num\">" + (spin ? std::to_string(o.max()) : "") +
                    "</td></tr>";
        }
        body += "</tbody></table>";
    }
    return layout("Version " + version.name(), body, false);
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
