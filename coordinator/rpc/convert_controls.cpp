#include "coordinator/rpc/convert_controls.h"

#include <algorithm>
#include <cstdint>

#include "common/printable.h"

namespace sparring::coordinator {

namespace {

int capped(uint32_t value) {
    return int(std::min<uint32_t>(value, 1'000'000'000));
}

}  // namespace

WorkerControls worker_controls_from_proto(const v1::WorkerControls& in) {
    WorkerControls c;
    c.only_fixed_nodes = in.only_fixed_nodes();
    c.prefer_owner = valid_utf8(in.prefer_owner());
    c.min_threads = capped(in.min_threads());
    c.max_threads = capped(in.max_threads());
    c.cpu_affinity = valid_utf8(in.cpu_affinity());
    c.exit_when_idle_seconds = capped(in.exit_when_idle_seconds());
    return c;
}

void worker_controls_to_proto(const WorkerControls& in, v1::WorkerControls* out) {
    out->set_only_fixed_nodes(in.only_fixed_nodes);
    out->set_prefer_owner(in.prefer_owner);
    out->set_min_threads(uint32_t(std::max(in.min_threads, 0)));
    out->set_max_threads(uint32_t(std::max(in.max_threads, 0)));
    out->set_cpu_affinity(in.cpu_affinity);
    out->set_exit_when_idle_seconds(uint32_t(std::max(in.exit_when_idle_seconds, 0)));
}

}  // namespace sparring::coordinator
