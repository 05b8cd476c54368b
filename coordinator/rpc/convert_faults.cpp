// Conversions of fault pauses: a run's fault bound, and why the coordinator paused it.
#include <algorithm>

#include "coordinator/rpc/convert.h"

namespace sparring::coordinator {

FaultBound fault_bound_from_proto(const v1::FaultBound& in) {
    // Out-of-range values are kept out of range (clamped only to fit), for the core to refuse.
    return FaultBound{int(std::min<uint32_t>(in.percent(), 1'000'000)),
                      int64_t(std::min<uint64_t>(in.min_games(), uint64_t(1) << 62)), in.off()};
}

void fault_bound_to_proto(const FaultBound& in, v1::FaultBound* out) {
    out->set_percent(uint32_t(std::max(0, in.percent)));
    out->set_min_games(uint64_t(std::max<int64_t>(0, in.min_games)));
    out->set_off(in.off);
}

void fault_state_to_proto(const Run& run, const RunFaults& in, v1::RunStatus* out) {
    out->set_bound_faulty_games(uint64_t(std::max<int64_t>(0, in.faults)));
    out->set_bound_games(uint64_t(std::max<int64_t>(0, 2 * run.counts.pairs - in.from_games)));
    if (!in.pause || run.state != RunState::Paused) return;
    const FaultPause& p = *in.pause;
    v1::FaultPause* pause = out->mutable_pause();
    pause->set_version(p.version);
    pause->set_engine(p.engine);
    pause->set_fault(v1::GameEnding(int(p.fault)));
    pause->set_fault_games(uint64_t(p.fault_games));
    pause->set_faulty_games(uint64_t(p.faulty_games));
    pause->set_games(uint64_t(p.games));
    pause->set_example_game(p.example_game);
    pause->set_paused_unix_ms(p.paused_ms);
    pause->set_reason(p.reason);
}

}  // namespace sparring::coordinator
