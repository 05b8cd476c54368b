#include "match/runner.h"

#include <pthread.h>
#include <sched.h>

#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>

#include "engine/board.h"
#include "engine/notation.h"
#include "match/pgn.h"

namespace sparring::match {

namespace {

// Throws std::invalid_argument unless the opening is a legal position and legal moves.
void check_opening(const Opening& opening, std::uint64_t index) {
    Board board;
    std::string why;
    if (!board.set_fen(opening.fen, &why))
        throw std::invalid_argument("pair " + std::to_string(index) + ": bad opening FEN '" +
                                    opening.fen + "': " + why);
    for (const std::string& text : opening.moves) {
        Move m = parse_uci(board, text);
        if (m.is_none())
            throw std::invalid_argument("pair " + std::to_string(index) +
                                        ": illegal opening move '" + text + "'");
        board.do_move(m);
    }
}

// Returns A's half points in a game where A had the given colour.
int first_half_points_of(const GameResult& game, Color first_color) {
    return half_points(first_color == WHITE ? game.outcome : flipped(game.outcome));
}

}  // namespace

// Scores game 0 with A as white and game 1 with A as black.
int PairResult::first_half_points(int game) const {
    return first_half_points_of(games[game], game == 0 ? WHITE : BLACK);
}

// Numbers the jobs and walks the book in the given order, wrapping around.
std::vector<PairJob> make_pair_jobs(const std::vector<Opening>& book,
                                    const std::vector<std::size_t>& order, std::uint64_t first,
                                    std::uint64_t count) {
    std::vector<PairJob> jobs;
    if (order.empty()) return jobs;
    jobs.reserve(count);
    for (std::uint64_t i = first; i < first + count; ++i)
        jobs.push_back(PairJob{i, book.at(order[i % order.size()])});
    return jobs;
}

// Keeps the config after checking its numbers.
MatchRunner::MatchRunner(MatchConfig config) : config_(std::move(config)) {
    if (config_.concurrency < 1) throw std::invalid_argument("concurrency must be at least 1");
    if (config_.stall_timeout_ms < 1)
        throw std::invalid_argument("the stall timeout must be positive");
}

// Runs a handshake with each external engine, then lets it go.
bool MatchRunner::check_players(std::string* error) const {
    for (const PlayerSpec* spec : {&config_.first, &config_.second}) {
        if (!std::holds_alternative<UciSpec>(spec->engine)) continue;
        std::string why;
        if (!make_player(*spec)->new_game(&why)) {
            if (error) *error = "engine '" + spec->name + "': " + why;
            return false;
        }
    }
    return true;
}

// Hands games out to the threads one by one and gathers them into pairs.
namespace {

// Returns the PGN tags a match's games share.
PgnContext pgn_context_of(const MatchConfig& config) {
    PgnContext context;
    context.event = config.pgn.event;
    context.site = config.pgn.site;
    context.date = pgn_date_today();
    context.time_control = config.time_control.pgn_tag();
    context.comments = config.pgn.comments;
    context.extra_tags = config.pgn.extra_tags;
    return context;
}

// Plays game game_index (0: first has white) of a job, with its PGN when asked.
std::optional<GameResult> play_job_game(const MatchConfig& config, const PgnContext& pgn_context,
                                        Player& first, Player& second, const PairJob& job,
                                        int game_index, const std::atomic<bool>& stop) {
    const GameSettings settings{config.time_control, config.adjudication, config.stall_timeout_ms};
    Player& white = game_index == 0 ? first : second;
    Player& black = game_index == 0 ? second : first;
    std::optional<GameResult> game = play_game(white, black, job.opening, settings, stop);
    if (game && config.pgn.record) {
        PgnContext context = pgn_context;
        context.round = std::to_string(2 * job.index + uint64_t(game_index) + 1);
        const PlayerSpec& white_spec = game_index == 0 ? config.first : config.second;
        const PlayerSpec& black_spec = game_index == 0 ? config.second : config.first;
        if (!white_spec.build.empty())
            context.extra_tags.emplace_back("WhiteBuild", white_spec.build);
        if (!black_spec.build.empty())
            context.extra_tags.emplace_back("BlackBuild", black_spec.build);
        game->pgn = write_pgn(*game, context);
    }
    return game;
}

}  // namespace

bool pin_thread(const std::vector<int>& cores) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (const int core : cores)
        if (core >= 0 && core < CPU_SETSIZE) CPU_SET(core, &set);
    return CPU_COUNT(&set) > 0 && pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

std::vector<int> allowed_cores() {
    cpu_set_t set;
    CPU_ZERO(&set);
    std::vector<int> cores;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return cores;
    for (int core = 0; core < CPU_SETSIZE; ++core)
        if (CPU_ISSET(core, &set)) cores.push_back(core);
    return cores;
}

std::vector<std::vector<int>> split_cores(const std::vector<int>& cores, int games, int threads) {
    if (games < 1 || threads < 1 || cores.size() < std::size_t(games) * std::size_t(threads))
        return {};
    std::vector<std::vector<int>> sets(static_cast<std::size_t>(games));
    for (std::size_t game = 0; game < sets.size(); ++game)
        sets[game].assign(cores.begin() + std::ptrdiff_t(game * std::size_t(threads)),
                          cores.begin() + std::ptrdiff_t((game + 1) * std::size_t(threads)));
    return sets;
}

std::optional<PairResult> MatchRunner::play_pair(Player& first, Player& second, const PairJob& job,
                                                 const std::atomic<bool>& stop) const {
    check_opening(job.opening, job.index);
    const PgnContext pgn_context = pgn_context_of(config_);
    PairResult pair{job.index, {}};
    for (int game_index = 0; game_index < 2; ++game_index) {
        std::optional<GameResult> game =
            play_job_game(config_, pgn_context, first, second, job, game_index, stop);
        if (!game) return std::nullopt;
        pair.games[size_t(game_index)] = std::move(*game);
    }
    return pair;
}

std::size_t MatchRunner::play(std::span<const PairJob> jobs, const Callbacks& callbacks,
                              const std::atomic<bool>& stop) const {
    for (const PairJob& job : jobs) check_opening(job.opening, job.index);
    const PgnContext pgn_context = pgn_context_of(config_);

    struct PairSlot {
        std::array<std::optional<GameResult>, 2> games;
    };
    std::vector<PairSlot> slots(jobs.size());
    std::mutex mutex;  // guards slots, finished, failure and the callbacks
    std::size_t finished = 0;
    std::exception_ptr failure;
    std::atomic<std::size_t> next_game{0};
    std::atomic<bool> failed{false};
    const std::size_t total_games = 2 * jobs.size();

    auto worker = [&](std::size_t thread_index) {
        // Engine processes started from this thread inherit its cores.
        if (!config_.cpu_sets.empty())
            pin_thread(config_.cpu_sets[thread_index % config_.cpu_sets.size()]);
        try {
            std::unique_ptr<Player> first = make_player(config_.first);
            std::unique_ptr<Player> second = make_player(config_.second);
            while (!stop.load() && !failed.load()) {
                std::size_t task = next_game.fetch_add(1);
                if (task >= total_games) break;
                const PairJob& job = jobs[task / 2];
                const int game_index = static_cast<int>(task % 2);
                std::optional<GameResult> game =
                    play_job_game(config_, pgn_context, *first, *second, job, game_index, stop);
                if (!game) break;
                std::lock_guard lock(mutex);
                if (callbacks.on_game_done) callbacks.on_game_done(*game);
                PairSlot& slot = slots[task / 2];
                slot.games[game_index] = std::move(*game);
                if (slot.games[0] && slot.games[1]) {
                    PairResult pair{job.index,
                                    {std::move(*slot.games[0]), std::move(*slot.games[1])}};
                    slot.games = {};
                    ++finished;
                    if (callbacks.on_pair_done) callbacks.on_pair_done(pair);
                }
            }
        } catch (...) {
            std::lock_guard lock(mutex);
            if (!failure) failure = std::current_exception();
            failed = true;
        }
    };

    const std::size_t thread_count =
        std::min<std::size_t>(static_cast<std::size_t>(config_.concurrency), total_games);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < thread_count; ++i) threads.emplace_back(worker, i);
    for (std::thread& thread : threads) thread.join();
    if (failure) std::rethrow_exception(failure);
    return finished;
}

}  // namespace sparring::match
