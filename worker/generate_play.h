// Playing the games of a generation lease: the run's version against itself at a fixed node
// count, in-process, each game yielding its labelled positions (training/self_play.h).
#pragma once

#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include "sparring/v1/worker.pb.h"
#include "training/self_play.h"

namespace sparring::worker {

// Returns the self-play settings of a generation lease (the version's parameters and hash,
// the node count, filters, maximum length, concurrency threads); nullopt with *error when
// the lease cannot be played.
std::optional<training::SelfPlayOptions> generate_options(const v1::Lease& lease, int concurrency,
                                                          std::string* error);

// Plays the lease's games and calls on_pair_done (under the caller's own locking) with each
// pair's report entry once both its games are finished: outcomes are white's, positions
// the kept ones in records of training/position_record.h. Once stop is set no game starts.
void play_generate_pairs(const v1::Lease& lease, const training::SelfPlayOptions& options,
                         const std::function<void(v1::GamePair&&)>& on_pair_done,
                         const std::atomic<bool>& stop);

}  // namespace sparring::worker
