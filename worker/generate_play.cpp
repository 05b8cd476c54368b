#include "worker/generate_play.h"

#include <map>

#include "proto/opening.h"
#include "training/position_filter.h"
#include "training/position_record.h"
#include "worker/match_setup.h"

namespace sparring::worker {

namespace {

// Returns a game's outcome from white's point of view, as generation runs report it.
v1::GameOutcome white_outcome(Outcome result) {
    switch (result) {
        case Outcome::Win:
            return v1::GAME_OUTCOME_WIN;
        case Outcome::Loss:
            return v1::GAME_OUTCOME_LOSS;
        case Outcome::Draw:
            return v1::GAME_OUTCOME_DRAW;
    }
    return v1::GAME_OUTCOME_DRAW;
}

// Writes a finished game as a report entry.
void game_to_proto(const training::SelfPlayGame& game, v1::Game* out) {
    out->set_outcome(white_outcome(game.result));
    out->set_test_white(true);
    out->set_positions(training::encode_positions(game.positions));
    out->set_position_count(uint32_t(game.positions.size()));
}

}  // namespace

std::optional<training::SelfPlayOptions> generate_options(const v1::Lease& lease, int concurrency,
                                                          std::string* error) {
    const v1::GenerateLease& g = lease.generate();
    if (!lease.test().has_builtin()) {
        *error = "a generation run needs the built-in engine";
        return std::nullopt;
    }
    if (lease.time_control().limit_case() != v1::TimeControl::kNodes) {
        *error = "a generation run needs a node count per move";
        return std::nullopt;
    }
    if (g.game_openings_size() == 0 || g.game_openings_size() % 2 != 0) {
        *error = "a generation lease needs two openings a pair";
        return std::nullopt;
    }
    training::SelfPlayOptions options;
    std::string why;
    const auto params = ParamSet::from_json(lease.test().builtin().params_json(), ParamSet(), &why);
    if (!params) {
        *error = "version '" + lease.test().name() + "': " + why;
        return std::nullopt;
    }
    options.params = *params;
    const std::optional<int> hash_mb = builtin_hash_mb(lease.test(), error);
    if (!hash_mb) return std::nullopt;
    if (*hash_mb > 0) options.hash_mb = *hash_mb;
    options.nodes = lease.time_control().nodes();
    const auto filters = training::parse_filter_options(g.filters(), &why);
    if (!filters) {
        *error = "filters: " + why;
        return std::nullopt;
    }
    options.filters = *filters;
    options.max_plies = g.max_plies() > 0 ? int(g.max_plies()) : options.max_plies;
    options.seed = g.seed();
    options.random_plies = int(g.random_plies());
    options.threads = std::max(concurrency, 1);
    return options;
}

void play_generate_pairs(const v1::Lease& lease, const training::SelfPlayOptions& options,
                         const std::function<void(v1::GamePair&&)>& on_pair_done,
                         const std::atomic<bool>& stop) {
    const uint64_t first_game = 2 * lease.first_pair();
    std::vector<training::SelfPlayJob> jobs;
    for (int i = 0; i < lease.generate().game_openings_size(); ++i) {
        const v1::Opening& o = lease.generate().game_openings(i);
        jobs.push_back({first_game + uint64_t(i), opening_from_proto(o)});
    }
    // A pair is reported once both its games are done; the first to finish waits here.
    std::map<uint64_t, training::SelfPlayGame> waiting;
    training::play_self_play_games(
        options, jobs,
        [&](training::SelfPlayGame&& game) {
            const uint64_t pair = game.game / 2;
            const auto it = waiting.find(game.game ^ 1);
            if (it == waiting.end()) {
                waiting.emplace(game.game, std::move(game));
                return;
            }
            const bool first_is_even = game.game % 2 == 0;
            const training::SelfPlayGame& even = first_is_even ? game : it->second;
            const training::SelfPlayGame& odd = first_is_even ? it->second : game;
            v1::GamePair entry;
            entry.set_index(uint32_t(pair - lease.first_pair()));
            game_to_proto(even, entry.mutable_first());
            game_to_proto(odd, entry.mutable_second());
            waiting.erase(it);
            on_pair_done(std::move(entry));
        },
        stop);
}

}  // namespace sparring::worker
