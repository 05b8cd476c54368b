// Conversion of a tuning run's trajectory (its spec, status and leases are the tune module's).
#include "coordinator/rpc/convert.h"

namespace sparring::coordinator {

void tune_history_to_proto(const TuneHistory& in, v1::TuneHistory* out) {
    for (const spsa::Param& p : in.state.params) out->add_names(p.name);
    for (const TunePoint& point : in.points) {
        v1::TunePoint* p = out->add_points();
        p->set_pairs(uint64_t(point.pairs));
        p->set_unix_ms(point.recorded_ms);
        p->mutable_values()->Add(point.values.begin(), point.values.end());
    }
}

}  // namespace sparring::coordinator
