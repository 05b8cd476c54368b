#include "coordinator/domain/worker_controls.h"

#include <optional>

#include "common/printable.h"
#include "coordinator/domain/scheduler.h"
#include "coordinator/domain/validation.h"

namespace sparring::coordinator {

namespace {

std::string threads_text(int threads) {
    return std::to_string(threads) + (threads == 1 ? " thread" : " threads");
}

}  // namespace

std::string WorkerControls::threads_range() const {
    if (min_threads > 0 && max_threads > 0)
        return min_threads == max_threads
                   ? threads_text(min_threads)
                   : std::to_string(min_threads) + " to " + threads_text(max_threads);
    if (min_threads > 0) return "at least " + threads_text(min_threads);
    if (max_threads > 0) return "at most " + threads_text(max_threads);
    return "";
}

std::optional<Decline> controls_decline(const RunCandidate& run, const WorkerControls& controls) {
    if (controls.only_fixed_nodes && !run.fixed_nodes)
        return Decline{WaitReason::NodesOnly, "plays only node- and depth-limited runs",
                       "only node- and depth-limited runs"};
    if (!controls.takes_threads(run.threads))
        return Decline{WaitReason::Threads,
                       "takes runs of " + controls.threads_range() + " a game, the run has " +
                           std::to_string(run.threads),
                       "no runs of " + threads_text(run.threads) + " a game"};
    return std::nullopt;
}

absl::Status check_worker_controls(const WorkerControls& c) {
    if (!c.prefer_owner.empty())
        if (absl::Status name = check_name("the worker's preferred owner", c.prefer_owner,
                                           WorkerControls::kMaxText);
            !name.ok())
            return name;
    if (c.cpu_affinity.size() > WorkerControls::kMaxText || has_control(c.cpu_affinity))
        return absl::InvalidArgumentError(
            "the worker's CPU affinity is over 256 bytes or holds a control character");
    for (const int threads : {c.min_threads, c.max_threads})
        if (threads < 0 || threads > 1024)
            return absl::InvalidArgumentError("the worker's threads bounds must be in 0..1024");
    if (c.min_threads > 0 && c.max_threads > 0 && c.min_threads > c.max_threads)
        return absl::InvalidArgumentError("the worker's least threads (" +
                                          std::to_string(c.min_threads) + ") are over its most (" +
                                          std::to_string(c.max_threads) + ")");
    if (c.exit_when_idle_seconds < 0 || c.exit_when_idle_seconds > 30 * 86400)
        return absl::InvalidArgumentError("the worker's idle exit must be in 0..2592000 s");
    return absl::OkStatus();
}

bool preferred_run(const RunCandidate& run, const WorkerProfile& worker) {
    return !worker.controls.prefer_owner.empty() && run.owner == worker.controls.prefer_owner;
}

}  // namespace sparring::coordinator
