// Playing the pairs of an SPSA tuning lease: each pair is the run's base engine with the
// pair's "plus" values against the same engine with its "minus" values: the built-in
// engine's parameters in-process, or a UCI engine's spin options. Each thread keeps its two
// engines across its pairs and gives them each pair's values (setoption for a UCI engine).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "match/runner.h"
#include "sparring/v1/worker.pb.h"

namespace sparring::worker {

// Returns, for each pair of a tuning lease, the configuration that plays it: the plus
// engine first (results are reported from its side), the minus engine second. Nullopt with
// *error when a value does not fit its parameter.
std::optional<std::vector<match::MatchConfig>> tune_configs(const v1::Lease& lease,
                                                            const match::MatchConfig& base,
                                                            std::string* error);

// Plays jobs[i] with configs[i] on `concurrency` threads, each keeping its engines from pair
// to pair (match::Player::reconfigure), calling on_pair_done (under the caller's own locking)
// as pairs finish; once stop is set no pair starts. Rethrows the first failure of a game.
void play_tune_pairs(const std::vector<match::MatchConfig>& configs,
                     const std::vector<match::PairJob>& jobs, int concurrency,
                     const std::function<void(const match::PairResult&)>& on_pair_done,
                     const std::atomic<bool>& stop);

}  // namespace sparring::worker
