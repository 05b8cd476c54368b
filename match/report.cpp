#include "match/report.h"

#include <cmath>
#include <cstdio>

namespace sparring::match {

namespace {

// Formats like printf into a std::string.
template <typename... Args>
std::string format(const char* pattern, Args... args) {
    char buffer[256];
    std::snprintf(buffer, sizeof buffer, pattern, args...);
    return buffer;
}

// Returns x rounded to the decimals shown, so that a value like -0.001 prints as 0.0, not -0.0
// (adding 0.0 turns a negative zero positive).
double shown(double x, int decimals) {
    const double scale = std::pow(10.0, decimals);
    return std::round(x * scale) / scale + 0.0;
}

}  // namespace

// Counts each game from A's side and the pair in its pentanomial slot.
void MatchTally::add(const PairResult& pair) {
    for (int g = 0; g < 2; ++g) {
        int points = pair.first_half_points(g);
        (points == 2 ? wins : points == 1 ? draws : losses) += 1;
        ++terminations[pair.games[g].termination];
    }
    ++pentanomial.counts[pair.pentanomial_index()];
}

// Maps each way a game ends to a short name.
std::string_view termination_name(Termination termination) {
    switch (termination) {
        case Termination::Checkmate:
            return "checkmate";
        case Termination::Stalemate:
            return "stalemate";
        case Termination::ThreefoldRepetition:
            return "threefold repetition";
        case Termination::FiftyMoves:
            return "fifty moves";
        case Termination::InsufficientMaterial:
            return "insufficient material";
        case Termination::DrawAdjudication:
            return "draw adjudication";
        case Termination::ResignAdjudication:
            return "resign adjudication";
        case Termination::MaxPlies:
            return "maximum length";
        case Termination::TimeForfeit:
            return "time forfeit";
        case Termination::IllegalMove:
            return "illegal move";
        case Termination::Crash:
            return "crash";
        case Termination::Stalled:
            return "stalled";
    }
    return "unknown";
}

// Runs the SPRT on the pentanomial counts.
stats::SprtResult sprt_state(const MatchTally& tally, const stats::SprtParams& sprt) {
    return stats::sprt(tally.pentanomial, sprt);
}

// Formats the counts, Elo and LLR on one line.
std::string progress_line(const MatchTally& tally, std::int64_t games_played,
                          std::int64_t games_total, const std::optional<stats::SprtParams>& sprt) {
    std::string line = format("games %lld/%lld  W %lld D %lld L %lld", (long long)games_played,
                              (long long)games_total, (long long)tally.wins, (long long)tally.draws,
                              (long long)tally.losses);
    if (tally.games() > 0) {
        stats::EloEstimate e = stats::estimate(tally.pentanomial);
        line += format("  Elo %+.1f +- %.1f", shown(e.elo, 1), (e.elo_high - e.elo_low) / 2);
    }
    if (sprt) {
        stats::SprtResult s = sprt_state(tally, *sprt);
        line += format("  LLR %.2f (%.2f, %.2f)", shown(s.llr, 2), s.lower, s.upper);
    }
    return line;
}

// Formats counts, Elo, LOS, nElo, the SPRT and the endings, one per line.
std::string final_report(std::string_view first, std::string_view second, const MatchTally& tally,
                         const std::optional<stats::SprtParams>& sprt) {
    std::string out = std::string(first) + " vs " + std::string(second) + ": " +
                      std::to_string(tally.games()) + " games, " +
                      std::to_string(tally.games() / 2) + " pairs\n";
    if (tally.games() == 0) return out + "  no finished pairs\n";
    stats::EloEstimate e = stats::estimate(tally.pentanomial);
    const auto& p = tally.pentanomial.counts;
    out += format("  W/D/L        %lld / %lld / %lld  (score %.1f%%)\n", (long long)tally.wins,
                  (long long)tally.draws, (long long)tally.losses, 100 * e.score);
    out +=
        format("  pentanomial  [%lld, %lld, %lld, %lld, %lld]  (LL, LD, DD+WL, WD, WW)\n",
               (long long)p[0], (long long)p[1], (long long)p[2], (long long)p[3], (long long)p[4]);
    out += format("  Elo          %+.1f +- %.1f  (95%% CI %+.1f .. %+.1f)\n", shown(e.elo, 1),
                  (e.elo_high - e.elo_low) / 2, shown(e.elo_low, 1), shown(e.elo_high, 1));
    out += format("  LOS          %.1f%%\n", 100 * e.los);
    out +=
        format("  nElo         %+.1f +- %.1f\n", shown(e.nelo, 1), (e.nelo_high - e.nelo_low) / 2);
    if (sprt) {
        stats::SprtResult s = sprt_state(tally, *sprt);
        out +=
            format("  SPRT         %s elo0=%g elo1=%g alpha=%g beta=%g: LLR %.2f (%.2f, %.2f) %s\n",
                   std::string(stats::model_name(sprt->model)).c_str(), sprt->elo0, sprt->elo1,
                   sprt->alpha, sprt->beta, shown(s.llr, 2), s.lower, s.upper,
                   s.state == stats::SprtResult::State::Continue   ? "continue"
                   : s.state == stats::SprtResult::State::AcceptH1 ? "H1 accepted"
                                                                   : "H0 accepted");
    }
    out += "  endings     ";
    bool first_ending = true;
    for (const auto& [termination, count] : tally.terminations) {
        out += (first_ending ? " " : ", ") + std::to_string(count) + " " +
               std::string(termination_name(termination));
        first_ending = false;
    }
    return out + "\n";
}

}  // namespace sparring::match
