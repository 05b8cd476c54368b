// Labelled positions from played games: self-play games with scores, PGN games, and the
// reproducible openings and games of local self-play.
#include <gtest/gtest.h>

#include <atomic>
#include <sstream>
#include <string>
#include <vector>

#include "engine/notation.h"
#include "engine/value.h"
#include "match/pgn.h"
#include "training/game_positions.h"
#include "training/self_play.h"

namespace sparring::training {
namespace {

// Returns a played move parsed from UCI on board, which it then plays.
match::PlayedMove played(Board& board, std::string_view uci, bool book,
                         std::optional<match::EngineScore> score) {
    const Move m = parse_uci(board, uci);
    EXPECT_FALSE(m.is_none()) << uci;
    board.do_move(m);
    return {m, book, score, 5, 1};
}

// Returns a board set to the position a packed position holds.
Board unpacked(const PackedPosition& packed) {
    Board board;
    EXPECT_TRUE(unpack_position(packed, &board));
    return board;
}

TEST(GamePositions, EngineScoresBecomeCentipawnsWithMateDistances) {
    EXPECT_EQ(engine_score_cp({35, false}), 35);
    EXPECT_EQ(engine_score_cp({-120, false}), -120);
    EXPECT_EQ(engine_score_cp({1, true}), VALUE_MATE - 1);
    EXPECT_EQ(engine_score_cp({-2, true}), -VALUE_MATE + 4);
    EXPECT_TRUE(is_mate_score(engine_score_cp({-2, true})));
}

TEST(GamePositions, KeepsEngineMovesWithWhiteScoresAndTheResult) {
    match::GameResult game;
    game.start_fen = std::string(START_FEN);
    game.outcome = Outcome::Loss;
    Board board;
    game.moves.push_back(played(board, "e2e4", true, std::nullopt));
    game.moves.push_back(played(board, "d7d5", false, match::EngineScore{20, false}));
    game.moves.push_back(played(board, "e4d5", false, match::EngineScore{90, false}));
    game.moves.push_back(played(board, "g8f6", false, match::EngineScore{-60, false}));
    game.moves.push_back(played(board, "f1b5", false, match::EngineScore{3, true}));
    game.moves.push_back(played(board, "c7c6", false, match::EngineScore{-40, false}));
    game.moves.push_back(played(board, "a2a3", false, std::nullopt));

    FilterCounts counts;
    const auto positions = game_positions(game, FilterOptions{}, &counts);
    EXPECT_EQ(counts.tactical, 1u);     // e4d5 captures
    EXPECT_EQ(counts.mate_scores, 1u);  // f1b5 with a mate score
    EXPECT_EQ(counts.in_check, 1u);     // c7c6 answers the check
    ASSERT_EQ(positions.size(), 2u);
    EXPECT_EQ(counts.kept, 2u);
    EXPECT_EQ(unpacked(positions[0].position).fen(),
              "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    EXPECT_EQ(positions[0].score, -20);  // black's +20, for white
    EXPECT_EQ(positions[1].score, 60);
    for (const LabelledPosition& p : positions) EXPECT_EQ(p.result, Outcome::Loss);

    const auto all = game_positions(game, FilterOptions{false, false, false}, &counts);
    EXPECT_EQ(all.size(), 5u) << "every engine move with a score, none of the book";
}

TEST(GamePositions, ReadsPgnGamesAfterTheSkippedPlies) {
    std::istringstream in(
        "[Event \"a\"]\n[Result \"1/2-1/2\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxc6 dxc6 "
        "1/2-1/2\n\n"
        "[Event \"b\"]\n[Result \"*\"]\n\n1. d4 d5 *\n");
    match::PgnReader reader(in, "games.pgn");
    match::PgnGame game;
    std::string error;
    ASSERT_EQ(reader.next(&game, &error), match::PgnReader::Status::Game) << error;
    FilterCounts counts;
    const auto positions = pgn_game_positions(game, 2, FilterOptions{}, &counts);
    // Plies 3..8 are Nf3, Nc6, Bb5, a6, Bxc6 (a capture) and dxc6 (a capture).
    EXPECT_EQ(positions.size(), 4u);
    EXPECT_EQ(counts.tactical, 2u);
    EXPECT_EQ(unpacked(positions[0].position).fen(),
              "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
    for (const LabelledPosition& p : positions) {
        EXPECT_EQ(p.result, Outcome::Draw);
        EXPECT_FALSE(p.score.has_value());
    }
    ASSERT_EQ(reader.next(&game, &error), match::PgnReader::Status::Game) << error;
    EXPECT_TRUE(pgn_game_positions(game, 0, FilterOptions{}, &counts).empty());
}

TEST(SelfPlay, OpeningsDependOnlyOnSeedAndGameNumber) {
    SelfPlayOptions options;
    options.random_plies = 6;
    const Opening first = self_play_opening(options, 7);
    EXPECT_EQ(self_play_opening(options, 7), first);
    EXPECT_EQ(first.moves.size(), 6u);
    EXPECT_EQ(first.fen, START_FEN);
    int different = 0;
    for (std::uint64_t g = 0; g < 10; ++g) different += self_play_opening(options, g) != first;
    EXPECT_GE(different, 9);
    options.seed = 2;
    EXPECT_NE(self_play_opening(options, 7), first);

    options.book = {{"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", {"e2e4"}}};
    options.random_plies = 2;
    const Opening from_book = self_play_opening(options, 0);
    ASSERT_EQ(from_book.moves.size(), 3u);
    EXPECT_EQ(from_book.moves[0], "e2e4");
}

TEST(SelfPlay, GamesYieldScoredPositionsTheSameOnAnyThreadCount) {
    SelfPlayOptions options;
    options.nodes = 300;
    options.games = 3;
    options.random_plies = 4;
    options.max_plies = 60;
    const std::atomic<bool> go{false};
    int calls = 0;
    const SelfPlayResult one = play_self_play(
        options, [&](int, std::size_t) { ++calls; }, go);
    EXPECT_EQ(calls, 3);
    EXPECT_EQ(one.games, 3);
    ASSERT_FALSE(one.positions.empty());
    EXPECT_EQ(one.positions.size(), one.counts.kept);
    for (const LabelledPosition& p : one.positions) {
        ASSERT_TRUE(p.score.has_value());
        EXPECT_FALSE(is_mate_score(*p.score));
        EXPECT_FALSE(unpacked(p.position).in_check());
    }
    options.threads = 2;
    const SelfPlayResult two = play_self_play(options, {}, go);
    ASSERT_EQ(two.positions.size(), one.positions.size());
    for (std::size_t i = 0; i < one.positions.size(); ++i) {
        EXPECT_EQ(two.positions[i].position, one.positions[i].position);
        EXPECT_EQ(two.positions[i].score, one.positions[i].score);
    }

    const std::atomic<bool> stop{true};
    EXPECT_EQ(play_self_play(options, {}, stop).games, 0);
}

}  // namespace
}  // namespace sparring::training
