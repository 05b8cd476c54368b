// Checks of what a UCI engine writes during a game: warnings that decide nothing (an illegal
// bestmove already loses the game by the rules), counted per game with the first line of each
// kind as an example. The exact rules are in docs/engines.md, "Engine-output checks".
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sparring {
class Board;
}

namespace sparring::match {

class ChildProcess;

enum class OutputCheck {
    BestmoveNone,        // `bestmove (none)`
    BestmoveNull,        // `bestmove 0000`
    BestmoveUnparsable,  // a bestmove without a move of UCI's form (e2e4, e7e8q)
    PvIllegal,           // an info line's PV with a move that is illegal where it is played
    MatePv,              // `score mate N` that the info line's own PV contradicts
    AfterBestmove,       // a line written after the bestmove, before the next command
    InfoUnparsable,      // an info line that the UCI grammar cannot read
};

constexpr OutputCheck kOutputChecks[] = {
    OutputCheck::BestmoveNone,  OutputCheck::BestmoveNull, OutputCheck::BestmoveUnparsable,
    OutputCheck::PvIllegal,     OutputCheck::MatePv,       OutputCheck::AfterBestmove,
    OutputCheck::InfoUnparsable};

// The longest example line and go command a warning keeps (longer ones are cut).
constexpr std::size_t kMaxOutputExampleBytes = 200;
// The most times one game counts one check (more are counted as this many).
constexpr int kMaxOutputCount = 100000;

// Returns the check's name as stored and shown in JSON ("bestmove_none", "pv_illegal", ...).
std::string_view output_check_name(OutputCheck check);
// Returns the check of a name output_check_name gives, if any.
std::optional<OutputCheck> parse_output_check(std::string_view name);
// Returns what the check says of an engine, after its name: "answers `bestmove (none)`",
// "sends a PV with an illegal move", ...
std::string_view output_check_text(OutputCheck check);

// Returns a run's warning in one line, as `sparring show` prints it: "glaurung answers
// `bestmove (none)` under `go nodes`: 38 games" (the go command's first two words; none when
// go is empty).
std::string output_warning_line(std::string_view version, OutputCheck check, std::string_view go,
                                std::uint64_t games);

// One check's warnings in one game, for one engine.
struct OutputWarning {
    OutputCheck check = OutputCheck::InfoUnparsable;
    int count = 0;        // lines that failed it in the game
    std::string example;  // the first of them
    std::string go;       // the go command its search answered (the bestmove's before it)
};

// Returns what is wrong with a `bestmove` line's move, if anything: `(none)`, `0000`, or no
// move of UCI's form (missing, or another word). A move of the right form that is illegal
// here is the game's illegal move, not a warning.
std::optional<OutputCheck> check_bestmove(std::string_view line);
// Returns what is wrong with an `info` line of a search of board, if anything: first whether
// the line parses, then whether its PV is legal played from board, then whether a `score mate
// N` (not a bound) agrees with its PV: a PV that ends without legal moves must end in
// checkmate exactly at ply 2N-1 (N > 0, the mover mates) or 2|N| (N < 0, the mover is mated);
// one that ends with legal moves must be shorter than that ply (a PV cut short is fine).
std::optional<OutputCheck> check_info(const Board& board, std::string_view line);

// The checks of one engine over one game, fed the lines its UCI player reads.
class OutputChecks {
  public:
    // Forgets the warnings of a game before, then counts the lines of process (null: none)
    // that are already there after its last bestmove: they count in the new game.
    void start_game(ChildProcess* process);
    // Counts the lines of process (null: none) already there after its last bestmove, then
    // notes the go command whose search the next lines answer.
    void go(ChildProcess* process, std::string_view command);
    // Checks an info line of the search of board.
    void info(const Board& board, std::string_view line);
    // Checks a bestmove line; lines read after it, before the next command, are late.
    void bestmove(std::string_view line);
    // Returns the game's warnings, in the order of kOutputChecks, and forgets them.
    std::vector<OutputWarning> take();

  private:
    void add(OutputCheck check, std::string_view line);
    // Reads the lines already there, counting them as late after a bestmove.
    void read_late_lines(ChildProcess* process);

    std::vector<OutputWarning> warnings_;
    std::string go_;
    bool answered_ = false;  // a bestmove was read, and no command was sent since
};

}  // namespace sparring::match
