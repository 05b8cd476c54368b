#include "proto/worker_controls_text.h"

namespace sparring {

namespace {

std::string threads_text(uint32_t threads) {
    return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

}  // namespace

std::string worker_controls_text(const v1::WorkerControls& c) {
    std::string text;
    const auto add = [&text](const std::string& part) {
        text += (text.empty() ? "" : "; ") + part;
    };
    if (c.only_fixed_nodes()) add("only node- and depth-limited runs");
    if (!c.prefer_owner().empty()) add(c.prefer_owner() + "'s runs first");
    if (c.min_threads() > 0 && c.max_threads() > 0)
        add(c.min_threads() == c.max_threads()
                ? threads_text(c.min_threads())
                : std::to_string(c.min_threads()) + " to " + threads_text(c.max_threads()));
    else if (c.min_threads() > 0)
        add("at least " + threads_text(c.min_threads()));
    else if (c.max_threads() > 0)
        add("at most " + threads_text(c.max_threads()));
    if (!c.cpu_affinity().empty()) add("cores " + c.cpu_affinity());
    if (c.exit_when_idle_seconds() > 0)
        add("exits after " + std::to_string(c.exit_when_idle_seconds()) + " s idle");
    return text;
}

}  // namespace sparring
