// The match runner: plays pairs of games (one opening, colours reversed) between two players
// on N threads, and reports each finished pair. Used by `sparring match` and by the worker.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/opening.h"
#include "match/adjudication.h"
#include "match/game.h"
#include "match/player.h"

namespace sparring::match {

struct PgnOptions {
    bool record = false;  // fill GameResult::pgn
    std::string event = "Sparring match";
    std::string site = "?";
    bool comments = true;                                         // eval/depth/time comments
    std::vector<std::pair<std::string, std::string>> extra_tags;  // after TimeControl
};

struct MatchConfig {
    PlayerSpec first;   // "A": pair results are from its point of view
    PlayerSpec second;  // "B"
    TimeControl time_control;
    Adjudication adjudication;
    int concurrency = 1;  // games played at once, one thread each
    // The cores each game at once is pinned to: the i-th thread's game, its engines and their
    // processes run on cpu_sets[i] (none: unpinned; a set the machine refuses: unpinned).
    std::vector<std::vector<int>> cpu_sets;
    int stall_timeout_ms = 30000;  // untimed controls: longest wait for a move
    PgnOptions pgn;
};

// One pair to play: both colours of one opening. index numbers the pair in its match
// (PGN rounds 2*index+1 and 2*index+2) and is handed back with the result.
struct PairJob {
    std::uint64_t index = 0;
    Opening opening;
};

struct PairResult {
    std::uint64_t index = 0;
    std::array<GameResult, 2> games;  // games[0]: A has white, games[1]: B has white

    // Returns A's score in one game in half points: 0 loss, 1 draw, 2 win.
    int first_half_points(int game) const;
    // Returns the pentanomial slot from A's point of view: A's half points over both games,
    // 0 = LL, 1 = LD, 2 = DD or WL, 3 = WD, 4 = WW.
    int pentanomial_index() const { return first_half_points(0) + first_half_points(1); }
};

// Pins the calling thread (and the processes it starts from then on) to cores; false when
// none of them can be had.
bool pin_thread(const std::vector<int>& cores);
// Returns the cores this process may run on.
std::vector<int> allowed_cores();
// Returns `games` sets of `threads` of cores each, in order, for MatchConfig::cpu_sets; none
// when cores hold fewer (a machine told to play more games at once than it has cores).
std::vector<std::vector<int>> split_cores(const std::vector<int>& cores, int games, int threads);

// Builds count jobs numbered first, first + 1, ...; job i plays book[order[i % size]].
std::vector<PairJob> make_pair_jobs(const std::vector<Opening>& book,
                                    const std::vector<std::size_t>& order, std::uint64_t first,
                                    std::uint64_t count);

class MatchRunner {
  public:
    struct Callbacks {
        std::function<void(const GameResult&)> on_game_done;  // optional
        std::function<void(const PairResult&)> on_pair_done;  // optional
    };

    // Takes the config; throws std::invalid_argument for a concurrency or timeout below 1.
    explicit MatchRunner(MatchConfig config);

    // Starts each external engine once and runs its UCI handshake, so a bad command or
    // option fails before the match; returns false with *error naming the engine.
    bool check_players(std::string* error) const;
    // Plays every job's two games on config().concurrency threads, games of different pairs
    // interleaved; callbacks run one at a time on those threads. Once stop becomes true no
    // game starts and unfinished ones are abandoned. Returns the number of finished pairs.
    std::size_t play(std::span<const PairJob> jobs, const Callbacks& callbacks,
                     const std::atomic<bool>& stop) const;
    // Plays one job's two games on this thread between players the caller keeps (first has
    // white in the first game), so that engines can outlive a pair (see Player::reconfigure);
    // returns nullopt once stop is set.
    std::optional<PairResult> play_pair(Player& first, Player& second, const PairJob& job,
                                        const std::atomic<bool>& stop) const;

  private:
    MatchConfig config_;
};

}  // namespace sparring::match
