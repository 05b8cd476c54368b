#include "cli/fault_display.h"

#include "common/flags.h"

namespace sparring::cli {

FaultBound parse_fault_bound_flag(const std::string& text) {
    std::string error;
    const std::optional<FaultBound> bound = parse_fault_bound(text, &error);
    if (!bound) throw UsageError("--fault-bound: " + error);
    return *bound;
}

void fault_bound_to_proto(const FaultBound& bound, v1::FaultBound* out) {
    out->set_percent(uint32_t(bound.percent));
    out->set_min_games(uint64_t(bound.min_games));
    out->set_off(bound.off);
}

std::string bound_text(const v1::FaultBound& bound) {
    return fault_bound_text(
        FaultBound{int(bound.percent()), int64_t(bound.min_games()), bound.off()});
}

void add_fault_rows(const v1::RunStatus& run, std::vector<std::vector<std::string>>& rows) {
    if (run.spec().has_fault_bound())
        rows.push_back({"fault bound", bound_text(run.spec().fault_bound()) + "  (" +
                                           std::to_string(run.bound_faulty_games()) +
                                           " faulty of " + std::to_string(run.bound_games()) +
                                           " games counted against it)"});
    if (!run.has_pause()) return;
    const v1::FaultPause& p = run.pause();
    rows.push_back({"PAUSED", p.reason()});
    rows.push_back({"resume", "fix the engine, then `sparring resume " + std::to_string(run.id()) +
                                  "`, or raise the bound: `sparring resume " +
                                  std::to_string(run.id()) + " --fault-bound PERCENT%/GAMES`"});
}

}  // namespace sparring::cli
