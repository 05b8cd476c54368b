// Match statistics following fishtest's published definitions: Elo with its 95% confidence
// interval, likelihood of superiority, normalized Elo, and the generalized SPRT (logistic and
// normalized models) on trinomial (game) or pentanomial (game-pair) result counts.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace sparring::stats {

// Game results from the first player's point of view.
struct Trinomial {
    int64_t losses = 0;
    int64_t draws = 0;
    int64_t wins = 0;
};

// Game-pair results (one opening, both colours) from the first player's point of view, in
// order LL, LD, DD+WL, WD, WW: pair scores 0, 1/4, 1/2, 3/4, 1.
struct Pentanomial {
    std::array<int64_t, 5> counts{};
};

// Elo and its uncertainty, computed on the counts with zeros replaced by 1e-3 (as fishtest
// does), so empty or one-sided data give wide but finite numbers, never NaN.
struct EloEstimate {
    int64_t games = 0;
    int64_t pairs = 0;   // 0 for trinomial data
    double score = 0.5;  // mean score per game
    double elo = 0;      // logistic Elo of the score
    double elo_low = 0;  // 95% confidence interval
    double elo_high = 0;
    double los = 0.5;     // likelihood of superiority, in [0, 1]
    double nelo = 0;      // (800 / ln 10) (mu - 1/2) / sigma, per game
    double nelo_low = 0;  // 95% confidence interval
    double nelo_high = 0;
};

// The Elo scale of the hypotheses: logistic Elo (a mean score) or normalized Elo (a t-value).
enum class Model { Logistic, Normalized };

// The hypotheses of a GSPRT and its error rates; elo0 and elo1 lie within +-1000 (logistic)
// or +-200 (normalized).
struct SprtParams {
    double elo0 = 0;  // H0: elo = elo0 (logistic Elo or normalized Elo, per the model)
    double elo1 = 5;  // H1: elo = elo1
    double alpha = 0.05;
    double beta = 0.05;
    Model model = Model::Normalized;
};

// The log-likelihood ratio of H1 over H0 and where it stands between the bounds.
struct SprtResult {
    enum class State { Continue, AcceptH0, AcceptH1 };
    double llr = 0;
    double lower = 0;  // A = ln(beta / (1 - alpha)): below it H0 is accepted
    double upper = 0;  // B = ln((1 - beta) / alpha): above it H1 is accepted
    State state = State::Continue;
};

// Returns the logistic Elo difference of a mean score, the score clamped to [0.001, 0.999].
double elo_of_score(double x);
// Returns the expected score of a logistic Elo difference.
double score_of_elo(double elo);

// Returns the Elo estimate of game results; throws std::invalid_argument for a count that is
// negative or above 10^15.
EloEstimate estimate(const Trinomial& results);
// Returns the Elo estimate of game-pair results; throws std::invalid_argument for a count that
// is negative or above 10^15.
EloEstimate estimate(const Pentanomial& results);

// Returns an empty string when the parameters are usable, else a one-line explanation.
std::string validate(const SprtParams& params);

// Returns the log-likelihood ratio of H1 over H0 and the SPRT state; throws
// std::invalid_argument for a count that is negative or above 10^15, or for parameters that
// validate() rejects, and std::domain_error should the likelihood maximisation not converge.
SprtResult sprt(const Trinomial& results, const SprtParams& params);
// Returns the log-likelihood ratio of H1 over H0 and the SPRT state, throwing as above.
SprtResult sprt(const Pentanomial& results, const SprtParams& params);

// Returns "logistic" or "normalized".
std::string_view model_name(Model model);
// Parses "logistic" or "normalized"; returns false for anything else.
bool parse_model(std::string_view text, Model* model);
// Returns "continue", "H0" or "H1".
std::string_view state_name(SprtResult::State state);

}  // namespace sparring::stats
