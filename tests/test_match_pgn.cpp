// PGN writing (tags, SAN, FEN/SetUp, comments) and reading (round trip, skipped comments and
// variations, clear errors for malformed input).
#include <gtest/gtest.h>

#include <sstream>

#include "engine/notation.h"
#include "match/pgn.h"

namespace sparring::match {
namespace {

// Returns a finished game played from fen with the UCI moves, the first `book` of them book moves.
GameResult make_game(const std::string& fen, const std::vector<std::string>& uci, int book) {
    GameResult game;
    game.white = "Alpha";
    game.black = "Beta \"B\"";
    Board board;
    EXPECT_TRUE(board.set_fen(fen));
    game.start_fen = board.fen();
    for (std::size_t i = 0; i < uci.size(); ++i) {
        Move m = parse_uci(board, uci[i]);
        EXPECT_FALSE(m.is_none()) << uci[i];
        PlayedMove played{m, static_cast<int>(i) < book, std::nullopt, 0, 0};
        if (!played.book) {
            played.score = EngineScore{static_cast<int>(10 * i) - 25, false};
            played.depth = 7;
            played.time_ms = 12;
        }
        game.moves.push_back(played);
        board.do_move(m);
    }
    return game;
}

// Reads exactly one game from text.
PgnGame read_one(const std::string& text, int max_plies = 0) {
    std::istringstream in(text);
    PgnReader reader(in, "test.pgn");
    PgnGame game;
    std::string error;
    EXPECT_EQ(reader.next(&game, &error, max_plies), PgnReader::Status::Game) << error;
    PgnGame extra;
    EXPECT_EQ(reader.next(&extra, &error), PgnReader::Status::End);
    return game;
}

TEST(PgnWriter, WritesStandardTagsAndSanFromStartPosition) {
    GameResult game = make_game(std::string(START_FEN), {"f2f3", "e7e5", "g2g4", "d8h4"}, 0);
    game.outcome = Outcome::Loss;
    game.termination = Termination::Checkmate;
    game.reason = "Black mates";
    PgnContext context;
    context.event = "Test event";
    context.date = "2024.05.06";
    context.round = "3";
    context.time_control = "10+0.1";
    context.comments = false;
    const std::string pgn = write_pgn(game, context);
    EXPECT_NE(pgn.find("[Event \"Test event\"]\n[Site \"?\"]\n[Date \"2024.05.06\"]\n"
                       "[Round \"3\"]\n[White \"Alpha\"]\n[Black \"Beta \\\"B\\\"\"]\n"
                       "[Result \"0-1\"]\n"),
              std::string::npos)
        << pgn;
    EXPECT_EQ(pgn.find("[FEN"), std::string::npos);
    EXPECT_EQ(pgn.find("[SetUp"), std::string::npos);
    EXPECT_NE(pgn.find("[TimeControl \"10+0.1\"]"), std::string::npos);
    EXPECT_NE(pgn.find("[Termination \"normal\"]"), std::string::npos);
    EXPECT_NE(pgn.find("[PlyCount \"4\"]"), std::string::npos);
    EXPECT_NE(pgn.find("1. f3 e5 2. g4 Qh4# {Black mates} 0-1"), std::string::npos) << pgn;
}

TEST(PgnWriter, WritesFenSetUpAndCommentsFromAnotherPosition) {
    const std::string fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    GameResult game = make_game(fen, {"f1b5", "a7a6", "b5a4"}, 1);
    game.outcome = Outcome::Draw;
    game.termination = Termination::DrawAdjudication;
    const std::string pgn = write_pgn(game, PgnContext{});
    EXPECT_NE(pgn.find("[SetUp \"1\"]\n[FEN \"" + fen + "\"]"), std::string::npos) << pgn;
    EXPECT_NE(pgn.find("[Termination \"adjudication\"]"), std::string::npos);
    EXPECT_NE(pgn.find("3. Bb5 {book} 3... a6 {-0.15/7 12ms} 4. Ba4 {-0.05/7 12ms} 1/2-1/2"),
              std::string::npos)
        << pgn;
}

TEST(PgnWriter, StartsWithBlackMoveNumberAndWrapsLongLines) {
    const std::string fen = "4k3/8/8/8/8/8/8/R3K3 b - - 0 40";
    std::vector<std::string> moves;
    for (int i = 0; i < 10; ++i) moves.insert(moves.end(), {"e8d8", "a1a2", "d8e8", "a2a1"});
    GameResult game = make_game(fen, moves, 0);
    const std::string pgn = write_pgn(game, PgnContext{});
    EXPECT_NE(pgn.find("40... Kd8 {"), std::string::npos) << pgn;
    std::istringstream lines(pgn);
    for (std::string line; std::getline(lines, line);) EXPECT_LE(line.size(), 80u) << line;
}

TEST(PgnReader, RoundTripsWrittenGames) {
    const std::string fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";
    GameResult game = make_game(fen, {"f1b5", "a7a6", "b5c6", "d7c6", "e1g1", "f7f6"}, 2);
    game.outcome = Outcome::Win;
    game.termination = Termination::TimeForfeit;
    game.reason = "Black loses on time";
    for (bool comments : {true, false}) {
        PgnContext context;
        context.comments = comments;
        PgnGame read = read_one(write_pgn(game, context));
        EXPECT_EQ(read.start_fen, fen);
        EXPECT_EQ(read.result, "1-0");
        EXPECT_EQ(read.tag("White"), "Alpha");
        EXPECT_EQ(read.tag("Black"), "Beta \"B\"");
        EXPECT_EQ(read.tag("Termination"), "time forfeit");
        ASSERT_EQ(read.moves.size(), game.moves.size());
        for (std::size_t i = 0; i < game.moves.size(); ++i)
            EXPECT_EQ(read.moves[i], game.moves[i].move) << i;
    }
}

// Found by fuzz_pgn_round_trip: a newline in a name ended its tag, and an engine's reply quoted
// in the reason ("illegal move '}x'") ended the comment early; both made unreadable PGN.
TEST(PgnReader, RoundTripsNamesWithControlCharactersAndReasonsWithBraces) {
    GameResult game = make_game(std::string(START_FEN), {"e2e4", "e7e5"}, 0);
    game.white = "line\nbreak\ttab";
    game.outcome = Outcome::Loss;
    game.termination = Termination::IllegalMove;
    game.reason = "White makes an illegal move '}Nf3 {x'\n";
    const std::string pgn = write_pgn(game, PgnContext{});
    PgnGame read = read_one(pgn);
    EXPECT_EQ(read.tag("White"), "line break tab");
    EXPECT_EQ(read.result, "0-1");
    EXPECT_EQ(read.moves.size(), 2u);
    EXPECT_NE(pgn.find("{White makes an illegal move ')Nf3 {x' }"), std::string::npos) << pgn;
}

TEST(PgnReader, SkipsCommentsVariationsNagsAndEscapes) {
    const std::string text =
        "% an escaped line\n"
        "[Event \"x\"]\n[White \"a\"]\n\n"
        "1.e4 $1 {a comment (with parens)} e5 ; rest of line\n"
        "2. Nf3 (2. f4 exf4 (2... d5) {inner} 3. Nf3) 2... Nc6!? 3. Bb5 a6 *\n";
    PgnGame game = read_one(text);
    ASSERT_EQ(game.moves.size(), 6u);
    EXPECT_EQ(to_uci(game.moves[5]), "a7a6");
    EXPECT_EQ(game.result, "*");
    EXPECT_EQ(game.tag("Event"), "x");
    EXPECT_EQ(game.tag("Missing"), "");
}

TEST(PgnReader, KeepsOnlyTheFirstPliesWhenAsked) {
    PgnGame game = read_one("1. d4 d5 2. c4 e6 3. Nc3 Nf6 1/2-1/2\n", 3);
    ASSERT_EQ(game.moves.size(), 3u);
    EXPECT_EQ(to_uci(game.moves[2]), "c2c4");
    EXPECT_EQ(game.result, "1/2-1/2");
}

TEST(PgnReader, ReadsSeveralGamesAndGamesWithoutResult) {
    std::istringstream in(
        "[Event \"1\"]\n1. e4 1-0\n\n[Event \"2\"]\n1. d4 d5\n\n[Event \"3\"]\n"
        "1. c4\n");
    PgnReader reader(in, "multi.pgn");
    PgnGame game;
    std::string error;
    std::vector<std::string> events;
    while (reader.next(&game, &error) == PgnReader::Status::Game)
        events.push_back(game.tag("Event"));
    EXPECT_EQ(events, (std::vector<std::string>{"1", "2", "3"}));
    EXPECT_EQ(error, "");
}

TEST(PgnReader, ReportsMalformedInputWithItsLine) {
    const std::pair<std::string, std::string> cases[] = {
        {"[Event \"x\"]\n\n1. e4 e5 2. Ke3 *\n", "test.pgn:3: illegal or unreadable move 'Ke3'"},
        {"1. e4 {never closed\n", "test.pgn:1: comment '{' never closed"},
        {"1. e4 (1. d4 d5\n", "test.pgn:1: variation '(' never closed"},
        {"[Event x]\n1. e4 *\n", "test.pgn:1: tag value must be in double quotes"},
        {"[FEN \"8/8/8 w - - 0 1\"]\n1. e4 *\n", "test.pgn:2: bad FEN tag"},
        {"1. e4 ) *\n", "test.pgn:1: unexpected ')'"},
        {"[Event \"x\"]\n", "tags without movetext"},
    };
    for (const auto& [text, message] : cases) {
        std::istringstream in(text);
        PgnReader reader(in, "test.pgn");
        PgnGame game;
        std::string error;
        EXPECT_EQ(reader.next(&game, &error), PgnReader::Status::Error) << text;
        EXPECT_NE(error.find(message), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace sparring::match
