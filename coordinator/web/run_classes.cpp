#include "coordinator/web/run_classes.h"

#include "common/numbers.h"
#include "coordinator/web/html.h"

namespace sparring::coordinator::web {

std::string classes_html(const v1::RunStatus& run) {
    const bool known = run.classes_size() > 1 ||
                       (run.classes_size() == 1 && run.classes(0).cpu_class() != "unknown");
    if (!known) return "";
    std::string out;
    // Every cell that comes from a worker's reported identity is escaped.
    for (const v1::ClassFinding& f : run.class_findings())
        out += "<p class=\"warning class-finding\"><strong>Class finding:</strong> " +
               escape_html(f.text()) +
               " <span class=\"desc\">For the owner to judge: a class of machines may play the "
               "versions differently; it is not purged (docs/statistics.md, \"CPU "
               "classes\").</span></p>";
    out +=
        "<h2 id=\"classes\">CPU classes</h2><table class=\"grid\" id=\"class-table\"><thead><tr>"
        "<th>class</th><th>workers</th><th>games</th><th>W / D / L</th><th>Elo (95%)</th>"
        "<th>time losses</th></tr></thead><tbody>";
    for (const v1::ClassResult& c : run.classes())
        out += "<tr><td>" + escape_html(c.cpu_class()) + "</td><td class=\"num\">" +
               std::to_string(c.workers()) + "</td><td class=\"num\">" + grouped(c.games()) +
               "</td><td class=\"num\">" + grouped(c.wins()) + " / " + grouped(c.draws()) + " / " +
               grouped(c.losses()) + "</td><td class=\"num\">" + signed_fixed(c.elo(), 1) + " ± " +
               fixed((c.elo_high() - c.elo_low()) / 2, 1) + "</td><td class=\"num\">" +
               grouped(c.time_losses()) + "</td></tr>";
    out +=
        "</tbody></table><p class=\"note\">The run's result on each CPU class of its workers. "
        "Each worker's fit and time losses below are tested against the rest of its own class, "
        "so a class that plays differently is never quarantined as bad; a class whose result "
        "differs from the rest's beyond chance is a finding above.</p>";
    return out;
}

}  // namespace sparring::coordinator::web
