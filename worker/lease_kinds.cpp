#include "worker/lease_kinds.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include "worker/engine_builds.h"
#include "worker/generate_play.h"
#include "worker/match_setup.h"
#include "worker/tune_play.h"

namespace sparring::worker {

namespace {

size_t opening_pairs(const v1::Lease& lease) {
    return size_t(lease.openings_size());
}

std::string versus(const v1::Lease& lease) {
    return lease.test().name() + " vs " + lease.base().name();
}

// Returns a reporter of finished pairs: each as the lease's report entry, kept by keep.
auto reporter(const v1::Lease& lease, const PairSink& keep) {
    return [&lease, &keep](const match::PairResult& pair) {
        v1::GamePair entry;
        pair_to_proto(pair, lease.first_pair(), &entry);
        // Never reported as the engine's crash: its build needs a CPU this worker lacks.
        throw_if_sigill(lease, entry);
        if (lease.test().has_uploaded() || lease.base().has_uploaded()) {
            *entry.mutable_first()->mutable_builds() = game_builds(lease);
            *entry.mutable_second()->mutable_builds() = game_builds(lease);
        }
        keep(std::move(entry));
    };
}

// Self-play generation: the version against itself, in-process, each game's positions kept.
bool is_generate(const v1::Lease& lease) {
    return lease.has_generate();
}
size_t generate_pairs(const v1::Lease& lease) {
    return size_t(lease.generate().game_openings_size() / 2);
}
std::string generate_plays(const v1::Lease& lease) {
    return "self-play of " + lease.test().name();
}
std::optional<PlayPairs> generate_player(const v1::Lease& lease, const match::MatchConfig*,
                                         int concurrency, std::string* error) {
    auto options = generate_options(lease, concurrency, error);
    if (!options) return std::nullopt;
    return [&lease, options = std::move(*options)](const PairSink& keep,
                                                   const std::atomic<bool>& cancel) {
        play_generate_pairs(lease, options, keep, cancel);
    };
}

// SPSA tuning: each pair the version with the pair's plus values against its minus values.
bool is_tune(const v1::Lease& lease) {
    return lease.has_tune();
}
std::optional<PlayPairs> tune_player(const v1::Lease& lease, const match::MatchConfig* match, int,
                                     std::string* error) {
    auto configs = tune_configs(lease, *match, error);
    if (!configs) return std::nullopt;
    return [&lease, configs = std::move(*configs), concurrency = match->concurrency](
               const PairSink& keep, const std::atomic<bool>& cancel) {
        play_tune_pairs(configs, pair_jobs(lease), concurrency, reporter(lease, keep), cancel);
    };
}

// Game pairs between the lease's two versions (regression and fixed-games runs).
bool is_games(const v1::Lease&) {
    return true;
}
std::optional<PlayPairs> games_player(const v1::Lease& lease, const match::MatchConfig* match, int,
                                      std::string*) {
    return [&lease, config = *match](const PairSink& keep, const std::atomic<bool>& cancel) {
        match::MatchRunner(config).play(pair_jobs(lease), {nullptr, reporter(lease, keep)}, cancel);
    };
}

const LeaseKind kinds[] = {
    {is_generate, generate_pairs, generate_plays, false, generate_player},
    {is_tune, opening_pairs, versus, true, tune_player},
    {is_games, opening_pairs, versus, true, games_player},
};

}  // namespace

const LeaseKind& lease_kind(const v1::Lease& lease) {
    return *std::find_if(std::begin(kinds), std::end(kinds),
                         [&lease](const LeaseKind& kind) { return kind.is(lease); });
}

}  // namespace sparring::worker
