#include "coordinator/domain/run_events.h"

#include <cstdio>
#include <string>

#include "common/log.h"
#include "coordinator/domain/text.h"

namespace sparring::coordinator {

namespace {

// Returns a real number with two decimals.
std::string fixed2(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

}  // namespace

void RunEvents::poll(Core& core, Storage& storage, int expired_leases) {
    if (expired_leases > 0)
        log_event(LogLevel::Warn, "leases_expired",
                  {{"count", std::to_string(expired_leases)},
                   {"why", "no heartbeat or report within the lease time"}});
    std::set<int64_t> now_active;
    for (const Run& run : core.list_runs(storage, {RunState::Active}, 0)) now_active.insert(run.id);
    if (!first_) {
        for (const int64_t id : active_) {
            if (now_active.count(id)) continue;
            const absl::StatusOr<Run> run = core.get_run(storage, id);
            if (!run.ok() || run->state == RunState::Active) continue;
            log_event(LogLevel::Info, "run_ended",
                      {{"run", std::to_string(id)},
                       {"state", std::string(run_state_name(run->state))},
                       {"result", run->result},
                       {"games",
                        std::to_string(run->counts.wins + run->counts.draws + run->counts.losses)},
                       {"elo", fixed2(run->elo.elo)},
                       {"llr", fixed2(run->sprt.llr)}});
        }
    }
    first_ = false;
    active_ = std::move(now_active);
}

}  // namespace sparring::coordinator
