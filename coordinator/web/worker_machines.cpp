#include "coordinator/web/worker_machines.h"

#include "coordinator/web/html.h"
#include "proto/worker_identity_text.h"

namespace sparring::coordinator::web {

std::string worker_class_cell(const v1::WorkerStatus& w) {
    if (w.cpu_class().empty()) return "-";
    return "<span class=\"cpu-class\">" + escape_html(w.cpu_class()) +
           "</span><div class=\"desc\">" + escape_html(identity_cpu_text(w.identity())) + "</div>";
}

std::string machines_html(const std::vector<const v1::WorkerStatus*>& workers) {
    std::string rows;
    for (const v1::WorkerStatus* w : workers) {
        if (!w->has_identity()) continue;
        rows += "<tr><td>" + std::to_string(w->id()) + " " + escape_html(w->name()) + "</td>";
        std::string parts;
        for (const auto& [label, text] : identity_lines(w->identity(), w->cpu_class()))
            parts += "<div><span class=\"label\">" + escape_html(label) + "</span> " +
                     escape_html(text) + "</div>";
        rows += "<td class=\"machine\">" + parts + "</td></tr>";
    }
    if (rows.empty()) return "";
    return "<h2 id=\"machines\">Machines</h2><p>What each worker reported of its machine when it "
           "registered. Its CPU class (docs/operations.md, \"CPU classes\") is recorded with every "
           "report; a run's result is broken down by it.</p><table class=\"grid\"><thead><tr>"
           "<th>worker</th><th>machine</th></tr></thead><tbody>" +
           rows + "</tbody></table>";
}

}  // namespace sparring::coordinator::web
