// Opening books: EPD and PGN loading with clear errors, the play order, and the shipped book.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/board.h"
#include "engine/movegen.h"
#include "match/opening_book.h"

namespace sparring::match {
namespace {

TEST(EpdBook, ReadsFourFieldsAndIgnoresOperations) {
    std::istringstream in(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 bm e5; id \"x\";\n"
        "\n"
        "   \n"
        "4k3/8/8/8/8/8/8/4K2R w K - ce 300;\n");
    std::string error;
    auto book = read_epd_book(in, "t.epd", &error);
    ASSERT_TRUE(book) << error;
    ASSERT_EQ(book->size(), 2u);
    EXPECT_EQ((*book)[0].fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
    EXPECT_EQ((*book)[1].fen, "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    EXPECT_TRUE((*book)[1].moves.empty());
}

TEST(EpdBook, RejectsMalformedLinesNamingTheLine) {
    const std::pair<std::string, std::string> cases[] = {
        {"4k3/8/8/8/8/8/8/4K3 w - -\n4k3/8/8/8/8/8/8/4K3 w\n", "t.epd:2: an EPD line needs four"},
        {"4k3/8/8/8/8/8/8/4K3 w - -\n\n9k/8/8/8/8/8/8/4K3 w - -\n", "t.epd:3: bad position"},
        {"4k3/8/8/8/8/8/8/4K3 x - -\n", "t.epd:1: bad position"},
        {"8/8/8/8/8/8/8/8 w - -\n", "t.epd:1: bad position"},
    };
    for (const auto& [text, message] : cases) {
        std::istringstream in(text);
        std::string error;
        EXPECT_FALSE(read_epd_book(in, "t.epd", &error)) << text;
        EXPECT_NE(error.find(message), std::string::npos) << error;
    }
}

TEST(PgnBook, KeepsTheFirstPliesOfEachGame) {
    std::istringstream in(
        "[Event \"a\"]\n1. e4 c5 2. Nf3 d6 3. d4 cxd4 1-0\n\n"
        "[Event \"b\"]\n[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 0 1\"]\n1. O-O Kd7 *\n");
    std::string error;
    auto book = read_pgn_book(in, "t.pgn", 4, &error);
    ASSERT_TRUE(book) << error;
    ASSERT_EQ(book->size(), 2u);
    EXPECT_EQ((*book)[0].fen, START_FEN);
    EXPECT_EQ((*book)[0].moves, (std::vector<std::string>{"e2e4", "c7c5", "g1f3", "d7d6"}));
    EXPECT_EQ((*book)[1].fen, "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
    EXPECT_EQ((*book)[1].moves, (std::vector<std::string>{"e1g1", "e8d7"}));
}

TEST(PgnBook, RejectsAnIllegalMove) {
    std::istringstream in("[Event \"a\"]\n1. e4 e5\n\n[Event \"b\"]\n1. e4 e4 *\n");
    std::string error;
    EXPECT_FALSE(read_pgn_book(in, "t.pgn", 8, &error));
    EXPECT_NE(error.find("t.pgn:5: illegal or unreadable move 'e4'"), std::string::npos) << error;
}

TEST(LoadBook, ReportsMissingAndEmptyFiles) {
    std::string error;
    EXPECT_FALSE(load_book("/nonexistent/book.epd", BookFormat::Epd, 0, &error));
    EXPECT_NE(error.find("cannot open book '/nonexistent/book.epd'"), std::string::npos);
    const std::string empty = testing::TempDir() + "/empty_" + std::to_string(getpid()) + ".epd";
    std::ofstream(empty) << "\n\n";
    EXPECT_FALSE(load_book(empty, BookFormat::Epd, 0, &error));
    EXPECT_NE(error.find("holds no positions"), std::string::npos) << error;
}

TEST(LoadBook, ParsesFormatAndOrderNames) {
    EXPECT_EQ(parse_book_format("pgn"), BookFormat::Pgn);
    EXPECT_EQ(parse_book_format("epd"), BookFormat::Epd);
    EXPECT_FALSE(parse_book_format("EPD"));
    EXPECT_EQ(parse_book_order("random"), BookOrder::Random);
    EXPECT_EQ(parse_book_order("sequential"), BookOrder::Sequential);
    EXPECT_FALSE(parse_book_order("shuffled"));
}

TEST(OpeningOrder, IsAPermutationFixedBySeed) {
    std::vector<std::size_t> identity(100);
    for (std::size_t i = 0; i < identity.size(); ++i) identity[i] = i;
    EXPECT_EQ(opening_order(100, BookOrder::Sequential, 7), identity);
    auto a = opening_order(100, BookOrder::Random, 7);
    auto b = opening_order(100, BookOrder::Random, 7);
    auto c = opening_order(100, BookOrder::Random, 8);
    EXPECT_EQ(a, b);
    EXPECT_NE(a, c);
    EXPECT_NE(a, identity);
    std::sort(a.begin(), a.end());
    EXPECT_EQ(a, identity);
    EXPECT_TRUE(opening_order(0, BookOrder::Random, 1).empty());
}

// The shipped book has an opening for each pair of the longest default run (a regression run of
// up to 20,000 games at nodes=1000): at a node limit a pair past the book's end would replay a
// pair already played (docs/statistics.md).
TEST(DefaultBook, HoldsAnOpeningForEachPairOfTheDefaultRegressionRun) {
    const std::string path = std::string(SPARRING_SOURCE_DIR) + "/match/books/default.epd";
    std::string error;
    auto book = load_book(path, BookFormat::Epd, 0, &error);
    ASSERT_TRUE(book) << error;
    std::set<std::string> distinct;
    for (const Opening& opening : *book) {
        Board board;
        ASSERT_TRUE(board.set_fen(opening.fen)) << opening.fen;
        EXPECT_GT(MoveList<>(board).size(), 0u) << opening.fen;
        EXPECT_FALSE(board.in_check()) << opening.fen;
        distinct.insert(opening.fen);
    }
    EXPECT_GE(distinct.size(), 10'000u);
    EXPECT_EQ(distinct.size(), book->size());
}

}  // namespace
}  // namespace sparring::match
