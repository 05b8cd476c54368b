#include "match/book_generator.h"

#include <cstdlib>
#include <random>
#include <set>

#include "engine/board.h"
#include "engine/engine.h"
#include "engine/movegen.h"
#include "engine/notation.h"

namespace sparring::match {

namespace {

// Returns the first four fields of a FEN: the position without its move counters.
std::string epd_of(const Board& board) {
    std::string fen = board.fen();
    std::size_t cut = 0;
    for (int field = 0; field < 4 && cut != std::string::npos; ++field)
        cut = fen.find(' ', cut + (field > 0));
    return cut == std::string::npos ? fen : fen.substr(0, cut);
}

}  // namespace

// Plays random openings and keeps the balanced, new ones until enough are found.
std::vector<BookPosition> generate_book(const BookGeneratorOptions& options,
                                        const std::function<void(int)>& on_found) {
    // Candidates come from a generator whose output the standard fixes, moves are taken in
    // generation order, and every search starts from a cleared engine with a node limit,
    // so the same options and engine give the same book on any machine.
    std::mt19937_64 random(options.seed);
    Engine engine(Engine::Options{1, options.params});
    std::set<std::string> seen = options.exclude;
    std::vector<BookPosition> book;
    const long long max_attempts = 1000LL * options.positions;
    const int span = options.max_plies - options.min_plies + 1;
    for (long long attempt = 0;
         attempt < max_attempts && static_cast<int>(book.size()) < options.positions; ++attempt) {
        Board board;
        const int plies = options.min_plies + static_cast<int>(random() % span);
        bool playable = true;
        for (int ply = 0; ply < plies && playable; ++ply) {
            MoveList<> moves(board);
            playable = moves.size() > 0;
            if (playable) board.do_move(*(moves.begin() + random() % moves.size()));
        }
        if (!playable || board.in_check() || MoveList<>(board).size() == 0) continue;
        std::string epd = epd_of(board);
        if (seen.count(epd)) continue;
        Board position;
        position.set_fen(epd + " 0 1");
        engine.new_game();
        engine.set_position(position);
        SearchLimits limits;
        limits.nodes = options.nodes;
        SearchResult result = engine.search(limits);
        if (result.mate || std::abs(result.score) > options.max_score_cp) continue;
        seen.insert(epd);
        book.push_back(BookPosition{std::move(epd), result.score});
        if (on_found) on_found(static_cast<int>(book.size()));
    }
    return book;
}

std::set<std::string> book_positions(const std::vector<Opening>& book) {
    std::set<std::string> positions;
    for (const Opening& opening : book) {
        Board board;
        if (!board.set_fen(opening.fen)) continue;
        for (const std::string& text : opening.moves) {
            const Move move = parse_uci(board, text);
            if (move == Move::none()) break;
            board.do_move(move);
        }
        positions.insert(epd_of(board));
    }
    return positions;
}

// Writes one EPD line per position.
void write_epd(std::ostream& out, const std::vector<BookPosition>& positions) {
    for (const BookPosition& position : positions)
        out << position.epd << " ce " << position.score_cp << ";\n";
}

}  // namespace sparring::match
