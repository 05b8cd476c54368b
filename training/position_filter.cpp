#include "training/position_filter.h"

#include <stdexcept>

#include "engine/movegen.h"
#include "engine/see.h"
#include "engine/value.h"
#include "training/parallel.h"

namespace sparring::training {

namespace {

constexpr std::size_t FILTER_CHUNK = 4096;

// Returns whether the side to move has a promotion or a capture that wins material.
bool has_winning_capture(const Board& board) {
    for (Move m : MoveList<GenType::Captures>(board))
        if (m.kind() == Move::PROMOTION || see_ge(board, m, 1)) return true;
    return false;
}

}  // namespace

FilterVerdict classify_position(const Board& board, std::optional<int> score, Move best_move,
                                const FilterOptions& options) {
    if (options.in_check && board.in_check()) return FilterVerdict::InCheck;
    if (options.mate_scores && score && is_mate_score(*score)) return FilterVerdict::MateScore;
    if (options.tactical) {
        const bool tactical =
            best_move ? board.is_capture(best_move) || best_move.kind() == Move::PROMOTION
                      : has_winning_capture(board);
        if (tactical) return FilterVerdict::Tactical;
    }
    return FilterVerdict::Keep;
}

FilterCounts filter_positions(std::vector<LabelledPosition>* positions,
                              const FilterOptions& options, int threads) {
    std::vector<FilterVerdict> verdicts(positions->size());
    for_each_chunk(
        positions->size(), FILTER_CHUNK, threads,
        [&](std::size_t, std::size_t begin, std::size_t end) {
            Board board;
            for (std::size_t i = begin; i < end; ++i) {
                const LabelledPosition& p = (*positions)[i];
                std::string error;
                if (!unpack_position(p.position, &board, &error))
                    throw std::invalid_argument("position " + std::to_string(i + 1) + ": " + error);
                const std::optional<int> score =
                    p.score ? std::optional<int>(*p.score) : std::nullopt;
                verdicts[i] = classify_position(board, score, Move::none(), options);
            }
        });
    FilterCounts counts;
    std::size_t kept = 0;
    for (std::size_t i = 0; i < positions->size(); ++i) {
        switch (verdicts[i]) {
            case FilterVerdict::Keep:
                (*positions)[kept++] = (*positions)[i];
                break;
            case FilterVerdict::InCheck:
                ++counts.in_check;
                break;
            case FilterVerdict::Tactical:
                ++counts.tactical;
                break;
            case FilterVerdict::MateScore:
                ++counts.mate_scores;
                break;
        }
    }
    positions->resize(kept);
    counts.kept = kept;
    return counts;
}

std::optional<FilterOptions> parse_filter_options(std::string_view text, std::string* error) {
    if (text == "all") return FilterOptions{};
    FilterOptions options{false, false, false};
    if (text == "none") return options;
    for (std::size_t start = 0;;) {
        const std::size_t comma = text.find(',', start);
        const std::string_view name = text.substr(start, comma - start);
        if (name == "check") {
            options.in_check = true;
        } else if (name == "tactical") {
            options.tactical = true;
        } else if (name == "mate") {
            options.mate_scores = true;
        } else {
            if (error)
                *error = "unknown filter '" + std::string(name) +
                         "'; expected check, tactical, mate, all or none";
            return std::nullopt;
        }
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return options;
}

}  // namespace sparring::training
