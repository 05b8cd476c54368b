#include "training/game_positions.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/value.h"

namespace sparring::training {

namespace {

// Classifies the position before best_move and appends it to *out when it is kept; throws
// std::invalid_argument when it cannot be packed.
void add_position(const Board& board, std::optional<int> white_cp, Move best_move, Outcome result,
                  const FilterOptions& filters, FilterCounts* counts,
                  std::vector<LabelledPosition>* out) {
    switch (classify_position(board, white_cp, best_move, filters)) {
        case FilterVerdict::InCheck:
            ++counts->in_check;
            return;
        case FilterVerdict::Tactical:
            ++counts->tactical;
            return;
        case FilterVerdict::MateScore:
            ++counts->mate_scores;
            return;
        case FilterVerdict::Keep:
            break;
    }
    std::string error;
    const auto packed = pack_position(board, &error);
    if (!packed) throw std::invalid_argument(board.fen() + ": " + error);
    std::optional<std::int16_t> score;
    if (white_cp) {
        constexpr int LIMIT = std::numeric_limits<std::int16_t>::max();
        score = static_cast<std::int16_t>(std::clamp(*white_cp, -LIMIT, LIMIT));
    }
    out->push_back({*packed, result, score});
    ++counts->kept;
}

// Returns the board of a game's start position; throws std::invalid_argument for a bad FEN.
Board start_board(const std::string& fen) {
    Board board;
    std::string error;
    if (!board.set_fen(fen, &error)) throw std::invalid_argument(error);
    return board;
}

}  // namespace

int engine_score_cp(const match::EngineScore& score) {
    if (!score.mate) return score.value;
    return score.value > 0 ? mate_in(2 * score.value - 1) : mated_in(-2 * score.value);
}

std::vector<LabelledPosition> game_positions(const match::GameResult& game,
                                             const FilterOptions& filters, FilterCounts* counts) {
    std::vector<LabelledPosition> positions;
    Board board = start_board(game.start_fen);
    for (const match::PlayedMove& played : game.moves) {
        if (!played.book && played.score) {
            const int cp = engine_score_cp(*played.score);
            add_position(board, board.side() == WHITE ? cp : -cp, played.move, game.outcome,
                         filters, counts, &positions);
        }
        board.do_move(played.move);
    }
    return positions;
}

std::vector<LabelledPosition> pgn_game_positions(const match::PgnGame& game, int skip_plies,
                                                 const FilterOptions& filters,
                                                 FilterCounts* counts) {
    std::vector<LabelledPosition> positions;
    const std::optional<Outcome> result = parse_pgn_result(game.result);
    if (!result) return positions;
    Board board = start_board(game.start_fen);
    for (std::size_t ply = 0; ply < game.moves.size(); ++ply) {
        if (static_cast<int>(ply) >= skip_plies)
            add_position(board, std::nullopt, game.moves[ply], *result, filters, counts,
                         &positions);
        board.do_move(game.moves[ply]);
    }
    return positions;
}

}  // namespace sparring::training
