// Runs the real `sparring` binary: `match` with good and bad arguments, PGN output, a gauntlet,
// an SPRT that stops the match, and `book generate`.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.h"

namespace {

const std::string FakeEngine = std::string(SPARRING_SOURCE_DIR) + "/tests/match/fake_uci_engine.sh";

using namespace sparring::cli_test;

// Counts the occurrences of a text.
int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t pos = text.find(what); pos != std::string::npos;
         pos = text.find(what, pos + 1))
        ++n;
    return n;
}

TEST(CliMatch, PlaysAShortMatchAndWritesPgn) {
    const std::string pgn = temp_path("cli_match.pgn");
    std::remove(pgn.c_str());
    CliResult o = run("match --tc nodes=300 --pairs 3 --concurrency 2 --maxplies 120 --pgn-out '" +
                      pgn + "' builtin builtin:seed");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("builtin-default vs builtin-seed: 6 games, 3 pairs"), std::string::npos)
        << o.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(o.out, m, std::regex("W/D/L +([0-9]+) / ([0-9]+) / ([0-9]+)")));
    EXPECT_EQ(std::stoi(m[1]) + std::stoi(m[2]) + std::stoi(m[3]), 6);
    ASSERT_TRUE(std::regex_search(
        o.out, m,
        std::regex("pentanomial +\\[([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+), ([0-9]+)\\]")));
    int pairs = 0;
    for (int i = 1; i <= 5; ++i) pairs += std::stoi(m[i]);
    EXPECT_EQ(pairs, 3);
    const std::string games = read_file(pgn);
    EXPECT_EQ(count(games, "[Event \"Sparring match\"]"), 6);
    EXPECT_EQ(count(games, "[SetUp \"1\"]"), 6);
    EXPECT_EQ(count(games, "[TimeControl \"-\"]"), 6);
}

TEST(CliMatch, StopsWhenTheSprtDecides) {
    // Two games at once, so games of unfinished pairs are in flight when the SPRT decides: the
    // PGN must hold exactly the games the report counts, whole pairs only.
    const std::string pgn = temp_path("cli_match_sprt.pgn");
    std::remove(pgn.c_str());
    CliResult o =
        run("match --tc nodes=100 --pairs 500 --concurrency 2 --sprt elo0=0,elo1=10 "
            "--pgn-out '" +
            pgn + "' builtin 'name=fake,cmd=" + FakeEngine + ",arg=illegal'");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("H1 accepted"), std::string::npos) << o.out;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(o.out, m, std::regex("W/D/L +([0-9]+) / ([0-9]+) / ([0-9]+)")));
    const int counted = std::stoi(m[1]) + std::stoi(m[2]) + std::stoi(m[3]);
    EXPECT_LT(counted, 1000);
    EXPECT_EQ(counted % 2, 0);
    EXPECT_EQ(count(read_file(pgn), "[Event "), counted);
    EXPECT_NE(o.out.find("illegal move"), std::string::npos) << o.out;
}

// At a node limit a game is decided by its opening and its engines: a pair past the book's end
// replays a pair already played move for move, and the match says so before it starts.
TEST(CliMatch, WarnsThatPairsPastTheBooksEndReplayTheSameGames) {
    const std::string book = temp_path("three.epd"), pgn = temp_path("replays.pgn");
    {
        std::ofstream out(book);
        out << "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1\n"
               "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1\n"
               "rnbqkbnr/pppppppp/8/8/2P5/8/PP1PPPPP/RNBQKBNR b KQkq - 0 1\n";
    }
    std::remove(pgn.c_str());
    CliResult o = run("match --tc nodes=200 --games 8 --book '" + book +
                      "' --book-order sequential --maxplies 80 --pgn-plain --pgn-out '" + pgn +
                      "' builtin builtin:seed");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.err.find("warning: 8 games need 4 openings, and the book has 3. At nodes=200 a "
                         "game is decided by its opening and its engines, so the pair past the "
                         "book's end would replay games already played"),
              std::string::npos)
        << o.err;
    // The fourth pair (games 7 and 8) plays the first opening again: the same two games.
    std::vector<std::string> movetexts;
    std::istringstream games(read_file(pgn));
    std::string line, movetext;
    while (std::getline(games, line)) {
        if (line.starts_with("[Event ") && !movetext.empty()) movetexts.push_back(movetext);
        if (line.starts_with("[Event ")) movetext.clear();
        if (!line.empty() && line[0] != '[') movetext += line + "\n";
    }
    movetexts.push_back(movetext);
    ASSERT_EQ(movetexts.size(), 8u);
    EXPECT_EQ(movetexts[6], movetexts[0]);
    EXPECT_EQ(movetexts[7], movetexts[1]);
    EXPECT_NE(movetexts[2], movetexts[0]);

    // Within the book, or at a time limit (timing varies the games), there is nothing to warn of.
    for (const std::string& flags :
         {std::string("--tc nodes=200 --games 6"), std::string("--tc movetime=5 --games 8")}) {
        o = run("match " + flags + " --book '" + book + "' --maxplies 40 builtin builtin:seed");
        ASSERT_EQ(o.status, 0) << o.err;
        EXPECT_EQ(o.err.find("warning"), std::string::npos) << flags << "\n" << o.err;
    }
}

TEST(CliMatch, PlaysAGauntlet) {
    CliResult o =
        run("match --gauntlet --tc nodes=100 --pairs 1 --maxplies 40 builtin builtin:seed "
            "builtin");
    ASSERT_EQ(o.status, 0) << o.err;
    EXPECT_NE(o.out.find("builtin-default vs builtin-seed: 2 games"), std::string::npos) << o.out;
    EXPECT_NE(o.out.find("builtin-default vs builtin-default-2: 2 games"), std::string::npos);
    EXPECT_NE(o.out.find("gauntlet of builtin-default:"), std::string::npos);
}

TEST(CliMatch, RejectsBadArgumentsWithOneClearLine) {
    const std::pair<std::string, std::string> cases[] = {
        {"match builtin", "give two engines"},
        {"match builtin builtin builtin", "more than two engines need --gauntlet"},
        {"match --tc 10+ builtin builtin", "bad time control '10+'"},
        {"match --tc nodes=0 builtin builtin", "bad time control 'nodes=0'"},
        {"match --games 3 builtin builtin", "--games must be even"},
        {"match --pairs 2 --games 4 builtin builtin", "give --games or --pairs, not both"},
        {"match --draw movecount=x,score=1 builtin builtin", "bad draw adjudication"},
        {"match --resign score=5 builtin builtin", "missing movecount"},
        {"match --sprt elo0=5,elo1=0 builtin builtin", "--sprt"},
        {"match --book-order shuffled builtin builtin",
         "--book-order must be random or sequential"},
        {"match --book-plies 4 builtin builtin", "--book-plies applies to PGN books only"},
        {"match builtin:nosuchpreset builtin", "neither a preset"},
        {"match builtin cmd=/bin/true,colour=red", "unknown key 'colour'"},
        {"match --frobnicate builtin builtin", "frobnicate"},
    };
    for (const auto& [args, message] : cases) {
        CliResult o = run(args);
        EXPECT_EQ(o.status, 2) << args;
        EXPECT_NE(o.err.find(message), std::string::npos) << args << " -> " << o.err;
        EXPECT_EQ(count(o.err, "\n"), 1) << o.err;
    }
}

TEST(CliMatch, ReportsFilesAndEnginesThatDoNotWork) {
    const std::string book = temp_path("cli_bad_book.epd");
    std::ofstream(book) << "4k3/8/8/8/8/8/8/4K3 w - -\nnot a position at all\n";
    const std::pair<std::string, std::string> cases[] = {
        {"match --book /nonexistent.epd builtin builtin", "cannot open book '/nonexistent.epd'"},
        {"match --book '" + book + "' builtin builtin", "cli_bad_book.epd:2: bad position"},
        {"match builtin /nonexistent/engine", "cannot start '/nonexistent/engine'"},
        {"match builtin 'cmd=" + FakeEngine + ",arg=silent'",
         "exited (exit status 0) before 'uciok'"},
        {"match --pgn-out /nonexistent/dir/x.pgn builtin builtin", "cannot open PGN file"},
    };
    for (const auto& [args, message] : cases) {
        CliResult o = run(args);
        EXPECT_EQ(o.status, 1) << args;
        EXPECT_NE(o.err.find(message), std::string::npos) << args << " -> " << o.err;
    }
}

TEST(CliBook, GeneratesDistinctBalancedPositionsReproducibly) {
    const std::string a = temp_path("book_a.epd"), b = temp_path("book_b.epd");
    ASSERT_EQ(run("book generate --out '" + a + "' --positions 20 --seed 3 --nodes 2000").status,
              0);
    ASSERT_EQ(run("book generate --out '" + b + "' --positions 20 --seed 3 --nodes 2000").status,
              0);
    const std::string text = read_file(a);
    EXPECT_EQ(text, read_file(b));
    EXPECT_EQ(count(text, "\n"), 20);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        ASSERT_TRUE(std::regex_search(line, m, std::regex(" ce (-?[0-9]+);$"))) << line;
        EXPECT_LE(std::abs(std::stoi(m[1])), 80) << line;
    }
    CliResult bad = run("book generate --out '" + a + "' --min-plies 8 --max-plies 6");
    EXPECT_EQ(bad.status, 2);
    EXPECT_NE(bad.err.find("--max-plies must not be below --min-plies"), std::string::npos);
}

// Returns the first four FEN fields of each EPD line of text.
std::vector<std::string> epd_positions(const std::string& text) {
    std::vector<std::string> positions;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::istringstream fields(line);
        std::string placement, side, castling, ep;
        fields >> placement >> side >> castling >> ep;
        positions.push_back(placement + " " + side + " " + castling + " " + ep);
    }
    return positions;
}

// --exclude: a book of openings another book does not have, for measuring on openings a
// tuning never played; an EPD book's positions and a PGN game's start are left out.
TEST(CliBook, ExcludesTheOpeningsOfAnotherBook) {
    const std::string a = temp_path("exclude_a.epd"), b = temp_path("exclude_b.epd"),
                      c = temp_path("exclude_c.epd"), pgn = temp_path("exclude.pgn");
    const std::string flags = " --positions 12 --seed 5 --nodes 2000";
    ASSERT_EQ(run("book generate --out '" + a + "'" + flags).status, 0);
    ASSERT_EQ(run("book generate --out '" + b + "'" + flags + " --exclude '" + a + "'").status, 0);
    const std::vector<std::string> in_a = epd_positions(read_file(a));
    const std::vector<std::string> in_b = epd_positions(read_file(b));
    ASSERT_EQ(in_a.size(), 12u);
    ASSERT_EQ(in_b.size(), 12u);
    for (const std::string& position : in_b)
        EXPECT_EQ(std::count(in_a.begin(), in_a.end(), position), 0) << position;

    // The same seed without the first book's first position, given as a PGN game's start:
    // the rest of the first book comes out as before.
    {
        std::ofstream out(pgn);
        out << "[Event \"x\"]\n[SetUp \"1\"]\n[FEN \"" << in_a[0] << " 0 1\"]\n\n*\n";
    }
    ASSERT_EQ(run("book generate --out '" + c + "'" + flags + " --exclude '" + pgn + "'").status,
              0);
    const std::vector<std::string> in_c = epd_positions(read_file(c));
    ASSERT_EQ(in_c.size(), 12u);
    EXPECT_EQ(std::count(in_c.begin(), in_c.end(), in_a[0]), 0);
    EXPECT_TRUE(std::equal(in_a.begin() + 1, in_a.end(), in_c.begin()));

    const CliResult missing = run("book generate --out '" + c + "' --exclude '" + a + ".none'");
    EXPECT_EQ(missing.status, 1);
    EXPECT_NE(missing.err.find("--exclude: cannot open book"), std::string::npos) << missing.err;
}

}  // namespace
