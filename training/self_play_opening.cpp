#include "training/self_play_opening.h"

#include <random>
#include <stdexcept>
#include <string>

#include "common/random.h"
#include "engine/movegen.h"
#include "engine/notation.h"

namespace sparring::training {

namespace {

constexpr int OPENING_ATTEMPTS = 100;

// Returns whether the game has ended on the board by the rules.
bool game_over(const Board& board) {
    return MoveList<>(board).size() == 0 || board.is_insufficient_material() ||
           board.is_threefold_repetition() || board.is_fifty_move_draw();
}

}  // namespace

Opening self_play_opening(const SelfPlayOptions& options, std::uint64_t game) {
    // The run's seed mixed with the game number: stored games can be replayed one by one.
    std::mt19937_64 rng(splitmix64(options.seed, game));
    const Opening base = options.book.empty() ? Opening{std::string(START_FEN), {}}
                                              : options.book[rng() % options.book.size()];
    for (int attempt = 0; attempt < OPENING_ATTEMPTS; ++attempt) {
        Board board;
        if (!board.set_fen(base.fen))
            throw std::invalid_argument("bad book FEN '" + base.fen + "'");
        Opening opening = base;
        for (const std::string& text : base.moves) {
            const Move m = parse_uci(board, text);
            if (m.is_none()) throw std::invalid_argument("illegal book move '" + text + "'");
            board.do_move(m);
        }
        for (int ply = 0; ply < options.random_plies && !game_over(board); ++ply) {
            const MoveList<> moves(board);
            const Move m = *(moves.begin() + rng() % moves.size());
            opening.moves.push_back(to_uci(m));
            board.do_move(m);
        }
        if (!game_over(board)) return opening;
    }
    throw std::invalid_argument("no unfinished opening found after " +
                                std::to_string(OPENING_ATTEMPTS) + " attempts from '" + base.fen +
                                "'");
}

}  // namespace sparring::training
