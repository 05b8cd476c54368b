#include "engine/bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <ostream>
#include <system_error>
#include <thread>
#include <vector>

#include "engine/engine.h"
#include "engine/notation.h"

namespace sparring {

namespace {

constexpr std::string_view POSITIONS[] = {
    // Openings and middle games.
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bq1rk1/2pnbppp/p2p1n2/1p2p3/3PP3/1BP2N1P/PP3PP1/RNBQR1K1 w - - 1 11",
    "r2q1rk1/3nbppp/p2pbn2/1p2p3/4P1P1/1NN1BP2/PPPQ3P/2KR1B1R w - - 0 12",
    "rnb2rk1/p1p1qpp1/1p5p/3p4/3P4/4PN2/PP3PPP/R2QKB1R w KQ - 0 11",
    "r1bq1rk1/pppnn1bp/3p2p1/3Ppp2/2P1P3/2NN4/PP2BPPP/R1BQ1RK1 w - - 0 11",
    "rnb1k1r1/ppq1np1Q/4p3/3pP3/3p4/P1P5/2P2PPP/R1B1KBNR w KQq - 0 10",
    "r3kbnr/pp1n1pp1/2p1p2p/q6P/3P1B2/3Q1NN1/PPP2PP1/R3K2R w KQkq - 2 12",
    "r1bqr1k1/bpp2pp1/p1np1n1p/4p3/P1B1P3/2PP1N1P/1P1N1PP1/R1BQR1K1 w - - 2 11",
    "r2q1rk1/ppp1b1pp/1nn1bp2/4p3/1P6/P1NP1NP1/4PPBP/R1BQ1RK1 w - - 0 11",
    "2rq1rk1/pp1bppb1/3p1np1/4n2p/3NP2P/1BN1BP2/PPPQ2P1/2KR3R w - - 0 13",
    "r2q1rk1/pp2ppbp/4b1p1/n7/3PP3/3BBP2/P3N1PP/R2Q1RK1 w - - 3 14",
    "r2q1rk1/pp1n1ppp/2p1pnb1/8/PbBPP3/2N2N2/1P2QPPP/R1B2RK1 w - - 1 11",
    "r3kb1r/p1ppqp1p/b1p3p1/3nP3/2P5/1P6/P3QPPP/RNB1KB1R w KQkq - 0 10",
    "r2q1rk1/pbpn1pp1/1p2p2p/3n4/3P3B/P1Q1PP2/1P4PP/R3KBNR w KQ - 0 12",
    "rnbqk2r/ppp2p1p/3b4/3PN2n/2BP1ppP/8/PPP3P1/RNBQK2R w KQkq - 1 9",
    "rnb1qrk1/1pp1p1bp/3p1np1/p2P1p2/2P5/2N2NP1/PP2PPBP/R1BQ1RK1 w - - 0 9",
    "rn2k2r/pp3ppp/2p1pn2/q4b2/1bBP4/2N2N2/PPPBQPPP/2KR3R b kq - 3 9",
    "r2qk2r/pp1n1ppp/2p2n2/2b1p2b/4P3/5NPP/PPPN1PB1/R1BQ1RK1 w kq - 1 10",
    "r1bq1rk1/5ppp/p1np4/1p1Np1b1/4P3/2P5/PPN2PPP/R2QKB1R w KQ - 3 13",
    "r1bqr1k1/pp2bpp1/2n2n1p/3p4/3N4/2N1B1P1/PP2PPBP/R2Q1RK1 w - - 2 12",
    "r2q1rk1/ppp1bppp/2n5/3p1b2/2PP4/P1P2N2/4BPPP/R1BQ1RK1 w - - 1 13",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    // Endings.
    "2r3k1/pp3ppp/4p3/3p4/3P4/P3P3/1P3PPP/2R3K1 b - - 0 1",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "8/5pk1/6p1/8/3R4/6P1/r4PK1/8 w - - 0 1",
    "1K1k4/1P6/8/8/8/8/r7/2R5 w - - 0 1",
    "8/8/8/2k5/8/8/1r6/3QK3 w - - 0 1",
    "8/5k2/3b2p1/8/4P3/2B5/5K2/8 w - - 0 1",
    "8/8/4kpp1/3p4/3P1PP1/3KB3/8/3b4 w - - 0 1",
    "8/3n4/2k5/1p6/1P6/2K5/4N3/8 w - - 0 1",
    "8/pp3k2/2p2p2/3p1p1p/3P1P1P/2P1K1P1/PP6/8 w - - 0 1",
    "8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
    "8/8/8/8/8/2k5/1p6/1K1Q4 w - - 0 1",
    "8/8/8/8/8/3k4/8/3KBN2 w - - 0 1",
    "8/8/8/4k3/8/8/4P3/4K3 w - - 0 1",
};

}  // namespace

std::span<const std::string_view> bench_positions() {
    return POSITIONS;
}

BenchResult run_bench(int depth, const ParamSet& params, std::ostream* log, int threads) {
    constexpr size_t count = std::size(POSITIONS);
    std::vector<SearchResult> results(count);
    std::atomic<size_t> next{0};
    // Each thread takes the next unsearched position; a position's search depends on it and
    // the parameters alone (new_game clears the table and the history before each one).
    const auto search_positions = [&] {
        Engine engine(Engine::Options{BENCH_HASH_MB, params});
        SearchLimits limits;
        limits.depth = depth;
        for (size_t i = next++; i < count; i = next++) {
            Board board;
            board.set_fen(POSITIONS[i]);
            engine.new_game();
            engine.set_position(board);
            results[i] = engine.search(limits);
        }
    };
    const auto start = std::chrono::steady_clock::now();
    const size_t helpers = size_t(std::clamp(threads, 1, int(count))) - 1;
    std::vector<std::thread> pool;
    pool.reserve(helpers);
    try {
        for (size_t t = 0; t < helpers; ++t) pool.emplace_back(search_positions);
    } catch (const std::system_error&) {
        // No thread to be had (a process or thread limit): those started and this one search.
    }
    search_positions();
    for (std::thread& thread : pool) thread.join();

    BenchResult total;
    for (size_t i = 0; i < count; ++i) {
        const SearchResult& result = results[i];
        total.nodes += result.nodes;
        if (log)
            *log << "position " << i + 1 << "/" << count << ": bestmove "
                 << to_uci(result.best_move) << " score " << (result.mate ? "mate " : "cp ")
                 << result.score << " nodes " << result.nodes << "  " << POSITIONS[i] << "\n";
    }
    total.time_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(
                                         std::chrono::steady_clock::now() - start)
                                         .count());
    return total;
}

}  // namespace sparring
