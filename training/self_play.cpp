#include "training/self_play.h"

#include <algorithm>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "match/game.h"
#include "match/player.h"
#include "training/game_positions.h"

namespace sparring::training {

namespace {

// Plays count games, game i from opening_of(i) with number number_of(i), on options.threads
// threads; on_game gets each finished game under a lock. Rethrows the first failure.
void play_games(const SelfPlayOptions& options, int count,
                const std::function<SelfPlayJob(int)>& job_of,
                const std::function<void(int index, SelfPlayGame&&)>& on_game,
                const std::atomic<bool>& stop) {
    if (count < 0 || options.threads < 1 || options.nodes < 1 || options.random_plies < 0)
        throw std::invalid_argument("self-play options out of range");
    match::GameSettings settings;
    settings.time_control.kind = TimeControl::Kind::Nodes;
    settings.time_control.nodes = options.nodes;
    settings.adjudication.max_plies = options.max_plies;
    const match::PlayerSpec spec{"builtin", match::BuiltinSpec{options.params, options.hash_mb}, 0};

    std::mutex mutex;  // guards failure and the callback
    std::exception_ptr failure;
    std::atomic<bool> failed{false};
    std::atomic<int> next{0};
    auto play = [&] {
        try {
            const auto white = match::make_player(spec);
            const auto black = match::make_player(spec);
            for (int i; !stop.load() && !failed.load() && (i = next.fetch_add(1)) < count;) {
                const SelfPlayJob job = job_of(i);
                const auto game = match::play_game(*white, *black, job.opening, settings, stop);
                if (!game) break;
                SelfPlayGame played;
                played.game = job.game;
                played.result = game->outcome;
                played.positions = game_positions(*game, options.filters, &played.counts);
                const std::lock_guard lock(mutex);
                on_game(i, std::move(played));
            }
        } catch (...) {
            const std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
            failed = true;
        }
    };
    {
        std::vector<std::jthread> pool;
        for (int i = 1; i < std::min(options.threads, std::max(count, 1)); ++i)
            pool.emplace_back(play);
        play();
    }
    if (failure) std::rethrow_exception(failure);
}

// Adds a game's filter counts to a total.
void add_counts(FilterCounts& total, const FilterCounts& game) {
    total.kept += game.kept;
    total.in_check += game.in_check;
    total.tactical += game.tactical;
    total.mate_scores += game.mate_scores;
}

}  // namespace

SelfPlayResult play_self_play(const SelfPlayOptions& options,
                              const std::function<void(int games, std::size_t positions)>& on_game,
                              const std::atomic<bool>& stop) {
    std::vector<std::optional<std::vector<LabelledPosition>>> per_game(
        static_cast<std::size_t>(std::max(options.games, 0)));
    SelfPlayResult result;
    play_games(
        options, options.games,
        [&](int i) {
            const std::uint64_t game = options.first_game + static_cast<std::uint64_t>(i);
            return SelfPlayJob{game, self_play_opening(options, game)};
        },
        [&](int i, SelfPlayGame&& game) {
            ++result.games;
            add_counts(result.counts, game.counts);
            per_game[static_cast<std::size_t>(i)] = std::move(game.positions);
            if (on_game) on_game(result.games, result.counts.kept);
        },
        stop);
    for (auto& positions : per_game)
        if (positions)
            result.positions.insert(result.positions.end(), positions->begin(), positions->end());
    return result;
}

int play_self_play_games(const SelfPlayOptions& options, std::span<const SelfPlayJob> jobs,
                         const std::function<void(SelfPlayGame&&)>& on_game,
                         const std::atomic<bool>& stop) {
    int finished = 0;
    play_games(
        options, static_cast<int>(jobs.size()),
        [&](int i) { return jobs[static_cast<std::size_t>(i)]; },
        [&](int, SelfPlayGame&& game) {
            ++finished;
            on_game(std::move(game));
        },
        stop);
    return finished;
}

}  // namespace sparring::training
