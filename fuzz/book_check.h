// What every opening a book reader returns must be: a position the board accepts and moves
// that are legal from it, one after another.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/opening.h"
#include "engine/board.h"
#include "engine/notation.h"
#include "fuzz/check.h"

namespace sparring::fuzz {

// Checks a book's openings, or, when there is no book, that the reader said why.
inline void check_book(const std::optional<std::vector<Opening>>& book, const std::string& error) {
    if (!book) {
        FUZZ_CHECK(!error.empty());
        return;
    }
    for (const Opening& opening : *book) {
        Board board;
        FUZZ_CHECK(board.set_fen(opening.fen));
        for (const std::string& text : opening.moves) {
            const Move m = parse_uci(board, text);
            FUZZ_CHECK(m);
            board.do_move(m);
        }
    }
}

}  // namespace sparring::fuzz
