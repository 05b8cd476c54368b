// PGN: writing finished games with the standard tags, and reading games back (for books).
#pragma once

#include <istream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/types.h"
#include "match/game.h"

namespace sparring::match {

// The tags of a written game that the game itself does not know.
struct PgnContext {
    std::string event = "Sparring match";
    std::string site = "?";
    std::string date = "????.??.??";
    std::string round = "?";
    std::string time_control = "-";
    // Tags written after TimeControl, in order (e.g. the clock factor of a scaled clock).
    std::vector<std::pair<std::string, std::string>> extra_tags;
    bool comments = true;  // {book} on opening moves, {+0.25/9 12ms} on engine moves
};

// Returns the game as PGN text, tags first, ending with a blank line.
std::string write_pgn(const GameResult& game, const PgnContext& context);
// Returns today's date in the PGN Date format (YYYY.MM.DD, UTC).
std::string pgn_date_today();

struct PgnGame {
    std::vector<std::pair<std::string, std::string>> tags;
    std::string start_fen;  // the FEN tag, or the standard start position
    std::vector<Move> moves;
    std::string result = "*";

    // Returns the value of a tag, or an empty string when it is missing.
    std::string tag(std::string_view name) const;
};

// Reads games one by one: tags, SAN movetext; comments, variations and NAGs skipped.
class PgnReader {
  public:
    enum class Status { Game, End, Error };

    // Reads from in; source names it in error messages ("book.pgn:40: ...").
    PgnReader(std::istream& in, std::string_view source);

    // Reads the next game, keeping at most max_plies moves (0: all) and skipping the rest.
    Status next(PgnGame* game, std::string* error, int max_plies = 0);

  private:
    // Takes one character, counting lines.
    int get();
    // Returns the next character without taking it.
    int peek();
    // Skips the rest of the line.
    void skip_line();
    // Skips a {comment}; false with *error when it never closes.
    bool skip_braced_comment(std::string* error);
    // Skips a (variation) with everything nested in it.
    bool skip_variation(std::string* error);
    // Reads one [Name "value"] tag.
    bool read_tag(PgnGame* game, std::string* error);
    // Reads characters up to the next delimiter.
    std::string read_token();
    // Returns "SOURCE:LINE: " for error messages.
    std::string where() const;

    std::istream& in_;
    std::string source_;
    int line_ = 1;
};

}  // namespace sparring::match
