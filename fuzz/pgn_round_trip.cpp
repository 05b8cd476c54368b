// PGN written and read back: the input chooses a game (start position, player names, the
// legal moves by index, book flags, scores, outcome, termination and reason); write_pgn's
// text must read back as exactly that game (names with control characters as spaces), and
// as nothing more.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>

#include "engine/board.h"
#include "engine/movegen.h"
#include "fuzz/check.h"
#include "match/pgn.h"

using namespace sparring;
using namespace sparring::match;

namespace {

// Start positions with castling rights, en passant, promotions and black to move.
constexpr std::string_view START_POSITIONS[] = {
    START_FEN,
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "8/2P5/8/8/8/8/5kp1/K7 b - - 0 57",
};

// Takes bytes from the front of the input.
class Input {
  public:
    Input(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
    bool empty() const { return size_ == 0; }
    std::uint8_t byte() {
        if (size_ == 0) return 0;
        --size_;
        return *data_++;
    }
    // Returns a string of up to 255 bytes, its length given by the first byte.
    std::string text() {
        std::size_t length = std::min<std::size_t>(byte(), size_);
        std::string out(reinterpret_cast<const char*>(data_), length);
        data_ += length;
        size_ -= length;
        return out;
    }

  private:
    const std::uint8_t* data_;
    std::size_t size_;
};

// Returns a name as its PGN tag holds it: control characters become spaces.
std::string as_tag(std::string text) {
    for (char& c : text)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    return text;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    Input input(data, size);
    const std::uint8_t flags = input.byte();
    GameResult game;
    game.outcome = Outcome(std::min(flags & 3, 2));
    game.termination = Termination((flags >> 3) % (int(Termination::Stalled) + 1));
    PgnContext context;
    context.comments = (flags & 4) != 0;
    Board board;
    board.set_fen(START_POSITIONS[input.byte() % std::size(START_POSITIONS)]);
    game.start_fen = board.fen();
    game.white = input.text();
    game.black = input.text();
    game.reason = input.text();
    while (!input.empty()) {
        const MoveList<GenType::All> legal(board);
        if (legal.size() == 0) break;
        PlayedMove played;
        played.move = *(legal.begin() + input.byte() % legal.size());
        const std::uint8_t detail = input.byte();
        played.book = (detail & 1) != 0;
        if (detail & 2)
            played.score = EngineScore{int(std::int8_t(detail)) * 37, (detail & 4) != 0};
        played.depth = detail >> 3;
        played.time_ms = detail * 13;
        board.do_move(played.move);
        game.moves.push_back(played);
    }

    const std::string pgn = write_pgn(game, context);
    std::istringstream in(pgn);
    PgnReader reader(in, "round-trip");
    PgnGame read;
    std::string error;
    const PgnReader::Status status = reader.next(&read, &error);
    if (status != PgnReader::Status::Game)
        std::fprintf(stderr, "%s\n%s\n", error.c_str(), pgn.c_str());
    FUZZ_CHECK(status == PgnReader::Status::Game);
    FUZZ_CHECK(read.start_fen == game.start_fen);
    FUZZ_CHECK(read.moves.size() == game.moves.size());
    for (std::size_t i = 0; i < read.moves.size(); ++i)
        FUZZ_CHECK(read.moves[i] == game.moves[i].move);
    FUZZ_CHECK(read.result == pgn_result(game.outcome));
    FUZZ_CHECK(read.tag("White") == as_tag(game.white));
    FUZZ_CHECK(read.tag("Black") == as_tag(game.black));
    FUZZ_CHECK(read.tag("PlyCount") == std::to_string(game.moves.size()));
    FUZZ_CHECK(reader.next(&read, &error) == PgnReader::Status::End);
    return 0;
}
