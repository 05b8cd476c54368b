#include "match/opening_book.h"

#include <fstream>
#include <sstream>

#include "engine/board.h"
#include "engine/notation.h"
#include "match/pgn.h"

namespace sparring::match {

// Reads the book line by line, each position normalised through the board.
std::optional<std::vector<Opening>> read_epd_book(std::istream& in, std::string_view source,
                                                  std::string* error) {
    std::vector<Opening> book;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        std::istringstream fields(line);
        std::string placement, side, castling, ep;
        if (!(fields >> placement)) continue;
        auto fail = [&](const std::string& why) {
            if (error) *error = std::string(source) + ":" + std::to_string(number) + ": " + why;
            return std::nullopt;
        };
        if (!(fields >> side >> castling >> ep))
            return fail(
                "an EPD line needs four FEN fields (placement, side, castling, en passant)");
        Board board;
        std::string why;
        if (!board.set_fen(placement + " " + side + " " + castling + " " + ep + " 0 1", &why))
            return fail("bad position: " + why);
        book.push_back(Opening{board.fen(), {}});
    }
    if (in.bad()) {
        if (error) *error = std::string(source) + ": read error";
        return std::nullopt;
    }
    return book;
}

// Reads every game's start position and first moves.
std::optional<std::vector<Opening>> read_pgn_book(std::istream& in, std::string_view source,
                                                  int plies, std::string* error) {
    std::vector<Opening> book;
    PgnReader reader(in, source);
    PgnGame game;
    while (true) {
        PgnReader::Status status = reader.next(&game, error, plies);
        if (status == PgnReader::Status::End) return book;
        if (status == PgnReader::Status::Error) return std::nullopt;
        Opening opening{game.start_fen, {}};
        for (Move m : game.moves) opening.moves.push_back(to_uci(m));
        book.push_back(std::move(opening));
    }
}

// Opens the file and reads it in the given format.
std::optional<std::vector<Opening>> load_book(const std::string& path, BookFormat format, int plies,
                                              std::string* error) {
    std::ifstream in(path);
    if (!in) {
        if (error) *error = "cannot open book '" + path + "'";
        return std::nullopt;
    }
    auto book = format == BookFormat::Epd ? read_epd_book(in, path, error)
                                          : read_pgn_book(in, path, plies, error);
    if (book && book->empty()) {
        if (error) *error = "book '" + path + "' holds no positions";
        return std::nullopt;
    }
    return book;
}

// Maps a format name to its value.
std::optional<BookFormat> parse_book_format(std::string_view text) {
    if (text == "epd") return BookFormat::Epd;
    if (text == "pgn") return BookFormat::Pgn;
    return std::nullopt;
}

}  // namespace sparring::match
