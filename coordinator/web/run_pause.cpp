#include "coordinator/web/run_pause.h"

#include "coordinator/web/html.h"

namespace sparring::coordinator::web {

std::string pause_html(const v1::RunStatus& run) {
    if (!run.has_pause()) return "";
    const v1::FaultPause& p = run.pause();
    const std::string id = std::to_string(run.id());
    return "<p class=\"warning\" id=\"pause\"><strong>Paused for faults:</strong> " +
           escape_html(p.reason()) + ". Game " + std::to_string(p.example_game()) +
           " shows it (<code>sparring export " + id +
           "</code>). No worker plays the run until it is resumed: fix the engine, then <code>"
           "sparring resume " +
           id + "</code>, or raise its bound: <code>sparring resume " + id +
           " --fault-bound PERCENT%/GAMES</code>.</p>";
}

}  // namespace sparring::coordinator::web
