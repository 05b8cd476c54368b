#include "match/speed.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <cmath>
#include <thread>
#include <vector>

namespace sparring::match {

namespace {

// Positions of every phase: the start, open and closed middlegames, an endgame with pieces,
// a pawn endgame, a position with checks.
constexpr std::array<const char*, kSpeedPositions> kPositions = {
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP2BPPP/R2QKB1R w KQ - 0 8",
    "r2q1rk1/1b1nbppp/p2ppn2/1p6/3NPP2/2N1B3/PPPQB1PP/2KR3R w - - 2 11",
    "8/5pk1/6p1/3R4/1r6/6P1/5PK1/8 w - - 0 40",
    "8/8/3k4/2p1p3/2P1P3/3K4/8/8 w - - 0 50",
    "r1b1k2r/ppp2ppp/2n5/3qp3/1b1P4/2N2N2/PPP2PPP/R1BQKB1R w KQkq - 0 7",
};

struct CopyResult {
    std::uint64_t nodes = 0;
    double seconds = 0;
    std::string error;
};

CopyResult measure_copy(const PlayerSpec& spec, const SpeedOptions& options) {
    CopyResult out;
    std::unique_ptr<Player> player = make_player(spec);
    if (!player->new_game(&out.error)) return out;
    const std::vector<Move> no_moves;
    const int count = std::clamp(options.positions, 1, kSpeedPositions);
    for (int i = 0; i < count; ++i) {
        Board board;
        const std::string fen = kPositions[size_t(i)];
        board.set_fen(fen);
        SearchLimits limits;
        limits.movetime_ms = options.movetime_ms;
        const auto start = std::chrono::steady_clock::now();
        const MoveReply reply = player->play(GamePosition{fen, no_moves, board}, limits,
                                             4 * options.movetime_ms + 5000);
        const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
        if (reply.status != MoveReply::Status::Ok) {
            out.error = spec.name + ": " + reply.error;
            return out;
        }
        if (reply.nodes == 0) {
            out.error = spec.name + " reported no nodes searched (an info line's `nodes N`)";
            return out;
        }
        out.nodes += reply.nodes;
        out.seconds += took.count();
    }
    return out;
}

}  // namespace

Speed measure_speed(const PlayerSpec& spec, const SpeedOptions& options) {
    const int copies = std::max(1, options.copies);
    std::vector<CopyResult> results(static_cast<size_t>(copies));
    {
        std::vector<std::jthread> threads;
        for (int c = 0; c < copies; ++c)
            threads.emplace_back([&, c] { results[size_t(c)] = measure_copy(spec, options); });
    }
    Speed speed;
    double nps_sum = 0;
    for (const CopyResult& r : results) {
        if (!r.error.empty()) {
            speed.error = r.error;
            return speed;
        }
        speed.nodes += r.nodes;
        speed.seconds += r.seconds;
        nps_sum += double(r.nodes) / std::max(r.seconds, 1e-6);
    }
    speed.nps = std::uint64_t(std::llround(nps_sum / copies));
    if (speed.nps == 0) speed.error = spec.name + " searched no nodes";
    return speed;
}

double clock_factor(std::uint64_t reference_nps, std::uint64_t measured_nps) {
    if (reference_nps == 0 || measured_nps == 0) return 1.0;
    return double(reference_nps) / double(measured_nps);
}

int scale_ms(int ms, double factor) {
    if (ms <= 0) return 0;
    const double scaled = std::round(double(ms) * factor);
    if (!(scaled >= 1)) return 1;  // also NaN
    return scaled >= double(INT_MAX) ? INT_MAX : int(scaled);
}

}  // namespace sparring::match
