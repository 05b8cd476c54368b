// The search through the Engine facade: mates with their distance, draw rules, limits,
// determinism, isolation of two engines on two threads, stopping, time management.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/bench.h"
#include "engine/engine.h"
#include "engine/movegen.h"
#include "engine/notation.h"

namespace sparring {
namespace {

using Clock = std::chrono::steady_clock;

// Returns the board of a FEN, failing the test when the FEN is rejected.
Board board_of(const std::string& fen) {
    Board board;
    std::string error;
    EXPECT_TRUE(board.set_fen(fen, &error)) << fen << ": " << error;
    return board;
}

// Searches a board with a fresh engine and the given limits.
SearchResult search_fresh(const Board& board, const SearchLimits& limits,
                          const ParamSet& params = ParamSet()) {
    Engine engine(Engine::Options{16, params});
    engine.new_game();
    engine.set_position(board);
    return engine.search(limits);
}

// Searches a FEN to a fixed depth with a fresh engine.
SearchResult search_depth(const std::string& fen, int depth) {
    SearchLimits limits;
    limits.depth = depth;
    return search_fresh(board_of(fen), limits);
}

int elapsed_ms(Clock::time_point since) {
    return static_cast<int>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - since).count());
}

// Mate distances below were confirmed with Stockfish 15.1 at depth 22.
struct MateCase {
    const char* fen;
    int moves;
};

const MateCase MATES[] = {
    {"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", 1},
    {"k7/8/1K6/8/8/8/7Q/8 w - - 0 1", 1},
    {"3r2k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", 1},
    {"6rk/6pp/8/6N1/8/8/8/6K1 w - - 0 1", 1},
    {"r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4", 1},
    {"3k4/8/3K4/8/8/8/8/R7 w - - 0 1", 1},
    {"r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 1", 2},
    {"k7/8/2K5/8/8/8/8/1R6 w - - 0 1", 2},
    {"6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", 2},
    {"7k/8/5K2/8/8/8/8/6R1 w - - 0 1", 2},
    {"r1b1kb1r/pppp1ppp/5q2/4n3/3KP3/2N3PN/PPP4P/R1BQ1B1R b kq - 0 1", 3},
    {"r5rk/5p1p/5R2/4B3/8/8/7P/7K w - - 0 1", 3},
    {"6k1/6pp/8/8/8/8/1Q3PPP/1R4K1 w - - 0 1", 3},
};

TEST(Search, FindsMatesWithTheirDistance) {
    for (const MateCase& c : MATES) {
        SearchResult r = search_depth(c.fen, 4 * c.moves + 2);
        EXPECT_TRUE(r.mate) << c.fen;
        EXPECT_EQ(r.score, c.moves) << c.fen;
        Board board = board_of(c.fen);
        ASSERT_TRUE(MoveList<>(board).contains(r.best_move)) << c.fen;
    }
}

TEST(Search, MateInOnePlaysTheMatingMove) {
    for (const MateCase& c : MATES) {
        if (c.moves != 1) continue;
        Board board = board_of(c.fen);
        SearchResult r = search_depth(c.fen, 3);
        board.do_move(r.best_move);
        EXPECT_TRUE(board.in_check() && MoveList<>(board).size() == 0) << c.fen;
    }
}

TEST(Search, SeesItsOwnMateComing) {
    // Black to move: the only move, Kb8, allows Rh8 mate.
    SearchResult r = search_depth("k7/8/1K6/8/8/8/8/7R b - - 0 1", 6);
    EXPECT_TRUE(r.mate);
    EXPECT_EQ(r.score, -1);
}

TEST(Search, NoLegalMoveGivesNoBestMove) {
    SearchResult stalemate = search_depth("k7/8/1Q6/8/8/8/8/7K b - - 0 1", 4);
    EXPECT_FALSE(stalemate.best_move);
    EXPECT_FALSE(stalemate.mate);
    EXPECT_EQ(stalemate.score, 0);
    SearchResult mated = search_depth("R5k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1", 4);
    EXPECT_FALSE(mated.best_move);
    EXPECT_TRUE(mated.mate);
}

TEST(Search, AvoidsStalematingWhenWinning) {
    // Qb6 would stalemate; any sensible move keeps a winning score.
    SearchResult r = search_depth("k7/8/8/1Q6/8/8/8/6K1 w - - 0 1", 8);
    EXPECT_NE(to_uci(r.best_move), "b5b6");
    EXPECT_TRUE(r.mate || r.score > 500) << r.score;
}

TEST(Search, InsufficientMaterialIsADraw) {
    for (const char* fen : {"8/8/4k3/8/8/3K4/8/8 w - - 0 1", "8/8/4k3/8/8/3KN3/8/8 w - - 0 1",
                            "8/8/4k3/8/8/3KB3/8/8 b - - 0 1"}) {
        SearchResult r = search_depth(fen, 8);
        EXPECT_FALSE(r.mate) << fen;
        EXPECT_EQ(r.score, 0) << fen;
    }
}

TEST(Search, FiftyMoveRuleEndsTheWin) {
    // A rook up, but the next quiet move is the hundredth half-move without progress.
    const std::string pieces = "8/8/4k3/8/8/3K4/8/R7 w - - ";
    SearchResult fresh = search_depth(pieces + "0 80", 6);
    EXPECT_GT(fresh.score, 300);
    SearchResult expiring = search_depth(pieces + "99 80", 6);
    EXPECT_FALSE(expiring.mate);
    EXPECT_EQ(expiring.score, 0);
}

TEST(Search, ThirdRepetitionIsADrawForTheLosingSide) {
    // White, a queen down, can return to a position seen twice already (king g1, black to
    // move) and claim the draw.
    Board board = board_of("k2q4/8/8/8/8/8/7K/8 w - - 0 1");
    for (const char* text : {"h2g1", "d8d7", "g1h1", "d7d8", "h1g1", "d8d7", "g1f1", "d7d8"}) {
        Move m = parse_uci(board, text);
        ASSERT_TRUE(m) << text;
        board.do_move(m);
    }
    SearchLimits limits;
    limits.depth = 6;
    SearchResult drawn = search_fresh(board, limits);
    EXPECT_EQ(to_uci(drawn.best_move), "f1g1");
    EXPECT_FALSE(drawn.mate);
    EXPECT_EQ(drawn.score, 0);

    SearchResult without_history = search_fresh(board_of(board.fen()), limits);
    EXPECT_TRUE(without_history.mate || without_history.score < -500);
}

TEST(Search, NodeLimitedSearchIsDeterministic) {
    Board board =
        board_of("r1bqr1k1/bpp2pp1/p1np1n1p/4p3/P1B1P3/2PP1N1P/1P1N1PP1/R1BQR1K1 w - - 2 11");
    SearchLimits limits;
    limits.nodes = 60000;
    SearchResult a = search_fresh(board, limits);
    SearchResult b = search_fresh(board, limits);
    EXPECT_EQ(a.best_move, b.best_move);
    EXPECT_EQ(a.score, b.score);
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_EQ(a.depth, b.depth);

    // The same engine after new_game() forgets what it learnt and repeats itself too.
    Engine engine;
    engine.set_position(board);
    SearchResult first = engine.search(limits);
    engine.new_game();
    SearchResult again = engine.search(limits);
    EXPECT_EQ(first.nodes, again.nodes);
    EXPECT_EQ(first.best_move, again.best_move);
    EXPECT_EQ(a.nodes, first.nodes);
}

TEST(Search, NewGameLeavesNothingOfEarlierSearchesBehind) {
    // new_game() clears the hash table in constant time (stale buckets read as empty); a
    // search after it must match a fresh engine's node for node, even when the earlier
    // games filled the table with positions that the new search meets again.
    const Board later =
        board_of("r1bqr1k1/bpp2pp1/p1np1n1p/4p3/P1B1P3/2PP1N1P/1P1N1PP1/R1BQR1K1 w - - 2 11");
    SearchLimits limits;
    limits.nodes = 30000;
    const SearchResult fresh = search_fresh(later, limits);
    Engine engine;
    for (int game = 0; game < 3; ++game) {
        engine.new_game();
        engine.set_position(game == 0 ? Board() : later);
        engine.search(limits);
    }
    engine.new_game();
    engine.set_position(later);
    const SearchResult again = engine.search(limits);
    EXPECT_EQ(again.nodes, fresh.nodes);
    EXPECT_EQ(again.best_move, fresh.best_move);
    EXPECT_EQ(again.score, fresh.score);
    EXPECT_EQ(again.depth, fresh.depth);
}

TEST(Search, NewGameAfterNewGameAndAfterASearchStillForgetsEverything) {
    // new_game() skips clearing the history when no search has run since the last clear;
    // each search must mark it used again, however the calls interleave.
    const Board later =
        board_of("r1bqr1k1/bpp2pp1/p1np1n1p/4p3/P1B1P3/2PP1N1P/1P1N1PP1/R1BQR1K1 w - - 2 11");
    SearchLimits limits;
    limits.nodes = 30000;
    const SearchResult fresh = search_fresh(later, limits);
    Engine engine;
    engine.new_game();
    engine.new_game();
    for (int game = 0; game < 2; ++game) {
        engine.set_position(Board());
        engine.search(limits);
        engine.new_game();
        engine.new_game();
        engine.set_position(later);
        const SearchResult again = engine.search(limits);
        EXPECT_EQ(again.nodes, fresh.nodes) << "game " << game;
        EXPECT_EQ(again.best_move, fresh.best_move) << "game " << game;
        engine.new_game();
    }
}

TEST(Search, LimitsAreRespected) {
    Board board;
    SearchLimits depth_limit;
    depth_limit.depth = 7;
    EXPECT_EQ(search_fresh(board, depth_limit).depth, 7);

    SearchLimits node_limit;
    node_limit.nodes = 5000;
    SearchResult r = search_fresh(board, node_limit);
    EXPECT_LE(r.nodes, 5001u);
    EXPECT_GT(r.nodes, 4000u);

    SearchLimits movetime;
    movetime.movetime_ms = 300;
    auto start = Clock::now();
    SearchResult timed = search_fresh(board, movetime);
    EXPECT_LE(elapsed_ms(start), 400);
    EXPECT_GE(timed.time_ms, 150);
    EXPECT_TRUE(MoveList<>(board).contains(timed.best_move));
}

TEST(Search, InfoArrivesAfterEachIteration) {
    Engine engine;
    engine.set_position(board_of("r2q1rk1/pp2ppbp/4b1p1/n7/3PP3/3BBP2/P3N1PP/R2Q1RK1 w - - 3 14"));
    SearchLimits limits;
    limits.depth = 6;
    std::vector<SearchInfo> infos;
    SearchResult r = engine.search(limits, [&](const SearchInfo& info) { infos.push_back(info); });
    ASSERT_EQ(infos.size(), 6u);
    for (std::size_t i = 0; i < infos.size(); ++i) {
        EXPECT_EQ(infos[i].depth, static_cast<int>(i) + 1);
        EXPECT_GE(infos[i].seldepth, infos[i].depth);
        EXPECT_FALSE(infos[i].pv.empty());
        if (i > 0) {
            EXPECT_GE(infos[i].nodes, infos[i - 1].nodes);
        }
    }
    EXPECT_EQ(infos.back().pv.front(), r.best_move);
    EXPECT_EQ(infos.back().score, r.score);
    // The principal variation is a legal line.
    Board line = board_of("r2q1rk1/pp2ppbp/4b1p1/n7/3PP3/3BBP2/P3N1PP/R2Q1RK1 w - - 3 14");
    for (Move m : infos.back().pv) {
        ASSERT_TRUE(MoveList<>(line).contains(m)) << to_uci(m);
        line.do_move(m);
    }
    ASSERT_GE(infos.back().pv.size(), 2u);
    EXPECT_EQ(infos.back().pv[1], r.ponder_move);
}

TEST(Search, HashTableSizeIsConfigurableAndReportsItsFill) {
    Engine engine(Engine::Options{1, ParamSet()});
    engine.set_position(Board());
    SearchLimits limits;
    limits.depth = 12;
    int small_fill = 0;
    engine.search(limits, [&](const SearchInfo& info) { small_fill = info.hashfull; });
    EXPECT_GT(small_fill, 100);
    EXPECT_LE(small_fill, 1000);

    engine.set_hash_mb(64);
    int large_fill = 0;
    SearchResult r =
        engine.search(limits, [&](const SearchInfo& info) { large_fill = info.hashfull; });
    EXPECT_LT(large_fill, small_fill);
    EXPECT_TRUE(MoveList<>(Board()).contains(r.best_move));
}

TEST(Search, SettingTheHashToItsCurrentSizeEmptiesTheTableLikeAResize) {
    const Board board =
        board_of("r2q1rk1/pp1n1ppp/2p1pnb1/8/PbBPP3/2N2N2/1P2QPPP/R1B2RK1 w - - 1 11");
    SearchLimits limits;
    limits.depth = 9;
    // Searches twice on one engine, running between the searches what `between` does.
    auto second_search = [&](const std::function<void(Engine&)>& between) {
        Engine engine(Engine::Options{16, ParamSet()});
        engine.set_position(board);
        engine.search(limits);
        between(engine);
        engine.set_position(board);
        return engine.search(limits).nodes;
    };
    const std::uint64_t warm = second_search([](Engine&) {});
    const std::uint64_t resized = second_search([](Engine& engine) {
        engine.set_hash_mb(8);
        engine.set_hash_mb(16);
    });
    const std::uint64_t same_size = second_search([](Engine& engine) { engine.set_hash_mb(16); });
    // The table's entries change the second search, or the comparison below proves nothing.
    ASSERT_NE(warm, resized);
    EXPECT_EQ(same_size, resized);
}

TEST(Search, TwoEnginesWithDifferentParametersAreIsolated) {
    Board board = board_of("r2q1rk1/pp1n1ppp/2p1pnb1/8/PbBPP3/2N2N2/1P2QPPP/R1B2RK1 w - - 1 11");
    ParamSet seed = *ParamSet::preset("seed");
    ASSERT_FALSE(seed == ParamSet());
    SearchLimits limits;
    limits.nodes = 150000;
    SearchResult alone_default = search_fresh(board, limits);
    SearchResult alone_seed = search_fresh(board, limits, seed);
    // The two parameter sets must lead to different trees, or the check below proves nothing.
    ASSERT_NE(alone_default.nodes, alone_seed.nodes);

    for (int round = 0; round < 2; ++round) {
        auto a = std::async(std::launch::async, [&] { return search_fresh(board, limits); });
        auto b = std::async(std::launch::async, [&] { return search_fresh(board, limits, seed); });
        SearchResult together_default = a.get();
        SearchResult together_seed = b.get();
        EXPECT_EQ(together_default.nodes, alone_default.nodes);
        EXPECT_EQ(together_default.best_move, alone_default.best_move);
        EXPECT_EQ(together_default.score, alone_default.score);
        EXPECT_EQ(together_seed.nodes, alone_seed.nodes);
        EXPECT_EQ(together_seed.best_move, alone_seed.best_move);
        EXPECT_EQ(together_seed.score, alone_seed.score);
    }
}

TEST(Search, StopEndsAnInfiniteSearchPromptly) {
    Engine engine;
    engine.set_position(Board());
    SearchLimits limits;
    limits.infinite = true;
    auto future = std::async(std::launch::async, [&] { return engine.search(limits); });
    // An end that must not come by itself: 300 ms pass without it.
    EXPECT_EQ(future.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout)
        << "an infinite search returned by itself";
    auto stop_time = Clock::now();
    engine.stop();
    ASSERT_EQ(future.wait_for(std::chrono::seconds(2)), std::future_status::ready);
    EXPECT_LE(elapsed_ms(stop_time), 200);
    EXPECT_TRUE(MoveList<>(Board()).contains(future.get().best_move));
}

TEST(Search, StopSignalRaisedBeforeTheSearchIsHonoured) {
    Engine engine;
    engine.set_position(Board());
    std::atomic<bool> signal{true};
    SearchLimits limits;
    limits.infinite = true;
    limits.stop_signal = &signal;
    auto start = Clock::now();
    SearchResult r = engine.search(limits);
    EXPECT_LE(elapsed_ms(start), 100);
    EXPECT_TRUE(MoveList<>(Board()).contains(r.best_move));
}

TEST(Search, SearchStoppedAtOncePlaysTheDepthOneMove) {
    // After 1. e4 e5 2. Nf3 the first legal move generated is a king move; a stopped search
    // must still play what a completed depth-1 search chooses, never an unsearched move.
    Board board;
    for (const char* m : {"e2e4", "e7e5", "g1f3"}) board.do_move(parse_uci(board, m));
    Engine depth_one;
    depth_one.set_position(board);
    SearchLimits one;
    one.depth = 1;
    const Move expected = depth_one.search(one).best_move;

    Engine stopped;
    stopped.set_position(board);
    std::atomic<bool> signal{true};
    SearchLimits limits;
    limits.infinite = true;
    limits.stop_signal = &signal;
    SearchResult r = stopped.search(limits);
    EXPECT_EQ(r.depth, 1);
    EXPECT_EQ(r.best_move, expected);
}

TEST(Search, ClockOfOneSecondPlusIncrementIsNeverExceeded) {
    // Plays a game against itself at 1 s + 10 ms per side, charging each side the wall time
    // its search took plus the increment, as a match runner does.
    Engine engines[2];
    Board board;
    int clock[COLOR_NB] = {1000, 1000};
    int longest = 0;
    for (int ply = 0; ply < 80 && MoveList<>(board).size() > 0; ++ply) {
        Color us = board.side();
        SearchLimits limits;
        limits.time_ms[WHITE] = clock[WHITE];
        limits.time_ms[BLACK] = clock[BLACK];
        limits.inc_ms[WHITE] = limits.inc_ms[BLACK] = 10;
        Engine& engine = engines[us];
        engine.set_position(board);
        auto start = Clock::now();
        SearchResult r = engine.search(limits);
        int spent = elapsed_ms(start);
        longest = std::max(longest, spent);
        clock[us] -= spent;
        ASSERT_GT(clock[us], 0) << "flag fell at ply " << ply;
        clock[us] += 10;
        ASSERT_TRUE(r.best_move);
        board.do_move(r.best_move);
        if (board.is_threefold_repetition() || board.is_fifty_move_draw() ||
            board.is_insufficient_material())
            break;
    }
    EXPECT_LE(longest, 700);
}

TEST(Search, FirstMoveOfAOneSecondGameIsQuick) {
    SearchLimits limits;
    limits.time_ms[WHITE] = limits.time_ms[BLACK] = 1000;
    limits.inc_ms[WHITE] = limits.inc_ms[BLACK] = 10;
    auto start = Clock::now();
    SearchResult r = search_fresh(Board(), limits);
    EXPECT_LE(elapsed_ms(start), 300);
    EXPECT_GE(r.depth, 4);
}

// Win At Chess positions whose solutions Stockfish 15.1 confirms at depth 20.
struct TacticCase {
    const char* fen;
    const char* best;
};

const TacticCase TACTICS[] = {
    {"5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1", "e3g3"},
    {"rnbqkb1r/pppp1ppp/8/4P3/6n1/7P/PPPNPPP1/R1BQKBNR b KQkq - 0 1", "g4e3"},
    {"r1b1kb1r/3q1ppp/pBp1pn2/8/Np3P2/5B2/PPP3PP/R2Q1RK1 w kq - 0 1", "f3c6"},
    {"R7/P4k2/8/8/8/8/r7/6K1 w - - 0 1", "a8h8"},
    {"3r1r1k/1p4pp/p4p2/8/1PQR4/6Pq/P3PP2/2R3K1 b - - 0 1", "d8c8"},
};

TEST(Search, FindsSimpleTactics) {
    for (const TacticCase& c : TACTICS) {
        SearchResult r = search_depth(c.fen, 12);
        EXPECT_EQ(to_uci(r.best_move), c.best) << c.fen;
    }
}

TEST(Bench, SignatureIsDeterministic) {
    BenchResult a = run_bench(5, ParamSet());
    BenchResult b = run_bench(5, ParamSet());
    EXPECT_EQ(a.nodes, b.nodes);
    EXPECT_GT(a.nodes, bench_positions().size() * 5);
    BenchResult seed = run_bench(5, *ParamSet::preset("seed"));
    EXPECT_NE(seed.nodes, a.nodes);
}

// Threads share the positions out; each is searched as it is alone, so the signature and
// every position's line are those of one thread, whatever the number of threads.
TEST(Bench, ThreadsChangeNothingButTheTime) {
    for (const char* preset : {"default", "seed"}) {
        const ParamSet params = *ParamSet::preset(preset);
        std::ostringstream alone_log;
        const BenchResult alone = run_bench(7, params, &alone_log);
        for (int threads : {2, 3, 64}) {
            std::ostringstream shared_log;
            const BenchResult shared = run_bench(7, params, &shared_log, threads);
            EXPECT_EQ(shared.nodes, alone.nodes) << preset << ", " << threads << " threads";
            EXPECT_EQ(shared_log.str(), alone_log.str()) << preset << ", " << threads;
        }
    }
}

TEST(Bench, EveryPositionIsValid) {
    for (std::string_view fen : bench_positions()) {
        Board board;
        std::string error;
        EXPECT_TRUE(board.set_fen(fen, &error)) << fen << ": " << error;
        EXPECT_GT(MoveList<>(board).size(), 0u) << fen;
    }
    EXPECT_GE(bench_positions().size(), 30u);
}

}  // namespace
}  // namespace sparring
