#include "worker/engine_builds.h"

#include "common/engine_builds.h"
#include "match/bench_run.h"

namespace sparring::worker {

std::string choose_builds(v1::Lease& lease, std::span<const std::string> cpu_levels,
                          const RefusedBuilds& refused) {
    for (v1::Version* version : {lease.mutable_test(), lease.mutable_base()}) {
        if (!version->has_uploaded()) continue;
        v1::UploadedEngine& u = *version->mutable_uploaded();
        std::vector<std::string> levels{u.level()};
        for (const v1::EngineBuild& b : u.builds()) levels.push_back(b.level());
        const auto no = refused.find(version->id());
        const std::span<const std::string> refusals =
            no == refused.end() ? std::span<const std::string>() : std::span(no->second);
        const std::optional<size_t> best = best_build(levels, cpu_levels, refusals);
        if (!best)
            return "no build of version '" + version->name() + "' runs on this CPU (" +
                   no_build_text(levels, cpu_levels, refusals) + ")";
        if (*best > 0) {
            const v1::EngineBuild chosen = u.builds(int(*best - 1));
            u.set_sha256(chosen.sha256());
            u.set_size(chosen.size());
            u.set_archive(chosen.archive());
            u.set_entry(chosen.entry());
            u.set_level(chosen.level());
        }
        u.clear_builds();
    }
    return "";
}

std::string build_of(const v1::Version& version) {
    return version.has_uploaded() ? build_level_name(version.uploaded().level()) : "";
}

v1::GameBuilds game_builds(const v1::Lease& lease) {
    v1::GameBuilds builds;
    builds.set_test(build_of(lease.test()));
    builds.set_base(build_of(lease.base()));
    return builds;
}

void throw_if_sigill(const v1::Lease& lease, const v1::GamePair& pair) {
    for (const v1::Game* game : {&pair.first(), &pair.second()}) {
        if (game->ending() != v1::GAME_ENDING_CRASH) continue;
        const std::string& reason = game->evidence().reason();
        if (!match::died_of_sigill(reason)) continue;
        // "White's engine crashed: ...": the test version's when it had white.
        const bool white = reason.starts_with("White");
        const v1::Version& version = white == game->test_white() ? lease.test() : lease.base();
        if (!version.has_uploaded()) continue;
        throw BuildUnsupported(version.id(), build_of(version),
                               "the " + build_of(version) + " build of version '" + version.name() +
                                   "' needs a CPU this worker lacks: " + reason);
    }
}

}  // namespace sparring::worker
