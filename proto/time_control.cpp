#include "proto/time_control.h"

#include <algorithm>
#include <cstdint>

namespace sparring {

namespace {

constexpr uint32_t kMaxValue = 1'000'000'000;

int capped(uint32_t value) {
    return int(std::min(value, kMaxValue));
}

}  // namespace

std::optional<TimeControl> time_control_from_proto(const v1::TimeControl& in) {
    TimeControl tc;
    switch (in.limit_case()) {
        case v1::TimeControl::kNodes:
            tc.kind = TimeControl::Kind::Nodes;
            tc.nodes = in.nodes();
            return tc;
        case v1::TimeControl::kDepth:
            tc.kind = TimeControl::Kind::Depth;
            tc.depth = capped(in.depth());
            return tc;
        case v1::TimeControl::kMovetimeMs:
            tc.kind = TimeControl::Kind::MoveTime;
            tc.movetime_ms = capped(in.movetime_ms());
            return tc;
        case v1::TimeControl::kClock:
            tc.kind = TimeControl::Kind::Clock;
            tc.base_ms = capped(in.clock().base_ms());
            tc.inc_ms = capped(in.clock().increment_ms());
            return tc;
        case v1::TimeControl::LIMIT_NOT_SET:
            break;
    }
    return std::nullopt;
}

void time_control_to_proto(const TimeControl& in, v1::TimeControl* out) {
    switch (in.kind) {
        case TimeControl::Kind::Nodes:
            out->set_nodes(in.nodes);
            break;
        case TimeControl::Kind::Depth:
            out->set_depth(uint32_t(std::max(0, in.depth)));
            break;
        case TimeControl::Kind::MoveTime:
            out->set_movetime_ms(uint32_t(std::max(0, in.movetime_ms)));
            break;
        case TimeControl::Kind::Clock:
            out->mutable_clock()->set_base_ms(uint32_t(std::max(0, in.base_ms)));
            out->mutable_clock()->set_increment_ms(uint32_t(std::max(0, in.inc_ms)));
            break;
    }
}

std::string time_control_text(const v1::TimeControl& tc) {
    const std::optional<TimeControl> read = time_control_from_proto(tc);
    return read ? read->to_string() : "none";
}

}  // namespace sparring
