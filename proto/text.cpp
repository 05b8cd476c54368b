#include "proto/text.h"

#include <algorithm>
#include <climits>

#include "common/time_control.h"

namespace sparring {

std::string time_control_text(const v1::TimeControl& in) {
    TimeControl tc;
    const auto ms = [](uint32_t value) { return int(std::min<uint32_t>(value, INT_MAX)); };
    switch (in.limit_case()) {
        case v1::TimeControl::kNodes:
            tc.kind = TimeControl::Kind::Nodes;
            tc.nodes = in.nodes();
            break;
        case v1::TimeControl::kDepth:
            tc.kind = TimeControl::Kind::Depth;
            tc.depth = ms(in.depth());
            break;
        case v1::TimeControl::kMovetimeMs:
            tc.kind = TimeControl::Kind::MoveTime;
            tc.movetime_ms = ms(in.movetime_ms());
            break;
        case v1::TimeControl::kClock:
            tc.kind = TimeControl::Kind::Clock;
            tc.base_ms = ms(in.clock().base_ms());
            tc.inc_ms = ms(in.clock().increment_ms());
            break;
        default:
            return "none";
    }
    return tc.to_string();
}

}  // namespace sparring
