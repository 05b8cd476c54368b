// UCI and SAN move parsing: the first line is a FEN (the start position when it is not one),
// every further line a move in either notation. A move either parser accepts is legal, and
// writing it back and parsing that gives the same move; it is then played.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/board.h"
#include "engine/movegen.h"
#include "engine/notation.h"
#include "fuzz/check.h"

using namespace sparring;

namespace {

// Checks a parsed move against the position it was parsed in.
void check_move(const Board& board, Move m) {
    FUZZ_CHECK(MoveList<GenType::All>(board).contains(m));
    FUZZ_CHECK(parse_uci(board, to_uci(m)) == m);
    const std::string san = to_san(board, m);
    FUZZ_CHECK(!san.empty());
    FUZZ_CHECK(parse_san(board, san) == m);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::size_t first_end = text.find('\n');
    Board board;
    if (!board.set_fen(text.substr(0, first_end))) board = Board();
    if (first_end == std::string_view::npos) return 0;
    text.remove_prefix(first_end + 1);
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        const std::string_view line = text.substr(0, end);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
        const Move uci = parse_uci(board, line);
        const Move san = parse_san(board, line);
        if (uci) check_move(board, uci);
        if (san) check_move(board, san);
        if (Move m = uci ? uci : san) board.do_move(m);
    }
    return 0;
}
