#include "coordinator/web/run_waiting.h"

#include "coordinator/web/html.h"

namespace sparring::coordinator::web {

bool run_waits(const v1::RunStatus& run) {
    return run.state() == v1::RUN_STATE_ACTIVE && run.active_workers() == 0 &&
           run.waiting_size() > 0;
}

std::string shown_state(const v1::RunStatus& run) {
    // The pause's sentence has a banner of its own on the run's page, a line in the list.
    if (run.state() == v1::RUN_STATE_PAUSED) return "paused for faults";
    if (!run.result().empty()) return run.result();
    return run_waits(run) ? "waiting" : state_name(run.state());
}

std::string waiting_text(const v1::RunStatus& run) {
    std::string text;
    for (const v1::WaitingReason& reason : run.waiting())
        text += (text.empty() ? "" : "; ") + reason.line();
    if (text.empty()) return text;
    // A run some workers play: the others' reasons, which keep it from more of them.
    return (run_waits(run) ? "Waiting: " : "Declined by other workers: ") + text;
}

std::string declined_html(const v1::WorkerStatus& worker) {
    std::string out;
    for (const v1::DeclinedRun& d : worker.declined()) {
        const std::string id = std::to_string(d.run_id());
        out += "<div class=\"desc\">declines <a href=\"/runs/" + id + "\">run " + id +
               "</a>: " + escape_html(d.text()) + "</div>";
    }
    return out;
}

}  // namespace sparring::coordinator::web
