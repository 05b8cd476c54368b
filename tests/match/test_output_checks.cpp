// The engine-output checks (match/output_checks.h) on real positions: bestmove answers that are
// no move, PVs with illegal moves, mate scores their PV contradicts, info lines UCI's grammar
// cannot read, and the per-game counting with an example line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/board.h"
#include "match/game.h"
#include "match/output_checks.h"
#include "match/player.h"
#include "service/needs.h"

namespace sparring::match {
namespace {

// A back-rank mate in one for white: Rd1-d8#.
constexpr std::string_view kBackRank = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
// The same with black to move: Kg8-h8 is met by Rd8# (black is mated in one).
constexpr std::string_view kBackRankBlack = "6k1/5ppp/8/8/8/8/8/3R2K1 b - - 0 1";
// White mates in one with Qf8# or stalemates with Qf7?? (black king h8, white king g6).
constexpr std::string_view kStalemateTrap = "7k/8/6K1/8/8/8/8/5Q2 w - - 0 1";

Board board_of(std::string_view fen) {
    Board board;
    std::string error;
    EXPECT_TRUE(board.set_fen(fen, &error)) << error;
    return board;
}

std::optional<OutputCheck> info(std::string_view fen, const std::string& line) {
    return check_info(board_of(fen), line);
}

TEST(OutputChecks, ABestmoveThatIsNoMoveIsNamed) {
    EXPECT_EQ(check_bestmove("bestmove (none)"), OutputCheck::BestmoveNone);
    EXPECT_EQ(check_bestmove("bestmove 0000"), OutputCheck::BestmoveNull);
    EXPECT_EQ(check_bestmove("bestmove"), OutputCheck::BestmoveUnparsable);
    EXPECT_EQ(check_bestmove("bestmove e2-e4"), OutputCheck::BestmoveUnparsable);
    EXPECT_EQ(check_bestmove("bestmove Nf3"), OutputCheck::BestmoveUnparsable);
    EXPECT_EQ(check_bestmove("bestmove e7e8k"), OutputCheck::BestmoveUnparsable);
    EXPECT_EQ(check_bestmove("bestmove e2e4 ponder e7e5"), std::nullopt);
    EXPECT_EQ(check_bestmove("bestmove e7e8q"), std::nullopt);
    EXPECT_EQ(check_bestmove("bestmove E2E4"), std::nullopt);  // the game reads it too
    // A move of the right form that is illegal loses the game by the rules: no warning.
    EXPECT_EQ(check_bestmove("bestmove a1a1"), std::nullopt);
}

TEST(OutputChecks, TheInfoLinesOfRealEnginesParse) {
    // Stockfish 16's, Glaurung 2.2's and Toga II's lines, from the start position.
    for (const char* line : {
             "info depth 10 seldepth 14 multipv 1 score cp 23 nodes 10496 nps 524800 hashfull 4 "
             "tbhits 0 time 20 pv e2e4 e7e5 g1f3 b8c6",
             "info depth 5 seldepth 5 multipv 1 score cp 31 wdl 62 924 14 nodes 1016 nps 508000 "
             "hashfull 0 tbhits 0 time 2 pv d2d4 d7d5",
             "info depth 9 score cp 20 lowerbound nodes 11000 pv e2e4",
             "info nodes 1000 nps 333333 time 3 hashfull 1",
             "info currmove e2e4 currmovenumber 1",
             "info depth 4 currline 1 e2e4 e7e5",
             "info refutation e2e4 d7d5",
             "info string NNUE evaluation using nn-5af11540bbfe.nnue enabled",
             "info string anything at all 1 2 3 pv junk",
             "info depth 1 pv",
         })
        EXPECT_EQ(info(START_FEN, line), std::nullopt) << line;
}

TEST(OutputChecks, AnInfoLineOutsideTheGrammarIsUnparsable) {
    for (const char* line : {
             "info depth x",
             "info depth",
             "info score",
             "info score cp",
             "info score centipawns 20",
             "info score cp 2.5",
             "info nodes 10 speed 3",
             "info currmove",
             "info wdl 1 2",
             "info depth 3 pv e2e4 0000",  // 0000 ends the PV and is no key
             "info 3 nodes 10",
         })
        EXPECT_EQ(info(START_FEN, line), OutputCheck::InfoUnparsable) << line;
}

TEST(OutputChecks, APvIsPlayedOnACopyOfTheBoard) {
    EXPECT_EQ(info(START_FEN, "info depth 2 score cp 20 pv e2e4 e7e5 g1f3"), std::nullopt);
    EXPECT_EQ(info(START_FEN, "info depth 2 score cp 20 pv e2e4 e2e4"), OutputCheck::PvIllegal);
    EXPECT_EQ(info(START_FEN, "info depth 1 score cp 0 pv a1a1"), OutputCheck::PvIllegal);
    EXPECT_EQ(info(START_FEN, "info depth 1 pv e2e5"), OutputCheck::PvIllegal);
    // A move after a mate is illegal: there is none.
    EXPECT_EQ(info(kBackRank, "info depth 3 score mate 1 pv d1d8 g8h8"), OutputCheck::PvIllegal);
    // The position searched is the game's: black's PV from white's position is illegal.
    EXPECT_EQ(info(kBackRank, "info depth 1 pv g8h8"), OutputCheck::PvIllegal);
}

TEST(OutputChecks, AMateScoreMustAgreeWithItsPv) {
    // The mover mates: the mating move is ply 2N-1.
    EXPECT_EQ(info(kBackRank, "info depth 1 score mate 1 pv d1d8"), std::nullopt);
    EXPECT_EQ(info(kBackRank, "info depth 3 score mate 2 pv d1d8"), OutputCheck::MatePv);
    EXPECT_EQ(info(kBackRank, "info depth 3 score mate -1 pv d1d8"), OutputCheck::MatePv);
    // A PV cut short of its mate is fine; one that reaches the mating ply without mate is not.
    EXPECT_EQ(info(kBackRank, "info depth 5 score mate 3 pv d1d7"), std::nullopt);
    EXPECT_EQ(info(kBackRank, "info depth 5 score mate 1 pv d1d7"), OutputCheck::MatePv);
    EXPECT_EQ(info(kBackRank, "info depth 5 score mate 1 pv d1d7 g8f8"), OutputCheck::MatePv);
    // The mover is mated: the mating move is ply 2|N|.
    EXPECT_EQ(info(kBackRankBlack, "info depth 2 score mate -1 pv g8h8 d1d8"), std::nullopt);
    EXPECT_EQ(info(kBackRankBlack, "info depth 2 score mate -2 pv g8h8 d1d8"), OutputCheck::MatePv);
    EXPECT_EQ(info(kBackRankBlack, "info depth 2 score mate 1 pv g8h8 d1d8"), OutputCheck::MatePv);
    // Fool's mate from the start: white is mated at ply 4.
    EXPECT_EQ(info(START_FEN, "info depth 4 score mate -2 pv f2f3 e7e5 g2g4 d8h4"), std::nullopt);
    EXPECT_EQ(info(START_FEN, "info depth 4 score mate 2 pv f2f3 e7e5 g2g4 d8h4"),
              OutputCheck::MatePv);
    // A stalemate is no mate; nor is `mate 0` in a position with moves.
    EXPECT_EQ(info(kStalemateTrap, "info depth 1 score mate 1 pv f1f8"), std::nullopt);
    EXPECT_EQ(info(kStalemateTrap, "info depth 1 score mate 1 pv f1f7"), OutputCheck::MatePv);
    EXPECT_EQ(info(kBackRank, "info depth 1 score mate 0 pv d1d8"), OutputCheck::MatePv);
    // A bound is not the score of its PV, and a centipawn score is not checked.
    EXPECT_EQ(info(kBackRank, "info depth 5 score mate 1 lowerbound pv d1d7"), std::nullopt);
    EXPECT_EQ(info(kBackRank, "info depth 5 score cp 900 pv d1d8"), std::nullopt);
    // The last score and PV of a line count.
    EXPECT_EQ(info(kBackRank, "info score cp 10 pv d1d7 score mate 1 pv d1d8"), std::nullopt);
}

TEST(OutputChecks, AGameCountsEachCheckWithItsFirstLineAndGoCommand) {
    const Board board = board_of(START_FEN);
    OutputChecks checks;
    checks.start_game(nullptr);
    checks.go(nullptr, "go nodes 1000");
    checks.info(board, "info depth 1 score cp 0 pv a1a1");
    checks.info(board, "info depth x");
    checks.info(board, "info depth 2 pv a2a5");
    checks.info(board, "info depth 3 score cp 20 pv e2e4");
    checks.bestmove("bestmove (none)");
    checks.go(nullptr, "go nodes 2000");
    checks.bestmove("bestmove e2e4");
    const std::vector<OutputWarning> warnings = checks.take();
    ASSERT_EQ(warnings.size(), 3u);
    EXPECT_EQ(warnings[0].check, OutputCheck::BestmoveNone);
    EXPECT_EQ(warnings[0].count, 1);
    EXPECT_EQ(warnings[0].example, "bestmove (none)");
    EXPECT_EQ(warnings[0].go, "go nodes 1000");
    EXPECT_EQ(warnings[1].check, OutputCheck::PvIllegal);
    EXPECT_EQ(warnings[1].count, 2);
    EXPECT_EQ(warnings[1].example, "info depth 1 score cp 0 pv a1a1");
    EXPECT_EQ(warnings[2].check, OutputCheck::InfoUnparsable);
    EXPECT_TRUE(checks.take().empty());

    // An example is cut to its bound; a new game forgets the warnings of the last.
    checks.info(board, "info string ok " + std::string(500, 'x'));
    checks.info(board, "info depth " + std::string(500, 'x'));
    checks.start_game(nullptr);
    EXPECT_TRUE(checks.take().empty());
    checks.info(board, "info depth " + std::string(500, 'x'));
    const std::vector<OutputWarning> cut = checks.take();
    ASSERT_EQ(cut.size(), 1u);
    EXPECT_EQ(cut[0].example.size(), kMaxOutputExampleBytes);
}

// Real engines through the UCI player: Stockfish's output passes every check, and Debian's
// Glaurung 2.2 answers `bestmove (none)` under `go nodes` (its game is lost by the rules, and
// the warning says what it wrote and what it was asked).
TEST(OutputChecks, GlaurungAnswersBestmoveNoneUnderGoNodesAndStockfishIsClean) {
    const std::string glaurung = "/usr/games/glaurung", stockfish = "/usr/games/stockfish";
    if (access(glaurung.c_str(), X_OK) != 0 || access(stockfish.c_str(), X_OK) != 0)
        SPARRING_SKIP_WITHOUT("needs Debian's glaurung and stockfish packages");
    std::unique_ptr<Player> white = make_player({"glaurung", UciSpec{glaurung, {}, "", {}}, 0});
    std::unique_ptr<Player> black = make_player({"stockfish", UciSpec{stockfish, {}, "", {}}, 0});
    GameSettings settings;
    settings.time_control = *parse_time_control("nodes=1000");
    settings.adjudication.max_plies = 200;
    const std::atomic<bool> stop{false};
    const std::optional<GameResult> game =
        play_game(*white, *black, Opening{std::string(START_FEN), {"e2e4"}}, settings, stop);
    ASSERT_TRUE(game);
    EXPECT_EQ(game->termination, Termination::IllegalMove) << game->reason;
    EXPECT_EQ(game->reason, "White makes an illegal move '(none)'");
    ASSERT_EQ(game->output_warnings[WHITE].size(), 1u);
    const OutputWarning& w = game->output_warnings[WHITE][0];
    EXPECT_EQ(w.check, OutputCheck::BestmoveNone);
    EXPECT_EQ(w.count, 1);
    EXPECT_EQ(w.example, "bestmove (none)");
    EXPECT_EQ(w.go, "go nodes 1000");
    EXPECT_TRUE(game->output_warnings[BLACK].empty());
    EXPECT_EQ(output_warning_line("glaurung", w.check, w.go, 38),
              "glaurung answers `bestmove (none)` under `go nodes`: 38 games");
}

TEST(OutputChecks, NamesRoundTrip) {
    for (OutputCheck check : kOutputChecks) {
        EXPECT_EQ(parse_output_check(output_check_name(check)), check);
        EXPECT_FALSE(output_check_text(check).empty());
    }
    EXPECT_EQ(parse_output_check("nonsense"), std::nullopt);
    EXPECT_EQ(output_check_text(OutputCheck::BestmoveNone), "answers `bestmove (none)`");
}

}  // namespace
}  // namespace sparring::match
