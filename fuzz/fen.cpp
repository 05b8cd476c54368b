// FEN: any bytes are refused with a message or give a position whose FEN reads back as the
// same position, whose hash matches its pieces, and whose every legal move can be made and
// taken back exactly (the moves target checks their notation).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engine/board.h"
#include "engine/movegen.h"
#include "fuzz/check.h"

using namespace sparring;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Board board;
    std::string error;
    if (!board.set_fen(text, &error)) {
        FUZZ_CHECK(!error.empty());
        FUZZ_CHECK(board.fen() == START_FEN);
        return 0;
    }
    const std::string fen = board.fen();
    Board again;
    FUZZ_CHECK(again.set_fen(fen, &error));
    FUZZ_CHECK(again.fen() == fen);
    FUZZ_CHECK(again.hash() == board.hash());
    FUZZ_CHECK(board.hash() == board.compute_hash());
    for (Move m : MoveList<GenType::All>(board)) {
        FUZZ_CHECK(board.is_legal(m));
        board.do_move(m);
        FUZZ_CHECK(board.hash() == board.compute_hash());
        board.undo_move();
        FUZZ_CHECK(board.fen() == fen);
    }
    return 0;
}
