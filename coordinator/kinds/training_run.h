// Training runs and chains on the coordinator: resolving their specs, recording a training
// run's progress and result, and driving a chain of generations (generate -> train ->
// verify), one step per ending child run.
//
// A chain advances inside the transaction in which one of its children ends (a report that
// completes a generation run or decides a verification, the trainer's result of a training
// run), so a chain never loses or repeats a step across restarts: its state is its children's
// states. A child that is stopped (by a user, or a training run that fails) stops its chain,
// and stopping a chain stops its active child.
#pragma once

#include <cstdint>

#include "absl/status/statusor.h"
#include "coordinator/domain/run_kind.h"
#include "coordinator/domain/training_steps.h"

namespace sparring::coordinator {

// Checks a training spec against its base version and data runs and fills its defaults.
absl::StatusOr<TrainState> resolve_train(TrainStore& storage, const RunSpec& spec,
                                         const Version& base);

// Returns the version a training run's result makes on top of the version it started from:
// the base's preset with every parameter that differs from it overridden.
Version trained_version(const Version& base, const TrainState& train);

// Checks a chain spec (its generation, training and verification settings) and fills its
// defaults; the generation and training settings are recorded for the chain itself.
struct ChainSetup {
    ChainState chain;
    GenerateState generate;
    TrainState train;
};
absl::StatusOr<ChainSetup> resolve_chain(const RunSpec& spec, const Version& version);

// Records a chain run just inserted and returns the start of its first generation.
KindEffects start_chain(ChainStore& storage, ChainSetup setup, const Run& run);

// Returns how a chain moves on after one of its children ended: the next step starts, or the
// chain ends.
KindEffects advance_chain(ChainStore& storage, int64_t chain_run_id);

// Returns the end of the active children of a stopped chain.
KindEffects stop_chain_children(ChainStore& storage, const Run& chain);

// Fills a chain's generations with what their runs report (positions, loss, Elo, result).
void fill_chain_generations(ChainStore& storage, ChainState& chain);

// A training run's progress after an epoch (the first report also carries K, the initial
// loss and the set's size), written if the run is still active; false once it is not.
bool record_epoch(TrainStore& storage, const TrainState& progress, int epoch, double loss);

// Records a finished training's result and returns the run's end (the chain moves on);
// nothing if the run is no longer active.
KindEffects finish_training(TrainStore& storage, const TrainState& result, uint64_t bench);

// Returns the end of a training run that cannot train (no positions, bad data), with the
// reason; nothing if the run is no longer active.
KindEffects fail_training(TrainStore& storage, int64_t run_id, const std::string& why);

// The three above as the trainer's port, for the composition root to hand to the trainer.
const TrainingSteps& training_steps();

}  // namespace sparring::coordinator
